/*
 * The squared-hinge SVM of ts_dcd_svm on few features, by Newton's method on the primal
 * (Keerthi & DeCoste, JMLR 2005, "a modified finite Newton method"):
 *
 *     min_w  1/2 ||w||^2 + sum_i C_i max(0, 1 - y_i w'x_i)^2.
 *
 * With the documents below the margin fixed, the objective is a quadratic whose Hessian
 * I + 2 sum_{i active} C_i x_i x_i' is a small dense matrix when the features are few (the top
 * 10-50 terms of a ranking): one Cholesky solve gives the step, an exact line search along it
 * keeps the objective falling, and once the active documents stop changing the next step lands
 * on the optimum.  A handful of steps, where coordinate descent on the dual needs tens of passes
 * (repeated documents, weighted by their copies, make the dual badly scaled).
 *
 * The multipliers follow from w (alpha_i = 2 C_i max(0, 1 - y_i w'x_i)), and the stopping test
 * is ts_dcd_svm's, on those multipliers and on the w they give: the same optimum, the same test.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The multipliers w implies, alpha_i = 2 C_i max(0, 1 - margin_i) with margin_i = y_i w'x_i (a
 * weightless document's stays 0), and w_alpha = sum_i y_i alpha_i x_i, the w they give back. */
static void implied_multipliers(const ts_csr *X, const double *y, const double *C, const double *w,
                                double bias_value, double *margin, double *alpha, double *w_alpha)
{
    int64_t i;
    for (i = 0; i < X->n_rows; i++) {
        margin[i] = y[i] * ts_row_dot(X, i, w, bias_value, X->n_cols);
        alpha[i] = C[i] > 0 && margin[i] < 1 ? 2 * C[i] * (1 - margin[i]) : 0.0;
    }
    ts_rebuild_w(X, y, alpha, bias_value, w_alpha);
}

/* The derivative of the objective along s at w + t s: ws = w's, ss = s's, margin_i = y_i w'x_i,
 * z_i = y_i s'x_i.  Also its slope (the second derivative, from the right). */
static double slope_at(double t, int64_t m, const double *C, const double *margin, const double *z, double ws,
                       double ss, double *curvature)
{
    int64_t i;
    double d1 = ws + t * ss, d2 = ss;
    for (i = 0; i < m; i++) {
        const double r = 1.0 - margin[i] - t * z[i];
        if (C[i] > 0 && (r > 0 || (r == 0 && z[i] < 0))) {
            d1 -= 2 * C[i] * r * z[i];
            d2 += 2 * C[i] * z[i] * z[i];
        }
    }
    *curvature = d2;
    return d1;
}

/* The minimiser over t >= 0 of the convex, piecewise-quadratic objective along a descent
 * direction: Newton's method on its derivative, kept inside a bracket that bisection shrinks
 * whenever a Newton step would leave it. */
static double line_search(int64_t m, const double *C, const double *margin, const double *z, double ws, double ss)
{
    double lo = 0, hi = 1, t = 1, curvature, slope;
    int step;
    /* the slope at 0 is negative (a descent direction); find a point where it is not */
    while ((slope = slope_at(hi, m, C, margin, z, ws, ss, &curvature)) < 0 && hi < 1e6)
        lo = hi, hi *= 2;
    if (slope < 0)
        return hi;
    t = hi;
    for (step = 0; step < 100; step++) {
        double next;
        slope = slope_at(t, m, C, margin, z, ws, ss, &curvature);
        if (slope == 0)
            return t;
        if (slope < 0)
            lo = t;
        else
            hi = t;
        next = t - slope / curvature;
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi);
        if (hi - lo <= 1e-15 * hi || next == t)
            return next;
        t = next;
    }
    return t;
}

