"""Weighted, damped least squares on a sparse matrix by LSQR, many right-hand sides at once.

:func:`lsqr` (``textsel.lsqr``) solves in memory by the C core's ``ts_lsqr_rowop`` on the matrix's
rows cut into groups that run on threads (``_row_groups``), or hands a Dask array to
``textsel.distributed``, which runs the same recurrences with u, b and the weights kept beside the
blocks on the workers; both check their arguments here (:func:`prepare`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import as_csr, check_lsqr_options
from ._dispatch import dispatched
from ._ext.ccore import Interrupt, lsqr_rowop
from ._parallel import effective_n_jobs
from ._row_groups import RowGroups

__all__ = ["LSQRResult", "lsqr"]


class LSQRResult(NamedTuple):
    """What :func:`lsqr` returns: scipy.sparse.linalg.lsqr's first nine fields, in its order.

    For a 1-D ``b`` the reports are scalars; for ``b`` of shape (m, K) each
    is an array of K values, one per column.
    """

    x: np.ndarray
    istop: int | np.ndarray
    itn: int | np.ndarray
    r1norm: float | np.ndarray
    r2norm: float | np.ndarray
    anorm: float | np.ndarray
    acond: float | np.ndarray
    arnorm: float | np.ndarray
    xnorm: float | np.ndarray


def lsqr(
    X,
    b,
    damp=0.0,
    row_weights=None,
    fit_intercept=False,
    atol=1e-6,
    btol=1e-6,
    conlim=1e8,
    iter_lim=None,
    n_jobs=None,
) -> LSQRResult:
    """Solve ``min ||D (A x - b)||^2 + damp^2 ||x||^2`` by LSQR, A = X or [X, 1].

    The LSQR of Paige & Saunders (1982) in C, with scipy's stopping tests,
    ``istop`` codes and reported estimates, run on the CSR buffers of ``X``:
    the row weights D and the intercept column are applied inside the
    matrix-vector loops, never by scaling or stacking a copy of ``X``.  With
    ``b`` of shape (m, K) the K problems (each with its own weights and damp)
    are solved together, one pass over ``X`` per iteration and eight columns
    still running, each stopping on its own tests.  The rows of ``X`` are cut
    into groups by its size alone (a power of two, up to 64, each group with
    at least 250,000 stored values), which run on threads without the GIL;
    their parts are added in one fixed order, so the answer is the same to the
    last bit whatever the number of threads, and a column's answer does not
    depend on the other columns solved with it.

    Parameters
    ----------
    X : {sparse matrix, array-like} of shape (m, n), or a Dask array of CSR row blocks
        float32 data is promoted to float64; int32 and int64 indices are used as they are.
        A Dask array (or a :class:`textsel.distributed.BlockMatrix`) is solved on the
        cluster by the same C solver: the blocks stay on the workers and only the vectors
        of each product travel (needs a dask.distributed Client).
    b : array-like of shape (m,) or (m, K)
    damp : float or array-like of shape (K,), default 0
        Regularisation, >= 0; the intercept is damped too (as in the proximal SVMs).
    row_weights : array-like of shape (m,) or (m, K), optional
        Non-negative D; shared by all columns when 1-D.
    fit_intercept : bool, default False
        Add a column of ones to X; its coefficient is the last entry of ``x``.
    atol, btol, conlim : float
        Stopping tolerances, as in scipy.sparse.linalg.lsqr.
    iter_lim : int, optional
        Iteration limit; default twice the number of unknowns.
    n_jobs : int, default=None
        The number of threads the groups of rows are dealt to (at most one a group). ``None`` or ``-1``
        means every core this process may use, within the limits of threadpoolctl's ``threadpool_limits``
        and ``OMP_NUM_THREADS`` (as for scikit-learn's OpenMP estimators, not joblib's ``None`` = 1; see
        "Threads: n_jobs" in the scaling page).  The result does not depend on it.

    Returns
    -------
    LSQRResult
        ``x`` of shape (n + fit_intercept,) or (n + fit_intercept, K), then
        ``istop, itn, r1norm, r2norm, anorm, acond, arnorm, xnorm``.

    Notes
    -----
    scipy's lsqr also returns ``var`` (only meaningful with ``calc_var``); it is not computed here.
    """

    def inputs(m):  # checked once the number of rows is known (a Dask array's may be unknown)
        return prepare(m, b, damp, row_weights, atol, btol, conlim, iter_lim)

    x, report = _solve(X, inputs, bool(fit_intercept), n_jobs)
    return result(x, report, np.ndim(b))


@dispatched("lsqr")
def _solve(X, inputs, fit_intercept: bool, n_jobs):
    """The solver's ``(x, report)`` for ``X`` in memory, ``inputs(m)`` the checked arguments."""
    X = as_csr(X, "X", check_structure=False, float64=True)  # each row group checks its rows, once
    m, n = X.shape
    B, damps, weights, tolerances, limit = inputs(m)
    interrupt = Interrupt()  # Ctrl-C stops the solve between two iterations
    K = B.shape[1]
    groups = RowGroups(X, B, weights, fit_intercept, effective_n_jobs(n_jobs))
    del B, weights  # the groups keep them laid out column by column, a copy where K > 1
    operator = groups.operator()  # the groups as one operator in C, on a team of threads
    try:
        return lsqr_rowop(operator, m, n, fit_intercept, K, damps, *tolerances, limit, interrupt)
    finally:
        operator.close()


def prepare(m, b, damp, row_weights, atol, btol, conlim, iter_lim):
    """Check lsqr's arguments for a matrix of ``m`` rows: ``(B, damps, weights, tolerances, limit)``
    with ``B`` (m, K), ``weights`` None or (m, K), ``limit`` -1 for the default."""
    B = _float_matrix(b, "b", m)
    K = B.shape[1]
    weights = None
    if row_weights is not None:
        weights = _float_matrix(row_weights, "row_weights", m)
        if weights.shape[1] not in (1, K):
            raise ValueError(f"row_weights has {weights.shape[1]} columns but b has {K}")
        if (weights < 0).any():
            raise ValueError("row_weights must be >= 0")
        if weights.shape[1] != K:
            weights = np.ascontiguousarray(np.broadcast_to(weights, (m, K)))
    return (B, *check_lsqr_options(K, damp, atol, btol, conlim, iter_lim, weights))


def result(x, report, b_ndim) -> LSQRResult:
    """The solver's ``x`` and report as an LSQRResult, scalars for a 1-D ``b``."""
    if b_ndim == 1:
        return LSQRResult(x[:, 0], *(v[0].item() for v in report.values()))
    return LSQRResult(x, *report.values())


def _float_matrix(value, name, m):
    arr = np.asarray(value)  # a Dask array (b or the weights of a distributed solve) is computed
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 1-D or 2-D, got shape {arr.shape}")
    if arr.shape[0] != m:
        raise ValueError(f"{name} has {arr.shape[0]} rows but X has {m}")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has no columns")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinity")
    return arr
