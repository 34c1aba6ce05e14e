/*
 * LSQR (Paige & Saunders, ACM TOMS 8(1), 1982) for many right-hand sides at
 * once, on a row operator (ts_rowop) that keeps the rows, b, the row weights and
 * u itself: the row groups of the in-memory solve, or the row blocks of a
 * distributed one.  The solver holds the vectors of the unknowns (v, w, x).
 *
 * The recurrences, stopping tests and returned estimates follow the paper
 * (and so scipy.sparse.linalg.lsqr, which implements the same algorithm), so
 * results can be compared number for number.
 *
 * Layout.  Each right-hand side occupies a "position"; those still running are
 * the first n_active positions; when one stops, its results are written out and
 * the last running one is swapped into its place.  Vectors of all positions are
 * stored block-major: positions come in blocks of BLOCK, and a block keeps its
 * rows x BLOCK values contiguous, so that the updates of x and w stream through
 * whole cache lines.
 */
#include "textsel.h"
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK TS_LANES
/* Element (i, p) of a block-major array of `rows` rows. */
#define AT(a, rows, i, p) ((a)[((p) / BLOCK * (rows) + (i)) * BLOCK + (p) % BLOCK])

/* Per right-hand side state of the recurrences (names as in the paper). */
typedef struct {
    double alfa, beta, rhobar, phibar, bnorm, anorm, acond, ddnorm, res2;
    double xnorm, xxnorm, z, cs2, sn2, damp, rnorm, r1norm, r2norm, arnorm;
    double t1, t2; /* this step's update x += t1 w, w = v + t2 w */
    double vscale; /* v is stored unnormalised: the LSQR vector v is vscale times what is stored */
    double uscale; /* a ts_rowop keeps u unnormalised: the LSQR vector u is uscale times its u */
    int bexp;      /* b was scaled by 2^-bexp to keep its norm in range; x and the norms scale back */
    int64_t col; /* which right-hand side occupies this position */
    int64_t itn;
    int istop;
} column;

/* Stable Givens rotation: c, s, r with [c s; -s c] [a; b] = [r; 0] (sign as sign(0) = 0). */
static void sym_ortho(double a, double b, double *c, double *s, double *r)
{
    double tau;
    if (b == 0) {
        *c = (a > 0) - (a < 0);
        *s = 0;
        *r = fabs(a);
    } else if (a == 0) {
        *c = 0;
        *s = (b > 0) - (b < 0);
        *r = fabs(b);
    } else if (fabs(b) > fabs(a)) {
        tau = a / b;
        *s = ((b > 0) - (b < 0)) / sqrt(1 + tau * tau);
        *c = *s * tau;
        *r = b / *s;
    } else {
        tau = b / a;
        *c = ((a > 0) - (a < 0)) / sqrt(1 + tau * tau);
        *s = *c * tau;
        *r = a / *c;
    }
}

typedef struct {
    const ts_rowop *rop;     /* the operator, which keeps u (and b and the weights) itself */
    double *in, *out;        /* v row-major for an operator without lanes (else NULL); its product */
    int64_t *ids;            /* the column of each running position */
    int *exps;               /* each position's bexp, as the operator is told it */
    int fit_intercept;
    int64_t n, active;    /* n counts the intercept unknown */
    int64_t n_rhs;        /* the caller's right-hand sides: x has n_rhs columns */
    int64_t K;            /* positions stored: n_rhs rounded up to a multiple of BLOCK */
    column *cols;
    double *v, *w, *x;
} solver;

/* Whether a sum of squares may have overflowed or lost its value to underflow (0 included:
 * squares of values below 1e-154 vanish), so that the norm must be taken with scaling. */
static int out_of_range(double sq)
{
    return !(sq >= DBL_MIN && sq <= DBL_MAX);
}

/* The norm of lane q of a block's rows, scaled by the lane's largest magnitude (as BLAS nrm2
 * does): the slow path, for the lanes whose plain sum of squares left the double range. */
static double scaled_norm(const double *ab, int64_t rows, int q)
{
    int64_t i;
    double big = 0, sum = 0;
    for (i = 0; i < rows; i++)
        big = fmax(big, fabs(ab[i * BLOCK + q]));
    if (big == 0 || !isfinite(big))
        return big;
    for (i = 0; i < rows; i++) {
        const double t = ab[i * BLOCK + q] / big;
        sum += t * t;
    }
    return big * sqrt(sum);
}

