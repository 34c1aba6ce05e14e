/*
 * Dual coordinate descent for linear SVMs (Hsieh, Chang, Lin, Keerthi, Sundararajan, ICML 2008,
 * Algorithm 3 with shrinking), keeping the Lagrange multipliers it works on.
 *
 *     min_alpha  1/2 alpha' Qbar alpha - e' alpha   subject to 0 <= alpha_i <= U_i
 *
 * with Q_ij = y_i y_j x_i'x_j and Qbar = Q + D.  Hinge loss: U_i = C_i, D = 0.  Squared hinge:
 * U_i = infinity, D_ii = 1/(2 C_i).  The primal weights w = sum_i y_i alpha_i x_i are kept up to
 * date, so each coordinate step costs one sparse dot product and one sparse update.
 *
 * Coordinate descent finds the support vectors within tens of passes, then may spend hundreds
 * converging linearly on their values (Boolean, unnormalised text features are badly scaled).
 * Once a pass moves no multiplier across a bound, the current face is likely the optimal one,
 * and the minimiser on it is one linear solve in the free multipliers, whose number is the
 * support vectors', usually far below the documents'.  newton_step (options->newton) takes that
 * solve, or the feasible part of the way to it, and reports whether the result meets the same
 * stopping test over every variable.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>

/* splitmix64: a small, well-mixed generator whose whole state is one word we own. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) without bias (n > 0).  Below 2^32 by Lemire's multiply-shift, since a
 * 64-bit division per draw costs as much as a short document's whole coordinate step; the rare
 * rejection (then one modulo) removes the bias. */
static int64_t random_below(uint64_t *state, int64_t n)
{
    const uint64_t bound = (uint64_t)n;
    uint64_t product;
    if (bound > 0xFFFFFFFFULL) {
        const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
        uint64_t r;
        do
            r = next_random(state);
        while (r >= limit);
        return (int64_t)(r % bound);
    }
    product = (next_random(state) >> 32) * bound;
    if ((product & 0xFFFFFFFFULL) < bound) {
        const uint64_t threshold = (0x100000000ULL - bound) % bound;
        while ((product & 0xFFFFFFFFULL) < threshold)
            product = (next_random(state) >> 32) * bound;
    }
    return (int64_t)(product >> 32);
}

/* Passes over which the convergence rate of the projected gradient's spread is measured. */
#define RATE_WINDOW 8

/* Work arrays of newton_step, allocated once per solve. */
typedef struct {
    int64_t *free_idx;              /* m: the free multipliers */
    double *dense;                  /* n + 1: X_F' v, scattered */
    double *x, *r, *z, *p, *q;      /* m each: conjugate-gradient vectors over the free set */
} newton_ws;

/* The stopping test over every variable. */
static int pg_converged(const ts_csr *X, const double *y, const double *diag, const double *upper,
                        const double *alpha, const double *w, double bias_value, double tol)
{
    int64_t i;
    double pg_max = -INFINITY, pg_min = INFINITY;
    for (i = 0; i < X->n_rows; i++) {
        double g = y[i] * ts_row_dot(X, i, w, bias_value, X->n_cols) - 1.0 + diag[i] * alpha[i], pg = g;
        if (alpha[i] == 0 && g > 0)
            pg = 0;
        else if (alpha[i] == upper[i] && g < 0)
            pg = 0;
        pg_max = pg > pg_max ? pg : pg_max;
        pg_min = pg < pg_min ? pg : pg_min;
    }
    return ts_pg_converged(pg_max, pg_min, tol);
}

/* The dual objective 1/2 ||w||^2 + 1/2 sum D_ii alpha_i^2 - sum alpha_i, w matching alpha. */
static double dual_objective(const ts_csr *X, const double *diag, const double *alpha, const double *w,
                             double bias_value)
{
    int64_t i;
    double f = 0;
    for (i = 0; i < X->n_cols + (bias_value != 0); i++)
        f += 0.5 * w[i] * w[i];
    for (i = 0; i < X->n_rows; i++)
        f += (0.5 * diag[i] * alpha[i] - 1.0) * alpha[i];
    return f;
}

