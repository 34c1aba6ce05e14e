# Declarations of csrc/textsel.h, one to one.
from libc.stdint cimport int32_t, int64_t, uint64_t

cdef extern from "textsel.h" nogil:
    enum: TS_LANES

    enum ts_status:
        TS_OK
        TS_ERR_ARG
        TS_ERR_NOMEM
        TS_ERR_INDEX
        TS_ERR_NONFINITE
        TS_ERR_CALLBACK
        TS_ERR_INTERRUPTED
        TS_ERR_NEGATIVE
        TS_ERR_INDPTR

    ctypedef int (*ts_interrupt_check)(void *ctx)
    ctypedef double (*ts_certify)(void *ctx, const double *w, double radius)

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
        ts_interrupt_check interrupted
        void *interrupt_ctx

    ctypedef struct ts_lsqr_result:
        int istop
        int64_t itn
        double r1norm
        double r2norm
        double anorm
        double acond
        double arnorm
        double xnorm

    ctypedef struct ts_rowop:
        int64_t n_rows
        int64_t n_cols
        int fit_intercept
        int lanes
        int (*start)(void *ctx, int64_t n_vec, const int64_t *cols, const int *exps, double *maxabs,
                     double *unorm, double *g) noexcept
        int (*step)(void *ctx, int64_t n_vec, const int64_t *cols, const double *v, const double *vcoef,
                    const double *ucoef, double *unorm, double *g) noexcept
        void *ctx

    int ts_lsqr_rowop(const ts_rowop *A, int64_t n_rhs, const double *damp, const ts_lsqr_options *options,
                      double *x, ts_lsqr_result *result)
    ctypedef struct ts_row_block:
        ts_csr X
        const double *weights
        double *u
        int64_t col_stride

    int ts_rowgroup_step(const ts_row_block *B, int64_t n_cols, int fit_intercept, int64_t n_rhs,
                         int64_t n_vec, const int64_t *cols, const double *vb, const double *vcoef,
                         const double *ucoef, double *scale, double *ssq, double *gb)
    int ts_csr_matmat(const ts_csr *X, int64_t n_vec, const double *V, double *Y)
    int ts_csr_row_sumsq(const ts_csr *X, double *out, int64_t *mark, double *acc)
    int ts_csr_matmat_panels(const ts_csr *X, int64_t n_vec, const double *V, double *Y,
                             int64_t panel_cols, int64_t *cursor)
    int ts_csr_check(const ts_csr *X)
    void ts_debug_fail_alloc_at(int64_t k)

    enum ts_svm_loss:
        TS_HINGE
        TS_SQUARED_HINGE

    ctypedef struct ts_svm_options:
        int loss
        double C_pos
        double C_neg
        double tol
        int64_t max_iter
        int fit_intercept
        double intercept_scaling
        int shrinking
        uint64_t seed
        const double *weights
        int newton
        ts_interrupt_check interrupted
        void *interrupt_ctx
        ts_certify certify
        void *certify_ctx

    ctypedef struct ts_svm_result:
        int64_t n_iter
        int converged
        int certified

    int ts_dcd_svm(const ts_csr *X, const double *y, const ts_svm_options *options,
                   const double *alpha0, double *w, double *alpha, ts_svm_result *result)

    int ts_nested_svm(const ts_csr *train_t, const double *y, const ts_csr *test_t, const double *y_test,
                      const int64_t *order, int64_t n_order, int64_t n_ks, const int64_t *ks,
                      const ts_svm_options *options, double max_share, int certify, int64_t *confusion,
                      ts_svm_result *results)
    int ts_l2svm_newton(const ts_csr *X, const double *y, const ts_svm_options *options,
                        const double *alpha0, double *w, double *alpha, ts_svm_result *result)
