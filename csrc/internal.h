/* Helpers shared by the C core's source files; not part of the public header. */
#ifndef TEXTSEL_INTERNAL_H
#define TEXTSEL_INTERNAL_H

#include "textsel.h"

#include <math.h>
#include <stddef.h>

/* Column index of the k-th stored entry, and row pointer i, whatever the index width. */
#define IDX(X, k) ((X)->indices32 ? (int64_t)(X)->indices32[k] : (X)->indices64[k])
#define PTR(X, i) ((X)->indptr32 ? (int64_t)(X)->indptr32[i] : (X)->indptr64[i])

/* The dense products' inner loops run along a row of the dense matrix; compiled once for the
 * x86-64 baseline (SSE2), they use 2 of the 4 or 8 doubles an AVX2 or AVX-512 unit takes.
 * GCC and Clang on x86-64 Linux build extra copies for those and pick one at load time;
 * elsewhere (MSVC, other CPUs) the plain build is used. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
#define TS_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TS_VECTOR_CLONES
#endif

/* STMT for each lane q = 0..TS_LANES-1, written out: straight-line code that compilers turn
 * into vector instructions where a loop over q was left scalar. */
#define TS_EACH_LANE(STMT)                                                                     \
    do {                                                                                       \
        { const int q = 0; STMT; } { const int q = 1; STMT; }                                 \
        { const int q = 2; STMT; } { const int q = 3; STMT; }                                 \
        { const int q = 4; STMT; } { const int q = 5; STMT; }                                 \
        { const int q = 6; STMT; } { const int q = 7; STMT; }                                 \
    } while (0)

/* calloc that refuses overflowing sizes and, in -DTS_TESTING builds, fails on request. */
void *ts_calloc(size_t n, size_t size);
/* realloc to n elements of `size` bytes, likewise (on failure p is left as it was). */
void *ts_realloc(void *p, size_t n, size_t size);

/* Nonzero if any stored value of X is NaN or infinite. */
int ts_csr_has_nonfinite(const ts_csr *X);

/* x_i'w over row i's stored values, plus the constant feature's share (w[n] times bias_value). */
static inline double ts_row_dot(const ts_csr *X, int64_t i, const double *w, double bias_value, int64_t n)
{
    int64_t k;
    double s = bias_value != 0 ? bias_value * w[n] : 0.0;
    for (k = PTR(X, i); k < PTR(X, i + 1); k++)
        s += X->data[k] * w[IDX(X, k)];
    return s;
}

/* w += d x_i (and the constant feature). */
static inline void ts_row_axpy(const ts_csr *X, int64_t i, double d, double *w, double bias_value, int64_t n)
{
    int64_t k;
    for (k = PTR(X, i); k < PTR(X, i + 1); k++)
        w[IDX(X, k)] += d * X->data[k];
    if (bias_value != 0)
        w[n] += d * bias_value;
}

/* w = sum_i y_i alpha_i x_i (with the constant feature when bias_value is not 0), from scratch. */
static inline void ts_rebuild_w(const ts_csr *X, const double *y, const double *alpha, double bias_value,
                                double *w)
{
    int64_t i, n = X->n_cols;
    for (i = 0; i < n + (bias_value != 0); i++)
        w[i] = 0.0;
    for (i = 0; i < X->n_rows; i++)
        if (alpha[i] != 0)
            ts_row_axpy(X, i, y[i] * alpha[i], w, bias_value, n);
}

/* TS_OK, or TS_ERR_NONFINITE when a weight or a multiplier left the double range: weights near its
 * end (C times a document's weight up to 1e308) can push them past it, and the SVM solvers report
 * that as an error, never as a non-finite model. */
static inline int ts_svm_finite(const double *w, int64_t n_w, const double *alpha, int64_t m)
{
    int64_t i;
    for (i = 0; i < n_w; i++)
        if (!isfinite(w[i]))
            return TS_ERR_NONFINITE;
    for (i = 0; i < m; i++)
        if (!isfinite(alpha[i]))
            return TS_ERR_NONFINITE;
    return TS_OK;
}

/* The SVM solvers' stopping test on the projected gradients seen (pg_max, pg_min: -inf and inf
 * when none was): their spread is at most tol, as in liblinear, and they come within tol of 0.
 * The spread alone also passes when every projected gradient is the same nonzero value: two
 * copies of one document with opposite labels, after coordinate descent's first exact steps,
 * stop there far from the optimum. */
static inline int ts_pg_converged(double pg_max, double pg_min, double tol)
{
    if (pg_max == -INFINITY)
        return 1; /* nothing seen: no gradient to test */
    return pg_max - pg_min <= tol && pg_max >= -tol && pg_min <= tol;
}

/* a'b over n entries. */
double ts_dot(const double *a, const double *b, int64_t n);

/* In place, the Cholesky factor L of the d x d row-major matrix H, read from and written to its
 * lower triangle; nonzero when H is not numerically positive definite. */
int ts_cholesky(double *H, int64_t d);

/* x = (L L')^{-1} b for L from ts_cholesky (its upper triangle is overwritten). */
void ts_cholesky_solve(double *L, int64_t d, const double *b, double *x);

/* The argument checks of ts_dcd_svm, shared by the SVM solvers: TS_OK or the status to return. */
int ts_svm_check_inputs(const ts_csr *X, const double *y, const ts_svm_options *o, const double *alpha0,
                        const double *w, const double *alpha, const ts_svm_result *r);

#endif
