/*
 * The step of a ts_rowop on one row group (ts_rowgroup_step): u updated, its norm and A'D u, for
 * a group of the in-memory solve or a block a worker of a distributed solve keeps.
 *
 * The running columns are taken TS_LANES at a time, v and g of those lanes packed block-major (one
 * cache line of each per stored value, n x TS_LANES doubles each in use), as the solver keeps
 * them; u, b and the weights are kept column by column (or row-major with every right-hand side,
 * col_stride 0).  A column alone runs unpacked, its v and g an eighth of the memory.
 */
#include "textsel.h"
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The lanes' rows of u in one block: u_i <- vcoef D A v + ucoef u_i (when v is given) and
 * sq += u_i^2 in a first pass over the rows, then g += A_i'(D u_i) in a second; vb and gb are the
 * lanes' packed v and g, n1 rows each.  Two passes, not one: a pass that only gathers from v and
 * one that only scatters into g each keep one of them in cache, where one pass doing both per row
 * keeps neither (about a fifth faster on the corpora's tf-idf rows, measured against the one-pass
 * kernel); every sum is formed in the same order, so the same bits. */
#define DEFINE_BLOCK_STEP(SUFFIX, ITYPE)                                                       \
    TS_VECTOR_CLONES static void block_step_##SUFFIX(                                          \
        const ts_row_block *B, const ITYPE *indptr, const ITYPE *indices, int64_t n,           \
        int fit_intercept, int64_t n_rhs, int64_t width, const int64_t *col, const double *vb, \
        const double *vcoef, const double *ucoef, double *sq, double *gb)                      \
    {                                                                                          \
        const double *data = B->X.data;                                                        \
        const int64_t rs = B->col_stride ? 1 : n_rhs, cs = B->col_stride ? B->col_stride : 1; \
        int64_t i, k, q, at[TS_LANES];                                                         \
        for (q = 0; q < width; q++)                                                            \
            at[q] = col[q] * cs;                                                               \
        for (i = 0; i < B->X.n_rows; i++) {                                                    \
            double *u = B->u + i * rs;                                                         \
            const double *w = B->weights ? B->weights + i * rs : NULL;                         \
            double acc[TS_LANES] = {0};                                                        \
            if (vb) {                                                                          \
                if (fit_intercept)                                                             \
                    TS_EACH_LANE(acc[q] = vb[n * TS_LANES + q]);                               \
                for (k = indptr[i]; k < indptr[i + 1]; k++) {                                  \
                    const double xv = data[k];                                                 \
                    const double *vj = vb + (int64_t)indices[k] * TS_LANES;                    \
                    TS_EACH_LANE(acc[q] += xv * vj[q]);                                        \
                }                                                                              \
            }                                                                                  \
            for (q = 0; q < width; q++) {                                                      \
                double uq = u[at[q]];                                                          \
                if (vb) {                                                                      \
                    const double wq = w ? w[at[q]] : 1.0;                                      \
                    uq = ucoef[q] * uq + vcoef[q] * (wq * acc[q]);                             \
                    u[at[q]] = uq;                                                             \
                }                                                                              \
                sq[q] += uq * uq;                                                              \
            }                                                                                  \
        }                                                                                      \
        for (i = 0; i < B->X.n_rows; i++) {                                                    \
            const double *u = B->u + i * rs;                                                   \
            const double *w = B->weights ? B->weights + i * rs : NULL;                         \
            double du[TS_LANES] = {0};                                                         \
            for (q = 0; q < width; q++)                                                        \
                du[q] = (w ? w[at[q]] : 1.0) * u[at[q]];                                       \
            for (k = indptr[i]; k < indptr[i + 1]; k++) {                                      \
                const double xv = data[k];                                                     \
                double *gj = gb + (int64_t)indices[k] * TS_LANES;                              \
                TS_EACH_LANE(gj[q] += xv * du[q]);                                             \
            }                                                                                  \
            if (fit_intercept)                                                                 \
                TS_EACH_LANE(gb[n * TS_LANES + q] += du[q]);                                   \
        }                                                                                      \
    }

