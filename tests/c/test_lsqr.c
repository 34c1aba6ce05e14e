/* C unit tests of csrc/lsqr.c, on the in-memory row groups (lsqr_csr, problem.h) and on a row
 * operator written here; built and run under ASan and UBSan by tests/test_c_core.py. */
#include "../../csrc/textsel.h"
#include "harness.h"
#include "problem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Solves (A'D^2 A + damp^2 I) x = A'D^2 b by dense Cholesky, A = [X, 1] if intercept. */
static void normal_equations(const problem *P, int intercept, int64_t col, int weighted, double *x)
{
    const int64_t n = P->n + intercept;
    double *G = calloc((size_t)(n * n), sizeof(double));
    double *r = calloc((size_t)n, sizeof(double));
    double *row = calloc((size_t)n, sizeof(double));
    int64_t i, j, k, q;
    for (i = 0; i < P->m; i++) {
        double d = weighted ? P->wts[i * P->K + col] : 1.0;
        memset(row, 0, sizeof(double) * (size_t)n);
        for (k = P->ptr64[i]; k < P->ptr64[i + 1]; k++)
            row[P->ind64[k]] = P->data[k];
        if (intercept)
            row[n - 1] = 1.0;
        for (j = 0; j < n; j++) {
            r[j] += d * d * row[j] * P->b[i * P->K + col];
            for (q = 0; q < n; q++)
                G[j * n + q] += d * d * row[j] * row[q];
        }
    }
    for (j = 0; j < n; j++)
        G[j * n + j] += P->damp[col] * P->damp[col];
    for (j = 0; j < n; j++) { /* Cholesky G = L L' in place (lower) */
        for (q = 0; q < j; q++)
            G[j * n + j] -= G[j * n + q] * G[j * n + q];
        G[j * n + j] = sqrt(G[j * n + j]);
        for (i = j + 1; i < n; i++) {
            for (q = 0; q < j; q++)
                G[i * n + j] -= G[i * n + q] * G[j * n + q];
            G[i * n + j] /= G[j * n + j];
        }
    }
    for (j = 0; j < n; j++) { /* L y = r */
        for (q = 0; q < j; q++)
            r[j] -= G[j * n + q] * r[q];
        r[j] /= G[j * n + j];
    }
    for (j = n - 1; j >= 0; j--) { /* L' x = y */
        for (q = j + 1; q < n; q++)
            r[j] -= G[q * n + j] * r[q];
        r[j] /= G[j * n + j];
    }
    memcpy(x, r, sizeof(double) * (size_t)n);
    free(G);
    free(r);
    free(row);
}

/* The solution of every variant (plain, damped, weighted, intercept) solves its normal equations. */
static void test_solutions_match_normal_equations(void)
{
    problem P = make_problem(60, 12, 4, 0.35, 1);
    ts_csr X = csr32(&P);
    int intercept, weighted;
    for (intercept = 0; intercept <= 1; intercept++)
        for (weighted = 0; weighted <= 1; weighted++) {
            const int64_t n = P.n + intercept;
            double *x = calloc((size_t)(n * P.K), sizeof(double));
            double *ref = calloc((size_t)n, sizeof(double));
            ts_lsqr_result res[4];
            int64_t k;
            CHECK(lsqr_csr(&X, intercept, P.K, P.b, weighted ? P.wts : NULL, P.damp, &TIGHT, x, res) == TS_OK);
            for (k = 0; k < P.K; k++) {
                normal_equations(&P, intercept, k, weighted, ref);
                CHECK(rel_diff(x + k, ref, n, P.K, 1) < 1e-9);
                CHECK(res[k].istop >= 1 && res[k].istop <= 3);
                CHECK(res[k].itn > 0 && res[k].itn <= 2 * n);
            }
            free(x);
            free(ref);
        }
    free_problem(&P);
}