/* sqrt(a^2 + b^2), by hypot only when the squares leave the double range (bitwise the plain
 * formula, as in scipy, everywhere else). */
static double norm2(double a, double b)
{
    const double sq = a * a + b * b;
    return out_of_range(sq) && (a != 0 || b != 0) ? hypot(a, b) : sqrt(sq);
}

/* Euclidean norms of the first P positions of a block-major array, into out (K entries). */
static void column_norms(const double *a, int64_t rows, int64_t P, double *out)
{
    int64_t i, q, p0;
    for (p0 = 0; p0 < P; p0 += BLOCK) {
        double sq[BLOCK] = {0};
        const double *ab = a + p0 * rows;
        for (i = 0; i < rows; i++) {
            const double *r = ab + i * BLOCK;
            TS_EACH_LANE(sq[q] += r[q] * r[q]);
        }
        for (q = 0; q < BLOCK; q++)
            out[p0 + q] = p0 + q < P && out_of_range(sq[q]) ? scaled_norm(ab, rows, (int)q)
                                                            : sqrt(sq[q]);
    }
}

/* a[:, p] *= factor[p] for the first P positions (factor has K entries). */
static void scale_columns(double *a, int64_t rows, int64_t P, const double *factor)
{
    int64_t i, q, p0;
    for (p0 = 0; p0 < P; p0 += BLOCK) {
        double f[BLOCK];
        double *ab = a + p0 * rows;
        for (q = 0; q < BLOCK; q++) /* lanes past P (finished or padding) are left alone */
            f[q] = p0 + q < P ? factor[p0 + q] : 1.0;
        for (i = 0; i < rows; i++) {
            double *r = ab + i * BLOCK;
            TS_EACH_LANE(r[q] *= f[q]);
        }
    }
}

/* out_a[p] = ||a[:, p]||, out_b[p] = ||b[:, p]|| in one pass over both (first P positions). */
static void two_norms(const double *a, const double *b, int64_t rows, int64_t P, double *out_a,
                      double *out_b)
{
    int64_t i, q, p0;
    for (p0 = 0; p0 < P; p0 += BLOCK) {
        double sa[BLOCK] = {0}, sb[BLOCK] = {0};
        const double *ab = a + p0 * rows, *bb = b + p0 * rows;
        for (i = 0; i < rows; i++) {
            const double *ra = ab + i * BLOCK, *rb = bb + i * BLOCK;
            TS_EACH_LANE(sa[q] += ra[q] * ra[q]; sb[q] += rb[q] * rb[q]);
        }
        for (q = 0; q < BLOCK; q++) {
            const int live = p0 + q < P;
            out_a[p0 + q] = live && out_of_range(sa[q]) ? scaled_norm(ab, rows, (int)q) : sqrt(sa[q]);
            out_b[p0 + q] = live && out_of_range(sb[q]) ? scaled_norm(bb, rows, (int)q) : sqrt(sb[q]);
        }
    }
}

static void swap_positions(solver *S, int64_t p, int64_t q)
{
    double *arrays[3] = {S->v, S->w, S->x};
    int64_t a, i;
    column tmp;
    if (p == q)
        return;
    for (a = 0; a < 3; a++)
        for (i = 0; i < S->n; i++) {
            double t = AT(arrays[a], S->n, i, p);
            AT(arrays[a], S->n, i, p) = AT(arrays[a], S->n, i, q);
            AT(arrays[a], S->n, i, q) = t;
        }
    tmp = S->cols[p];
    S->cols[p] = S->cols[q];
    S->cols[q] = tmp;
}

/* Write position p's solution and report out, then retire it. */
static void finish(solver *S, int64_t p, double *x, ts_lsqr_result *result)
{
    const column *c = &S->cols[p];
    int64_t i;
    ts_lsqr_result *r = &result[c->col];
    for (i = 0; i < S->n; i++)
        x[i * S->n_rhs + c->col] = ldexp(AT(S->x, S->n, i, p), c->bexp);
    r->istop = c->istop;
    r->itn = c->itn;
    r->r1norm = ldexp(c->r1norm, c->bexp);
    r->r2norm = ldexp(c->r2norm, c->bexp);
    r->anorm = c->anorm;
    r->acond = c->acond;
    r->arnorm = ldexp(c->arnorm, c->bexp);
    r->xnorm = ldexp(c->xnorm, c->bexp);
    swap_positions(S, p, S->active - 1);
    S->active--;
}

