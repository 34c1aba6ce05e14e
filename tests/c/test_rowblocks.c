/* C unit tests of csrc/rowblocks.c (the group step) and csrc/rowgroups.c; built and run under
 * ASan and UBSan by tests/test_c_core.py. */
#include "../../csrc/textsel.h"
#include "harness.h"
#include "problem.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A problem's rows cut into blocks at the given row starts (the last block ends at m), the
 * blocks alternating int32 and int64 indices, each holding its rows of the weights and of u. */
typedef struct {
    int64_t n_blocks;
    ts_row_block blocks[8];
    int64_t *ptrs64[8];
    int32_t *ptrs32[8];
} cut;

static cut cut_rows(const problem *P, const int64_t *starts, int64_t n_blocks, const double *wts,
                    double *u)
{
    cut C;
    int64_t b, i;
    memset(&C, 0, sizeof C);
    C.n_blocks = n_blocks;
    for (b = 0; b < n_blocks; b++) {
        const int64_t lo = starts[b], hi = b + 1 < n_blocks ? starts[b + 1] : P->m;
        const int64_t first = P->ptr64[lo];
        ts_row_block *B = &C.blocks[b];
        B->X.n_rows = hi - lo;
        B->X.n_cols = P->n;
        B->X.data = P->data + first;
        C.ptrs64[b] = malloc(sizeof(int64_t) * (size_t)(hi - lo + 1));
        C.ptrs32[b] = malloc(sizeof(int32_t) * (size_t)(hi - lo + 1));
        for (i = lo; i <= hi; i++) {
            C.ptrs64[b][i - lo] = P->ptr64[i] - first;
            C.ptrs32[b][i - lo] = (int32_t)(P->ptr64[i] - first);
        }
        if (b % 2) {
            B->X.indices64 = P->ind64 + first;
            B->X.indptr64 = C.ptrs64[b];
        } else {
            B->X.indices32 = P->ind32 + first;
            B->X.indptr32 = C.ptrs32[b];
        }
        B->weights = wts ? wts + lo * P->K : NULL;
        B->u = u + lo * P->K;
    }
    return C;
}

static void free_cut(cut *C)
{
    int64_t b;
    for (b = 0; b < C->n_blocks; b++) {
        free(C->ptrs64[b]);
        free(C->ptrs32[b]);
    }
}

/* Two parts of a column's norm, each scale sqrt(ssq), as one in (*scale, *ssq): the larger scale
 * (NaN where either is), each sum rescaled to it, as the in-memory tree adds two groups' parts. */
static void add_norm(double *scale, double *ssq, double s, double q)
{
    const double top = (isnan(*scale) || isnan(s)) ? (isnan(*scale) ? *scale : s) : fmax(*scale, s);
    const double safe = top > 0 ? top : 1.0, ra = *scale / safe, rb = s / safe;
    *ssq = *ssq * (ra * ra) + q * (rb * rb);
    *scale = top;
}

/* A worker's step over several blocks built from the blocks' group steps (ts_rowgroup_step): u
 * updated on every block, their parts of A'D u added in block order and their norms as
 * add_norm adds them; v and g row-major (n_cols + fit_intercept rows x n_vec).  On one block,
 * the group step's own sums to the bit. */
static int blocks_step(const ts_row_block *blocks, int64_t n_blocks, int64_t n_cols, int fit_intercept,
                       int64_t n_rhs, int64_t n_vec, const int64_t *cols, const double *v,
                       const double *vcoef, const double *ucoef, double *scale, double *ssq, double *g)
{
    const int64_t n1 = n_cols + fit_intercept, L = n_vec == 1 ? 1 : 8, n_lanes = (n_vec + L - 1) / L;
    double *vb = calloc((size_t)(n_lanes * n1 * L), sizeof(double));
    double *gb = calloc((size_t)(n_lanes * n1 * L), sizeof(double));
    double *sc = malloc(sizeof(double) * (size_t)n_vec), *sq = malloc(sizeof(double) * (size_t)n_vec);
    int64_t b, i, p;
    int status = TS_OK;
    for (i = 0; v != NULL && i < n1; i++)
        for (p = 0; p < n_vec; p++)
            vb[(p / L * n1 + i) * L + p % L] = v[i * n_vec + p];
    memset(g, 0, sizeof(double) * (size_t)(n1 * n_vec));
    for (p = 0; p < n_vec; p++)
        scale[p] = ssq[p] = 0.0;
    for (b = 0; b < n_blocks && status == TS_OK; b++) {
        status = ts_rowgroup_step(&blocks[b], n_cols, fit_intercept, n_rhs, n_vec, cols, v ? vb : NULL, vcoef,
                                  ucoef, sc, sq, gb);
        for (p = 0; status == TS_OK && p < n_vec; p++) {
            add_norm(&scale[p], &ssq[p], sc[p], sq[p]);
            for (i = 0; i < n1; i++)
                g[i * n_vec + p] += gb[(p / L * n1 + i) * L + p % L];
        }
    }
    free(vb);
    free(gb);
    free(sc);
    free(sq);
    return status;
}

