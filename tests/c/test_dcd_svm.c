/* C unit tests of csrc/dcd_svm.c; built and run under ASan and UBSan by tests/test_c_core.py. */
#include "../../csrc/textsel.h"
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t m, n;
    double *data, *y;
    int32_t *ind, *ptr;
} dataset;

static uint64_t lcg;
static double uniform(void)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg >> 11) / 9007199254740992.0;
}

/* A dataset with room for a dense m x n matrix, no rows filled yet. */
static dataset alloc_data(int64_t m, int64_t n, uint64_t seed)
{
    dataset D;
    lcg = seed;
    D.m = m;
    D.n = n;
    D.data = malloc(sizeof(double) * (size_t)(m * n));
    D.ind = malloc(sizeof(int32_t) * (size_t)(m * n));
    D.ptr = malloc(sizeof(int32_t) * (size_t)(m + 1));
    D.y = malloc(sizeof(double) * (size_t)m);
    D.ptr[0] = 0;
    return D;
}

/* Two noisy classes: positives lean on the first half of the features. */
static dataset make_data(int64_t m, int64_t n, uint64_t seed)
{
    dataset D = alloc_data(m, n, seed);
    int64_t i, j, k = 0;
    for (i = 0; i < m; i++) {
        D.y[i] = uniform() < 0.3 ? 1.0 : -1.0;
        for (j = 0; j < n; j++) {
            double lean = (j < n / 2) == (D.y[i] > 0) ? 0.45 : 0.2;
            if (uniform() < lean) {
                D.data[k] = 0.2 + uniform();
                D.ind[k++] = (int32_t)j;
            }
        }
        D.ptr[i + 1] = (int32_t)k;
    }
    return D;
}

static void free_data(dataset *D)
{
    free(D->data);
    free(D->ind);
    free(D->ptr);
    free(D->y);
}

static ts_csr as_csr(const dataset *D)
{
    ts_csr X = {D->m, D->n, D->data, D->ind, D->ptr, NULL, NULL};
    return X;
}

static ts_svm_options options(int loss, int intercept)
{
    ts_svm_options o = {loss, 1.0, 1.0, 1e-6, 5000, intercept, 1.0, 1, 42, NULL, 0, NULL, NULL, NULL, NULL};
    return o;
}

/* Boolean documents of 20-60 terms out of n, unnormalised: the badly scaled case where plain
 * coordinate descent needs hundreds of passes (the study harness's Forman representation). */
static dataset make_boolean_data(int64_t m, int64_t n, uint64_t seed)
{
    dataset D = alloc_data(m, n, seed);
    int64_t i, j, k = 0;
    for (i = 0; i < m; i++) {
        double fill = 0.1 + 0.2 * uniform();
        D.y[i] = uniform() < 0.2 ? 1.0 : -1.0;
        for (j = 0; j < n; j++) {
            double p = fill * (j < 8 && D.y[i] > 0 ? 2.5 : 1.0);
            if (uniform() < p) {
                D.data[k] = 1.0;
                D.ind[k++] = (int32_t)j;
            }
        }
        D.ptr[i + 1] = (int32_t)k;
    }
    return D;
}

/* Primal objective 1/2||w||^2 + sum C_i loss_i (the bias weight included in w, as in liblinear). */
static double primal(const dataset *D, const ts_svm_options *o, const double *w)
{
    int64_t i, k, nw = D->n + (o->fit_intercept != 0);
    double obj = 0;
    for (i = 0; i < nw; i++)
        obj += 0.5 * w[i] * w[i];
    for (i = 0; i < D->m; i++) {
        double s = o->fit_intercept ? w[D->n] * o->intercept_scaling : 0, xi;
        for (k = D->ptr[i]; k < D->ptr[i + 1]; k++)
            s += D->data[k] * w[D->ind[k]];
        xi = 1 - D->y[i] * s;
        xi = xi > 0 ? xi : 0;
        obj += (D->y[i] > 0 ? o->C_pos : o->C_neg) * (o->loss == TS_HINGE ? xi : xi * xi);
    }
    return obj;
}