/*
 * The radius of a ball around w = sum y_i alpha_i x_i that holds the optimum's weights: the
 * primal P is 1-strongly convex, so ||w - w*||^2 <= 2 (P(w) - P(w*)) <= 2 (P(w) - D(alpha)), the
 * duality gap.  One pass over every document's margin.  The gap is widened by 1e-9 of its
 * terms' size, so that neither rounding in its sums nor the drift of the incrementally updated w
 * (D is taken at it, not at a fresh sum y alpha x) can shrink the ball, even were that drift
 * 1e-16 a step added up over millions of steps.
 */
static double optimum_radius(const ts_csr *X, const double *y, const double *diag, const double *upper,
                             int loss, const double *alpha, const double *w, double bias_value)
{
    int64_t i;
    const double minus_dual = dual_objective(X, diag, alpha, w, bias_value);
    double primal = 0, size = 0, gap;
    for (i = 0; i < X->n_cols + (bias_value != 0); i++)
        primal += 0.5 * w[i] * w[i];
    for (i = 0; i < X->n_rows; i++) {
        const double slack = 1.0 - y[i] * ts_row_dot(X, i, w, bias_value, X->n_cols);
        size += alpha[i];
        if (slack <= 0 || upper[i] == 0) /* no loss, or a weightless document */
            continue;
        primal += loss == TS_HINGE ? upper[i] * slack : 0.5 * slack * slack / diag[i]; /* C = 1/(2 D) */
    }
    gap = primal + minus_dual;
    size += fabs(primal) + fabs(minus_dual);
    return sqrt(2.0 * ((gap > 0 ? gap : 0.0) + 1e-9 * size));
}

/* q = Qbar_FF p over the free set: y_F * (X_F (X_F' (y_F * p))) + D_F p. */
static void face_matvec(const ts_csr *X, const double *y, const double *diag, double bias_value,
                        const newton_ws *ws, int64_t nf, const double *p, double *q)
{
    const int64_t n = X->n_cols;
    int64_t a, k;
    for (a = 0; a < nf; a++)
        ts_row_axpy(X, ws->free_idx[a], y[ws->free_idx[a]] * p[a], ws->dense, bias_value, n);
    for (a = 0; a < nf; a++) {
        const int64_t r = ws->free_idx[a];
        q[a] = y[r] * ts_row_dot(X, r, ws->dense, bias_value, n) + diag[r] * p[a];
    }
    for (a = 0; a < nf; a++) /* clear only what was touched: n may be far larger than X_F's columns */
        for (k = PTR(X, ws->free_idx[a]); k < PTR(X, ws->free_idx[a] + 1); k++)
            ws->dense[IDX(X, k)] = 0.0;
    ws->dense[n] = 0.0;
}

/*
 * One step towards the minimiser of the dual on the face where the multipliers now at 0 or at U
 * stay there: Qbar_FF alpha_F = e - Q_FU alpha_U.  Its residual at the current alpha is minus
 * the gradient over F, so Jacobi-preconditioned conjugate gradients start from the current
 * alpha_F and stop once every free gradient is below tol / 10, or when the work (in stored
 * values visited) would exceed `budget`.  Each CG iterate lowers the objective, but may leave
 * the box.  Returns 1 when the step meets the stopping test over every variable, 3 when the step
 * was cut short at a bound, 0 for any other step, 2 when nothing was done, 4 when the options'
 * interrupt check asked to stop (checked before every CG iteration).
 */
