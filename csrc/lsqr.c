/*
 * LSQR (Paige & Saunders, ACM TOMS 8(1), 1982) for many right-hand sides at
 * once, on the operator D_k [X, 1] applied inside the CSR loops.
 *
 * The recurrences, stopping tests and returned estimates follow the paper
 * (and so scipy.sparse.linalg.lsqr, which implements the same algorithm), so
 * results can be compared number for number.  Right-hand sides still running
 * occupy the first n_active "positions" of every column-major-by-row block
 * (stride n_rhs); when one stops, its results are written out and the last
 * running one is swapped into its position, so the inner loops run over a
 * contiguous prefix.
 */
#include "textsel.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef TS_TESTING
static int64_t fail_at = 0, n_allocs = 0;
void ts_debug_fail_alloc_at(int64_t k) { fail_at = k; n_allocs = 0; }
#else
void ts_debug_fail_alloc_at(int64_t k) { (void)k; }
#endif

static void *ts_calloc(size_t n, size_t size)
{
#ifdef TS_TESTING
    if (fail_at > 0 && ++n_allocs == fail_at)
        return NULL;
#endif
    if (n == 0)
        n = 1;
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    return calloc(n, size);
}

/* Column index j of the k-th stored entry and the row pointers, whatever the index width. */
#define IDX(X, k) ((X)->indices32 ? (int64_t)(X)->indices32[k] : (X)->indices64[k])
#define PTR(X, i) ((X)->indptr32 ? (int64_t)(X)->indptr32[i] : (X)->indptr64[i])

int ts_csr_check(const ts_csr *X)
{
    int64_t i, k, start, end, nnz;
    if (X == NULL || X->n_rows < 0 || X->n_cols < 0 || X->data == NULL)
        return TS_ERR_ARG;
    if ((X->indices32 == NULL) == (X->indices64 == NULL))
        return TS_ERR_ARG;
    if ((X->indices32 != NULL) != (X->indptr32 != NULL))
        return TS_ERR_ARG;
    if (PTR(X, 0) != 0)
        return TS_ERR_INDEX;
    nnz = PTR(X, X->n_rows);
    for (i = 0; i < X->n_rows; i++) {
        start = PTR(X, i);
        end = PTR(X, i + 1);
        if (end < start || end > nnz)
            return TS_ERR_INDEX;
        for (k = start; k < end; k++) {
            int64_t j = IDX(X, k);
            if (j < 0 || j >= X->n_cols)
                return TS_ERR_INDEX;
        }
    }
    return TS_OK;
}

/* Per right-hand side state of the recurrences (names as in the paper). */
typedef struct {
    double alfa, beta, rhobar, phibar, bnorm, anorm, acond, ddnorm, res2;
    double xnorm, xxnorm, z, cs2, sn2, damp, rnorm, r1norm, r2norm, arnorm;
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
    const ts_csr *X;
    int fit_intercept;
    int64_t m, n, K, active; /* n counts the intercept unknown */
    const double *weights;   /* m x K or NULL */
    column *cols;
    double *u, *v, *vn, *w, *x, *acc;
} solver;

static double weight(const solver *S, int64_t i, int64_t p)
{
    return S->weights ? S->weights[i * S->K + S->cols[p].col] : 1.0;
}

/* u[:, p] <- D_p A v[:, p] - alfa_p u[:, p] for the running positions. */
static void matvec_update(solver *S)
{
    const ts_csr *X = S->X;
    const int64_t K = S->K, P = S->active;
    int64_t i, k, p;
    for (i = 0; i < S->m; i++) {
        double *acc = S->acc;
        double *ui = S->u + i * K;
        for (p = 0; p < P; p++)
            acc[p] = S->fit_intercept ? S->v[(S->n - 1) * K + p] : 0.0;
        for (k = PTR(X, i); k < PTR(X, i + 1); k++) {
            const double xv = X->data[k];
            const double *vj = S->v + IDX(X, k) * K;
            for (p = 0; p < P; p++)
                acc[p] += xv * vj[p];
        }
        for (p = 0; p < P; p++)
            ui[p] = weight(S, i, p) * acc[p] - S->cols[p].alfa * ui[p];
    }
}

/* vn[:, p] <- (D_p A)' u[:, p] for the running positions. */
static void rmatvec(solver *S)
{
    const ts_csr *X = S->X;
    const int64_t K = S->K, P = S->active;
    int64_t i, k, p;
    for (i = 0; i < S->n * K; i++)
        S->vn[i] = 0.0;
    for (i = 0; i < S->m; i++) {
        double *du = S->acc;
        const double *ui = S->u + i * K;
        for (p = 0; p < P; p++)
            du[p] = weight(S, i, p) * ui[p];
        for (k = PTR(X, i); k < PTR(X, i + 1); k++) {
            const double xv = X->data[k];
            double *vj = S->vn + IDX(X, k) * K;
            for (p = 0; p < P; p++)
                vj[p] += xv * du[p];
        }
        if (S->fit_intercept) {
            double *vb = S->vn + (S->n - 1) * K;
            for (p = 0; p < P; p++)
                vb[p] += du[p];
        }
    }
}