/* Dual objective sum alpha - 1/2 ||w||^2 - 1/2 sum D_ii alpha_i^2 with w = sum y alpha x. */
static double dual(const dataset *D, const ts_svm_options *o, const double *alpha, double *w_out)
{
    int64_t i, k, nw = D->n + (o->fit_intercept != 0);
    double obj = 0, *w = calloc((size_t)nw, sizeof(double));
    for (i = 0; i < D->m; i++) {
        double C = D->y[i] > 0 ? o->C_pos : o->C_neg;
        for (k = D->ptr[i]; k < D->ptr[i + 1]; k++)
            w[D->ind[k]] += D->y[i] * alpha[i] * D->data[k];
        if (o->fit_intercept)
            w[D->n] += D->y[i] * alpha[i] * o->intercept_scaling;
        obj += alpha[i];
        if (o->loss == TS_SQUARED_HINGE)
            obj -= 0.5 * alpha[i] * alpha[i] * 0.5 / C;
    }
    for (i = 0; i < nw; i++)
        obj -= 0.5 * w[i] * w[i];
    if (w_out)
        memcpy(w_out, w, sizeof(double) * (size_t)nw);
    free(w);
    return obj;
}

/* Both losses, with and without intercept, with and without the Newton finish, unequal C: multipliers in the box, w = sum y alpha x,
 * and the duality gap closes (primal = dual at the optimum). */
static void test_kkt_and_duality_gap(void)
{
    dataset D = make_data(150, 20, 1);
    ts_csr X = as_csr(&D);
    int loss, intercept, newton;
    for (loss = TS_HINGE; loss <= TS_SQUARED_HINGE; loss++)
        for (intercept = 0; intercept <= 1; intercept++)
            for (newton = 0; newton <= 1; newton++) {
                ts_svm_options o = options(loss, intercept);
                double w[21], w_from_alpha[21], alpha[150], p, d;
                ts_svm_result r;
                int64_t i;
                o.newton = newton;
                o.C_pos = 2.0;
                o.C_neg = 0.5;
                CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, alpha, &r) == TS_OK);
                CHECK(r.converged == 1 && r.n_iter < o.max_iter);
                for (i = 0; i < D.m; i++) {
                    CHECK(alpha[i] >= 0);
                    if (loss == TS_HINGE)
                        CHECK(alpha[i] <= (D.y[i] > 0 ? o.C_pos : o.C_neg));
                }
                d = dual(&D, &o, alpha, w_from_alpha);
                for (i = 0; i < D.n + intercept; i++)
                    CHECK(fabs(w[i] - w_from_alpha[i]) < 1e-9);
                p = primal(&D, &o, w);
                CHECK(p >= d - 1e-9);
                CHECK((p - d) / fabs(p) < 1e-4);
            }
    free_data(&D);
}

static int64_t interrupt_calls, interrupt_at;

static int stop_on_kth_call(void *ctx)
{
    (void)ctx;
    return ++interrupt_calls == interrupt_at;
}

/* A check that asks to stop, at its k-th call, stops the solver with TS_ERR_INTERRUPTED (at the
 * first checks, between passes and inside a long pass, and at the last), and nothing leaks; one
 * that never does is called once per pass at least, and the model is the same as without it. */
static void test_interrupt_check(void)
{
    dataset D = make_data(70000, 8, 4);
    ts_csr X = as_csr(&D);
    ts_svm_options o = options(TS_SQUARED_HINGE, 1);
    double *w = malloc(sizeof(double) * 9), *w0 = malloc(sizeof(double) * 9);
    double *a = malloc(sizeof(double) * 70000);
    ts_svm_result r;
    int64_t k, calls;
    o.newton = 1;
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w0, a, &r) == TS_OK);
    o.interrupted = stop_on_kth_call;
    interrupt_calls = 0, interrupt_at = 0;
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, a, &r) == TS_OK);
    calls = interrupt_calls;
    CHECK(calls >= r.n_iter + 1); /* a pass of 70,000 steps checks inside it too */
    CHECK(memcmp(w, w0, sizeof(double) * 9) == 0);
    for (k = 1; k <= calls; k = k < 4 ? k + 1 : (k < calls - 1 ? calls - 1 : k + 1)) {
        interrupt_calls = 0, interrupt_at = k;
        CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, a, &r) == TS_ERR_INTERRUPTED);
        CHECK(interrupt_calls == k);
    }
    free(w), free(w0), free(a);
    free_data(&D);
}