static int newton_step_once(const ts_csr *X, const double *y, const double *diag, const double *upper,
                            const double *qd, double bias_value, double tol, double *budget,
                            const newton_ws *ws, const ts_svm_options *o, double *alpha, double *w)
{
    const int64_t m = X->n_rows, n = X->n_cols;
    int64_t a, i, nf = 0, limit = -1, iter;
    double nnz_free = 0, t = 1.0, rz = 0, cost, f_old, s;
    for (i = 0; i < m; i++)
        if (alpha[i] > 0 && alpha[i] < upper[i]) {
            ws->free_idx[nf++] = i;
            nnz_free += (double)(PTR(X, i + 1) - PTR(X, i)) + 1;
        }
    cost = 2 * nnz_free + 6 * (double)nf;
    if (nf == 0 || cost > *budget)
        return 2;
    for (a = 0; a < nf; a++) {
        const int64_t r = ws->free_idx[a];
        ws->x[a] = alpha[r];
        ws->r[a] = 1.0 - y[r] * ts_row_dot(X, r, w, bias_value, n) - diag[r] * alpha[r];
        ws->z[a] = qd[r] > 0 ? ws->r[a] / qd[r] : ws->r[a];
        ws->p[a] = ws->z[a];
        rz += ws->r[a] * ws->z[a];
    }
    for (iter = 0; *budget >= cost; iter++) {
        double pq = 0, step, rz_next = 0, r_max = 0;
        /* a CG iteration costs two passes over the free documents: as long as a DCD pass */
        if (o->interrupted && o->interrupted(o->interrupt_ctx))
            return 4; /* alpha and w untouched so far */
        *budget -= cost;
        face_matvec(X, y, diag, bias_value, ws, nf, ws->p, ws->q);
        for (a = 0; a < nf; a++)
            pq += ws->p[a] * ws->q[a];
        if (!(pq > 0))
            break; /* a flat direction (hinge loss, dependent documents): stop here */
        step = rz / pq;
        if (!isfinite(step))
            return 2; /* a face too badly scaled for CG (weights near 1e308): alpha left alone */
        for (a = 0; a < nf; a++) {
            const int64_t r = ws->free_idx[a];
            ws->x[a] += step * ws->p[a];
            ws->r[a] -= step * ws->q[a];
            ws->z[a] = qd[r] > 0 ? ws->r[a] / qd[r] : ws->r[a];
            rz_next += ws->r[a] * ws->z[a];
            r_max = fabs(ws->r[a]) > r_max ? fabs(ws->r[a]) : r_max;
        }
        if (r_max <= 0.1 * tol)
            break;
        for (a = 0; a < nf; a++)
            ws->p[a] = ws->z[a] + rz_next / rz * ws->p[a];
        rz = rz_next;
    }
    if (iter == 0)
        return 2;
    for (a = 0; a < nf; a++)
        if (!isfinite(ws->x[a]))
            return 2; /* the same: coordinate descent goes on from the alpha it had */
    /* First the projected path P(alpha + s (x - alpha)) for s = 1, 1/2, ..., 1/16 (Bertsekas'
     * projected Newton): it drops every multiplier that wants to leave the face at once, and the
     * first point that lowers the objective is kept ... */
    f_old = dual_objective(X, diag, alpha, w, bias_value);
    for (a = 0; a < nf; a++)
        ws->z[a] = alpha[ws->free_idx[a]];
    for (s = 1.0; s >= 1.0 / 16; s /= 2) {
        for (a = 0; a < nf; a++) {
            const int64_t r = ws->free_idx[a];
            const double next = ws->z[a] + s * (ws->x[a] - ws->z[a]);
            alpha[r] = next < 0 ? 0.0 : (next > upper[r] ? upper[r] : next);
        }
        ts_rebuild_w(X, y, alpha, bias_value, w);
        if (dual_objective(X, diag, alpha, w, bias_value) < f_old)
            return pg_converged(X, y, diag, upper, alpha, w, bias_value, tol);
    }
    /* ... else the longest feasible step towards it, which lowers the objective by convexity */
    for (a = 0; a < nf; a++) {
        const double cur = ws->z[a], goal = ws->x[a];
        const double bound = goal < 0 ? 0.0 : upper[ws->free_idx[a]];
        if ((goal < 0 || goal > bound) && (bound - cur) / (goal - cur) < t) {
            t = (bound - cur) / (goal - cur);
            limit = a;
        }
    }
    for (a = 0; a < nf; a++) {
        const int64_t r = ws->free_idx[a];
        double next = a == limit ? (ws->x[a] < 0 ? 0.0 : upper[r]) : ws->z[a] + t * (ws->x[a] - ws->z[a]);
        alpha[r] = next < 0 ? 0.0 : (next > upper[r] ? upper[r] : next);
    }
    ts_rebuild_w(X, y, alpha, bias_value, w);
    if (limit >= 0)
        return 3;
    return pg_converged(X, y, diag, upper, alpha, w, bias_value, tol);
}