/* Solving K right-hand sides together gives bit for bit what solving each alone gives. */
static void test_batched_equals_column_by_column(void)
{
    problem P = make_problem(50, 20, 5, 0.3, 2);
    ts_csr X = csr32(&P);
    const int64_t n = P.n + 1;
    double *x = calloc((size_t)(n * P.K), sizeof(double));
    double *b1 = malloc(sizeof(double) * (size_t)P.m), *w1 = malloc(sizeof(double) * (size_t)P.m);
    double x1[21];
    ts_lsqr_result res[5], r1;
    int64_t i, k;
    P.b[3 * P.K + 2] = 40.0; /* make the right-hand sides converge after different counts */
    CHECK(lsqr_csr(&X, 1, P.K, P.b, P.wts, P.damp, &TIGHT, x, res) == TS_OK);
    for (k = 0; k < P.K; k++) {
        for (i = 0; i < P.m; i++) {
            b1[i] = P.b[i * P.K + k];
            w1[i] = P.wts[i * P.K + k];
        }
        CHECK(lsqr_csr(&X, 1, 1, b1, w1, &P.damp[k], &TIGHT, x1, &r1) == TS_OK);
        CHECK(r1.istop == res[k].istop && r1.itn == res[k].itn);
        CHECK(r1.r1norm == res[k].r1norm && r1.anorm == res[k].anorm && r1.xnorm == res[k].xnorm);
        for (i = 0; i < n; i++)
            CHECK(x1[i] == x[i * P.K + k]);
    }
    free(x);
    free(b1);
    free(w1);
    free_problem(&P);
}

/* int64 indices give the same answer as int32. */
static void test_int64_indices(void)
{
    problem P = make_problem(30, 10, 2, 0.4, 3);
    ts_csr X32 = csr32(&P), X64 = csr64(&P);
    double x32[20], x64[20];
    ts_lsqr_result r32[2], r64[2];
    int64_t i;
    CHECK(lsqr_csr(&X32, 0, 2, P.b, NULL, P.damp, &TIGHT, x32, r32) == TS_OK);
    CHECK(lsqr_csr(&X64, 0, 2, P.b, NULL, P.damp, &TIGHT, x64, r64) == TS_OK);
    for (i = 0; i < 20; i++)
        CHECK(x32[i] == x64[i]);
    CHECK(r32[0].itn == r64[0].itn && r32[1].istop == r64[1].istop);
    free_problem(&P);
}

/* b = 0 is solved exactly by x = 0 without iterating (istop 0); iter_lim caps the count (istop 7). */
static void test_zero_rhs_and_iteration_limit(void)
{
    problem P = make_problem(40, 15, 2, 0.3, 4);
    ts_csr X = csr32(&P);
    double x[30];
    ts_lsqr_result res[2];
    ts_lsqr_options capped = {1e-12, 1e-12, 1e12, 3, NULL, NULL};
    ts_lsqr_options none = {1e-12, 1e-12, 1e12, 0, NULL, NULL};
    int64_t i;
    for (i = 0; i < P.m; i++)
        P.b[i * 2] = 0.0;
    CHECK(lsqr_csr(&X, 0, 2, P.b, NULL, P.damp, &capped, x, res) == TS_OK);
    CHECK(res[0].istop == 0 && res[0].itn == 0);
    for (i = 0; i < P.n; i++)
        CHECK(x[i * 2] == 0.0);
    CHECK(res[1].istop == 7 && res[1].itn == 3);
    CHECK(lsqr_csr(&X, 0, 2, P.b, NULL, P.damp, &none, x, res) == TS_OK);
    CHECK(res[1].istop == 0 && res[1].itn == 0);
    free_problem(&P);
}

/* An interrupt check that says stop on its k-th call (never for k = 0), counting its calls. */
typedef struct {
    int64_t calls, stop_at;
} interrupt_counter;

static int stop_on_kth_call(void *ctx)
{
    interrupt_counter *c = ctx;
    return ++c->calls == c->stop_at;
}

/* A check that asks to stop before the k-th iteration stops the solver there with
 * TS_ERR_INTERRUPTED, for every k, and nothing leaks (LeakSanitizer); one that never does
 * leaves the solve as it was, called once per iteration. */