/* The same seed gives the same model bit for bit; another seed the same optimum. */
static void test_seeded_and_deterministic(void)
{
    dataset D = make_data(120, 16, 2);
    ts_csr X = as_csr(&D);
    ts_svm_options o = options(TS_SQUARED_HINGE, 1);
    double w1[17], w2[17], w3[17], a1[120], a2[120], a3[120];
    ts_svm_result r1, r2, r3;
    int64_t i;
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w1, a1, &r1) == TS_OK);
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w2, a2, &r2) == TS_OK);
    o.seed = 7;
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w3, a3, &r3) == TS_OK);
    CHECK(r1.n_iter == r2.n_iter);
    for (i = 0; i < 17; i++) {
        CHECK(w1[i] == w2[i]);
        CHECK(fabs(w1[i] - w3[i]) < 1e-3);
    }
    for (i = 0; i < 120; i++)
        CHECK(a1[i] == a2[i]);
    free_data(&D);
}

/* Started from its own solution, the solver stops within a few passes; without shrinking it agrees. */
static void test_warm_start_and_no_shrinking(void)
{
    dataset D = make_data(100, 12, 3);
    ts_csr X = as_csr(&D);
    ts_svm_options o = options(TS_HINGE, 1);
    double w[13], w2[13], alpha[100], alpha2[100];
    ts_svm_result r, r2;
    int64_t i;
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, alpha, &r) == TS_OK);
    CHECK(ts_dcd_svm(&X, D.y, &o, alpha, w2, alpha2, &r2) == TS_OK);
    /* a few passes, not one: the last pass of the first solve met the test while still moving */
    CHECK(r2.converged && r2.n_iter <= 10 && 20 * r2.n_iter < r.n_iter);
    o.shrinking = 0;
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w2, alpha2, &r2) == TS_OK);
    CHECK(r2.converged);
    CHECK(fabs(primal(&D, &o, w) - primal(&D, &o, w2)) / primal(&D, &o, w) < 1e-5);
    for (i = 0; i < 100; i++)
        CHECK(alpha2[i] >= 0 && alpha2[i] <= 1.0);
    free_data(&D);
}

/* max_iter stops the solver and says it did not converge. */
static void test_iteration_limit(void)
{
    dataset D = make_data(200, 30, 4);
    ts_csr X = as_csr(&D);
    ts_svm_options o = options(TS_HINGE, 1);
    double w[31], alpha[200];
    ts_svm_result r;
    o.max_iter = 2;
    o.tol = 1e-12;
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, alpha, &r) == TS_OK);
    CHECK(r.n_iter == 2 && r.converged == 0);
    free_data(&D);
}

static void test_bad_input(void)
{
    dataset D = make_data(30, 6, 5);
    ts_csr X = as_csr(&D);
    ts_svm_options o = options(TS_HINGE, 1);
    double w[7], alpha[30], a0[30];
    ts_svm_result r;
    int64_t i;
    o.loss = 9;
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, alpha, &r) == TS_ERR_ARG);
    o = options(TS_HINGE, 1);
    o.C_pos = 0;
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, alpha, &r) == TS_ERR_ARG);
    o = options(TS_HINGE, 1);
    o.tol = NAN;
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, alpha, &r) == TS_ERR_ARG);
    o = options(TS_HINGE, 1);
    o.intercept_scaling = 0;
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, alpha, &r) == TS_ERR_ARG);
    o = options(TS_HINGE, 1);
    D.y[3] = 0.5;
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, alpha, &r) == TS_ERR_ARG);
    D.y[3] = 1.0;
    for (i = 0; i < 30; i++)
        a0[i] = 0;
    a0[4] = -1;
    CHECK(ts_dcd_svm(&X, D.y, &o, a0, w, alpha, &r) == TS_ERR_ARG);
    a0[4] = INFINITY;
    CHECK(ts_dcd_svm(&X, D.y, &o, a0, w, alpha, &r) == TS_ERR_NONFINITE);
    D.data[0] = NAN;
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, alpha, &r) == TS_ERR_NONFINITE);
    D.data[0] = 1;
    {
        int32_t saved = D.ind[2];
        D.ind[2] = 6;
        CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, alpha, &r) == TS_ERR_INDEX);
        D.ind[2] = saved;
    }
    CHECK(ts_dcd_svm(&X, D.y, &o, NULL, NULL, alpha, &r) == TS_ERR_ARG);
    {
        /* found by fuzzing: documents weighted 1e308 with no stored value made the Newton
         * finish's CG overflow (the face's diagonal 1/(2C) is subnormal) and the model NaN; the
         * step is now abandoned and coordinate descent reaches the finite optimum */
        ts_csr empty = {4, 2, D.data, D.ind, NULL, NULL, NULL};
        int32_t zeros[5] = {0, 0, 0, 0, 0};
        double y4[4] = {1, -1, -1, 1}, big[4] = {1e308, 1e308, 1e308, 1e308}, w3[3], a4[4];
        ts_svm_options q = options(TS_SQUARED_HINGE, 1);
        double w_plain[3], a_plain[4];
        int k;
        q.weights = big;
        empty.indptr32 = zeros;
        q.newton = 0;
        CHECK(ts_dcd_svm(&empty, y4, &q, NULL, w_plain, a_plain, &r) == TS_OK);
        q.newton = 1;
        CHECK(ts_dcd_svm(&empty, y4, &q, NULL, w3, a4, &r) == TS_OK);
        for (k = 0; k < 4; k++)
            CHECK(isfinite(a4[k]) && fabs(a4[k] - a_plain[k]) <= 1e-6 * fabs(a_plain[k]));
        CHECK(isfinite(w3[2]) && fabs(w3[2] - w_plain[2]) <= 1e-6);
    }
    free_data(&D);
}