/* The scalar part of one LSQR step for position p, after u, v, alfa and beta have been
 * advanced; the vector update it sets up (t1, t2) is applied to all positions at once. */
static void step(solver *S, int64_t p, double ctol, double atol, double btol, int64_t iter_lim,
                 double wnorm_sq)
{
    column *c = &S->cols[p];
    const double eps = DBL_EPSILON, dampsq = c->damp * c->damp;
    double rhobar1, cs1, sn1, psi, cs, sn, rho, theta, phi, tau;
    double t1, delta, gambar, rhs, zbar, gamma, res1, r1sq, test1, test2, test3, rtol;

    if (c->damp > 0) {
        rhobar1 = norm2(c->rhobar, c->damp);
        cs1 = c->rhobar / rhobar1;
        sn1 = c->damp / rhobar1;
        psi = sn1 * c->phibar;
        c->phibar = cs1 * c->phibar;
    } else {
        rhobar1 = c->rhobar;
        psi = 0.0;
    }
    sym_ortho(rhobar1, c->beta, &cs, &sn, &rho);
    theta = sn * c->alfa;
    c->rhobar = -cs * c->alfa;
    phi = cs * c->phibar;
    c->phibar = sn * c->phibar;
    tau = sn * phi;

    c->t1 = phi / rho;
    c->t2 = -theta / rho;
    c->ddnorm += wnorm_sq / (rho * rho); /* || w / rho ||^2 with the w before the update */

    delta = c->sn2 * rho;
    gambar = -c->cs2 * rho;
    rhs = phi - delta * c->z;
    zbar = rhs / gambar;
    c->xnorm = sqrt(c->xxnorm + zbar * zbar);
    gamma = norm2(gambar, theta);
    c->cs2 = gambar / gamma;
    c->sn2 = theta / gamma;
    c->z = rhs / gamma;
    c->xxnorm += c->z * c->z;

    c->acond = c->anorm * sqrt(c->ddnorm);
    res1 = c->phibar * c->phibar;
    c->res2 += psi * psi;
    c->rnorm = sqrt(res1 + c->res2);
    c->arnorm = c->alfa * fabs(tau);
    if (c->damp > 0) {
        r1sq = c->rnorm * c->rnorm - dampsq * c->xxnorm;
        c->r1norm = sqrt(fabs(r1sq));
        if (r1sq < 0)
            c->r1norm = -c->r1norm;
    } else {
        c->r1norm = c->rnorm;
    }
    c->r2norm = c->rnorm;

    test1 = c->rnorm / c->bnorm;
    test2 = c->arnorm / (c->anorm * c->rnorm + eps);
    test3 = 1 / (c->acond + eps);
    t1 = test1 / (1 + c->anorm * c->xnorm / c->bnorm);
    rtol = btol + atol * c->anorm * c->xnorm / c->bnorm;

    /* later tests take precedence, as in the paper's Fortran */
    if (c->itn >= iter_lim)
        c->istop = 7;
    if (1 + test3 <= 1)
        c->istop = 6;
    if (1 + test2 <= 1)
        c->istop = 5;
    if (1 + t1 <= 1)
        c->istop = 4;
    if (test3 <= ctol)
        c->istop = 3;
    if (test2 <= atol)
        c->istop = 2;
    if (test1 <= rtol)
        c->istop = 1;
}

/*
 * The row operator's two calls.  It keeps u unnormalised (the LSQR vector is uscale times its
 * u), so that one call per iteration does what the fused kernels do in two passes:
 * u <- vscale D A v - alfa uscale u, then ||u|| and A'D u, whose normalisation follows here
 * (A'(u / beta) = (A'u) / beta).
 */
static int rop_status(int status)
{
    return status > 0 ? TS_ERR_CALLBACK : status;
}

/* Element (i, p) of the operator's product g, n rows by P columns, in its layout (ts_rowop's
 * lanes: the solver's lane blocks, or row-major). */
static double *out_at(const solver *S, int64_t P, int64_t i, int64_t p)
{
    return S->rop->lanes ? &AT(S->out, S->n, i, p) : &S->out[i * P + p];
}