static void test_interrupt_check(void)
{
    problem P = make_problem(40, 12, 2, 0.4, 9);
    ts_csr X = csr32(&P);
    double x[26], damp[2] = {0.1, 0.1};
    ts_lsqr_result r[2];
    ts_lsqr_options o = TIGHT;
    interrupt_counter counter = {0, 0};
    int64_t k;
    o.interrupted = stop_on_kth_call;
    o.interrupt_ctx = &counter;
    CHECK(lsqr_csr(&X, 1, 2, P.b, NULL, damp, &o, x, r) == TS_OK);
    CHECK(counter.calls >= r[0].itn && counter.calls >= r[1].itn && counter.calls > 1);
    for (k = 1; k <= counter.calls; k++) {
        interrupt_counter c = {0, k};
        o.interrupt_ctx = &c;
        CHECK(lsqr_csr(&X, 1, 2, P.b, NULL, damp, &o, x, r) == TS_ERR_INTERRUPTED);
        CHECK(c.calls == k);
    }
    free_problem(&P);
}

/* Every invalid input is a status code. */
static void test_bad_input(void)
{
    problem P = make_problem(20, 8, 1, 0.5, 5);
    ts_csr X = csr32(&P);
    double x[9];
    ts_lsqr_result r;
    double d0 = 0.0, dneg = -1.0, dnan = NAN;
    ts_lsqr_options badtol = {-1, 1e-6, 1e8, -1, NULL, NULL};
    int32_t saved;
    CHECK(lsqr_csr(&X, 0, 1, P.b, NULL, &dneg, &TIGHT, x, &r) == TS_ERR_ARG);
    CHECK(lsqr_csr(&X, 0, 1, P.b, NULL, &dnan, &TIGHT, x, &r) == TS_ERR_NONFINITE);
    CHECK(lsqr_csr(&X, 0, 1, P.b, NULL, &d0, &badtol, x, &r) == TS_ERR_ARG);
    CHECK(lsqr_csr(&X, 0, 0, P.b, NULL, &d0, &TIGHT, x, &r) == TS_ERR_ARG);
    CHECK(lsqr_csr(&X, 0, 1, P.b, NULL, &d0, &TIGHT, NULL, &r) == TS_ERR_ARG);
    CHECK(lsqr_csr(&X, 0, 1, P.b, NULL, &d0, &TIGHT, x, NULL) == TS_ERR_ARG);
    /* what is not finite in b, the weights or X shows in the operator's norms and products */
    P.wts[3] = INFINITY;
    CHECK(lsqr_csr(&X, 0, 1, P.b, P.wts, &d0, &TIGHT, x, &r) == TS_ERR_NONFINITE);
    P.b[2] = NAN;
    CHECK(lsqr_csr(&X, 0, 1, P.b, NULL, &d0, &TIGHT, x, &r) == TS_ERR_NONFINITE);
    P.b[2] = 0.0;
    P.data[0] = INFINITY;
    CHECK(lsqr_csr(&X, 0, 1, P.b, NULL, &d0, &TIGHT, x, &r) == TS_ERR_NONFINITE);
    P.data[0] = 1.0;
    saved = P.ind32[1];
    P.ind32[1] = 99;
    CHECK(lsqr_csr(&X, 0, 1, P.b, NULL, &d0, &TIGHT, x, &r) == TS_ERR_INDEX);
    P.ind32[1] = -1;
    CHECK(ts_csr_check(&X) == TS_ERR_INDEX);
    P.ind32[1] = saved;
    P.ptr32[5] = P.ptr32[4] - 1;
    CHECK(ts_csr_check(&X) == TS_ERR_INDEX);
    X.indices64 = P.ind64; /* both index widths set */
    CHECK(ts_csr_check(&X) == TS_ERR_ARG);
    free_problem(&P);
}

