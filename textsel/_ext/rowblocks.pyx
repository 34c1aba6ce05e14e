# cython: language_level=3
"""The step of a distributed solve's row operator on the row blocks one worker keeps
(``ts_rowblocks_step`` of csrc/rowblocks.c), without the GIL."""

import numpy as np

from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from .ccore cimport _Buffers, _fill_csr
from .core cimport TS_ERR_NOMEM, ts_row_block, ts_rowblocks_step
from .ccore import check_status


def _check_shape(a, rows, K, str what, j):
    if np.shape(a) != (rows, K):
        raise ValueError(f"{what} of block {j} has shape {np.shape(a)}, expected {(rows, K)}")


def rowblocks_step(list blocks, list u, weights, int64_t n_cols, bint fit_intercept, cols, v=None,
                   vcoef=None, ucoef=None):
    """For the columns ``cols`` of LSQR's u: u = vcoef D A v + ucoef u on every block (``v`` None:
    u as it is), then the blocks' ||u|| and A'D u, in one pass over each block's values.

    Parameters
    ----------
    blocks : list of scipy.sparse.csr_matrix
        The row blocks, float64 values, ``n_cols`` columns each.
    u : list of ndarray
        Each block's u, (rows, K) C-contiguous float64, updated in place.
    weights : list of ndarray or None
        Each block's row weights D, shaped as its u; None: all 1.
    n_cols : int
        Columns of X; A = [X, 1] when ``fit_intercept``.
    fit_intercept : bool
    cols : ndarray of int64
        The columns of u that run, distinct.
    v, vcoef, ucoef : ndarray or None
        v (n_cols + fit_intercept, len(cols)) and the coefficients, one per column of ``cols``.

    Returns
    -------
    scale, ssq : ndarray
        ||u[:, cols[p]]|| = scale[p] * sqrt(ssq[p]) (scale 1 unless the plain sum of squares left
        the double range).
    g : ndarray
        A'D u, (n_cols + fit_intercept, len(cols)).
    """
    cdef int64_t n_blocks = len(blocks), j, P, K, n1 = n_cols + (1 if fit_intercept else 0)
    cdef const int64_t[::1] colv = np.ascontiguousarray(cols, dtype=np.int64)
    cdef const double[:, ::1] vv
    cdef const double[::1] vc, uc
    cdef double[:, ::1] uj
    cdef const double[:, ::1] wj
    cdef const double *vptr = NULL
    cdef const double *vcptr = NULL
    cdef const double *ucptr = NULL
    cdef ts_row_block *rb
    cdef int status
    P = colv.shape[0]
    if len(u) != n_blocks or (weights is not None and len(weights) != n_blocks):
        raise ValueError(f"{n_blocks} blocks, {len(u)} u and {len(weights)} weights")
    K = u[0].shape[1] if n_blocks else P
    scale, ssq = np.empty(P), np.empty(P)
    g = np.zeros((n1, P))
    cdef double[::1] sv = scale, qv = ssq
    cdef double[:, ::1] gv = g
    if P == 0:
        return scale, ssq, g
    if v is not None:
        vv = v
        vc = np.ascontiguousarray(vcoef, dtype=np.float64)
        uc = np.ascontiguousarray(ucoef, dtype=np.float64)
        if vv.shape[0] != n1 or vv.shape[1] != P or vc.shape[0] != P or uc.shape[0] != P:
            raise ValueError(f"v {np.shape(v)}, vcoef {vc.shape[0]} and ucoef {uc.shape[0]} for "
                             f"{n1} unknowns and {P} columns")
        vptr, vcptr, ucptr = &vv[0, 0], &vc[0], &uc[0]
    keep = []
    rb = <ts_row_block *> malloc(max(n_blocks, 1) * sizeof(ts_row_block))
    if rb == NULL:
        check_status(TS_ERR_NOMEM, "rowblocks_step")
    try:
        for j in range(n_blocks):
            X = blocks[j]
            keep.append(_fill_csr(&rb[j].X, X.data, X.indices, X.indptr, X.shape[0], n_cols))
            _check_shape(u[j], X.shape[0], K, "u", j)
            uj = u[j]
            keep.append(u[j])
            rb[j].u = &uj[0, 0] if uj.shape[0] else NULL
            rb[j].weights = NULL
            if weights is not None and weights[j] is not None:
                _check_shape(weights[j], X.shape[0], K, "weights", j)
                wj = weights[j]
                keep.append(weights[j])
                rb[j].weights = &wj[0, 0] if wj.shape[0] else NULL
        with nogil:
            status = ts_rowblocks_step(rb, n_blocks, n_cols, fit_intercept, K, P, &colv[0], vptr, vcptr,
                                       ucptr, &sv[0], &qv[0], &gv[0, 0])
    finally:
        free(rb)
    check_status(status, "rowblocks_step")
    return scale, ssq, g