/*
 * Active-set iterations of newton_step_once: while a step is cut short by a multiplier reaching
 * a bound, that multiplier leaves the free set and the face's minimiser is sought again, as long
 * as `budget` lasts.  Returns 1 (stopping test met), 0 (alpha moved), 2 (nothing done) or 4
 * (interrupted).
 */
static int newton_step(const ts_csr *X, const double *y, const double *diag, const double *upper,
                       const double *qd, double bias_value, double tol, double budget, const newton_ws *ws,
                       const ts_svm_options *o, double *alpha, double *w)
{
    int step, moved = 0;
    while ((step = newton_step_once(X, y, diag, upper, qd, bias_value, tol, &budget, ws, o, alpha, w)) == 3)
        moved = 1;
    return step == 2 && moved ? 0 : step;
}

int ts_svm_check_inputs(const ts_csr *X, const double *y, const ts_svm_options *o, const double *alpha0,
                        const double *w, const double *alpha, const ts_svm_result *r)
{
    int64_t i;
    int status = ts_csr_check(X);
    if (status != TS_OK)
        return status;
    if (y == NULL || o == NULL || w == NULL || alpha == NULL || r == NULL)
        return TS_ERR_ARG;
    if (o->loss != TS_HINGE && o->loss != TS_SQUARED_HINGE)
        return TS_ERR_ARG;
    if (!(o->C_pos > 0) || !(o->C_neg > 0) || !(o->tol > 0) || o->max_iter < 1)
        return TS_ERR_ARG;
    if (!isfinite(o->C_pos) || !isfinite(o->C_neg) || !isfinite(o->tol) || !isfinite(o->intercept_scaling))
        return TS_ERR_NONFINITE;
    if (o->fit_intercept && !(o->intercept_scaling > 0))
        return TS_ERR_ARG;
    if (ts_csr_has_nonfinite(X))
        return TS_ERR_NONFINITE;
    for (i = 0; i < X->n_rows; i++) {
        if (y[i] != 1.0 && y[i] != -1.0)
            return TS_ERR_ARG;
        if (alpha0 && !isfinite(alpha0[i]))
            return TS_ERR_NONFINITE;
        if (alpha0 && alpha0[i] < 0)
            return TS_ERR_ARG;
        if (o->weights && !isfinite(o->weights[i]))
            return TS_ERR_NONFINITE;
        if (o->weights && !(o->weights[i] >= 0))
            return TS_ERR_ARG;
    }
    return TS_OK;
}