static const int64_t STARTS[4] = {0, 17, 17, 25}; /* the second block has no rows */

/* The step over four blocks (one empty) against the dense formulas evaluated row by row: u of
 * the running columns, the norm as scale sqrt(ssq) and A'D u (columns in any order, across lane
 * groups, with and without intercept and weights); the other columns of u are untouched. */
static void test_step_against_dense(void)
{
    problem P = make_problem(60, 25, 11, 0.2, 21);
    const int64_t subset[9] = {10, 3, 0, 7, 5, 1, 9, 2, 8}, every[11] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    double *u = malloc(sizeof(double) * (size_t)(P.m * P.K)), *u0 = malloc(sizeof(double) * (size_t)(P.m * P.K));
    double v[26 * 11], vcoef[11], ucoef[11], g[26 * 11], scale[11], ssq[11];
    int intercept, weighted, which;
    int64_t i, k, p;
    for (i = 0; i < 26 * 11; i++)
        v[i] = uniform() - 0.5;
    for (p = 0; p < 11; p++) {
        vcoef[p] = 0.5 + uniform();
        ucoef[p] = -uniform();
    }
    for (i = 0; i < P.m * P.K; i++)
        u0[i] = uniform() - 0.5;
    for (which = 0; which < 2; which++)
        for (intercept = 0; intercept <= 1; intercept++)
            for (weighted = 0; weighted <= 1; weighted++) {
                const int64_t n1 = P.n + intercept, nv = which ? 11 : 9;
                const int64_t *cols = which ? every : subset;
                const double *w = weighted ? P.wts : NULL;
                double ref_g[26 * 11] = {0}, ref_sq[11] = {0};
                cut C;
                memcpy(u, u0, sizeof(double) * (size_t)(P.m * P.K));
                C = cut_rows(&P, STARTS, 4, w, u);
                CHECK(blocks_step(C.blocks, 4, P.n, intercept, P.K, nv, cols, v, vcoef, ucoef, scale,
                                        ssq, g) == TS_OK);
                for (i = 0; i < P.m; i++)
                    for (p = 0; p < nv; p++) {
                        const int64_t c = cols[p];
                        const double d = w ? w[i * P.K + c] : 1.0;
                        double acc = intercept ? v[P.n * nv + p] : 0.0, un;
                        for (k = P.ptr64[i]; k < P.ptr64[i + 1]; k++)
                            acc += P.data[k] * v[P.ind64[k] * nv + p];
                        un = vcoef[p] * d * acc + ucoef[p] * u0[i * P.K + c];
                        CHECK(fabs(u[i * P.K + c] - un) <= 1e-13 * (1 + fabs(un)));
                        ref_sq[p] += un * un;
                        for (k = P.ptr64[i]; k < P.ptr64[i + 1]; k++)
                            ref_g[P.ind64[k] * nv + p] += P.data[k] * d * un;
                        if (intercept)
                            ref_g[P.n * nv + p] += d * un;
                    }
                for (p = 0; p < nv; p++) {
                    CHECK(scale[p] == 1.0);
                    CHECK(fabs(ssq[p] - ref_sq[p]) <= 1e-12 * ref_sq[p]);
                    CHECK(rel_diff(g + p, ref_g + p, n1, nv, nv) < 1e-12);
                }
                if (!which) /* columns 4 and 6 do not run */
                    for (i = 0; i < P.m; i++)
                        CHECK(u[i * P.K + 4] == u0[i * P.K + 4] && u[i * P.K + 6] == u0[i * P.K + 6]);
                free_cut(&C);
            }
    free(u);
    free(u0);
    free_problem(&P);
}

/* Without v, u is left as it is (bitwise) and only its norm and A'D u are taken; a column near
 * either end of the double range is measured with scaling (its plain sum of squares would
 * overflow or vanish), a zero column has scale 0, a NaN is passed on as the sum. */
