# cython: language_level=3
"""The C LSQR core behind textsel.lsqr: buffers in, solutions and reports out, GIL released."""

import numpy as np

from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc

from ._core cimport ts_csr, ts_lsqr, ts_lsqr_options, ts_lsqr_result
from ._errors import check_status


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
    cdef const int32_t[::1] ind32, ptr32
    cdef const int64_t[::1] ind64, ptr64
    cdef const double[:, ::1] weights
    cdef const double *wptr = NULL
    cdef ts_lsqr_result *res
    n_unknowns = n_cols + (1 if fit_intercept else 0)
    x = np.zeros((n_unknowns, K), dtype=np.float64)
    cdef double[:, ::1] xv = x
    X.n_rows = b.shape[0]
    X.n_cols = n_cols
    X.data = &data[0] if data.shape[0] else NULL
    X.indices32 = X.indptr32 = NULL
    X.indices64 = X.indptr64 = NULL
    if indices.dtype == np.int32:
        ind32 = indices
        ptr32 = indptr
        X.indices32 = &ind32[0] if ind32.shape[0] else <const int32_t *> &ptr32[0]
        X.indptr32 = &ptr32[0]
    else:
        ind64 = indices
        ptr64 = indptr
        X.indices64 = &ind64[0] if ind64.shape[0] else <const int64_t *> &ptr64[0]
        X.indptr64 = &ptr64[0]
    if X.data == NULL:
        X.data = <const double *> &xv[0, 0]  # no stored values: never read, but must not be NULL
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