DEFINE_BLOCK_STEP(i32, int32_t)
DEFINE_BLOCK_STEP(i64, int64_t)

/* block_step for one column alone (col), its v and g unpacked (n1 doubles each): the same sums
 * in the same order as that lane of block_step, so the same bits, with an eighth of the memory
 * touched per stored value (v and g of a few hundred thousand unknowns then stay in a core's
 * cache). */
#define DEFINE_ONE_LANE_STEP(SUFFIX, ITYPE)                                                    \
    static void one_lane_step_##SUFFIX(const ts_row_block *B, const ITYPE *indptr,             \
                                       const ITYPE *indices, int64_t n, int fit_intercept,     \
                                       int64_t n_rhs, int64_t col, const double *v,            \
                                       double vcoef, double ucoef, double *sq, double *g)      \
    {                                                                                          \
        const double *data = B->X.data;                                                        \
        const int64_t rs = B->col_stride ? 1 : n_rhs;                                          \
        const int64_t at = col * (B->col_stride ? B->col_stride : 1);                          \
        int64_t i, k;                                                                          \
        for (i = 0; i < B->X.n_rows; i++) {                                                    \
            double *u = B->u + i * rs;                                                         \
            const double wq = B->weights ? B->weights[i * rs + at] : 1.0;                      \
            double uq = u[at], du;                                                             \
            if (v) {                                                                           \
                double acc = fit_intercept ? v[n] : 0.0;                                       \
                for (k = indptr[i]; k < indptr[i + 1]; k++)                                    \
                    acc += data[k] * v[indices[k]];                                            \
                uq = ucoef * uq + vcoef * (wq * acc);                                          \
                u[at] = uq;                                                                    \
            }                                                                                  \
            *sq += uq * uq;                                                                    \
            du = wq * uq;                                                                      \
            for (k = indptr[i]; k < indptr[i + 1]; k++)                                        \
                g[indices[k]] += data[k] * du;                                                 \
            if (fit_intercept)                                                                 \
                g[n] += du;                                                                    \
        }                                                                                      \
    }

DEFINE_ONE_LANE_STEP(i32, int32_t)
DEFINE_ONE_LANE_STEP(i64, int64_t)

/* Column c of the group's u, scaled by its largest magnitude (as BLAS nrm2 does): the slow path,
 * for a column whose plain sum of squares left the double range. */
static void scaled_sum(const ts_row_block *B, int64_t n_rhs, int64_t c, double *scale, double *ssq)
{
    int64_t i;
    double big = 0, sum = 0;
#define U_AT(i) (B->col_stride ? B->u[c * B->col_stride + (i)] : B->u[(i) * n_rhs + c])
    for (i = 0; i < B->X.n_rows; i++)
        big = fmax(big, fabs(U_AT(i)));
    if (big > 0 && isfinite(big))
        for (i = 0; i < B->X.n_rows; i++) {
            const double t = U_AT(i) / big;
            sum += t * t;
        }
    *scale = big;
    *ssq = sum;
#undef U_AT
}

/* What ts_rowgroup_step checks, in time independent of the group's size: its CSR structure is
 * the caller's to check once (ts_csr_check), not on every step. */