static void test_norm_only_and_extreme_columns(void)
{
    problem P = make_problem(40, 12, 5, 0.3, 22);
    const int64_t cols[5] = {0, 1, 2, 3, 4};
    double *u = malloc(sizeof(double) * (size_t)(P.m * P.K)), *u0 = malloc(sizeof(double) * (size_t)(P.m * P.K));
    double g[13 * 5], scale[5], ssq[5], big = 0, sum = 0;
    int64_t i;
    cut C;
    for (i = 0; i < P.m; i++) {
        u[i * P.K + 0] = uniform() - 0.5;
        u[i * P.K + 1] = ldexp(uniform() + 0.5, 700);
        u[i * P.K + 2] = ldexp(uniform() + 0.5, -700);
        u[i * P.K + 3] = 0.0;
        u[i * P.K + 4] = i == 7 ? NAN : 1.0;
    }
    memcpy(u0, u, sizeof(double) * (size_t)(P.m * P.K));
    C = cut_rows(&P, STARTS, 4, P.wts, u);
    CHECK(blocks_step(C.blocks, 4, P.n, 1, P.K, 5, cols, NULL, NULL, NULL, scale, ssq, g) == TS_OK);
    CHECK(memcmp(u, u0, sizeof(double) * (size_t)(P.m * P.K)) == 0);
    for (i = 0; i < P.m; i++)
        sum += u[i * P.K] * u[i * P.K];
    CHECK(scale[0] == 1.0 && fabs(ssq[0] - sum) <= 1e-13 * sum);
    for (i = 0; i < P.m; i++)
        big = fmax(big, u[i * P.K + 1]);
    CHECK(scale[1] == big && isfinite(ssq[1]) && ssq[1] >= 1.0 && ssq[1] <= (double)P.m);
    big = 0;
    sum = 0;
    for (i = 0; i < P.m; i++) {
        big = fmax(big, u[i * P.K + 2]);
        sum += ldexp(u[i * P.K + 2], 700) * ldexp(u[i * P.K + 2], 700);
    }
    CHECK(scale[2] == big);
    CHECK(fabs(ldexp(scale[2], 700) * sqrt(ssq[2]) - sqrt(sum)) <= 1e-12 * sqrt(sum));
    CHECK(scale[3] == 0.0 && ssq[3] == 0.0);
    CHECK(isnan(ssq[4]));
    free_cut(&C);
    free(u);
    free(u0);
    free_problem(&P);
}

/* A ts_rowop whose calls are blocks_step on the blocks of one cut (start: u = 2^-e D b first),
 * row-major, as a worker of a distributed solve runs them. */
typedef struct {
    cut C;
    const problem *P;
    const double *wts;
    double *u;
    int fit_intercept;
} blocks_context;

static int bc_start(void *ctx, int64_t P, const int64_t *cols, const int *exps, double *maxabs,
                    double *unorm, double *g)
{
    blocks_context *c = ctx;
    const int64_t K = c->P->K;
    int64_t i, p, status;
    double scale[16], ssq[16];
    for (p = 0; p < P; p++) {
        if (exps == NULL)
            maxabs[p] = 0;
        for (i = 0; i < c->P->m; i++) {
            const double db = (c->wts ? c->wts[i * K + cols[p]] : 1.0) * c->P->b[i * K + cols[p]];
            if (exps == NULL)
                maxabs[p] = fmax(maxabs[p], fabs(db));
            else
                c->u[i * K + cols[p]] = ldexp(db, -exps[p]);
        }
    }
    if (exps == NULL)
        return TS_OK;
    status = blocks_step(c->C.blocks, c->C.n_blocks, c->P->n, c->fit_intercept, K, P, cols, NULL,
                               NULL, NULL, scale, ssq, g);
    for (p = 0; p < P; p++)
        unorm[p] = scale[p] * sqrt(ssq[p]);
    return (int)status;
}

static int bc_step(void *ctx, int64_t P, const int64_t *cols, const double *v, const double *vcoef,
                   const double *ucoef, double *unorm, double *g)
{
    blocks_context *c = ctx;
    int64_t p;
    double scale[16], ssq[16];
    int status = blocks_step(c->C.blocks, c->C.n_blocks, c->P->n, c->fit_intercept, c->P->K, P,
                                   cols, v, vcoef, ucoef, scale, ssq, g);
    for (p = 0; p < P; p++)
        unorm[p] = scale[p] * sqrt(ssq[p]);
    return status;
}

/* LSQR on the blocks' step as its row operator gives the in-memory solve's solutions (to a tight
 * tolerance) and stops, with and without intercept and weights, and for right-hand sides near
 * the top of the double range (whose norms are taken with scaling). */
