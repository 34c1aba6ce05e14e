/*
 * The in-memory solve's row operator (ts_row_groups, see textsel.h): each (lane block, group)
 * pair's step a task, the groups' parts added by the fixed tree in runs of rows, each run a task,
 * the tasks on the calling thread or on the caller's threads, with no call out of C per
 * iteration but the caller's parallel_for.  Every sum is the one a distributed solve forms
 * (textsel/_row_groups.py): the lanes packed the same way, each group's part from
 * ts_rowgroup_step, the parts added pairwise by the same tree, the norms combined as LAPACK's
 * nrm2 combines two scaled sums.  Products and sums are written as separate statements, so that
 * no compiler fuses a multiply and an add into one rounding another path does not make.
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
    G->wave = 1;
    G->slabs = 1;
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

int ts_row_groups_parallel(ts_row_groups *G, ts_parallel_for run, void *ctx, int64_t n_threads)
{
    const int64_t n1 = G->n_cols + G->fit_intercept, per_group = n1 * TS_LANES + 2 * TS_LANES;
    int64_t wave;
    double *scratch;
    if (n_threads < 1 || G->scratch == NULL)
        return TS_ERR_ARG;
    wave = (n_threads + G->n_groups - 1) / G->n_groups;
    if (n1 > (INT64_MAX / (int64_t)sizeof(double) - 2) / TS_LANES / (wave * G->n_groups + 1))
        return TS_ERR_NOMEM;
    scratch = ts_calloc((size_t)(n1 * TS_LANES + wave * G->n_groups * per_group), sizeof(double));
    if (scratch == NULL)
        return TS_ERR_NOMEM;
    free(G->scratch);
    G->scratch = scratch;
    G->wave = wave;
    G->slabs = n_threads;
    G->parallel = run;
    G->parallel_ctx = ctx;
    return TS_OK;
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

/* One round of a step: up to G->wave lane blocks, each on every group. */
typedef struct {
    ts_row_groups *G;
    int64_t n_blocks;
    int64_t first;          /* the round's first running column */
    const int64_t *cols;    /* the step's running columns */
    const double *v;        /* NULL: u as it is */
    const double *vcoef, *ucoef;
    const double *one;      /* a block of one column: its v unpacked (NULL where none) */
    int64_t n_vec;
} round_of_blocks;

/* Lane block j of the round: its first column, its width and its lanes. */
static void block_of(const round_of_blocks *R, int64_t j, int64_t *p0, int64_t *width, int64_t *L)
{
    *p0 = R->first + j * TS_LANES;
    *width = R->n_vec - *p0 < TS_LANES ? R->n_vec - *p0 : TS_LANES;
    *L = *width == 1 ? 1 : TS_LANES;
}

/* Lane block j's part of group k in the scratch: A'D u, then the scales, then the sums. */
static double *part_of(const ts_row_groups *G, int64_t j, int64_t k)
{
    const int64_t n1l = (G->n_cols + G->fit_intercept) * TS_LANES, per_group = n1l + 2 * TS_LANES;
    return G->scratch + n1l + (j * G->n_groups + k) * per_group;
}

/* Task t of a round's steps: lane block t / n_groups on group t % n_groups. */
static int step_task(void *arg, int64_t t)
{
    const round_of_blocks *R = (const round_of_blocks *)arg;
    ts_row_groups *G = R->G;
    const int64_t n1 = G->n_cols + G->fit_intercept, j = t / G->n_groups, k = t % G->n_groups;
    int64_t p0, width, L;
    double *part = part_of(G, j, k);
    const double *vb;
    block_of(R, j, &p0, &width, &L);
    vb = R->v == NULL ? NULL : L == 1 ? R->one : R->v + p0 * n1;
    return ts_rowgroup_step(&G->groups[k], G->n_cols, G->fit_intercept, G->n_rhs, width, R->cols + p0, vb,
                            R->v != NULL ? R->vcoef + p0 : NULL, R->v != NULL ? R->ucoef + p0 : NULL,
                            part + n1 * TS_LANES, part + n1 * TS_LANES + TS_LANES, part);
}

/* Groups [a, b)'s parts of lane block j, values [lo, hi) of each, added by the tree into group
 * a's. */
