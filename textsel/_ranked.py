"""Top-k column subsets of a CSR matrix for every k of one ranking, without re-slicing per k.

Re-training on the top-k features for a sweep of k (the study harness, exact re-induction in
model masking) slices the same matrix again and again; scipy's fancy column indexing costs
about as much as the small SVM fits themselves.  Relabelling the columns by rank once (dropping
the unranked ones, sorting each row by rank) makes every top-k subset a prefix of each row.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ._ext.submatrix import group_sorted, prefix_columns, row_hashes, take_rows

__all__ = ["Rows", "distinct_rows", "prefix_rows", "rank_columns", "top_columns"]


class Rows(NamedTuple):
    """A CSR matrix as its three buffers, for loops that make thousands of small ones (the study
    makes one per fold, metric and k): building a scipy matrix checks its buffers each time,
    which costs as much as a small fit."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    n_cols: int

    @property
    def shape(self) -> tuple[int, int]:
        return (self.indptr.shape[0] - 1, self.n_cols)

    def take(self, rows) -> Rows:
        """The rows ``rows`` (int64 indices), in that order."""
        return Rows(*take_rows(self.data, self.indices, self.indptr, rows), self.n_cols)


def rank_columns(X, order) -> sp.csr_matrix:
    """``X[:, order]`` as canonical CSR: column j is the feature ranked j-th, rows sorted by rank.

    Parameters
    ----------
    X : scipy.sparse CSR or CSC matrix
        CSC is the fast input (a gather of whole columns); a caller ranking the same matrix
        several times should convert it once.
    order : 1-D array of distinct column indices, best first

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_rows, len(order))
    """
    order = np.asarray(order, dtype=np.intp)
    columns = X if X.format == "csc" else X.tocsc()
    # CSC to CSR visits the columns in order, so every row comes out sorted by rank; a column
    # stored twice in a row is summed (scipy's meaning), so row norms are those of the values
    R = sp.csr_matrix(columns[:, order].tocsr())
    R.sum_duplicates()
    return R


def top_columns(R, k) -> sp.csr_matrix:
    """The first ``k`` columns of a matrix from :func:`rank_columns` (a fresh CSR, same row order).

    Every row of ``R`` is sorted by rank, so its top-k entries are a prefix: the cost follows the
    values kept, however wide ``R`` is."""
    rows = prefix_rows(R, k)
    return sp.csr_matrix(rows[:3], shape=rows.shape)


def prefix_rows(R, k) -> Rows:
    """:func:`top_columns` as :class:`Rows`, without building a scipy matrix."""
    if not R.has_sorted_indices:
        raise ValueError("top_columns needs rows sorted by rank, as rank_columns returns them")
    k = min(int(k), R.shape[1])
    return Rows(*prefix_columns(R.data, R.indices, R.indptr, k), k)


def distinct_rows(X, codes, *, max_share=0.7):
    """Groups of identical documents with the same label, when there are few enough to pay.

    A linear SVM on documents that repeat is the same problem as on one copy of each with its C
    multiplied by its copies (``sample_weight``), and on a few dozen top-k Boolean terms most
    documents of a corpus repeat.  Rows are hashed, and rows of equal hash compared entry by
    entry (:mod:`textsel._submatrix`), so the grouping is exact.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix
    codes : 1-D array of non-negative integers (or bools), one label code per row
    max_share : float
        Return None when the groups would be more than this share of the rows.

    Returns
    -------
    (first, inverse, counts) or None
        ``X[first]`` are the distinct rows, ``inverse`` maps each row to its group and
        ``counts`` holds the group sizes.
    """
    m = X.shape[0]
    codes = np.asarray(codes, dtype=np.int64)
    if codes.shape != (m,) or (codes < 0).any():
        raise ValueError(f"codes must hold one non-negative integer per row ({m})")
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