static void test_lsqr_on_the_blocks_equals_csr(void)
{
    problem P = make_problem(300, 60, 11, 0.1, 24);
    const int64_t starts[5] = {0, 90, 90, 200, 201};
    ts_csr X = csr32(&P);
    double *b0 = P.b, *b = malloc(sizeof(double) * (size_t)(P.m * P.K));
    int intercept, weighted, e;
    const int exps[2] = {0, 700};
    for (e = 0; e < 2; e++)
        for (intercept = 0; intercept <= 1; intercept++)
            for (weighted = 0; weighted <= 1; weighted++) {
                double *u = calloc((size_t)(P.m * P.K), sizeof(double));
                ts_lsqr_result rr[11];
                blocks_context c;
                ts_rowop A;
                int64_t i;
                for (i = 0; i < P.m * P.K; i++)
                    b[i] = ldexp(b0[i], exps[e]);
                P.b = b;
                c.P = &P;
                c.wts = weighted ? P.wts : NULL;
                c.u = u;
                c.fit_intercept = intercept;
                c.C = cut_rows(&P, starts, 5, c.wts, u);
                A.n_rows = P.m;
                A.n_cols = P.n;
                A.fit_intercept = intercept;
                A.lanes = 0;
                A.start = bc_start;
                A.step = bc_step;
                A.ctx = &c;
                CHECK(rowop_mismatches(&P, &X, intercept, b, c.wts, &A, exps[e], rr) == 0);
                P.b = b0;
                free_cut(&c.C);
                free(u);
            }
    free(b);
    free_problem(&P);
}

/* One group's step (ts_rowgroup_step) with u and the weights column-major (each column's rows
 * contiguous, the columns further apart than the rows) gives to the last bit what it gives
 * row-major (blocks_step on that one block, v and g unpacked there); with and without v,
 * intercept and weights, 11 columns (two lane blocks, the second partly filled) and one alone. */
static void test_group_step_is_the_one_block_step(void)
{
    problem P = make_problem(45, 20, 11, 0.25, 24);
    const int64_t cols[11] = {10, 3, 0, 7, 5, 1, 9, 2, 8, 4, 6}, starts[1] = {0}, ld = 50;
    const int64_t n_lanes = 2;
    double *u0 = malloc(sizeof(double) * (size_t)(P.m * P.K)), *u = malloc(sizeof(double) * (size_t)(P.m * P.K));
    double *uref = malloc(sizeof(double) * (size_t)(P.m * P.K));
    double *uc = malloc(sizeof(double) * (size_t)(ld * P.K)), *wc = malloc(sizeof(double) * (size_t)(ld * P.K));
    double v[21 * 11], vb[2 * 21 * 8], gb[2 * 21 * 8], vcoef[11], ucoef[11], g[21 * 11];
    double scale[11], ssq[11], gscale[11], gssq[11];
    int intercept, weighted, with_v, column_major, alone;
    int64_t i, p, c;
    for (i = 0; i < P.m * P.K; i++)
        u0[i] = uniform() - 0.5;
    for (i = 0; i < 21 * 11; i++)
        v[i] = uniform() - 0.5;
    for (p = 0; p < 11; p++) {
        vcoef[p] = 0.5 + uniform();
        ucoef[p] = -uniform();
    }
    for (alone = 0; alone <= 1; alone++) /* one column alone: lane blocks of 1 */
    for (intercept = 0; intercept <= 1; intercept++)
        for (weighted = 0; weighted <= 1; weighted++)
            for (with_v = 0; with_v <= 1; with_v++)
                for (column_major = 0; column_major <= 1; column_major++) {
                    const int64_t n1 = P.n + intercept, nv = alone ? 1 : 11, L = alone ? 1 : 8;
                    const int64_t *run = alone ? cols + 1 : cols;
                    const double *w = weighted ? P.wts : NULL;
                    ts_row_block G;
                    cut C;
                    memcpy(uref, u0, sizeof(double) * (size_t)(P.m * P.K));
                    C = cut_rows(&P, starts, 1, w, uref);
                    CHECK(blocks_step(C.blocks, 1, P.n, intercept, P.K, nv, run, with_v ? v : NULL,
                                            vcoef, ucoef, scale, ssq, g) == TS_OK);
                    /* the same block, u and the weights from u0 in the layout under test */
                    G = C.blocks[0];
                    memcpy(u, u0, sizeof(double) * (size_t)(P.m * P.K));
                    G.u = u;
                    if (column_major) {
                        for (i = 0; i < P.m; i++)
                            for (c = 0; c < P.K; c++) {
                                uc[c * ld + i] = u0[i * P.K + c];
                                wc[c * ld + i] = w ? w[i * P.K + c] : 0.0;
                            }
                        G.u = uc;
                        G.weights = w ? wc : NULL;
                        G.col_stride = ld;
                    }
                    memset(vb, 0, sizeof vb);
                    for (i = 0; i < n1; i++)
                        for (p = 0; p < nv; p++)
                            vb[(p / L * n1 + i) * L + p % L] = v[i * nv + p];
                    CHECK(ts_rowgroup_step(&G, P.n, intercept, P.K, nv, run, with_v ? vb : NULL, vcoef,
                                           ucoef, gscale, gssq, gb) == TS_OK);
                    for (p = 0; p < nv; p++) {
                        CHECK(gscale[p] == scale[p] && gssq[p] == ssq[p]);
                        for (i = 0; i < n1; i++)
                            CHECK(gb[(p / L * n1 + i) * L + p % L] == g[i * nv + p]);
                    }
                    for (i = 0; !alone && i < n1; i++) /* the lanes past the columns are 0 */
                        for (p = 11; p < n_lanes * 8; p++)
                            CHECK(gb[(p / 8 * n1 + i) * 8 + p % 8] == 0.0);
                    for (i = 0; i < P.m; i++)
                        for (c = 0; c < P.K; c++) {
                            const double mine = column_major ? uc[c * ld + i] : u[i * P.K + c];
                            CHECK(mine == uref[i * P.K + c]);
                        }
                    free_cut(&C);
                }
    free(u0);
    free(u);
    free(uref);
    free(uc);
    free(wc);
    free_problem(&P);
}

