"""Per-class document frequencies: the one pass over a corpus every filter metric needs.

:func:`term_stats` counts a matrix in memory, or hands a Dask array to ``textsel.distributed``;
the table it returns and the block counting it runs live in ``textsel._stats``.
"""

from __future__ import annotations

from ._dispatch import dispatched
from ._stats import BlockValueError, TermStats, count_blocks

__all__ = ["BlockValueError", "TermStats", "count_blocks", "term_stats"]


@dispatched("term_stats")
def term_stats(X, y, *, classes=None, n_jobs=None) -> TermStats:
    """Count, for every term, the documents containing it overall and per class.

    Two passes over the CSR buffers without the GIL: one validates them and
    counts overall document frequencies, one fills the class table class by
    class (blocks of classes on separate threads).  Cost O(nnz x labels per
    document); memory the (n_classes x n_terms) int64 output plus one int64
    per term and thread.  No densified copy of ``X`` and no dense documents x
    classes matrix is formed.

    Parameters
    ----------
    X : {sparse matrix, array-like} of shape (n_docs, n_terms), or a Dask array
        Document-term matrix of non-negative counts or weights.  A Dask array chunked
        along rows, each chunk a scipy.sparse matrix, is counted block by block on the
        workers that hold the blocks (``y`` then a numpy array or a Dask array chunked like
        ``X``'s rows); only the per-block tables travel.  A stored
        nonzero counts as presence (stored zeros do not); duplicate or unsorted
        column indices are handled without a copy.  CSR with float32/float64
        data and int32/int64 indices is read in place; other formats and dtypes
        are converted.
    y : array-like of shape (n_docs,), or (n_docs, n_classes) indicator
        Binary or multi-class labels, or a multi-label indicator matrix (dense
        or scipy.sparse).
    classes : array-like, optional
        Fix the class order.  Pass the same classes for every chunk of a corpus
        whose statistics will be added together.
    n_jobs : int, default=None
        The number of threads for the class pass.  ``None`` or ``-1`` means every core this process may
        use, within the limits of threadpoolctl's ``threadpool_limits`` and ``OMP_NUM_THREADS`` (as for
        scikit-learn's OpenMP estimators, not joblib's ``None`` = 1; see "Threads: n_jobs" in the scaling
        page). The result does not depend on it.  On a Dask array it has no say: each block is
        counted on one thread of the worker holding it, the workers being the parallelism.

    Returns
    -------
    TermStats

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = sp.csr_matrix(np.array([[1, 0, 2], [0, 1, 1], [3, 0, 0]]))
    >>> s = term_stats(X, ["a", "b", "a"])
    >>> s.class_df
    array([[2, 0, 1],
           [0, 1, 1]])
    >>> s.df
    array([2, 1, 2])
    """
    return count_blocks([X], y, classes=classes, n_jobs=n_jobs)
