/*
 * Dual coordinate descent for linear SVMs (Hsieh, Chang, Lin, Keerthi, Sundararajan, ICML 2008,
 * Algorithm 3 with shrinking), keeping the Lagrange multipliers it works on.
 *
 *     min_alpha  1/2 alpha' Qbar alpha - e' alpha   subject to 0 <= alpha_i <= U_i
 *
 * with Q_ij = y_i y_j x_i'x_j and Qbar = Q + D.  Hinge loss: U_i = C_i, D = 0.  Squared hinge:
 * U_i = infinity, D_ii = 1/(2 C_i).  The primal weights w = sum_i y_i alpha_i x_i are kept up to
 * date, so each coordinate step costs one sparse dot product and one sparse update.
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

/* Uniform in [0, n) without modulo bias (n > 0). */
static int64_t random_below(uint64_t *state, int64_t n)
{
    const uint64_t bound = (uint64_t)n, limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t r;
    do
        r = next_random(state);
    while (r >= limit);
    return (int64_t)(r % bound);
}

/* x_i' w over row i's stored values, plus the constant feature's share. */
static double row_dot(const ts_csr *X, int64_t i, const double *w, double bias_value, int64_t n)
{
    int64_t k;
    double s = bias_value != 0 ? bias_value * w[n] : 0.0;
    for (k = PTR(X, i); k < PTR(X, i + 1); k++)
        s += X->data[k] * w[IDX(X, k)];
    return s;
}

/* w += d x_i (and the constant feature). */
static void row_axpy(const ts_csr *X, int64_t i, double d, double *w, double bias_value, int64_t n)
{
    int64_t k;
    for (k = PTR(X, i); k < PTR(X, i + 1); k++)
        w[IDX(X, k)] += d * X->data[k];
    if (bias_value != 0)
        w[n] += d * bias_value;
}

static int check_inputs(const ts_csr *X, const double *y, const ts_svm_options *o, const double *alpha0,
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
    }
    return TS_OK;
}

int ts_dcd_svm(const ts_csr *X, const double *y, const ts_svm_options *o, const double *alpha0,
               double *w, double *alpha, ts_svm_result *result)
{
    const int64_t m = X ? X->n_rows : 0, n = X ? X->n_cols : 0;
    int64_t i, s, iter, active;
    int64_t *order = NULL;
    double *qd = NULL, *diag = NULL, *upper = NULL;
    double bias_value, pg_max_old = INFINITY, pg_min_old = -INFINITY;
    uint64_t rng;
    int status = check_inputs(X, y, o, alpha0, w, alpha, result);
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

    for (i = 0; i < n + (o->fit_intercept != 0); i++)
        w[i] = 0.0;
    for (i = 0; i < m; i++) {
        const double C = y[i] > 0 ? o->C_pos : o->C_neg;
        int64_t k;
        if (o->loss == TS_HINGE) {
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
            row_axpy(X, i, y[i] * alpha[i], w, bias_value, n);
        order[i] = i;
    }

    active = m;
    result->converged = 0;
    for (iter = 1; iter <= o->max_iter; iter++) {
        double pg_max = -INFINITY, pg_min = INFINITY;
        result->n_iter = iter;
        for (s = 0; s < active; s++) { /* a fresh random order of the active variables */
            const int64_t r = s + random_below(&rng, active - s), t = order[s];
            order[s] = order[r];
            order[r] = t;
        }
        for (s = 0; s < active; s++) {
            double g, pg = 0.0;
            i = order[s];
            g = y[i] * row_dot(X, i, w, bias_value, n) - 1.0 + diag[i] * alpha[i];
            if (alpha[i] == 0) {
                if (o->shrinking && g > pg_max_old) { /* at the lower bound and pushed down */
                    order[s--] = order[--active];
                    order[active] = i;
                    continue;
                }
                if (g < 0)
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
                    row_axpy(X, i, (next - old) * y[i], w, bias_value, n);
            }
        }
        if (pg_max - pg_min <= o->tol) {
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
    }

done:
    free(order);
    free(qd);
    free(diag);
    free(upper);
    return status;
}