/* Whether the operator's norms and its product, first P columns, are all finite: g read in its
 * own order (lane block by lane block, or row by row), a flag or-ed without a branch so that the
 * loop vectorizes (an exponent of all ones is an infinity or a NaN). */
static int rop_finite(const solver *S, int64_t P, const double *norms)
{
    const int64_t n = S->n, width = S->rop->lanes ? BLOCK : P;
    int64_t i, p, p0, q;
    uint64_t bad = 0;
    for (p = 0; p < P; p++)
        if (!isfinite(norms[p]))
            return 0;
    for (p0 = 0; p0 < P; p0 += width) {
        const double *g = S->out + p0 * n; /* the block's first row (row-major: g itself) */
        const int64_t used = P - p0 < width ? P - p0 : width;
        for (i = 0; i < n; i++)
            for (q = 0; q < used; q++) {
                uint64_t bits;
                memcpy(&bits, &g[i * width + q], sizeof bits);
                bad |= (~bits & 0x7ff0000000000000u) == 0;
            }
    }
    return !bad;
}

/* v <- coef v + g uscale (coef NULL: v <- g uscale) for the first P positions, where beta > 0
 * unless every position is to be set (all), g the operator's product: through the lane blocks
 * in order, or row by row for a row-major g. */
static void update_v(solver *S, int64_t P, const double *coef, int all)
{
    const int64_t n = S->n;
    int64_t i, p, p0, q;
    for (p0 = 0; p0 < P; p0 += S->rop->lanes ? BLOCK : P)
        for (i = 0; i < n; i++)
            for (q = 0; q < (S->rop->lanes ? BLOCK : P) && p0 + q < P; q++) {
                const column *c = &S->cols[p = p0 + q];
                const double g = *out_at(S, P, i, p);
                if (coef == NULL && (all || c->beta > 0))
                    AT(S->v, n, i, p) = g * c->uscale;
                else if (c->beta > 0)
                    AT(S->v, n, i, p) = coef[p] * AT(S->v, n, i, p) + g * c->uscale;
            }
}

/* beta u = D b (scaled by 2^-bexp where D b is far from 1: LSQR is linear in b and its stopping
 * tests are invariant to b's scale, so x and the norms scale back exactly), and
 * v = A'D u / beta into the zeroed v.  The norms of u (beta) go to norms. */
static int rop_start(solver *S, double *norms)
{
    const int64_t K = S->n_rhs;
    int64_t p;
    int status;
    for (p = 0; p < K; p++)
        S->ids[p] = S->cols[p].col;
    /* first the largest |D b| of each column, to choose its scale */
    status = rop_status(S->rop->start(S->rop->ctx, K, S->ids, NULL, norms, NULL, NULL));
    if (status != TS_OK)
        return status;
    for (p = 0; p < K; p++) {
        if (!isfinite(norms[p])) /* D b itself overflowed */
            return TS_ERR_NONFINITE;
        if (norms[p] > 0x1p500 || (norms[p] > 0 && norms[p] < 0x1p-500))
            frexp(norms[p], &S->cols[p].bexp);
        S->exps[p] = S->cols[p].bexp;
    }
    status = rop_status(S->rop->start(S->rop->ctx, K, S->ids, S->exps, NULL, norms, S->out));
    if (status != TS_OK)
        return status;
    if (!rop_finite(S, K, norms))
        return TS_ERR_NONFINITE;
    for (p = 0; p < K; p++) {
        column *c = &S->cols[p];
        c->beta = c->bnorm = norms[p];
        c->uscale = c->beta > 0 ? 1 / c->beta : 1.0;
    }
    update_v(S, K, NULL, 1);
    return TS_OK;
}

/* One iteration's products: u <- vscale D A v - alfa uscale u, beta = ||u||, and
 * v <- A'D u / beta - beta vscale v (v as it was where beta = 0).  The norms go to norms;
 * factor and coef are scratch (K entries each). */