/* Make the k-th allocation fail for every k: always TS_ERR_NOMEM, never a leak (LeakSanitizer). */
static void test_every_allocation_failure(void)
{
    problem P = make_problem(25, 9, 3, 0.4, 6);
    ts_csr X = csr32(&P);
    double x[30];
    ts_lsqr_result r[3];
    int64_t k, failures = 0;
    for (k = 1; k <= 20; k++) {
        int status;
        ts_debug_fail_alloc_at(k);
        status = lsqr_csr(&X, 1, 3, P.b, P.wts, P.damp, &TIGHT, x, r);
        if (status == TS_ERR_NOMEM)
            failures++;
        else
            CHECK(status == TS_OK);
    }
    ts_debug_fail_alloc_at(0);
    CHECK(failures == 11); /* the row groups' scratch, then the solver's ten (no copy of v: lanes) */
    free_problem(&P);
}

/* The block kernel equals the dense product computed by hand, for both index widths. */
static void test_csr_matmat_against_dense(void)
{
    problem P = make_problem(17, 11, 3, 0.4, 7);
    ts_csr X32 = csr32(&P), X64 = csr64(&P);
    double V[33], Y[51], Yref[51] = {0};
    int64_t i, j, k, q;
    for (i = 0; i < 33; i++)
        V[i] = uniform() - 0.5;
    for (i = 0; i < P.m; i++)
        for (k = P.ptr64[i]; k < P.ptr64[i + 1]; k++)
            for (q = 0; q < 3; q++) {
                j = P.ind64[k];
                Yref[i * 3 + q] += P.data[k] * V[j * 3 + q];
            }
    CHECK(ts_csr_matmat(&X32, 3, V, Y) == TS_OK);
    CHECK(rel_diff(Y, Yref, 51, 1, 1) < 1e-15);
    CHECK(ts_csr_matmat(&X64, 3, V, Y) == TS_OK);
    CHECK(rel_diff(Y, Yref, 51, 1, 1) < 1e-15);
    CHECK(ts_csr_matmat(&X32, 0, V, Y) == TS_ERR_ARG);
    P.ind32[2] = 11;
    CHECK(ts_csr_matmat(&X32, 3, V, Y) == TS_ERR_INDEX);
    free_problem(&P);
}

/* Row sums of squares: a repeated column's values added before squaring (row 0 holds column 1
 * twice, row 1 nothing), both index widths; a column out of range is TS_ERR_INDEX. */
static void test_csr_row_sumsq(void)
{
    const double data[5] = {1.0, 2.0, 3.0, -4.0, 0.5};
    const int32_t ind32[5] = {1, 0, 1, 2, 2}, ptr32[4] = {0, 3, 3, 5};
    int32_t bad32[5] = {1, 0, 1, 2, 3};
    const int64_t ind64[5] = {1, 0, 1, 2, 2}, ptr64[4] = {0, 3, 3, 5};
    ts_csr X = {3, 3, data, ind32, ptr32, NULL, NULL};
    int64_t mark[3];
    double acc[3], out[3];
    CHECK(ts_csr_row_sumsq(&X, out, mark, acc) == TS_OK);
    CHECK(out[0] == 4.0 * 4.0 + 2.0 * 2.0 && out[1] == 0.0 && out[2] == 3.5 * 3.5);
    X.indices32 = NULL;
    X.indptr32 = NULL;
    X.indices64 = ind64;
    X.indptr64 = ptr64;
    CHECK(ts_csr_row_sumsq(&X, out, mark, acc) == TS_OK);
    CHECK(out[0] == 20.0 && out[1] == 0.0 && out[2] == 12.25);
    CHECK(ts_csr_row_sumsq(&X, out, NULL, acc) == TS_ERR_ARG);
    X.indices64 = NULL;
    X.indptr64 = NULL;
    X.indices32 = bad32;
    X.indptr32 = ptr32;
    CHECK(ts_csr_row_sumsq(&X, out, mark, acc) == TS_ERR_INDEX);
}