/* What a group step refuses (TS_ERR_ARG, u untouched): repeated or outside columns, no columns,
 * v without its coefficients, a column stride shorter than the rows, a missing output. */
static void test_group_step_bad_arguments(void)
{
    problem P = make_problem(30, 10, 3, 0.3, 25);
    const int64_t cols[3] = {0, 1, 2}, twice[2] = {1, 1}, outside[1] = {3}, starts[1] = {0};
    double *u = calloc((size_t)(P.m * P.K), sizeof(double));
    double vb[11 * 8] = {0}, gb[11 * 8], coef[3] = {1, 1, 1}, scale[3], ssq[3];
    int64_t i;
    cut C = cut_rows(&P, starts, 1, NULL, u);
    ts_row_block G = C.blocks[0];
    for (i = 0; i < 11 * 8; i++)
        vb[i] = 1.0;
    CHECK(ts_rowgroup_step(&G, P.n, 1, P.K, 2, twice, vb, coef, coef, scale, ssq, gb) == TS_ERR_ARG);
    CHECK(ts_rowgroup_step(&G, P.n, 1, P.K, 1, outside, vb, coef, coef, scale, ssq, gb) == TS_ERR_ARG);
    CHECK(ts_rowgroup_step(&G, P.n, 1, P.K, 0, cols, vb, coef, coef, scale, ssq, gb) == TS_ERR_ARG);
    CHECK(ts_rowgroup_step(&G, P.n, 1, P.K, 3, cols, vb, NULL, coef, scale, ssq, gb) == TS_ERR_ARG);
    CHECK(ts_rowgroup_step(&G, P.n, 1, P.K, 3, cols, vb, coef, coef, scale, ssq, NULL) == TS_ERR_ARG);
    CHECK(ts_rowgroup_step(&G, P.n + 1, 1, P.K, 3, cols, vb, coef, coef, scale, ssq, gb) == TS_ERR_ARG);
    CHECK(ts_rowgroup_step(NULL, P.n, 1, P.K, 3, cols, vb, coef, coef, scale, ssq, gb) == TS_ERR_ARG);
    G.col_stride = P.m - 1;
    CHECK(ts_rowgroup_step(&G, P.n, 1, P.K, 3, cols, vb, coef, coef, scale, ssq, gb) == TS_ERR_ARG);
    for (i = 0; i < P.m * P.K; i++)
        CHECK(u[i] == 0.0);
    free_cut(&C);
    free(u);
    free_problem(&P);
}


/* The row groups as one operator (ts_row_groups): LSQR on it gives the in-memory solve's solutions
 * (to a tight tolerance) and stops, with and without intercept and weights, for right-hand sides
 * near the top of the double range, on one group and on four (one empty), with b, the weights and
 * u each right-hand side's rows contiguous; and the same bits on four groups run twice. */
