"""Top-k column subsets of a CSR matrix for every k of one ranking, without re-slicing per k.

Re-training on the top-k features for a sweep of k (exact re-induction in model masking, the
study harness with a user's estimator) slices the same matrix again and again; scipy's fancy
column indexing costs about as much as small SVM fits.  Relabelling the columns by rank once
(dropping the unranked ones, sorting each row by rank) makes every top-k subset a prefix of each
row.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._ext.submatrix import prefix_columns

__all__ = ["rank_columns", "top_columns"]


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
    if not R.has_sorted_indices:
        raise ValueError("top_columns needs rows sorted by rank, as rank_columns returns them")
    k = min(int(k), R.shape[1])
    return sp.csr_matrix(prefix_columns(R.data, R.indices, R.indptr, k), shape=(R.shape[0], k))