/* Euclidean norms of the first P columns of a rows x K block, into out. */
static void column_norms(const double *a, int64_t rows, int64_t K, int64_t P, double *out)
{
    int64_t i, p;
    for (p = 0; p < P; p++)
        out[p] = 0.0;
    for (i = 0; i < rows; i++)
        for (p = 0; p < P; p++)
            out[p] += a[i * K + p] * a[i * K + p];
    for (p = 0; p < P; p++)
        out[p] = sqrt(out[p]);
}

static void scale_column(double *a, int64_t rows, int64_t K, int64_t p, double s)
{
    int64_t i;
    for (i = 0; i < rows; i++)
        a[i * K + p] *= s;
}

static void swap_positions(solver *S, int64_t p, int64_t q)
{
    double *blocks[4] = {S->u, S->v, S->w, S->x};
    int64_t rows[4] = {S->m, S->n, S->n, S->n};
    int64_t b, i;
    column tmp;
    if (p == q)
        return;
    for (b = 0; b < 4; b++)
        for (i = 0; i < rows[b]; i++) {
            double t = blocks[b][i * S->K + p];
            blocks[b][i * S->K + p] = blocks[b][i * S->K + q];
            blocks[b][i * S->K + q] = t;
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
        x[i * S->K + c->col] = S->x[i * S->K + p];
    r->istop = c->istop;
    r->itn = c->itn;
    r->r1norm = c->r1norm;
    r->r2norm = c->r2norm;
    r->anorm = c->anorm;
    r->acond = c->acond;
    r->arnorm = c->arnorm;
    r->xnorm = c->xnorm;
    swap_positions(S, p, S->active - 1);
    S->active--;
}

/* One LSQR step for position p after u, v, alfa, beta have been advanced. */
static void step(solver *S, int64_t p, double ctol, double atol, double btol, int64_t iter_lim,
                 double wnorm_sq)
{
    column *c = &S->cols[p];
    const double eps = DBL_EPSILON, dampsq = c->damp * c->damp;
    double rhobar1, cs1, sn1, psi, cs, sn, rho, theta, phi, tau, t1, t2;
    double delta, gambar, rhs, zbar, gamma, res1, r1sq, test1, test2, test3, rtol;
    int64_t i;
    const int64_t K = S->K;

    if (c->damp > 0) {
        rhobar1 = sqrt(c->rhobar * c->rhobar + dampsq);
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

    t1 = phi / rho;
    t2 = -theta / rho;
    for (i = 0; i < S->n; i++) {
        double wi = S->w[i * K + p];
        S->x[i * K + p] += t1 * wi;
        S->w[i * K + p] = S->v[i * K + p] + t2 * wi;
    }
    c->ddnorm += wnorm_sq / (rho * rho); /* || w / rho ||^2 with the w before the update */

    delta = c->sn2 * rho;
    gambar = -c->cs2 * rho;
    rhs = phi - delta * c->z;
    zbar = rhs / gambar;
    c->xnorm = sqrt(c->xxnorm + zbar * zbar);
    gamma = sqrt(gambar * gambar + theta * theta);
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

static int check_inputs(const ts_csr *X, int64_t n_rhs, const double *b, const double *weights,
                        const double *damp, const ts_lsqr_options *o)
{
    int64_t i, status = ts_csr_check(X);
    int64_t nnz;
    if (status != TS_OK)
        return (int)status;
    if (n_rhs < 1 || b == NULL || damp == NULL || o == NULL)
        return TS_ERR_ARG;
    if (!(o->atol >= 0) || !(o->btol >= 0) || !(o->conlim >= 0))
        return TS_ERR_ARG;
    nnz = PTR(X, X->n_rows);
    for (i = 0; i < nnz; i++)
        if (!isfinite(X->data[i]))
            return TS_ERR_NONFINITE;
    if (X->n_rows > 0 && n_rhs > INT64_MAX / X->n_rows)
        return TS_ERR_ARG;
    for (i = 0; i < X->n_rows * n_rhs; i++) {
        if (!isfinite(b[i]) || (weights && !isfinite(weights[i])))
            return TS_ERR_NONFINITE;
        if (weights && weights[i] < 0)
            return TS_ERR_ARG;
    }
    for (i = 0; i < n_rhs; i++) {
        if (!isfinite(damp[i]))
            return TS_ERR_NONFINITE;
        if (damp[i] < 0)
            return TS_ERR_ARG;
    }
    return TS_OK;
}

int ts_lsqr(const ts_csr *X, int fit_intercept, int64_t n_rhs, const double *b,
            const double *row_weights, const double *damp, const ts_lsqr_options *options,
            double *x, ts_lsqr_result *result)
{
    solver S;
    int64_t i, p, K = n_rhs, iter_lim;
    double ctol, *norms = NULL;
    int status = check_inputs(X, n_rhs, b, row_weights, damp, options);
    if (status != TS_OK)
        return status;
    if (x == NULL || result == NULL)
        return TS_ERR_ARG;

    memset(&S, 0, sizeof S);
    S.X = X;
    S.fit_intercept = fit_intercept != 0;
    S.m = X->n_rows;
    S.n = X->n_cols + S.fit_intercept;
    S.K = K;
    S.active = K;
    S.weights = row_weights;
    if (S.n > 0 && K > INT64_MAX / S.n)
        return TS_ERR_ARG;
    iter_lim = options->iter_lim < 0 ? 2 * S.n : options->iter_lim;
    ctol = options->conlim > 0 ? 1 / options->conlim : 0;

    S.cols = ts_calloc((size_t)K, sizeof(column));
    S.u = ts_calloc((size_t)(S.m * K), sizeof(double));
    S.v = ts_calloc((size_t)(S.n * K), sizeof(double));
    S.vn = ts_calloc((size_t)(S.n * K), sizeof(double));
    S.w = ts_calloc((size_t)(S.n * K), sizeof(double));
    S.x = ts_calloc((size_t)(S.n * K), sizeof(double));
    S.acc = ts_calloc((size_t)K, sizeof(double));
    norms = ts_calloc((size_t)K, sizeof(double));
    if (!S.cols || !S.u || !S.v || !S.vn || !S.w || !S.x || !S.acc || !norms) {
        status = TS_ERR_NOMEM;
        goto done;
    }

    /* start: beta u = D b, alfa v = A'D u, w = v */
    for (p = 0; p < K; p++) {
        S.cols[p].col = p;
        S.cols[p].damp = damp[p];
        S.cols[p].cs2 = -1.0;
    }
    for (i = 0; i < S.m; i++)
        for (p = 0; p < K; p++)
            S.u[i * K + p] = weight(&S, i, p) * b[i * K + p];
    column_norms(S.u, S.m, K, K, norms);
    for (p = 0; p < K; p++) {
        column *c = &S.cols[p];
        c->beta = c->bnorm = norms[p];
        if (c->beta > 0)
            scale_column(S.u, S.m, K, p, 1 / c->beta);
    }
    rmatvec(&S); /* columns with beta = 0 have u = 0, hence v = 0, as in the paper */
    memcpy(S.v, S.vn, sizeof(double) * (size_t)(S.n * K));
    column_norms(S.v, S.n, K, K, norms);
    for (p = 0; p < K; p++) {
        column *c = &S.cols[p];
        c->alfa = c->beta > 0 ? norms[p] : 0.0;
        if (c->alfa > 0)
            scale_column(S.v, S.n, K, p, 1 / c->alfa);
        c->rhobar = c->alfa;
        c->phibar = c->beta;
        c->rnorm = c->r1norm = c->r2norm = c->beta;
        c->arnorm = c->alfa * c->beta;
    }
    memcpy(S.w, S.v, sizeof(double) * (size_t)(S.n * K));
    for (p = 0; p < S.active;) {
        if (S.cols[p].arnorm == 0)
            finish(&S, p, x, result); /* x = 0 is exact: istop 0, no iteration */
        else
            p++;
    }

    while (S.active > 0) {
        const int64_t P = S.active;
        if (S.cols[0].itn >= iter_lim) {
            /* only reached with iter_lim = 0 (a step at the limit sets istop = 7):
             * no iteration was allowed, x = 0, istop 0 as in the paper */
            while (S.active > 0)
                finish(&S, 0, x, result);
            break;
        }
        for (p = 0; p < P; p++)
            S.cols[p].itn++;
        /* beta u = A v - alfa u */
        matvec_update(&S);
        column_norms(S.u, S.m, K, P, norms);
        for (p = 0; p < P; p++) {
            column *c = &S.cols[p];
            c->beta = norms[p];
            if (c->beta > 0) {
                scale_column(S.u, S.m, K, p, 1 / c->beta);
                c->anorm = sqrt(c->anorm * c->anorm + c->alfa * c->alfa + c->beta * c->beta +
                                c->damp * c->damp);
            }
        }
        /* alfa v = A'u - beta v, where beta > 0 */
        rmatvec(&S);
        for (i = 0; i < S.n; i++)
            for (p = 0; p < P; p++)
                if (S.cols[p].beta > 0)
                    S.v[i * K + p] = S.vn[i * K + p] - S.cols[p].beta * S.v[i * K + p];
        column_norms(S.v, S.n, K, P, norms);
        for (p = 0; p < P; p++) {
            column *c = &S.cols[p];
            if (c->beta > 0) {
                c->alfa = norms[p];
                if (c->alfa > 0)
                    scale_column(S.v, S.n, K, p, 1 / c->alfa);
            }
        }
        column_norms(S.w, S.n, K, P, norms);
        for (p = 0; p < P; p++)
            step(&S, p, ctol, options->atol, options->btol, iter_lim, norms[p] * norms[p]);
        for (p = 0; p < S.active;) {
            if (S.cols[p].istop != 0)
                finish(&S, p, x, result);
            else
                p++;
        }
    }

done:
    free(S.cols);
    free(S.u);
    free(S.v);
    free(S.vn);
    free(S.w);
    free(S.x);
    free(S.acc);
    free(norms);
    return status;
}