int ts_dcd_svm(const ts_csr *X, const double *y, const ts_svm_options *o, const double *alpha0,
               double *w, double *alpha, ts_svm_result *result)
{
    const int64_t m = X ? X->n_rows : 0, n = X ? X->n_cols : 0;
    int64_t i, s, iter, active, next_newton = 1, newton_gap = 1;
    int64_t *order = NULL;
    double *qd = NULL, *diag = NULL, *upper = NULL, newton_budget, work = 0;
    double bias_value, pg_max_old = INFINITY, pg_min_old = -INFINITY;
    newton_ws ws = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    double spreads[RATE_WINDOW], predicted = 0, certify_spread = INFINITY;
    uint64_t rng, steps = 0;
    int status = ts_svm_check_inputs(X, y, o, alpha0, w, alpha, result);
    if (status != TS_OK)
        return status;
    bias_value = o->fit_intercept ? o->intercept_scaling : 0.0;
    rng = o->seed;

    order = ts_calloc((size_t)m, sizeof(int64_t));
    qd = ts_calloc((size_t)m, sizeof(double));
    diag = ts_calloc((size_t)m, sizeof(double));
    upper = ts_calloc((size_t)m, sizeof(double));
    if (!order || !qd || !diag || !upper) {
        status = TS_ERR_NOMEM;
        goto done;
    }
    if (o->newton) {
        ws.free_idx = ts_calloc((size_t)m, sizeof(int64_t));
        ws.dense = ts_calloc((size_t)n + 1, sizeof(double));
        ws.x = ts_calloc(5 * (size_t)m, sizeof(double));
        if (!ws.free_idx || !ws.dense || !ws.x) {
            status = TS_ERR_NOMEM;
            goto done;
        }
        ws.r = ws.x + m;
        ws.z = ws.r + m;
        ws.p = ws.z + m;
        ws.q = ws.p + m;
    }
    /* a Newton attempt may visit as many stored values as some full passes, or as the
     * coordinate descent so far: it at most doubles the cost of a solve that does not need it */
    newton_budget = 20.0 * ((double)PTR(X, m) + (double)m);

    for (i = 0; i < n + (o->fit_intercept != 0); i++)
        w[i] = 0.0;
    for (i = 0; i < m; i++) {
        const double C = (y[i] > 0 ? o->C_pos : o->C_neg) * (o->weights ? o->weights[i] : 1.0);
        int64_t k;
        if (C == 0) { /* a document of weight zero takes no part */
            diag[i] = 0.0;
            upper[i] = 0.0;
        } else if (o->loss == TS_HINGE) {
            diag[i] = 0.0;
            upper[i] = C;
        } else {
            diag[i] = 0.5 / C;
            upper[i] = INFINITY;
        }
        qd[i] = diag[i] + bias_value * bias_value;
        for (k = PTR(X, i); k < PTR(X, i + 1); k++)
            qd[i] += X->data[k] * X->data[k];
        /* a warm start is clipped into the feasible box, then w = sum y_i alpha_i x_i */
        alpha[i] = alpha0 ? (alpha0[i] < upper[i] ? alpha0[i] : upper[i]) : 0.0;
        if (alpha[i] != 0)
            ts_row_axpy(X, i, y[i] * alpha[i], w, bias_value, n);
        order[i] = i;
    }

    active = m;
    result->converged = 0;
    result->certified = 0;
    for (iter = 1; iter <= o->max_iter; iter++) {
        double pg_max = -INFINITY, pg_min = INFINITY;
        int64_t crossings = 0; /* multipliers that reached or left a bound in this pass: when only
                                * a few did, the face is nearly settled */
        result->n_iter = iter;
        if (o->interrupted && o->interrupted(o->interrupt_ctx)) {
            status = TS_ERR_INTERRUPTED;
            goto done;
        }
        for (s = 0; s < active; s++) { /* a fresh random order of the active variables */
            const int64_t r = s + random_below(&rng, active - s), t = order[s];
            order[s] = order[r];
            order[r] = t;
        }
        for (s = 0; s < active; s++) {
            double g, pg = 0.0;
            /* a pass over many long documents can take seconds: check between passes and
             * every 2^16 steps */
            if (o->interrupted && (++steps & 0xFFFF) == 0 && o->interrupted(o->interrupt_ctx)) {
                status = TS_ERR_INTERRUPTED;
                goto done;
            }
            i = order[s];
            g = y[i] * ts_row_dot(X, i, w, bias_value, n) - 1.0 + diag[i] * alpha[i];
            work += (double)(PTR(X, i + 1) - PTR(X, i)) + 1;
            if (alpha[i] == 0) {
                if (o->shrinking && g > pg_max_old) { /* at the lower bound and pushed down */
                    order[s--] = order[--active];
                    order[active] = i;
                    continue;
                }
                if (g < 0 && upper[i] > 0) /* (U = 0 pins a weightless document at 0) */
                    pg = g;
            } else if (alpha[i] == upper[i]) {
                if (o->shrinking && g < pg_min_old) { /* at the upper bound and pushed up */
                    order[s--] = order[--active];
                    order[active] = i;
                    continue;
                }
                if (g > 0)
                    pg = g;
            } else {
                pg = g;
            }
            if (pg > pg_max)
                pg_max = pg;
            if (pg < pg_min)
                pg_min = pg;
            if (fabs(pg) > 1e-12) {
                const double old = alpha[i];
                double next = qd[i] > 0 ? old - g / qd[i] : (g < 0 ? upper[i] : 0.0);
                next = next < 0 ? 0.0 : (next > upper[i] ? upper[i] : next);
                alpha[i] = next;
                if (next != old)
                    ts_row_axpy(X, i, (next - old) * y[i], w, bias_value, n);
                crossings += (old == 0) != (next == 0) || (old == upper[i]) != (next == upper[i]);
            }
        }
        if (ts_pg_converged(pg_max, pg_min, o->tol)) {
            if (active == m) {
                result->converged = 1;
                break;
            }
            /* converged on the shrunk problem: check again with every variable */
            active = m;
            pg_max_old = INFINITY;
            pg_min_old = -INFINITY;
            continue;
        }
        pg_max_old = pg_max > 0 ? pg_max : INFINITY;
        pg_min_old = pg_min < 0 ? pg_min : -INFINITY;
        /* passes still needed at the rate of the last RATE_WINDOW: a Newton attempt costs tens
         * of passes over the free set, so it only pays against a slow tail */
        spreads[iter % RATE_WINDOW] = pg_max - pg_min;
        if (iter > RATE_WINDOW) {
            const double rate = pow((pg_max - pg_min) / spreads[(iter + 1) % RATE_WINDOW], 1.0 / (RATE_WINDOW - 1));
            predicted = rate < 1 ? log(o->tol / (pg_max - pg_min)) / log(rate) : INFINITY;
        }
        if (o->newton && crossings <= 2 && iter >= next_newton && predicted > 30) {
            const double budget = newton_budget > work ? newton_budget : work;
            const int step = newton_step(X, y, diag, upper, qd, bias_value, o->tol, budget, &ws, o, alpha, w);
            if (step == 4) {
                status = TS_ERR_INTERRUPTED;
                goto done;
            }
            if (step == 1) {
                result->converged = 1;
                break;
            }
            if (step == 0) { /* alpha moved: every variable is back in play */
                next_newton = iter + newton_gap; /* back off while the face keeps changing */
                newton_gap *= 2;
                active = m;
                pg_max_old = INFINITY;
                pg_min_old = -INFINITY;
            }
        }
        if (o->certify && crossings == 0 && pg_max - pg_min <= certify_spread) {
            const double worst = o->certify(o->certify_ctx, w,
                                            optimum_radius(X, y, diag, upper, o->loss, alpha, w, bias_value));
            if (worst < 1) {
                result->certified = 1;
                break;
            }
            /* the radius shrinks with the projected gradient (on a settled face the gap is a
             * quadratic in it): look again once the spread has shrunk by `worst`, since a check
             * costs a full pass */
            certify_spread = (pg_max - pg_min) / (isfinite(worst) ? worst : 16.0);
        }
    }
    status = ts_svm_finite(w, n + (o->fit_intercept != 0), alpha, m);

done:
    free(order);
    free(qd);
    free(diag);
    free(upper);
    free(ws.free_idx);
    free(ws.dense);
    free(ws.x);
    return status;
}