static void test_row_groups_operator(void)
{
    problem P = make_problem(300, 60, 11, 0.1, 31);
    const int64_t four[4] = {0, 90, 90, 201}, one[1] = {0};
    ts_csr X = csr32(&P);
    double *b = malloc(sizeof(double) * (size_t)(P.m * P.K)), *bT = malloc(sizeof(double) * (size_t)(P.m * P.K));
    double *wT = malloc(sizeof(double) * (size_t)(P.m * P.K));
    const int exps[2] = {0, 700};
    int intercept, weighted, e, g;
    for (e = 0; e < 2; e++)
        for (intercept = 0; intercept <= 1; intercept++)
            for (weighted = 0; weighted <= 1; weighted++)
                for (g = 0; g < 2; g++) {
                    const int64_t *starts = g ? four : one, n_groups = g ? 4 : 1;
                    double *u = calloc((size_t)(P.m * P.K), sizeof(double)), *scratch;
                    ts_lsqr_result rr[11];
                    ts_row_groups G;
                    ts_rowop A;
                    cut C;
                    int64_t i, k;
                    for (i = 0; i < P.m; i++)
                        for (k = 0; k < P.K; k++) {
                            b[i * P.K + k] = ldexp(P.b[i * P.K + k], exps[e]);
                            bT[k * P.m + i] = b[i * P.K + k];
                            wT[k * P.m + i] = P.wts[i * P.K + k];
                        }
                    /* column-major groups: each group's u and weights start at its first row */
                    C = cut_rows(&P, starts, n_groups, NULL, u);
                    for (i = 0; i < n_groups; i++) {
                        C.blocks[i].u = u + starts[i];
                        C.blocks[i].weights = weighted ? wT + starts[i] : NULL;
                        C.blocks[i].col_stride = P.m;
                    }
                    CHECK(ts_row_groups_init(&G, C.blocks, n_groups, P.m, P.n, intercept, P.K, bT,
                                             weighted ? wT : NULL, u) == TS_OK);
                    A = ts_row_groups_op(&G);
                    CHECK(rowop_mismatches(&P, &X, intercept, b, weighted ? P.wts : NULL, &A, exps[e], rr) == 0);
                    if (g) { /* again: the same bits */
                        const int64_t n1 = P.n + intercept;
                        double *x1 = calloc((size_t)(n1 * P.K), sizeof(double));
                        double *x2 = calloc((size_t)(n1 * P.K), sizeof(double));
                        ts_lsqr_result r2[11];
                        CHECK(ts_lsqr_rowop(&A, P.K, P.damp, &TIGHT, x1, rr) == TS_OK);
                        CHECK(ts_lsqr_rowop(&A, P.K, P.damp, &TIGHT, x2, r2) == TS_OK);
                        CHECK(memcmp(x1, x2, sizeof(double) * (size_t)(n1 * P.K)) == 0);
                        free(x1);
                        free(x2);
                    }
                    scratch = G.scratch;
                    CHECK(scratch != NULL);
                    ts_row_groups_free(&G);
                    CHECK(G.scratch == NULL);
                    free_cut(&C);
                    free(u);
                }
    free(b);
    free(bT);
    free(wT);
    free_problem(&P);
}

/* The row groups' operator (lanes 1) reads v and writes A'D u in the solver's lane blocks: on
 * 11 columns (two lane blocks, five lanes past the columns), 9 (a last block of one column, run
 * unpacked) and 1, it gives the bits of the row-major group step (blocks_step on the same group),
 * u, norms and A'D u alike, whatever v's lanes past the columns hold (0, or NaN: other columns'
 * values in the solver). */