static int rop_step(solver *S, double *norms, double *factor, double *coef)
{
    const int64_t P = S->active, n = S->n;
    int64_t i, p;
    int status;
    for (p = 0; p < P; p++) {
        const column *c = &S->cols[p];
        S->ids[p] = c->col;
        factor[p] = -c->alfa * c->uscale;
        coef[p] = c->vscale;
    }
    if (!S->rop->lanes) /* else the operator reads v where it is */
        for (i = 0; i < n; i++)
            for (p = 0; p < P; p++)
                S->in[i * P + p] = AT(S->v, n, i, p);
    status = rop_status(S->rop->step(S->rop->ctx, P, S->ids, S->rop->lanes ? S->v : S->in, coef, factor, norms,
                                     S->out));
    if (status != TS_OK)
        return status;
    if (!rop_finite(S, P, norms))
        return TS_ERR_NONFINITE;
    for (p = 0; p < P; p++) {
        column *c = &S->cols[p];
        c->beta = norms[p];
        if (c->beta > 0) {
            coef[p] = -c->beta * c->vscale; /* v's factor */
            c->anorm = norm2(norm2(c->anorm, c->alfa), norm2(c->beta, c->damp));
            c->uscale = 1 / c->beta;
        } else {
            c->uscale = 1.0; /* u = 0, so A'D u = 0: v stays as it was */
        }
    }
    update_v(S, P, coef, 0);
    return TS_OK;
}

static int check_inputs(int64_t n_rhs, const double *damp, const ts_lsqr_options *o)
{
    int64_t i;
    if (n_rhs < 1 || damp == NULL || o == NULL)
        return TS_ERR_ARG;
    if (!(o->atol >= 0) || !(o->btol >= 0) || !(o->conlim >= 0))
        return TS_ERR_ARG;
    for (i = 0; i < n_rhs; i++) {
        if (!isfinite(damp[i]))
            return TS_ERR_NONFINITE;
        if (damp[i] < 0)
            return TS_ERR_ARG;
    }
    return TS_OK;
}