/* On badly scaled Boolean data the Newton finish reaches the same optimum (the duality gap
 * closes, the primal objective agrees with plain coordinate descent) in far fewer passes. */
static void test_newton_finish(void)
{
    dataset D = make_boolean_data(300, 120, 8);
    ts_csr X = as_csr(&D);
    int loss;
    for (loss = TS_HINGE; loss <= TS_SQUARED_HINGE; loss++) {
        ts_svm_options o = options(loss, 1);
        double w1[121], w2[121], a1[300], a2[300], p1, p2, d2;
        ts_svm_result r1, r2;
        int64_t i;
        o.tol = 1e-5;
        o.max_iter = 20000;
        CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w1, a1, &r1) == TS_OK);
        o.newton = 1;
        CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w2, a2, &r2) == TS_OK);
        CHECK(r1.converged && r2.converged);
        if (loss == TS_SQUARED_HINGE)
            CHECK(2 * r2.n_iter < r1.n_iter);
        for (i = 0; i < D.m; i++)
            CHECK(a2[i] >= 0 && (loss == TS_SQUARED_HINGE || a2[i] <= 1.0));
        p1 = primal(&D, &o, w1);
        p2 = primal(&D, &o, w2);
        d2 = dual(&D, &o, a2, NULL);
        CHECK(fabs(p1 - p2) / p1 < 1e-5);
        CHECK(p2 >= d2 - 1e-9 && (p2 - d2) / p2 < 1e-4);
        /* the Newton finish's CG iterations check for interrupts too: more checks than passes
         * (300 documents: no check inside a pass), and a stop at every one of them is clean */
        if (loss == TS_SQUARED_HINGE) {
            int64_t k, calls;
            o.interrupted = stop_on_kth_call;
            interrupt_calls = 0, interrupt_at = 0;
            CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w2, a2, &r2) == TS_OK);
            calls = interrupt_calls;
            CHECK(calls > r2.n_iter);
            for (k = 1; k <= calls; k++) {
                interrupt_calls = 0, interrupt_at = k;
                CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w2, a2, &r2) == TS_ERR_INTERRUPTED);
                CHECK(interrupt_calls == k);
            }
        }
    }
    free_data(&D);
}

/* An integer weight is the same as repeating the document, and a zero weight as leaving it
 * out: the primal objectives agree (a repeated document's multiplier is split among copies). */