static void test_row_groups_read_the_solver_lanes(void)
{
    problem P = make_problem(60, 25, 11, 0.2, 41);
    const int64_t n1 = P.n + 1, one[1] = {0}, widths[3] = {11, 9, 1};
    const int64_t cols[11] = {10, 3, 0, 7, 5, 1, 9, 2, 8, 4, 6};
    double *bT = malloc(sizeof(double) * (size_t)(P.m * P.K)), *u0 = malloc(sizeof(double) * (size_t)(P.m * P.K));
    double *u = malloc(sizeof(double) * (size_t)(P.m * P.K)), *uref = malloc(sizeof(double) * (size_t)(P.m * P.K));
    double v[26 * 11], vr[26 * 11], vl[2 * 26 * 8], gl[2 * 26 * 8], g[26 * 11], vcoef[11], ucoef[11];
    double unorm[11], scale[11], ssq[11];
    int64_t i, p, w;
    int fill;
    for (i = 0; i < P.m * P.K; i++) {
        bT[i] = uniform() - 0.5;
        u0[i] = uniform() - 0.5;
    }
    for (i = 0; i < 26 * 11; i++)
        v[i] = uniform() - 0.5;
    for (p = 0; p < 11; p++) {
        vcoef[p] = 0.5 + uniform();
        ucoef[p] = -uniform();
    }
    for (w = 0; w < 3; w++)
        for (fill = 0; fill < 2; fill++) {
            const int64_t nv = widths[w];
            ts_row_groups G;
            ts_rowop A;
            cut C, R;
            memcpy(uref, u0, sizeof(double) * (size_t)(P.m * P.K));
            memcpy(u, u0, sizeof(double) * (size_t)(P.m * P.K));
            R = cut_rows(&P, one, 1, NULL, uref);
            R.blocks[0].col_stride = P.m;
            for (i = 0; i < n1; i++)
                for (p = 0; p < nv; p++)
                    vr[i * nv + p] = v[i * 11 + p]; /* row-major with nv columns */
            CHECK(blocks_step(R.blocks, 1, P.n, 1, P.K, nv, cols, vr, vcoef, ucoef, scale, ssq, g) == TS_OK);
            for (i = 0; i < 2 * 26 * 8; i++)
                vl[i] = fill ? NAN : 0.0;
            for (i = 0; i < n1; i++)
                for (p = 0; p < nv; p++)
                    vl[(p / 8 * n1 + i) * 8 + p % 8] = vr[i * nv + p];
            C = cut_rows(&P, one, 1, NULL, u);
            C.blocks[0].col_stride = P.m;
            CHECK(ts_row_groups_init(&G, C.blocks, 1, P.m, P.n, 1, P.K, bT, NULL, u) == TS_OK);
            A = ts_row_groups_op(&G);
            CHECK(A.lanes == 1 && A.n_rows == P.m && A.n_cols == P.n && A.fit_intercept == 1);
            CHECK(A.step(A.ctx, nv, cols, vl, vcoef, ucoef, unorm, gl) == TS_OK);
            CHECK(memcmp(u, uref, sizeof(double) * (size_t)(P.m * P.K)) == 0);
            for (p = 0; p < nv; p++) {
                CHECK(unorm[p] == scale[p] * sqrt(ssq[p]));
                for (i = 0; i < n1; i++)
                    CHECK(gl[(p / 8 * n1 + i) * 8 + p % 8] == g[i * nv + p]);
            }
            ts_row_groups_free(&G);
            free_cut(&C);
            free_cut(&R);
        }
    free(bT);
    free(u0);
    free(u);
    free(uref);
    free_problem(&P);
}

/* A parallel_for that runs the tasks on the calling thread, last first, counting its calls: what
 * matters to the sums is which tasks run, not their order or thread. */
typedef struct {
    int64_t calls, tasks;
} reverse_runner;

static int run_reversed(void *ctx, int64_t n_tasks, ts_task task, void *arg)
{
    reverse_runner *r = (reverse_runner *)ctx;
    int64_t t;
    int status = TS_OK, s;
    r->calls++;
    r->tasks += n_tasks;
    for (t = n_tasks - 1; t >= 0; t--)
        if ((s = task(arg, t)) != TS_OK && status == TS_OK)
            status = s;
    return status;
}

/* The row groups run as tasks (ts_row_groups_parallel) for 1, 2, 3, 5 and 8 threads: lane blocks
 * taken several at a time, the parts added in runs of rows, the tasks run last first; LSQR on 17
 * columns (two full lane blocks and one alone), four groups (one empty), weights and intercept
 * gives the bits of the operator on the calling thread.  No thread: TS_ERR_ARG. */