/* The panel walk at every width, int32 and int64 indices, equal bit for bit to Yref. */
static void check_panels(const ts_csr *X32, const ts_csr *X64, const double *V, const double *Yref)
{
    int64_t cursor[17], widths[] = {1, 2, 4, 11, 100}, w;
    double Y[51];
    for (w = 0; w < 5; w++) {
        CHECK(ts_csr_matmat_panels(X32, 3, V, Y, widths[w], cursor) == TS_OK);
        CHECK(memcmp(Y, Yref, sizeof Y) == 0);
        CHECK(ts_csr_matmat_panels(X64, 3, V, Y, widths[w], cursor) == TS_OK);
        CHECK(memcmp(Y, Yref, sizeof Y) == 0);
    }
}

/* Panels sum each row's entries in the same order as the plain product: equal bit for bit at
 * every panel width, with ascending indices and with a row whose indices do not ascend. */
static void test_csr_matmat_panels(void)
{
    problem P = make_problem(17, 11, 3, 0.4, 8);
    ts_csr X32 = csr32(&P), X64 = csr64(&P);
    double V[33], Y[51], Yref[51];
    int64_t cursor[17];
    int64_t i, row = -1;
    for (i = 0; i < 33; i++)
        V[i] = uniform() - 0.5;
    CHECK(ts_csr_matmat(&X32, 3, V, Yref) == TS_OK);
    check_panels(&X32, &X64, V, Yref);
    CHECK(ts_csr_matmat_panels(&X32, 3, V, Y, 0, cursor) == TS_ERR_ARG);
    CHECK(ts_csr_matmat_panels(&X32, 3, V, Y, 4, NULL) == TS_ERR_ARG);
    for (i = 0; i < P.m && row < 0; i++)
        if (P.ptr64[i + 1] - P.ptr64[i] >= 2)
            row = i;
    CHECK(row >= 0);
    i = P.ptr64[row];
    {
        int32_t t32 = P.ind32[i];
        int64_t t64 = P.ind64[i];
        P.ind32[i] = P.ind32[i + 1], P.ind32[i + 1] = t32;
        P.ind64[i] = P.ind64[i + 1], P.ind64[i + 1] = t64;
    }
    CHECK(ts_csr_matmat(&X32, 3, V, Yref) == TS_OK);
    check_panels(&X32, &X64, V, Yref);
    free_problem(&P);
}

/* b near the ends of the double range: solved as a power-of-two rescaling of b, so x, the
 * iterations and the norms are exactly those of the unscaled problem scaled back; and a matrix
 * whose solution would leave the double range gives TS_ERR_NONFINITE, never a non-finite x. */
static void test_extreme_scales(void)
{
    problem P = make_problem(40, 12, 3, 0.4, 11);
    ts_csr X = csr32(&P);
    const int64_t n = P.n + 1;
    const int exps[2] = {700, -700};
    double *x0 = calloc((size_t)(n * P.K), sizeof(double)), *x = calloc((size_t)(n * P.K), sizeof(double));
    double *b = malloc(sizeof(double) * (size_t)(P.m * P.K));
    ts_lsqr_result r0[3], r[3];
    int64_t i, k, e;
    CHECK(lsqr_csr(&X, 1, P.K, P.b, P.wts, P.damp, &TIGHT, x0, r0) == TS_OK);
    for (e = 0; e < 2; e++) {
        for (i = 0; i < P.m * P.K; i++)
            b[i] = ldexp(P.b[i], exps[e]);
        CHECK(lsqr_csr(&X, 1, P.K, b, P.wts, P.damp, &TIGHT, x, r) == TS_OK);
        for (k = 0; k < P.K; k++) {
            CHECK(r[k].itn == r0[k].itn && r[k].istop == r0[k].istop);
            CHECK(r[k].r1norm == ldexp(r0[k].r1norm, exps[e]));
            CHECK(r[k].xnorm == ldexp(r0[k].xnorm, exps[e]));
            CHECK(r[k].anorm == r0[k].anorm);
        }
        for (i = 0; i < n * P.K; i++)
            CHECK(x[i] == ldexp(x0[i], exps[e]));
    }
    /* a matrix of 2^-1000-sized values: x would be about 2^1000 */
    for (i = 0; i < P.nnz; i++)
        P.data[i] = ldexp(P.data[i], -1000);
    {
        int status = lsqr_csr(&X, 0, P.K, P.b, NULL, P.damp, &TIGHT, x, r);
        CHECK(status == TS_OK || status == TS_ERR_NONFINITE);
        if (status == TS_OK)
            for (i = 0; i < P.n * P.K; i++)
                CHECK(isfinite(x[i]));
    }
    free(x0);
    free(x);
    free(b);
    free_problem(&P);
}