int ts_lsqr_rowop(const ts_rowop *A, int64_t n_rhs, const double *damp, const ts_lsqr_options *options,
                  double *x, ts_lsqr_result *result)
{
    solver S;
    int64_t i, p, K = n_rhs, iter_lim;
    double ctol, *norms = NULL, *factor = NULL, *vscale = NULL;
    int status;
    if (A == NULL || A->start == NULL || A->step == NULL || A->n_rows < 0 || A->n_cols < 0)
        return TS_ERR_ARG;
    status = check_inputs(n_rhs, damp, options);
    if (status != TS_OK)
        return status;
    if (x == NULL || result == NULL)
        return TS_ERR_ARG;

    memset(&S, 0, sizeof S);
    S.rop = A;
    S.fit_intercept = A->fit_intercept != 0;
    S.n = A->n_cols + S.fit_intercept;
    S.n_rhs = K;
    S.K = (K + BLOCK - 1) / BLOCK * BLOCK;
    S.active = K;
    if (S.n > 0 && S.K > INT64_MAX / S.n)
        return TS_ERR_ARG;
    iter_lim = options->iter_lim < 0 ? 2 * S.n : options->iter_lim;
    ctol = options->conlim > 0 ? 1 / options->conlim : 0;

    S.cols = ts_calloc((size_t)S.K, sizeof(column));
    S.v = ts_calloc((size_t)(S.n * S.K), sizeof(double));
    S.w = ts_calloc((size_t)(S.n * S.K), sizeof(double));
    S.x = ts_calloc((size_t)(S.n * S.K), sizeof(double));
    norms = ts_calloc((size_t)S.K, sizeof(double));
    factor = ts_calloc((size_t)S.K, sizeof(double));
    vscale = ts_calloc((size_t)S.K, sizeof(double));
    if (!S.cols || !S.v || !S.w || !S.x || !norms || !factor || !vscale) {
        status = TS_ERR_NOMEM;
        goto done;
    }
    S.in = A->lanes ? NULL : ts_calloc((size_t)(S.n * S.K), sizeof(double));
    S.out = ts_calloc((size_t)(S.n * S.K), sizeof(double));
    S.ids = ts_calloc((size_t)S.K, sizeof(int64_t));
    S.exps = ts_calloc((size_t)S.K, sizeof(int));
    if ((!S.in && !A->lanes) || !S.out || !S.ids || !S.exps) {
        status = TS_ERR_NOMEM;
        goto done;
    }
    /* start: beta u = D b, alfa v = A'D u, w = v */
    for (p = 0; p < K; p++) {
        S.cols[p].col = p;
        S.cols[p].damp = damp[p];
        S.cols[p].cs2 = -1.0;
        S.cols[p].vscale = 1.0;
        S.cols[p].uscale = 1.0;
    }
    if ((status = rop_start(&S, norms)) != TS_OK)
        goto done;
    column_norms(S.v, S.n, K, norms);
    for (p = 0; p < K; p++)
        factor[p] = S.cols[p].beta > 0 && norms[p] > 0 ? 1 / norms[p] : 1.0;
    scale_columns(S.v, S.n, K, factor);
    for (p = 0; p < K; p++) {
        column *c = &S.cols[p];
        c->alfa = c->beta > 0 ? norms[p] : 0.0;
        c->rhobar = c->alfa;
        c->phibar = c->beta;
        c->rnorm = c->r1norm = c->r2norm = c->beta;
        c->arnorm = c->alfa * c->beta;
    }
    memcpy(S.w, S.v, sizeof(double) * (size_t)(S.n * S.K));
    for (p = S.active - 1; p >= 0; p--)
        if (S.cols[p].arnorm == 0)
            finish(&S, p, x, result); /* x = 0 is exact: istop 0, no iteration */

    while (S.active > 0) {
        const int64_t P = S.active;
        if (options->interrupted && options->interrupted(options->interrupt_ctx)) {
            status = TS_ERR_INTERRUPTED;
            goto done;
        }
        if (S.cols[0].itn >= iter_lim) {
            /* only reached with iter_lim = 0 (a step at the limit sets istop = 7):
             * no iteration was allowed, x = 0, istop 0 as in the paper */
            while (S.active > 0)
                finish(&S, 0, x, result);
            break;
        }
        for (p = 0; p < P; p++)
            S.cols[p].itn++;
        /* both products and the norm of u in one call of the operator, which keeps u */
        if ((status = rop_step(&S, norms, factor, vscale)) != TS_OK)
            goto done;
        /* the norms of the new v (alfa) and of w (for the step) in one pass; v is not
         * rescaled: 1/alfa becomes its vscale */
        two_norms(S.v, S.w, S.n, P, factor, norms);
        for (p = 0; p < P; p++) {
            column *c = &S.cols[p];
            if (c->beta > 0) {
                c->alfa = factor[p];
                c->vscale = c->alfa > 0 ? 1 / c->alfa : 1.0;
            }
        }
        for (p = 0; p < P; p++) {
            step(&S, p, ctol, options->atol, options->btol, iter_lim, norms[p] * norms[p]);
            factor[p] = S.cols[p].t1;
            norms[p] = S.cols[p].t2;
            vscale[p] = S.cols[p].vscale;
        }
        /* x += t1 w, w = v + t2 w for all running positions (whole blocks: the
         * lanes past P belong to finished or padding positions and are not read again) */
        for (p = P; p < S.K; p++)
            factor[p] = norms[p] = vscale[p] = 0.0;
        for (p = 0; p < P; p += BLOCK) {
            double *xb = S.x + p * S.n, *wb = S.w + p * S.n;
            const double *vb = S.v + p * S.n;
            int64_t q;
            const double *t1 = factor + p, *t2 = norms + p, *vs = vscale + p;
            (void)q;
            for (i = 0; i < S.n; i++) {
                double *xr = xb + i * BLOCK, *wr = wb + i * BLOCK;
                const double *vr = vb + i * BLOCK;
                TS_EACH_LANE(xr[q] += t1[q] * wr[q]; wr[q] = vs[q] * vr[q] + t2[q] * wr[q]);
            }
        }
        /* from the back: a position that finishes trades places with the last running one,
         * which has been looked at already (and when all finish at once nothing moves) */
        for (p = S.active - 1; p >= 0; p--)
            if (S.cols[p].istop != 0)
                finish(&S, p, x, result);
    }

    /* what scaling cannot rescue (a solution or an estimate beyond the double range, from a
     * matrix or weights near its ends) is an error, never a silent infinity or NaN */
    for (i = 0; i < S.n * K; i++)
        if (!isfinite(x[i]))
            status = TS_ERR_NONFINITE;
    for (p = 0; p < K; p++)
        if (!isfinite(result[p].r1norm) || !isfinite(result[p].anorm) ||
            !isfinite(result[p].arnorm) || !isfinite(result[p].xnorm))
            status = TS_ERR_NONFINITE;

done:
    free(S.cols);
    free(S.v);
    free(S.w);
    free(S.x);
    free(norms);
    free(factor);
    free(vscale);
    free(S.in);
    free(S.out);
    free(S.ids);
    free(S.exps);
    return status;
}
