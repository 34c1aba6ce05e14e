"""Weighted, damped least squares on a sparse matrix by LSQR, many right-hand sides at once.

:func:`lsqr` (``textsel.lsqr``) solves in memory by the C core's ``ts_lsqr`` on the CSR buffers,
or hands a Dask array to ``textsel.distributed``, which runs the same recurrences
(``ts_lsqr_rowop``) with u, b and the weights kept beside the blocks on the workers; both check
their arguments here (:func:`prepare`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._checks import as_csr, check_lsqr_options
from ._dispatch import handler, is_distributed
from ._ext.ccore import Interrupt, lsqr_csr
from ._parallel import effective_n_threads, run_blocks

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
    n_threads=None,
) -> LSQRResult:
    """Solve ``min ||D (A x - b)||^2 + damp^2 ||x||^2`` by LSQR, A = X or [X, 1].

    The LSQR of Paige & Saunders (1982) in C, with scipy's stopping tests,
    ``istop`` codes and reported estimates, run on the CSR buffers of ``X``:
    the row weights D and the intercept column are applied inside the
    matrix-vector loops, never by scaling or stacking a copy of ``X``.  With
    ``b`` of shape (m, K) the K problems (each with its own weights and damp)
    are solved together, one pass over ``X`` per iteration for all columns
    still running, each stopping on its own tests.  The GIL is released.

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
    n_threads : int, optional
        The right-hand sides are dealt to this many threads (in groups of 8, the
        width of the C core's inner loops); None or -1 uses every available core.
        Each column's result does not depend on it.

    Returns
    -------
    LSQRResult
        ``x`` of shape (n + fit_intercept,) or (n + fit_intercept, K), then
        ``istop, itn, r1norm, r2norm, anorm, acond, arnorm, xnorm``.

    Notes
    -----
    scipy's lsqr also returns ``var`` (only meaningful with ``calc_var``); it is not computed here.
    """
    if is_distributed(X):
        # the cluster's solver checks the arguments once it knows the number of rows (a Dask
        # array's row chunks may be unknown until its blocks are persisted)
        def inputs(m):
            return prepare(m, b, damp, row_weights, atol, btol, conlim, iter_lim)

        x, report = handler("lsqr")(X, inputs, bool(fit_intercept))
        return result(x, report, np.ndim(b))
    # the C core checks every row pointer and column index itself (ts_csr_check)
    X = as_csr(X, "X", check_structure=False)
    m, n = X.shape
    B, damps, weights, tolerances, limit = prepare(m, b, damp, row_weights, atol, btol, conlim, iter_lim)
    K = B.shape[1]
    data = np.ascontiguousarray(X.data, dtype=np.float64)
    # whole blocks of 8 columns per thread: the core's inner loops are 8 columns wide
    blocks = np.arange(0, K, 8)
    n_groups = min(effective_n_threads(n_threads), blocks.size)
    bounds = [int(g[0]) for g in np.array_split(blocks, n_groups)] + [K]

    interrupt = Interrupt()  # Ctrl-C stops every thread's solve within one iteration

    def solve(start, stop):
        cols = slice(start, stop)
        return lsqr_csr(
            data, X.indices, X.indptr, n, bool(fit_intercept), np.ascontiguousarray(B[:, cols]),
            None if weights is None else np.ascontiguousarray(weights[:, cols]), damps[cols],
            *tolerances, limit, interrupt,
        )  # fmt: skip

    parts = run_blocks(solve, list(zip(bounds[:-1], bounds[1:], strict=True)), interrupt)
    x = np.hstack([part[0] for part in parts])
    report = {key: np.concatenate([part[1][key] for part in parts]) for key in parts[0][1]}
    return result(x, report, np.ndim(b))


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