/* A row operator over one CSR matrix, as the Dask one runs over row blocks: u, b and the
 * weights kept here (u by column of the problem), the rows in two blocks whose norms combine
 * as (scale, sum of scaled squares) pairs; fail_at > 0 makes that call fail, nan_at poisons it. */
typedef struct {
    ts_csr X;
    const double *b, *wts;
    int64_t K;
    int fit_intercept;
    double *u, *tmp, *du;
    int calls, fail_at, nan_at;
} row_context;

static double rc_weight(const row_context *c, int64_t i, int64_t col)
{
    return c->wts ? c->wts[i * c->K + col] : 1.0;
}

/* ||u[:, col]|| over rows [lo, hi) as (scale, ssq), combined into (*scale, *ssq). */
static void rc_norm_part(const row_context *c, int64_t lo, int64_t hi, int64_t col, double *scale,
                         double *ssq)
{
    int64_t i;
    double big = 0, sum = 0;
    for (i = lo; i < hi; i++)
        big = fmax(big, fabs(c->u[i * c->K + col]));
    if (big > 0)
        for (i = lo; i < hi; i++) {
            const double t = c->u[i * c->K + col] / big;
            sum += t * t;
        }
    if (big > *scale) {
        *ssq = sum + *ssq * (*scale / big) * (*scale / big);
        *scale = big;
    } else if (big > 0) {
        *ssq += sum * (big / *scale) * (big / *scale);
    }
}

/* unorm and g = A'D u for the columns cols[0..P). */
static int rc_finish(row_context *c, int64_t P, const int64_t *cols, double *unorm, double *g)
{
    const int64_t m = c->X.n_rows, nx = c->X.n_cols;
    int64_t i, p;
    for (p = 0; p < P; p++) {
        double scale = 0, ssq = 0;
        rc_norm_part(c, 0, m / 2, cols[p], &scale, &ssq);
        rc_norm_part(c, m / 2, m, cols[p], &scale, &ssq);
        unorm[p] = scale * sqrt(ssq);
    }
    for (i = 0; i < m; i++)
        for (p = 0; p < P; p++)
            c->du[i * P + p] = rc_weight(c, i, cols[p]) * c->u[i * c->K + cols[p]];
    memset(g, 0, sizeof(double) * (size_t)((nx + c->fit_intercept) * P));
    for (i = 0; i < m; i++) { /* g = X' du, by hand */
        const int64_t from = c->X.indptr64 ? c->X.indptr64[i] : c->X.indptr32[i];
        const int64_t to = c->X.indptr64 ? c->X.indptr64[i + 1] : c->X.indptr32[i + 1];
        int64_t k;
        for (k = from; k < to; k++) {
            const int64_t j = c->X.indices64 ? c->X.indices64[k] : c->X.indices32[k];
            for (p = 0; p < P; p++)
                g[j * P + p] += c->X.data[k] * c->du[i * P + p];
        }
    }
    if (c->fit_intercept)
        for (i = 0; i < m; i++)
            for (p = 0; p < P; p++)
                g[nx * P + p] += c->du[i * P + p];
    if (c->calls == c->nan_at)
        g[0] = NAN;
    return TS_OK;
}