static int check_group(const ts_row_block *B, int64_t n_cols, int64_t n_rhs, int64_t n_vec,
                       const int64_t *cols, const double *vb, const double *vcoef,
                       const double *ucoef, const double *scale, const double *ssq, const double *gb)
{
    int64_t p, q;
    if (B == NULL || n_cols < 0 || n_rhs < 1 || n_vec < 1 || n_vec > n_rhs || cols == NULL ||
        scale == NULL || ssq == NULL || gb == NULL || B->X.n_cols != n_cols || B->X.n_rows < 0 ||
        (B->X.n_rows > 0 && B->u == NULL) || B->X.data == NULL ||
        (B->X.indices32 == NULL) == (B->X.indices64 == NULL) ||
        (B->X.indices32 != NULL) != (B->X.indptr32 != NULL))
        return TS_ERR_ARG;
    if (vb != NULL && (vcoef == NULL || ucoef == NULL))
        return TS_ERR_ARG;
    if (n_cols >= INT64_MAX / TS_LANES / (n_vec / TS_LANES + 2) ||
        (B->X.n_rows > 0 && n_rhs > INT64_MAX / B->X.n_rows))
        return TS_ERR_ARG;
    /* column-major: each column's rows contiguous, the columns col_stride apart */
    if (B->col_stride != 0 && (B->col_stride < B->X.n_rows || n_rhs > INT64_MAX / B->col_stride))
        return TS_ERR_ARG;
    for (p = 0; p < n_vec; p++) {
        if (cols[p] < 0 || cols[p] >= n_rhs)
            return TS_ERR_ARG;
        for (q = 0; q < p; q++)
            if (cols[q] == cols[p])
                return TS_ERR_ARG;
    }
    return TS_OK;
}

int ts_rowgroup_step(const ts_row_block *B, int64_t n_cols, int fit_intercept, int64_t n_rhs,
                     int64_t n_vec, const int64_t *cols, const double *vb, const double *vcoef,
                     const double *ucoef, double *scale, double *ssq, double *gb)
{
    const int64_t n1 = n_cols + (fit_intercept != 0);
    int64_t q, p0;
    int status = check_group(B, n_cols, n_rhs, n_vec, cols, vb, vcoef, ucoef, scale, ssq, gb);
    if (status != TS_OK)
        return status;
    if (n_vec == 1) {
        double sq = 0;
        memset(gb, 0, (size_t)n1 * sizeof(double));
        if (B->X.indices32)
            one_lane_step_i32(B, B->X.indptr32, B->X.indices32, n_cols, fit_intercept, n_rhs, cols[0],
                              vb, vb ? vcoef[0] : 0.0, vb ? ucoef[0] : 0.0, &sq, gb);
        else
            one_lane_step_i64(B, B->X.indptr64, B->X.indices64, n_cols, fit_intercept, n_rhs, cols[0],
                              vb, vb ? vcoef[0] : 0.0, vb ? ucoef[0] : 0.0, &sq, gb);
        if ((sq >= DBL_MIN && sq <= DBL_MAX) || isnan(sq)) {
            scale[0] = 1.0;
            ssq[0] = sq;
        } else {
            scaled_sum(B, n_rhs, cols[0], &scale[0], &ssq[0]);
        }
        return TS_OK;
    }
    for (p0 = 0; p0 < n_vec; p0 += TS_LANES) {
        const int64_t width = n_vec - p0 < TS_LANES ? n_vec - p0 : TS_LANES;
        const int64_t at = p0 / TS_LANES * n1 * TS_LANES;
        const double *v = vb ? vb + at : NULL;
        double sq[TS_LANES] = {0};
        memset(gb + at, 0, (size_t)n1 * TS_LANES * sizeof(double));
        if (B->X.indices32)
            block_step_i32(B, B->X.indptr32, B->X.indices32, n_cols, fit_intercept, n_rhs, width,
                           cols + p0, v, v ? vcoef + p0 : NULL, v ? ucoef + p0 : NULL, sq, gb + at);
        else
            block_step_i64(B, B->X.indptr64, B->X.indices64, n_cols, fit_intercept, n_rhs, width,
                           cols + p0, v, v ? vcoef + p0 : NULL, v ? ucoef + p0 : NULL, sq, gb + at);
        for (q = 0; q < width; q++) {
            if ((sq[q] >= DBL_MIN && sq[q] <= DBL_MAX) || isnan(sq[q])) {
                scale[p0 + q] = 1.0;
                ssq[p0 + q] = sq[q];
            } else {
                scaled_sum(B, n_rhs, cols[p0 + q], &scale[p0 + q], &ssq[p0 + q]);
            }
        }
    }
    return TS_OK;
}