static void test_row_groups_as_tasks_keep_the_bits(void)
{
    problem P = make_problem(300, 60, 17, 0.1, 37);
    const int64_t four[4] = {0, 90, 90, 201}, threads[5] = {1, 2, 3, 5, 8}, n1 = P.n + 1;
    double *bT = malloc(sizeof(double) * (size_t)(P.m * P.K)), *wT = malloc(sizeof(double) * (size_t)(P.m * P.K));
    double *ref = calloc((size_t)(n1 * P.K), sizeof(double)), *x = calloc((size_t)(n1 * P.K), sizeof(double));
    ts_lsqr_result r0[17], r1[17];
    int64_t i, k, t;
    for (i = 0; i < P.m; i++)
        for (k = 0; k < P.K; k++) {
            bT[k * P.m + i] = P.b[i * P.K + k];
            wT[k * P.m + i] = P.wts[i * P.K + k];
        }
    for (t = -1; t < 5; t++) {
        double *u = calloc((size_t)(P.m * P.K), sizeof(double));
        reverse_runner runner = {0, 0};
        ts_row_groups G;
        ts_rowop A;
        cut C = cut_rows(&P, four, 4, NULL, u);
        for (i = 0; i < 4; i++) {
            C.blocks[i].u = u + four[i];
            C.blocks[i].weights = wT + four[i];
            C.blocks[i].col_stride = P.m;
        }
        CHECK(ts_row_groups_init(&G, C.blocks, 4, P.m, P.n, 1, P.K, bT, wT, u) == TS_OK);
        CHECK(ts_row_groups_parallel(&G, run_reversed, &runner, 0) == TS_ERR_ARG);
        if (t >= 0) {
            CHECK(ts_row_groups_parallel(&G, run_reversed, &runner, threads[t]) == TS_OK);
            CHECK(G.wave == (threads[t] + 3) / 4 && G.slabs == threads[t]);
        }
        A = ts_row_groups_op(&G);
        CHECK(ts_lsqr_rowop(&A, P.K, P.damp, &TIGHT, t < 0 ? ref : x, t < 0 ? r0 : r1) == TS_OK);
        if (t >= 0) {
            CHECK(memcmp(x, ref, sizeof(double) * (size_t)(n1 * P.K)) == 0);
            for (k = 0; k < P.K; k++)
                CHECK(r1[k].itn == r0[k].itn && r1[k].r1norm == r0[k].r1norm && r1[k].istop == r0[k].istop);
            CHECK(runner.calls > 0 && runner.tasks > runner.calls);
        }
        ts_row_groups_free(&G);
        free_cut(&C);
        free(u);
    }
    free(bT);
    free(wT);
    free(ref);
    free(x);
    free_problem(&P);
}

/* ts_row_groups refuses what it cannot run: no groups, negative sizes, no right-hand sides,
 * missing arrays, a column out of range. */
static void test_row_groups_bad_arguments(void)
{
    problem P = make_problem(40, 10, 3, 0.3, 5);
    const int64_t one[1] = {0};
    double *u = calloc((size_t)(P.m * P.K), sizeof(double)), unorm[3], g[33], maxabs[3];
    cut C = cut_rows(&P, one, 1, NULL, u);
    ts_row_groups G;
    const int64_t bad_col[1] = {3}, neg_col[1] = {-1};
    C.blocks[0].col_stride = P.m;
    CHECK(ts_row_groups_init(&G, C.blocks, 0, P.m, P.n, 1, P.K, P.b, NULL, u) == TS_ERR_ARG);
    CHECK(ts_row_groups_init(&G, NULL, 1, P.m, P.n, 1, P.K, P.b, NULL, u) == TS_ERR_ARG);
    CHECK(ts_row_groups_init(&G, C.blocks, 1, -1, P.n, 1, P.K, P.b, NULL, u) == TS_ERR_ARG);
    CHECK(ts_row_groups_init(&G, C.blocks, 1, P.m, P.n, 1, 0, P.b, NULL, u) == TS_ERR_ARG);
    CHECK(ts_row_groups_init(&G, C.blocks, 1, P.m, P.n, 1, P.K, NULL, NULL, u) == TS_ERR_ARG);
    CHECK(ts_row_groups_init(&G, C.blocks, 1, P.m, P.n, 1, P.K, P.b, NULL, NULL) == TS_ERR_ARG);
    CHECK(ts_row_groups_init(&G, C.blocks, 1, P.m, P.n, 1, P.K, P.b, NULL, u) == TS_OK);
    CHECK(ts_row_groups_start(&G, 1, bad_col, NULL, maxabs, NULL, NULL) == TS_ERR_ARG);
    CHECK(ts_row_groups_start(&G, 1, neg_col, NULL, maxabs, NULL, NULL) == TS_ERR_ARG);
    CHECK(ts_row_groups_step(&G, 1, bad_col, NULL, NULL, NULL, unorm, g) == TS_ERR_ARG);
    ts_row_groups_free(&G);
    ts_row_groups_free(&G); /* twice is harmless */
    free_cut(&C);
    free(u);
    free_problem(&P);
}

int main(void)
{
    int passed = 0, failed = 0;
    RUN(test_step_against_dense, passed, failed);
    RUN(test_norm_only_and_extreme_columns, passed, failed);
    RUN(test_lsqr_on_the_blocks_equals_csr, passed, failed);
    RUN(test_group_step_is_the_one_block_step, passed, failed);
    RUN(test_group_step_bad_arguments, passed, failed);
    RUN(test_row_groups_operator, passed, failed);
    RUN(test_row_groups_bad_arguments, passed, failed);
    RUN(test_row_groups_read_the_solver_lanes, passed, failed);
    RUN(test_row_groups_as_tasks_keep_the_bits, passed, failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
