/* The C tests' small deterministic sparse problems: m x n CSR (both index widths), K right-hand
 * sides, row weights and damps. */
#ifndef TS_PROBLEM_H
#define TS_PROBLEM_H
#include "../../csrc/textsel.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* A small deterministic sparse problem: m x n CSR, K right-hand sides, weights and damps. */
typedef struct {
    int64_t m, n, K, nnz;
    double *data, *b, *wts, *damp;
    int32_t *ind32, *ptr32;
    int64_t *ind64, *ptr64;
} problem;

static uint64_t rng_state;
static inline double uniform(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static inline problem make_problem(int64_t m, int64_t n, int64_t K, double density, uint64_t seed)
{
    problem P;
    int64_t i, j, k = 0;
    rng_state = seed;
    P.m = m;
    P.n = n;
    P.K = K;
    P.data = malloc(sizeof(double) * (size_t)(m * n));
    P.ind32 = malloc(sizeof(int32_t) * (size_t)(m * n));
    P.ind64 = malloc(sizeof(int64_t) * (size_t)(m * n));
    P.ptr32 = malloc(sizeof(int32_t) * (size_t)(m + 1));
    P.ptr64 = malloc(sizeof(int64_t) * (size_t)(m + 1));
    P.ptr32[0] = 0;
    P.ptr64[0] = 0;
    for (i = 0; i < m; i++) {
        for (j = 0; j < n; j++)
            if (uniform() < density) {
                P.data[k] = uniform() * 2.0;
                P.ind32[k] = (int32_t)j;
                P.ind64[k] = j;
                k++;
            }
        P.ptr32[i + 1] = (int32_t)k;
        P.ptr64[i + 1] = k;
    }
    P.nnz = k;
    P.b = malloc(sizeof(double) * (size_t)(m * K));
    P.wts = malloc(sizeof(double) * (size_t)(m * K));
    P.damp = malloc(sizeof(double) * (size_t)K);
    for (i = 0; i < m * K; i++) {
        P.b[i] = uniform() * 2.0 - 1.0;
        P.wts[i] = 0.5 + uniform();
    }
    for (i = 0; i < K; i++)
        P.damp[i] = 0.1 * (double)i;
    return P;
}

static inline void free_problem(problem *P)
{
    free(P->data);
    free(P->ind32);
    free(P->ind64);
    free(P->ptr32);
    free(P->ptr64);
    free(P->b);
    free(P->wts);
    free(P->damp);
}

static inline ts_csr csr32(const problem *P)
{
    ts_csr X = {P->m, P->n, P->data, P->ind32, P->ptr32, NULL, NULL};
    return X;
}

static inline ts_csr csr64(const problem *P)
{
    ts_csr X = {P->m, P->n, P->data, NULL, NULL, P->ind64, P->ptr64};
    return X;
}

/* ||a - b|| / ||b|| over n entries taken with the given strides (||a - b|| where b is 0). */
static inline double rel_diff(const double *a, const double *b, int64_t n, int64_t stride_a, int64_t stride_b)
{
    double num = 0, den = 0;
    int64_t i;
    for (i = 0; i < n; i++) {
        double d = a[i * stride_a] - b[i * stride_b];
        num += d * d;
        den += b[i * stride_b] * b[i * stride_b];
    }
    return sqrt(num / (den > 0 ? den : 1));
}

static const ts_lsqr_options TIGHT = {1e-12, 1e-12, 1e12, -1, NULL, NULL};

/* The in-memory solve as textsel runs it on one thread: ts_lsqr_rowop on the row groups of
 * ts_row_groups, here the rows of X cut in two groups (three rows in the first, as small problems
 * still have; the cut changes no sum's order within a group).  b and w (NULL: all 1) are n_rows x
 * K row-major, as the problems hold them; X's structure is checked (ts_csr_check) as the Python
 * layer checks it once before any solve. */
static inline int lsqr_csr(const ts_csr *X, int fit_intercept, int64_t K, const double *b, const double *w,
                           const double *damp, const ts_lsqr_options *o, double *x, ts_lsqr_result *r)
{
    const int64_t m = X->n_rows, cut = m < 3 ? m : 3;
    double *bT = malloc(sizeof(double) * (size_t)(m * K + 1)), *wT = NULL;
    double *u = calloc((size_t)(m * K + 1), sizeof(double));
    ts_row_block groups[2];
    ts_row_groups G;
    ts_rowop A;
    int64_t i, k, c;
    int status = ts_csr_check(X);
    if (w != NULL)
        wT = malloc(sizeof(double) * (size_t)(m * K + 1));
    for (i = 0; i < m; i++)
        for (k = 0; b != NULL && k < K; k++) {
            bT[k * m + i] = b[i * K + k];
            if (wT)
                wT[k * m + i] = w[i * K + k];
        }
    for (c = 0; c < 2; c++) { /* rows [0, cut) and [cut, m), each a view of X */
        const int64_t a = c == 0 ? 0 : cut;
        ts_csr part = *X;
        part.n_rows = c == 0 ? cut : m - cut;
        if (X->indptr32)
            part.indptr32 = X->indptr32 + a;
        else
            part.indptr64 = X->indptr64 + a;
        groups[c].X = part;
        groups[c].weights = wT ? wT + a : NULL;
        groups[c].u = u + a;
        groups[c].col_stride = m;
    }
    if (status == TS_OK && b == NULL)
        status = TS_ERR_ARG;
    if (status == TS_OK)
        status = ts_row_groups_init(&G, groups, 2, m, X->n_cols, fit_intercept, K, bT, wT, u);
    if (status == TS_OK) {
        A = ts_row_groups_op(&G);
        status = ts_lsqr_rowop(&A, K, damp, o, x, r);
        ts_row_groups_free(&G);
    }
    free(bT);
    free(wT);
    free(u);
    return status;
}

/* ts_lsqr_rowop on A against the in-memory solve on X (lsqr_csr), both at TIGHT with the right-hand sides b (2^e times
 * P's), the row weights w (or NULL) and P's damps: how many right-hand sides stop differently or
 * have solutions 1e-9 or more apart, compared at P's own scale (squares of 2^700 overflow); -1
 * if either solve fails.  rr gets the row operator's reports (K entries). */
static inline int64_t rowop_mismatches(const problem *P, const ts_csr *X, int intercept, const double *b,
                                       const double *w, const ts_rowop *A, int e, ts_lsqr_result *rr)
{
    const int64_t n = P->n + intercept;
    double *x = calloc((size_t)(n * P->K), sizeof(double)), *xr = calloc((size_t)(n * P->K), sizeof(double));
    ts_lsqr_result *r = malloc(sizeof(ts_lsqr_result) * (size_t)P->K);
    int64_t i, k, bad = -1;
    if (lsqr_csr(X, intercept, P->K, b, w, P->damp, &TIGHT, x, r) == TS_OK &&
        ts_lsqr_rowop(A, P->K, P->damp, &TIGHT, xr, rr) == TS_OK) {
        bad = 0;
        for (i = 0; i < n * P->K; i++) {
            x[i] = ldexp(x[i], -e);
            xr[i] = ldexp(xr[i], -e);
        }
        for (k = 0; k < P->K; k++)
            bad += rr[k].istop != r[k].istop || !(rel_diff(xr + k, x + k, n, P->K, P->K) < 1e-9);
    }
    free(x);
    free(xr);
    free(r);
    return bad;
}

#endif
