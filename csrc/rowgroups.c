/*
 * The in-memory solve's row operator on one thread (ts_row_groups, see textsel.h): the groups'
 * steps one after another and their parts added by the fixed tree, with no call out of C per
 * iteration.  Every sum is the one the threaded solve forms (textsel/_row_groups.py): the lanes
 * packed the same way, each group's part from ts_rowgroup_step, the parts added pairwise by the
 * same tree, the norms combined as LAPACK's nrm2 combines two scaled sums.  Products and sums are
 * written as separate statements, so that no compiler fuses a multiply and an add into one
 * rounding the threaded path does not make.
 */
#include "textsel.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ts_row_groups_init(ts_row_groups *G, const ts_row_block *groups, int64_t n_groups, int64_t n_rows,
                       int64_t n_cols, int fit_intercept, int64_t n_rhs, const double *b,
                       const double *weights, double *u)
{
    int64_t n1 = n_cols + (fit_intercept != 0), per_group;
    memset(G, 0, sizeof(*G));
    if (groups == NULL || n_groups < 1 || n_rows < 0 || n_cols < 0 || n_rhs < 1 ||
        (n_rows > 0 && (b == NULL || u == NULL)))
        return TS_ERR_ARG;
    if (n1 > (INT64_MAX / (int64_t)sizeof(double) - 2) / TS_LANES / (n_groups + 1))
        return TS_ERR_NOMEM;
    per_group = n1 * TS_LANES + 2 * TS_LANES; /* a part of A'D u, then the scales and sums */
    G->scratch = ts_calloc((size_t)(n1 * TS_LANES + n_groups * per_group), sizeof(double));
    if (G->scratch == NULL)
        return TS_ERR_NOMEM;
    G->groups = groups;
    G->n_groups = n_groups;
    G->n_rows = n_rows;
    G->n_cols = n_cols;
    G->fit_intercept = fit_intercept != 0;
    G->n_rhs = n_rhs;
    G->b = b;
    G->weights = weights;
    G->u = u;
    return TS_OK;
}

void ts_row_groups_free(ts_row_groups *G)
{
    free(G->scratch);
    G->scratch = NULL;
}

/* The largest power of two below count (count >= 2). */
static int64_t tree_half(int64_t count)
{
    int64_t half = 1;
    while (2 * half < count)
        half *= 2;
    return half;
}

/* Group a's part of A'D u plus group b's, into a's (n values). */
static void add_parts(double *a, const double *b, int64_t n)
{
    int64_t i;
    for (i = 0; i < n; i++)
        a[i] = a[i] + b[i];
}

/* Two parts of each lane's norm, each scale * sqrt(ssq), as one in a's: the larger scale (NaN
 * where either is), each sum of squares rescaled to it. */
static void add_norms(double *scale_a, double *ssq_a, const double *scale_b, const double *ssq_b,
                      int64_t width)
{
    int64_t q;
    for (q = 0; q < width; q++) {
        double sa = scale_a[q], sb = scale_b[q], scale, safe, ra, rb, xa, xb;
        scale = (isnan(sa) || isnan(sb)) ? (isnan(sa) ? sa : sb) : (sa > sb ? sa : sb);
        safe = scale > 0 ? scale : 1.0;
        ra = sa / safe;
        rb = sb / safe;
        ra = ra * ra;
        rb = rb * rb;
        xa = ssq_a[q] * ra;
        xb = ssq_b[q] * rb;
        scale_a[q] = scale;
        ssq_a[q] = xa + xb;
    }
}

/* Groups [a, b)'s parts added by the tree into group a's. */
static void tree(ts_row_groups *G, int64_t a, int64_t b, int64_t n_part, int64_t width)
{
    const int64_t per_group = (G->n_cols + G->fit_intercept) * TS_LANES + 2 * TS_LANES;
    double *first = G->scratch + (G->n_cols + G->fit_intercept) * TS_LANES;
    int64_t half;
    if (b - a < 2)
        return;
    half = tree_half(b - a);
    tree(G, a, a + half, n_part, width);
    tree(G, a + half, b, n_part, width);
    {
        double *left = first + a * per_group, *right = first + (a + half) * per_group;
        int64_t n1l = (G->n_cols + G->fit_intercept) * TS_LANES;
        add_parts(left, right, n_part);
        add_norms(left + n1l, left + n1l + TS_LANES, right + n1l, right + n1l + TS_LANES, width);
    }
}