int ts_l2svm_newton(const ts_csr *X, const double *y, const ts_svm_options *o, const double *alpha0,
                    double *w, double *alpha, ts_svm_result *result)
{
    const int64_t m = X ? X->n_rows : 0, n = X ? X->n_cols : 0;
    int64_t i, j, p, q, iter, d;
    double *C = NULL, *margin = NULL, *z = NULL, *H = NULL, *g = NULL, *s = NULL, *w_alpha = NULL;
    double bias_value;
    int status = ts_svm_check_inputs(X, y, o, alpha0, w, alpha, result);
    if (status != TS_OK)
        return status;
    if (o->loss != TS_SQUARED_HINGE)
        return TS_ERR_ARG;
    bias_value = o->fit_intercept ? o->intercept_scaling : 0.0;
    d = n + (o->fit_intercept != 0);
    C = ts_calloc((size_t)m + 1, sizeof(double));
    margin = ts_calloc((size_t)m + 1, sizeof(double));
    z = ts_calloc((size_t)m + 1, sizeof(double));
    H = ts_calloc((size_t)d * (size_t)d + 1, sizeof(double));
    g = ts_calloc((size_t)d + 1, sizeof(double));
    s = ts_calloc((size_t)d + 1, sizeof(double));
    w_alpha = ts_calloc((size_t)d + 1, sizeof(double));
    if (!C || !margin || !z || !H || !g || !s || !w_alpha) {
        status = TS_ERR_NOMEM;
        goto done;
    }
    for (i = 0; i < m; i++)
        C[i] = (y[i] > 0 ? o->C_pos : o->C_neg) * (o->weights ? o->weights[i] : 1.0);
    /* the warm start: w = sum_i y_i alpha0_i x_i (a weightless document takes no part) */
    for (i = 0; i < m; i++)
        alpha[i] = alpha0 && C[i] > 0 ? alpha0[i] : 0.0;
    ts_rebuild_w(X, y, alpha, bias_value, w);
    result->converged = 0;
    result->certified = 0;
    result->n_iter = 0;
    for (iter = 1; iter <= o->max_iter; iter++) {
        double pg_max = -INFINITY, pg_min = INFINITY, ws = 0, ss = 0, t;
        result->n_iter = iter;
        if (o->interrupted && o->interrupted(o->interrupt_ctx)) {
            status = TS_ERR_INTERRUPTED;
            goto done;
        }
        implied_multipliers(X, y, C, w, bias_value, margin, alpha, w_alpha);
        /* ts_dcd_svm's stopping test, on (alpha, w_alpha) */
        for (i = 0; i < m; i++) {
            double grad, pg;
            if (C[i] == 0)
                continue; /* pinned at 0 */
            grad = y[i] * ts_row_dot(X, i, w_alpha, bias_value, n) - 1.0 + alpha[i] / (2 * C[i]);
            pg = alpha[i] == 0 && grad > 0 ? 0.0 : grad;
            pg_max = pg > pg_max ? pg : pg_max;
            pg_min = pg < pg_min ? pg : pg_min;
        }
        if (ts_pg_converged(pg_max, pg_min, o->tol)) {
            memcpy(w, w_alpha, (size_t)d * sizeof(double));
            result->converged = 1;
            break;
        }
        /* Newton: minus the gradient is w_alpha - w; the Hessian I + 2 sum_active C_i x_i x_i' */
        memset(H, 0, (size_t)d * (size_t)d * sizeof(double));
        for (j = 0; j < d; j++) {
            g[j] = w_alpha[j] - w[j];
            H[j * d + j] = 1.0;
        }
        for (i = 0; i < m; i++) {
            double c2;
            if (!(alpha[i] > 0))
                continue;
            c2 = 2 * C[i];
            for (p = PTR(X, i); p < PTR(X, i + 1); p++) {
                const int64_t a = IDX(X, p);
                const double v = c2 * X->data[p];
                for (q = PTR(X, i); q < PTR(X, i + 1); q++)
                    H[a * d + IDX(X, q)] += v * X->data[q];
                if (bias_value != 0)
                    H[a * d + n] += v * bias_value;
            }
            if (bias_value != 0) {
                for (q = PTR(X, i); q < PTR(X, i + 1); q++)
                    H[n * d + IDX(X, q)] += c2 * bias_value * X->data[q];
                H[n * d + n] += c2 * bias_value * bias_value;
            }
        }
        if (ts_cholesky(H, d)) {
            status = TS_ERR_NONFINITE; /* weights near the double range's end */
            goto done;
        }
        ts_cholesky_solve(H, d, g, s);
        for (j = 0; j < d; j++) {
            ws += w[j] * s[j];
            ss += s[j] * s[j];
        }
        if (!(ss > 0))
            break; /* no step left: the test above fails only by rounding */
        for (i = 0; i < m; i++)
            z[i] = y[i] * ts_row_dot(X, i, s, bias_value, n);
        t = line_search(m, C, margin, z, ws, ss);
        for (j = 0; j < d; j++)
            w[j] += t * s[j];
    }
    if (!result->converged) { /* out of steps: the last w's multipliers, and the w they give */
        implied_multipliers(X, y, C, w, bias_value, margin, alpha, w_alpha);
        memcpy(w, w_alpha, (size_t)d * sizeof(double));
    }
    status = ts_svm_finite(w, d, alpha, m);

done:
    free(C);
    free(margin);
    free(z);
    free(H);
    free(g);
    free(s);
    free(w_alpha);
    return status;
}
