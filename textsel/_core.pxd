# Declarations of csrc/textsel.h, one to one.
from libc.stdint cimport int32_t, int64_t

cdef extern from "textsel.h" nogil:
    enum ts_status:
        TS_OK
        TS_ERR_ARG
        TS_ERR_NOMEM
        TS_ERR_INDEX
        TS_ERR_NONFINITE

    ctypedef struct ts_csr:
        int64_t n_rows
        int64_t n_cols
        const double *data
        const int32_t *indices32
        const int32_t *indptr32
        const int64_t *indices64
        const int64_t *indptr64

    ctypedef struct ts_lsqr_options:
        double atol
        double btol
        double conlim
        int64_t iter_lim

    ctypedef struct ts_lsqr_result:
        int istop
        int64_t itn
        double r1norm
        double r2norm
        double anorm
        double acond
        double arnorm
        double xnorm

    int ts_lsqr(const ts_csr *X, int fit_intercept, int64_t n_rhs, const double *b,
                const double *row_weights, const double *damp, const ts_lsqr_options *options,
                double *x, ts_lsqr_result *result)
    int ts_csr_check(const ts_csr *X)
    void ts_debug_fail_alloc_at(int64_t k)