/* u = vcoef D A v + ucoef u (v NULL: u as it is) for the columns cols, then ||u|| and A'D u;
 * v and g in the solver's lane blocks (ts_rowop's lanes 1).  A block of one column runs the
 * one-lane kernel, its v and g unpacked here. */
static int products(ts_row_groups *G, int64_t n_vec, const int64_t *cols, const double *v, const double *vcoef,
                    const double *ucoef, double *unorm, double *g)
{
    const int64_t n1 = G->n_cols + G->fit_intercept, n1l = n1 * TS_LANES, per_group = n1l + 2 * TS_LANES;
    double *one = G->scratch, *first = G->scratch + n1l;
    int64_t p0, i, q, k;
    int status;
    for (p0 = 0; p0 < n_vec; p0 += TS_LANES) {
        const int64_t width = n_vec - p0 < TS_LANES ? n_vec - p0 : TS_LANES;
        const int64_t L = width == 1 ? 1 : TS_LANES;
        const double *vl = v != NULL ? v + p0 * n1 : NULL, *vb = vl;
        double *gl = g + p0 * n1;
        if (L == 1 && v != NULL) {
            for (i = 0; i < n1; i++)
                one[i] = vl[i * TS_LANES];
            vb = one;
        }
        for (k = 0; k < G->n_groups; k++) {
            double *part = first + k * per_group;
            status = ts_rowgroup_step(&G->groups[k], G->n_cols, G->fit_intercept, G->n_rhs, width, cols + p0, vb,
                                      v != NULL ? vcoef + p0 : NULL, v != NULL ? ucoef + p0 : NULL,
                                      part + n1l, part + n1l + TS_LANES, part);
            if (status != TS_OK)
                return status;
        }
        tree(G, 0, G->n_groups, n1 * L, width);
        for (q = 0; q < width; q++) {
            double root = sqrt(first[n1l + TS_LANES + q]);
            unorm[p0 + q] = first[n1l + q] * root;
        }
        if (L == 1)
            for (i = 0; i < n1; i++)
                gl[i * TS_LANES] = first[i];
        else
            memcpy(gl, first, sizeof(double) * (size_t)n1l);
    }
    return TS_OK;
}

ts_rowop ts_row_groups_op(ts_row_groups *G)
{
    ts_rowop A;
    A.n_rows = G->n_rows;
    A.n_cols = G->n_cols;
    A.fit_intercept = G->fit_intercept;
    A.lanes = 1;
    A.start = ts_row_groups_start;
    A.step = ts_row_groups_step;
    A.ctx = G;
    return A;
}

int ts_row_groups_start(void *ctx, int64_t n_vec, const int64_t *cols, const int *exps, double *maxabs,
                        double *unorm, double *g)
{
    ts_row_groups *G = (ts_row_groups *)ctx;
    const int64_t m = G->n_rows;
    int64_t p, i;
    for (p = 0; p < n_vec; p++)
        if (cols[p] < 0 || cols[p] >= G->n_rhs)
            return TS_ERR_ARG;
    for (p = 0; p < n_vec; p++) {
        const double *b = G->b + cols[p] * m, *w = G->weights ? G->weights + cols[p] * m : NULL;
        if (exps == NULL) {
            double top = 0.0;
            for (i = 0; i < m; i++) {
                double a = fabs(w ? w[i] * b[i] : b[i]);
                if (isnan(a)) { /* numpy's max: a NaN is the maximum */
                    top = a;
                    break;
                }
                top = a > top ? a : top;
            }
            maxabs[p] = top;
        } else {
            double *u = G->u + cols[p] * m;
            for (i = 0; i < m; i++)
                u[i] = ldexp(w ? w[i] * b[i] : b[i], -exps[p]);
        }
    }
    return exps == NULL ? TS_OK : products(G, n_vec, cols, NULL, NULL, NULL, unorm, g);
}

int ts_row_groups_step(void *ctx, int64_t n_vec, const int64_t *cols, const double *v, const double *vcoef,
                       const double *ucoef, double *unorm, double *g)
{
    return products((ts_row_groups *)ctx, n_vec, cols, v, vcoef, ucoef, unorm, g);
}