static void test_weights_are_repetitions(void)
{
    dataset D = make_data(60, 10, 9), E;
    ts_csr X = as_csr(&D), XE;
    double weights[60], w1[11], w2[11], a1[60], a2[120], obj1, obj2;
    ts_svm_result r;
    int64_t i, k, e = 0, ke = 0;
    int loss, newton;
    E.m = 0;
    E.n = D.n;
    E.data = malloc(sizeof(double) * (size_t)(2 * D.ptr[D.m]));
    E.ind = malloc(sizeof(int32_t) * (size_t)(2 * D.ptr[D.m]));
    E.ptr = malloc(sizeof(int32_t) * 121);
    E.y = malloc(sizeof(double) * 120);
    E.ptr[0] = 0;
    for (i = 0; i < D.m; i++) { /* weights 0, 1, 2 in turn; E repeats documents accordingly */
        int copies = (int)(i % 3), c;
        weights[i] = copies;
        for (c = 0; c < copies; c++) {
            for (k = D.ptr[i]; k < D.ptr[i + 1]; k++) {
                E.data[ke] = D.data[k];
                E.ind[ke++] = D.ind[k];
            }
            E.y[e] = D.y[i];
            E.ptr[++e] = (int32_t)ke;
        }
    }
    E.m = e;
    XE = as_csr(&E);
    for (loss = TS_HINGE; loss <= TS_SQUARED_HINGE; loss++)
        for (newton = 0; newton <= 1; newton++) {
            ts_svm_options o = options(loss, 1);
            o.newton = newton;
            o.weights = weights;
            CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w1, a1, &r) == TS_OK && r.converged);
            for (i = 0; i < D.m; i++) {
                if (weights[i] == 0)
                    CHECK(a1[i] == 0);
                if (loss == TS_HINGE)
                    CHECK(a1[i] <= weights[i] + 1e-12);
            }
            o.weights = NULL;
            CHECK(ts_dcd_svm(&XE, E.y, &o, NULL, w2, a2, &r) == TS_OK && r.converged);
            obj1 = primal(&E, &o, w1);
            obj2 = primal(&E, &o, w2);
            CHECK(fabs(obj1 - obj2) / obj2 < 1e-5);
            for (i = 0; i < D.n + 1; i++)
                CHECK(fabs(w1[i] - w2[i]) < 1e-3);
        }
    {
        ts_svm_options o = options(TS_HINGE, 1);
        o.weights = weights;
        weights[5] = -1;
        CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w1, a1, &r) == TS_ERR_ARG);
        weights[5] = NAN;
        CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w1, a1, &r) == TS_ERR_NONFINITE);
    }
    free_data(&D);
    free_data(&E);
}

/* Every allocation failure is reported and leaks nothing, with and without the Newton finish. */
static void test_every_allocation_failure(void)
{
    dataset D = make_data(40, 8, 6);
    ts_csr X = as_csr(&D);
    int newton;
    for (newton = 0; newton <= 1; newton++) {
        ts_svm_options o = options(TS_SQUARED_HINGE, 1);
        double w[9], alpha[40];
        ts_svm_result r;
        int64_t k, failures = 0;
        o.newton = newton;
        for (k = 1; k <= 12; k++) {
            int status;
            ts_debug_fail_alloc_at(k);
            status = ts_dcd_svm(&X, D.y, &o, NULL, w, alpha, &r);
            if (status == TS_ERR_NOMEM)
                failures++;
            else
                CHECK(status == TS_OK);
        }
        ts_debug_fail_alloc_at(0);
        CHECK(failures == (newton ? 7 : 4));
    }
    free_data(&D);
}

/* Two copies of one document with opposite labels, weighted 1158 and 12 (a grouped problem):
 * after two exact coordinate steps every projected gradient is -1.99, so their spread is 0.  That
 * is no optimum: the solver must go on to the one where the heavier label wins (b < 0). */
static void test_equal_projected_gradients_are_not_convergence(void)
{
    double data[20], y[2] = {-1.0, 1.0}, weights[2] = {1158.0, 12.0}, w[11], alpha[2];
    int32_t ind[20], ptr[3] = {0, 10, 20};
    ts_csr X = {2, 10, data, ind, ptr, NULL, NULL};
    ts_svm_options o = options(TS_SQUARED_HINGE, 1);
    ts_svm_result r;
    uint64_t seed;
    int i;
    for (i = 0; i < 20; i++) {
        data[i] = 1.0;
        ind[i] = i % 10;
    }
    o.weights = weights;
    o.tol = 1e-4;
    o.max_iter = 1000;
    o.newton = 1;
    for (seed = 0; seed < 8; seed++) {
        o.seed = seed;
        CHECK(ts_dcd_svm(&X, y, &o, NULL, w, alpha, &r) == TS_OK && r.converged);
        /* the optimum: s = w'x + b = 11 (alpha_pos - alpha_neg), b = -0.08904 */
        CHECK(fabs(w[10] + 0.0890408298) < 1e-6);
    }
}

