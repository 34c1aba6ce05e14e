"""Top-k column subsets of a CSR matrix for every k of one ranking, without re-slicing per k.

Re-training on the top-k features for a sweep of k (the study harness, exact re-induction in
model masking) slices the same matrix again and again; scipy's fancy column indexing costs
about as much as the small SVM fits themselves.  Relabelling the columns by rank once (dropping
the unranked ones) makes every top-k subset one comparison pass over the stored values.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._submatrix import group_sorted, row_hashes, select_columns

__all__ = ["distinct_rows", "rank_columns", "top_columns"]


def rank_columns(X, order) -> sp.csr_matrix:
    """``X[:, order]`` as CSR: column j is the feature ranked j-th.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix
    order : 1-D array of distinct column indices, best first

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_rows, len(order))
        Within a row the entries keep ``X``'s order (not sorted by rank).
    """
    order = np.asarray(order, dtype=np.intp)
    rank = np.full(X.shape[1], -1, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return _select(X, rank, order.size)


def top_columns(R, k) -> sp.csr_matrix:
    """The first ``k`` columns of a matrix from :func:`rank_columns` (a fresh CSR, same row order)."""
    keep = np.full(R.shape[1], -1, dtype=np.int64)
    keep[:k] = np.arange(min(k, R.shape[1]))
    return _select(R, keep, k)


def _select(X, new_index, n_cols):
    """The stored values of ``X`` in the columns ``new_index`` keeps (>= 0), moved there."""
    data = X.data if X.data.dtype in (np.float32, np.float64) else X.data.astype(np.float64)
    parts = select_columns(data, X.indices, X.indptr, new_index, n_cols)
    return sp.csr_matrix(parts, shape=(X.shape[0], n_cols))


def distinct_rows(X, labels, *, max_share=0.7):
    """Groups of identical documents with the same label, when there are few enough to pay.

    A linear SVM on documents that repeat is the same problem as on one copy of each with its C
    multiplied by its copies (``sample_weight``), and on a few dozen top-k Boolean terms most
    documents of a corpus repeat.  Rows are hashed, and rows of equal hash compared entry by
    entry (:mod:`textsel._submatrix`), so the grouping is exact.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix
    labels : 1-D array, one per row
    max_share : float
        Return None when the groups would be more than this share of the rows.

    Returns
    -------
    (first, inverse, counts) or None
        ``X[first]`` are the distinct rows, ``inverse`` maps each row to its group and
        ``counts`` holds the group sizes.
    """
    m = X.shape[0]
    codes = np.unique(np.asarray(labels), return_inverse=True)[1].ravel().astype(np.int64)
    data = np.ascontiguousarray(X.data, dtype=np.float64)
    hashes = row_hashes(data, X.indices, X.indptr, codes)
    order = np.argsort(hashes)
    # every distinct hash is at least one group: a cheap bound before any comparison
    if m and 1 + np.count_nonzero(np.diff(hashes[order])) > max_share * m:
        return None
    inverse, first = group_sorted(data, X.indices, X.indptr, codes, hashes, order, X.shape[1])
    if first.size > max_share * m:
        return None
    return first, inverse, np.bincount(inverse, minlength=first.size)