static int rc_start(void *ctx, int64_t P, const int64_t *cols, const int *exps, double *maxabs,
                    double *unorm, double *g)
{
    row_context *c = ctx;
    const int64_t m = c->X.n_rows;
    int64_t i, p;
    if (++c->calls == c->fail_at)
        return 3; /* a positive status is a failure too */
    if (exps == NULL) {
        for (p = 0; p < P; p++) {
            maxabs[p] = 0;
            for (i = 0; i < m; i++)
                maxabs[p] = fmax(maxabs[p], fabs(rc_weight(c, i, cols[p]) * c->b[i * c->K + cols[p]]));
        }
        return TS_OK;
    }
    for (i = 0; i < m; i++)
        for (p = 0; p < P; p++)
            c->u[i * c->K + cols[p]] = ldexp(rc_weight(c, i, cols[p]) * c->b[i * c->K + cols[p]], -exps[p]);
    return rc_finish(c, P, cols, unorm, g);
}

static int rc_step(void *ctx, int64_t P, const int64_t *cols, const double *v, const double *vcoef,
                   const double *ucoef, double *unorm, double *g)
{
    row_context *c = ctx;
    const int64_t m = c->X.n_rows, nx = c->X.n_cols;
    int64_t i, p;
    if (++c->calls == c->fail_at)
        return TS_ERR_CALLBACK;
    if (ts_csr_matmat(&c->X, P, v, c->tmp) != TS_OK) /* v's first nx rows are X's unknowns */
        return TS_ERR_INDEX;
    for (i = 0; i < m; i++)
        for (p = 0; p < P; p++) {
            double *u = &c->u[i * c->K + cols[p]];
            const double acc = c->tmp[i * P + p] + (c->fit_intercept ? v[nx * P + p] : 0.0);
            *u = vcoef[p] * (rc_weight(c, i, cols[p]) * acc) + ucoef[p] * *u;
        }
    return rc_finish(c, P, cols, unorm, g);
}

static ts_rowop row_operator(row_context *c, const ts_csr *X, const double *b, const double *wts,
                             int64_t K, int fit_intercept)
{
    ts_rowop A;
    memset(c, 0, sizeof *c);
    c->X = *X;
    c->b = b;
    c->wts = wts;
    c->K = K;
    c->fit_intercept = fit_intercept;
    c->u = calloc((size_t)(X->n_rows * K), sizeof(double));
    c->tmp = calloc((size_t)(X->n_rows * K), sizeof(double));
    c->du = calloc((size_t)(X->n_rows * K), sizeof(double));
    A.n_rows = X->n_rows;
    A.n_cols = X->n_cols;
    A.fit_intercept = fit_intercept;
    A.lanes = 0;
    A.start = rc_start;
    A.step = rc_step;
    A.ctx = c;
    return A;
}

static void free_row_context(row_context *c)
{
    free(c->u);
    free(c->tmp);
    free(c->du);
}

/* The row operator gives the in-memory solve's solutions (to a tight tolerance) and its stops
 * and iterations (at 1e-8; its u is normalised later, so rounding differs: with the intercept
 * and weights an iteration or two more or less), with and without intercept and weights, and
 * for right-hand sides near the ends of the double range. */