/* What options->certify sees, and when it answers "certified". */
typedef struct {
    int64_t calls, certify_at, n_weights; /* certify_at < 0: never */
    double radius, w[21];
} certify_log;

static double certify_at_call(void *ctx, const double *w, double radius)
{
    certify_log *log = ctx;
    memcpy(log->w, w, sizeof(double) * (size_t)log->n_weights);
    log->radius = radius;
    return ++log->calls == log->certify_at ? 0.5 : 2.0;
}

/* The radius handed to options->certify is sqrt(2 (P(w) - D(alpha))), both evaluated here by
 * hand at the solver's output, widened by at most the solver's stated 1e-9 of the terms' size
 * (sum alpha + |P| + |D|), and bounds the distance from its weights to the optimum's;
 * a stop there is reported as certified (not converged) and comes before the tolerance would
 * have stopped the solve; a check that never certifies leaves the solve exactly as it is
 * without one.  Both losses, with and without intercept, unequal C. */
static void test_certify_radius_is_the_duality_gap(void)
{
    dataset D = make_data(150, 20, 9);
    ts_csr X = as_csr(&D);
    int loss, intercept;
    for (loss = TS_HINGE; loss <= TS_SQUARED_HINGE; loss++)
        for (intercept = 0; intercept <= 1; intercept++) {
            ts_svm_options o = options(loss, intercept), tight = options(loss, intercept);
            certify_log log = {0, 1, D.n + intercept, 0, {0}};
            double w[21], alpha[150], w_star[21], a_star[150], w_plain[21], a_plain[150], p, d, dist = 0;
            double size = 0;
            ts_svm_result r, r_plain;
            int64_t i;
            o.C_pos = tight.C_pos = 2.0;
            o.C_neg = tight.C_neg = 0.5;
            o.newton = 1;
            tight.tol = 1e-11;
            tight.max_iter = 100000;
            tight.newton = 1;
            CHECK(ts_dcd_svm(&X, D.y, &tight, NULL, w_star, a_star, &r) == TS_OK && r.converged);
            CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w_plain, a_plain, &r_plain) == TS_OK && r_plain.converged);
            CHECK(!r_plain.certified);

            o.certify = certify_at_call;
            o.certify_ctx = &log;
            CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, alpha, &r) == TS_OK);
            CHECK(log.calls == 1 && r.certified && !r.converged && r.n_iter < r_plain.n_iter);
            CHECK(memcmp(log.w, w, sizeof(double) * (size_t)log.n_weights) == 0);
            p = primal(&D, &o, w);
            d = dual(&D, &o, alpha, NULL);
            CHECK(p - d > 1e-9); /* a real gap: the stop came early */
            for (i = 0; i < D.m; i++)
                size += alpha[i];
            size += fabs(p) + fabs(d);
            CHECK(log.radius * log.radius >= 2 * (p - d) - 1e-12 * size);
            CHECK(log.radius * log.radius <= 2 * (p - d) + 2e-9 * size + 1e-12 * size);
            for (i = 0; i < D.n + intercept; i++)
                dist += (w[i] - w_star[i]) * (w[i] - w_star[i]);
            CHECK(sqrt(dist) <= log.radius);

            log.calls = 0;
            log.certify_at = -1;
            CHECK(ts_dcd_svm(&X, D.y, &o, NULL, w, alpha, &r) == TS_OK);
            CHECK(log.calls > 0 && r.converged && !r.certified && r.n_iter == r_plain.n_iter);
            CHECK(memcmp(alpha, a_plain, sizeof(double) * 150) == 0);
            CHECK(memcmp(w, w_plain, sizeof(double) * (size_t)log.n_weights) == 0);
        }
    free_data(&D);
}

int main(void)
{
    int passed = 0, failed = 0;
    RUN(test_kkt_and_duality_gap, passed, failed);
    RUN(test_seeded_and_deterministic, passed, failed);
    RUN(test_warm_start_and_no_shrinking, passed, failed);
    RUN(test_iteration_limit, passed, failed);
    RUN(test_bad_input, passed, failed);
    RUN(test_interrupt_check, passed, failed);
    RUN(test_newton_finish, passed, failed);
    RUN(test_weights_are_repetitions, passed, failed);
    RUN(test_every_allocation_failure, passed, failed);
    RUN(test_equal_projected_gradients_are_not_convergence, passed, failed);
    RUN(test_certify_radius_is_the_duality_gap, passed, failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