static void tree_parts(ts_row_groups *G, int64_t j, int64_t a, int64_t b, int64_t lo, int64_t hi)
{
    int64_t half;
    if (b - a < 2)
        return;
    half = tree_half(b - a);
    tree_parts(G, j, a, a + half, lo, hi);
    tree_parts(G, j, a + half, b, lo, hi);
    add_parts(part_of(G, j, a) + lo, part_of(G, j, a + half) + lo, hi - lo);
}

/* The same tree on the norms of lane block j's width lanes. */
static void tree_norms(ts_row_groups *G, int64_t j, int64_t a, int64_t b, int64_t width)
{
    const int64_t n1l = (G->n_cols + G->fit_intercept) * TS_LANES;
    int64_t half;
    double *left, *right;
    if (b - a < 2)
        return;
    half = tree_half(b - a);
    tree_norms(G, j, a, a + half, width);
    tree_norms(G, j, a + half, b, width);
    left = part_of(G, j, a) + n1l;
    right = part_of(G, j, a + half) + n1l;
    add_norms(left, left + TS_LANES, right, right + TS_LANES, width);
}

/* Task t of a round's sums: lane block t / slabs, its run of rows t % slabs. */
static int add_task(void *arg, int64_t t)
{
    const round_of_blocks *R = (const round_of_blocks *)arg;
    ts_row_groups *G = R->G;
    const int64_t n1 = G->n_cols + G->fit_intercept, j = t / G->slabs, s = t % G->slabs;
    int64_t p0, width, L;
    block_of(R, j, &p0, &width, &L);
    tree_parts(G, j, 0, G->n_groups, n1 * s / G->slabs * L, n1 * (s + 1) / G->slabs * L);
    return TS_OK;
}

/* task(arg, t) for t in [0, n): on the caller's threads where G has them. */
static int run_tasks(ts_row_groups *G, int64_t n, ts_task task, void *arg)
{
    int64_t t;
    int status = TS_OK, s;
    if (G->parallel != NULL && n > 1)
        return G->parallel(G->parallel_ctx, n, task, arg);
    for (t = 0; t < n; t++)
        if ((s = task(arg, t)) != TS_OK && status == TS_OK)
            status = s;
    return status;
}

/* u = vcoef D A v + ucoef u (v NULL: u as it is) for the columns cols, then ||u|| and A'D u;
 * v and g in the solver's lane blocks (ts_rowop's lanes 1).  A block of one column runs the
 * one-lane kernel, its v and g unpacked here. */
static int products(ts_row_groups *G, int64_t n_vec, const int64_t *cols, const double *v, const double *vcoef,
                    const double *ucoef, double *unorm, double *g)
{
    const int64_t n1 = G->n_cols + G->fit_intercept, n1l = n1 * TS_LANES;
    double *one = G->scratch;
    round_of_blocks R;
    int64_t i, q, j;
    int status;
    R.G = G;
    R.cols = cols;
    R.v = v;
    R.vcoef = vcoef;
    R.ucoef = ucoef;
    R.n_vec = n_vec;
    R.one = NULL;
    if (n_vec % TS_LANES == 1 && v != NULL) { /* the last block holds one column alone */
        const double *vl = v + (n_vec - 1) * n1;
        for (i = 0; i < n1; i++)
            one[i] = vl[i * TS_LANES];
        R.one = one;
    }
    for (R.first = 0; R.first < n_vec; R.first += G->wave * TS_LANES) {
        const int64_t left = (n_vec - R.first + TS_LANES - 1) / TS_LANES;
        R.n_blocks = left < G->wave ? left : G->wave;
        if ((status = run_tasks(G, R.n_blocks * G->n_groups, step_task, &R)) != TS_OK)
            return status;
        if (G->n_groups > 1)
            run_tasks(G, R.n_blocks * G->slabs, add_task, &R);
        for (j = 0; j < R.n_blocks; j++) {
            int64_t p0, width, L;
            const double *first = part_of(G, j, 0);
            double *gl;
            block_of(&R, j, &p0, &width, &L);
            tree_norms(G, j, 0, G->n_groups, width);
            for (q = 0; q < width; q++) {
                double root = sqrt(first[n1l + TS_LANES + q]);
                unorm[p0 + q] = first[n1l + q] * root;
            }
            gl = g + p0 * n1;
            if (L == 1)
                for (i = 0; i < n1; i++)
                    gl[i * TS_LANES] = first[i];
            else
                memcpy(gl, first, sizeof(double) * (size_t)n1l);
        }
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