static void test_row_operator_equals_csr(void)
{
    static const ts_lsqr_options MODERATE = {1e-8, 1e-8, 1e8, -1, NULL, NULL};
    problem P = make_problem(300, 60, 11, 0.1, 12);
    ts_csr X = csr32(&P);
    double *b = malloc(sizeof(double) * (size_t)(P.m * P.K));
    int intercept, weighted, e;
    const int exps[3] = {0, 700, -700};
    for (e = 0; e < 3; e++)
        for (intercept = 0; intercept <= 1; intercept++)
            for (weighted = 0; weighted <= 1; weighted++) {
                const int64_t n = P.n + intercept;
                double *x = calloc((size_t)(n * P.K), sizeof(double));
                double *xr = calloc((size_t)(n * P.K), sizeof(double));
                ts_lsqr_result r[11], rr[11];
                row_context c;
                const double *w = weighted ? P.wts : NULL;
                int64_t i, k;
                ts_rowop A;
                for (i = 0; i < P.m * P.K; i++)
                    b[i] = ldexp(P.b[i], exps[e]);
                A = row_operator(&c, &X, b, w, P.K, intercept);
                CHECK(lsqr_csr(&X, intercept, P.K, b, w, P.damp, &MODERATE, x, r) == TS_OK);
                CHECK(ts_lsqr_rowop(&A, P.K, P.damp, &MODERATE, xr, rr) == TS_OK);
                for (k = 0; k < P.K; k++) {
                    CHECK(rr[k].istop == r[k].istop && llabs(rr[k].itn - r[k].itn) <= 2);
                    CHECK(fabs(rr[k].r1norm - r[k].r1norm) <= 1e-8 * fabs(r[k].r1norm));
                }
                /* two calls to start the solve (the scales, then u), one per iteration */
                c.calls = 0;
                CHECK(rowop_mismatches(&P, &X, intercept, b, w, &A, exps[e], rr) == 0);
                for (k = 1; k < P.K; k++)
                    rr[0].itn = rr[k].itn > rr[0].itn ? rr[k].itn : rr[0].itn;
                CHECK(c.calls == 2 + rr[0].itn);
                free_row_context(&c);
                free(x);
                free(xr);
            }
    free(b);
    free_problem(&P);
}

/* A failing call stops the solve with its status, a non-finite norm or product with
 * TS_ERR_NONFINITE, a missing operator with TS_ERR_ARG; each allocation failure is TS_ERR_NOMEM,
 * nothing leaked. */
static void test_row_operator_failures(void)
{
    problem P = make_problem(30, 10, 2, 0.4, 13);
    ts_csr X = csr32(&P);
    double x[22];
    ts_lsqr_result r[2];
    row_context c;
    ts_rowop A = row_operator(&c, &X, P.b, P.wts, P.K, 1);
    int call, failures = 0;
    int64_t k;
    for (call = 1; call <= 4; call++) {
        c.calls = 0;
        c.fail_at = call;
        CHECK(ts_lsqr_rowop(&A, 2, P.damp, &TIGHT, x, r) == TS_ERR_CALLBACK);
        c.fail_at = 0;
        c.calls = 0;
        c.nan_at = call + 1; /* the first call (the scales) has no product to poison */
        CHECK(ts_lsqr_rowop(&A, 2, P.damp, &TIGHT, x, r) == TS_ERR_NONFINITE);
        c.nan_at = 0;
    }
    for (k = 1; k <= 20; k++) {
        int status;
        ts_debug_fail_alloc_at(k);
        status = ts_lsqr_rowop(&A, 2, P.damp, &TIGHT, x, r);
        if (status == TS_ERR_NOMEM)
            failures++;
        else
            CHECK(status == TS_OK);
    }
    ts_debug_fail_alloc_at(0);
    CHECK(failures == 11);
    A.step = NULL;
    CHECK(ts_lsqr_rowop(&A, 2, P.damp, &TIGHT, x, r) == TS_ERR_ARG);
    CHECK(ts_lsqr_rowop(NULL, 2, P.damp, &TIGHT, x, r) == TS_ERR_ARG);
    free_row_context(&c);
    free_problem(&P);
}

int main(void)
{
    int passed = 0, failed = 0;
    RUN(test_solutions_match_normal_equations, passed, failed);
    RUN(test_batched_equals_column_by_column, passed, failed);
    RUN(test_int64_indices, passed, failed);
    RUN(test_zero_rhs_and_iteration_limit, passed, failed);
    RUN(test_bad_input, passed, failed);
    RUN(test_extreme_scales, passed, failed);
    RUN(test_interrupt_check, passed, failed);
    RUN(test_every_allocation_failure, passed, failed);
    RUN(test_csr_matmat_against_dense, passed, failed);
    RUN(test_csr_matmat_panels, passed, failed);
    RUN(test_csr_row_sumsq, passed, failed);
    RUN(test_row_operator_equals_csr, passed, failed);
    RUN(test_row_operator_failures, passed, failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
