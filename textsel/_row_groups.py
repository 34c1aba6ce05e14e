"""LSQR's products split over groups of rows, the groups' parts added in one fixed order.

An iteration of LSQR on ``min ||D (A x - b)||`` needs u = D A v - alpha u, ||u|| and A'D u.  Each is
a sum over the rows of A, so a group of rows computes its own part of all three in one pass over
its stored values (``ts_rowgroup_step``) and the parts are added.  The groups are fixed by the
matrix alone (:func:`group_bounds`), never by the number of threads, and the parts are added by one
fixed tree over the groups (:func:`tree_reduce`), so the answer is the same to the last bit on one
thread or sixteen.  :class:`RowGroups` cuts a matrix in memory into its groups for the C solver
(:func:`textsel._ext.ccore.lsqr_rowop`), which runs them in C on a team of threads.

Imports numpy and textsel's kernels only, so that a Dask worker can run the same groups.
"""

from __future__ import annotations

import numpy as np

from ._ext.rowblocks import RowGroup

__all__ = [
    "LANES", "RowGroups", "add_norms", "group_bounds", "group_count", "lane_width",
    "tree_half", "tree_reduce",
]  # fmt: skip

#: right-hand sides taken together by the kernels: v and g travel in blocks of 8 lanes
LANES = 8

#: the most groups a matrix is cut into (the most threads a solve can use)
MAX_GROUPS = 64

#: a group holds at least this many stored values per unknown: each group writes and adds a
#: part of A'D u as long as the unknowns, which must stay small beside its pass over its values
NNZ_PER_UNKNOWN = 16

#: and at least this many stored values, below which a thread costs more than it saves
MIN_GROUP_NNZ = 250_000


def group_count(nnz: int, n_unknowns: int) -> int:
    """How many groups a matrix of ``nnz`` stored values and ``n_unknowns`` unknowns is cut into:
    a power of two (so that 2, 4, 8 or 16 threads share them evenly), at most :data:`MAX_GROUPS`,
    each group large enough to be worth a thread."""
    fit = min(nnz // max(NNZ_PER_UNKNOWN * n_unknowns, 1), nnz // MIN_GROUP_NNZ, MAX_GROUPS)
    return 1 << (int(fit).bit_length() - 1) if fit >= 1 else 1


def group_bounds(indptr: np.ndarray, n_groups: int) -> np.ndarray:
    """The first row of each of ``n_groups`` groups of consecutive rows with about as many stored
    values each, then the number of rows (``n_groups + 1`` increasing entries; a group may be empty
    when a few rows hold most values)."""
    m = indptr.size - 1
    targets = int(indptr[-1]) * np.arange(1, n_groups) // n_groups
    cuts = np.searchsorted(indptr, targets, side="left")
    return np.concatenate([[0], np.minimum(cuts, m), [m]]).astype(np.int64)


def tree_half(count: int) -> int:
    """How many of ``count`` (>= 2) parts the tree adds on the left: the largest power of two
    below ``count``."""
    return 1 << ((count - 1).bit_length() - 1)


def tree_reduce(parts: list, combine):
    """``parts`` added by one fixed binary tree: the first largest power of two below their number
    on the left, the rest on the right, recursively.  ``combine(a, b)`` adds b into a (returning
    it); the result is the same wherever each node is computed."""

    def node(a, b):
        if b - a == 1:
            return parts[a]
        half = tree_half(b - a)
        return combine(node(a, a + half), node(a + half, b))

    return node(0, len(parts))


def add_norms(a, b):
    """Two parts of a norm, each (scale, ssq) with ||.|| = scale sqrt(ssq), as one, as LAPACK's
    nrm2 combines them: no square of a value near the ends of the double range is ever formed."""
    (scale_a, ssq_a), (scale_b, ssq_b) = a, b
    scale = np.maximum(scale_a, scale_b)
    safe = np.where(scale > 0, scale, 1.0)
    return scale, ssq_a * (scale_a / safe) ** 2 + ssq_b * (scale_b / safe) ** 2


def lane_width(P: int) -> int:
    """The lanes of the kernels' blocks for ``P`` columns: 8, or 1 for one column alone (which
    then touches an eighth of the memory per stored value, for the same sums)."""
    return 1 if P == 1 else LANES


class RowGroups:
    """A CSR matrix in memory cut into :func:`group_bounds` groups for ``ts_lsqr_rowop``, each
    keeping its rows of b, of the row weights and of u; :meth:`operator` runs them in C on up to
    ``n_jobs`` threads, their parts added by the tree of :func:`tree_reduce`.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix
        float64 values (its structure and values are checked here, once).
    B : ndarray of shape (m, K)
        The right-hand sides, C-contiguous.
    weights : ndarray of shape (m, K) or None
        The row weights D, C-contiguous; None: all 1.
    fit_intercept : bool
    n_jobs : int
    """

    def __init__(self, X, B, weights, fit_intercept, n_jobs):
        m, n = X.shape
        # each right-hand side's rows contiguous: a lane block reads each of its 8 columns of b,
        # D and u as one stream (row-major, it would read whole rows of every column)
        self.B = np.ascontiguousarray(B.T)
        self.weights = None if weights is None else np.ascontiguousarray(weights.T)
        self.fit_intercept = bool(fit_intercept)
        self.n_cols, self.n_unknowns = n, n + self.fit_intercept
        self.uT = np.zeros(self.B.shape)
        bounds = group_bounds(X.indptr, group_count(X.nnz, self.n_unknowns))
        self.groups = []
        for a, b in zip(bounds[:-1], bounds[1:], strict=True):
            start, stop = X.indptr[a], X.indptr[b]
            self.groups.append(
                RowGroup(
                    X.data[start:stop], X.indices[start:stop], X.indptr[a : b + 1] - start, n,
                    self.fit_intercept, self.uT[:, a:b], None if weights is None else self.weights[:, a:b],
                )
            )  # fmt: skip
        self.n_jobs = n_jobs

    def operator(self):
        """What the C solver runs: the groups as one operator in C, its tasks on as many threads
        as a step has tasks for, up to ``n_jobs`` (no call into Python per iteration; the same sums
        on any number); ``close()`` it after the solve."""
        from ._ext.rowblocks import GroupsOperator

        n_tasks = len(self.groups) * -(-self.B.shape[0] // LANES)  # a step's most tasks at once
        return GroupsOperator(self.groups, self.B, self.weights, self.uT, self.n_cols, self.fit_intercept,
                              max(1, min(self.n_jobs, n_tasks)))  # fmt: skip
