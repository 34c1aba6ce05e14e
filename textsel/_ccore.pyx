# cython: language_level=3
"""Calls into the C core (csrc/): buffers in, results out, the GIL released around the work."""

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc

from ._core cimport (TS_HINGE, TS_SQUARED_HINGE, ts_csr, ts_dcd_svm, ts_lsqr, ts_lsqr_options,
                    ts_lsqr_result, ts_svm_options, ts_svm_result)
from ._errors import check_status


cdef class _Buffers:
    """Holds the typed views whose pointers a ts_csr borrows, for as long as it is used."""
    cdef const int32_t[::1] ind32, ptr32
    cdef const int64_t[::1] ind64, ptr64
    cdef const double[::1] data
    cdef double dummy


cdef _Buffers _fill_csr(ts_csr *X, const double[::1] data, indices, indptr, int64_t n_rows,
                        int64_t n_cols):
    """Point X at the CSR buffers (int32 or int64 indices, one dtype for both arrays)."""
    cdef _Buffers keep = _Buffers()
    keep.data = data
    X.n_rows = n_rows
    X.n_cols = n_cols
    # no stored values: never read, but the core wants valid pointers
    X.data = &keep.data[0] if data.shape[0] else &keep.dummy
    X.indices32 = X.indptr32 = NULL
    X.indices64 = X.indptr64 = NULL
    if indices.dtype == np.int32:
        keep.ind32 = indices
        keep.ptr32 = indptr
        X.indptr32 = &keep.ptr32[0]
        X.indices32 = &keep.ind32[0] if keep.ind32.shape[0] else X.indptr32
    else:
        keep.ind64 = indices
        keep.ptr64 = indptr
        X.indptr64 = &keep.ptr64[0]
        X.indices64 = &keep.ind64[0] if keep.ind64.shape[0] else X.indptr64
    return keep


def lsqr_csr(const double[::1] data, indices, indptr, int64_t n_cols, bint fit_intercept,
             const double[:, ::1] b, row_weights, const double[::1] damp,
             double atol, double btol, double conlim, int64_t iter_lim):
    """Run ts_lsqr on CSR buffers (int32 or int64 indices, one dtype for both arrays).

    ``b`` is (n_rows, K); ``row_weights`` None or (n_rows, K); ``damp`` (K,).
    Returns ``x`` ((n_cols + fit_intercept), K) and a dict of per-column arrays.
    """
    cdef ts_csr X
    cdef ts_lsqr_options options
    cdef int64_t K = b.shape[1], k
    cdef int status
    cdef const double[:, ::1] weights
    cdef const double *wptr = NULL
    cdef ts_lsqr_result *res
    n_unknowns = n_cols + (1 if fit_intercept else 0)
    x = np.zeros((n_unknowns, K), dtype=np.float64)
    cdef double[:, ::1] xv = x
    keep = _fill_csr(&X, data, indices, indptr, b.shape[0], n_cols)
    if row_weights is not None:
        weights = row_weights
        wptr = &weights[0, 0]
    options.atol = atol
    options.btol = btol
    options.conlim = conlim
    options.iter_lim = iter_lim
    res = <ts_lsqr_result *> malloc(K * sizeof(ts_lsqr_result))
    if res == NULL:
        raise MemoryError("lsqr: could not allocate the result records")
    try:
        with nogil:
            status = ts_lsqr(&X, fit_intercept, K, &b[0, 0], wptr, &damp[0], &options,
                             &xv[0, 0], res)
        check_status(status, "lsqr")
        report = {
            "istop": np.array([res[k].istop for k in range(K)], dtype=np.int64),
            "itn": np.array([res[k].itn for k in range(K)], dtype=np.int64),
            "r1norm": np.array([res[k].r1norm for k in range(K)]),
            "r2norm": np.array([res[k].r2norm for k in range(K)]),
            "anorm": np.array([res[k].anorm for k in range(K)]),
            "acond": np.array([res[k].acond for k in range(K)]),
            "arnorm": np.array([res[k].arnorm for k in range(K)]),
            "xnorm": np.array([res[k].xnorm for k in range(K)]),
        }
    finally:
        free(res)
    return x, report


def dcd_svm_csr(const double[::1] data, indices, indptr, int64_t n_cols, const double[::1] y,
                str loss, double C_pos, double C_neg, double tol, int64_t max_iter,
                bint fit_intercept, double intercept_scaling, bint shrinking, uint64_t seed,
                alpha0=None, weights=None, bint newton=True):
    """Run ts_dcd_svm on CSR buffers; y holds +1/-1.  Returns (w, alpha, n_iter, converged)."""
    cdef ts_csr X
    cdef ts_svm_options options
    cdef ts_svm_result result
    cdef int status
    cdef const double[::1] a0
    cdef const double *a0ptr = NULL
    cdef const double[::1] wts
    cdef int64_t m = y.shape[0]
    keep = _fill_csr(&X, data, indices, indptr, m, n_cols)
    w = np.zeros(n_cols + (1 if fit_intercept else 0), dtype=np.float64)
    alpha = np.zeros(max(m, 1), dtype=np.float64)
    cdef double[::1] wv = w
    cdef double[::1] av = alpha
    if alpha0 is not None:
        a0 = alpha0
        if a0.shape[0] != m:
            raise ValueError(f"alpha0 must hold one multiplier per document ({m}), got {a0.shape[0]}")
        if m:
            a0ptr = &a0[0]
    options.weights = NULL
    if weights is not None:
        wts = weights
        if wts.shape[0] != m:
            raise ValueError(f"sample_weight must hold one weight per document ({m}), got {wts.shape[0]}")
        if m:
            options.weights = &wts[0]
    options.newton = newton
    options.loss = TS_HINGE if loss == "hinge" else TS_SQUARED_HINGE
    options.C_pos = C_pos
    options.C_neg = C_neg
    options.tol = tol
    options.max_iter = max_iter
    options.fit_intercept = fit_intercept
    options.intercept_scaling = intercept_scaling
    options.shrinking = shrinking
    options.seed = seed
    with nogil:
        status = ts_dcd_svm(&X, &y[0], &options, a0ptr, &wv[0], &av[0], &result)
    check_status(status, "DualLinearSVC")
    return w, alpha[:m], result.n_iter, bool(result.converged)
