/* C unit tests of csrc/primal_newton.c and csrc/nested_svm.c; built and run under ASan and UBSan
 * by tests/test_c_core.py.  The reference for both is ts_dcd_svm at a tolerance far below the
 * one under test. */
#include "../../csrc/textsel.h"
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t lcg;
static double uniform(void)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg >> 11) / 9007199254740992.0;
}

/* A dense m x n matrix with labels; Boolean (many repeated rows at few columns) or valued. */
typedef struct {
    int64_t m, n;
    double *X, *y;
} dense;

static dense make_dense(int64_t m, int64_t n, int boolean, uint64_t seed)
{
    dense D;
    int64_t i, j;
    lcg = seed;
    D.m = m;
    D.n = n;
    D.X = calloc((size_t)(m * n), sizeof(double));
    D.y = malloc(sizeof(double) * (size_t)m);
    for (i = 0; i < m; i++) {
        D.y[i] = uniform() < 0.25 ? 1.0 : -1.0;
        for (j = 0; j < n; j++) {
            /* the first features lean to the positives, the later ones are rarer */
            double p = (j < 3 && D.y[i] > 0 ? 0.6 : 0.25) / (1.0 + 0.05 * (double)j);
            if (uniform() < p)
                D.X[i * n + j] = boolean ? 1.0 : 0.3 + uniform();
        }
    }
    return D;
}

/* CSR of the columns cols[0 .. k) of D (relabelled 0 .. k), or its transpose (CSC of D). */
typedef struct {
    ts_csr X;
    double *data;
    int64_t *ind, *ptr;
} csr;

static csr to_csr(const dense *D, const int64_t *cols, int64_t k, int transpose)
{
    csr C;
    const int64_t rows = transpose ? D->n : D->m, width = transpose ? D->m : k;
    int64_t i, j, nz = 0;
    C.data = malloc(sizeof(double) * (size_t)(D->m * D->n + 1));
    C.ind = malloc(sizeof(int64_t) * (size_t)(D->m * D->n + 1));
    C.ptr = malloc(sizeof(int64_t) * (size_t)(rows + 1));
    C.ptr[0] = 0;
    for (i = 0; i < rows; i++) {
        for (j = 0; j < width; j++) {
            const double v = transpose ? D->X[j * D->n + i] : D->X[i * D->n + cols[j]];
            if (v != 0) {
                C.data[nz] = v;
                C.ind[nz++] = j;
            }
        }
        C.ptr[i + 1] = nz;
    }
    C.X.n_rows = rows;
    C.X.n_cols = width;
    C.X.data = C.data;
    C.X.indices32 = NULL;
    C.X.indptr32 = NULL;
    C.X.indices64 = C.ind;
    C.X.indptr64 = C.ptr;
    return C;
}

static void free_csr(csr *C)
{
    free(C->data);
    free(C->ind);
    free(C->ptr);
}

/* A training and held-out pair, dense and by column. */
static void free_split(dense *train, dense *test, csr *train_t, csr *test_t)
{
    free_csr(train_t);
    free_csr(test_t);
    free(train->X);
    free(train->y);
    free(test->X);
    free(test->y);
}

static ts_svm_options options(double tol)
{
    ts_svm_options o = {TS_SQUARED_HINGE, 1.0, 1.0, tol, 100000, 1, 1.0, 1, 7, NULL, 1, NULL, NULL, NULL, NULL};
    return o;
}

/* 1/2 ||w||^2 + sum C_i max(0, 1 - y_i (w'x_i + b))^2, the bias weight included in w. */
static double objective(const ts_csr *X, const double *y, const ts_svm_options *o, const double *w)
{
    int64_t i, p;
    double f = 0;
    for (i = 0; i < X->n_cols + 1; i++)
        f += 0.5 * w[i] * w[i];
    for (i = 0; i < X->n_rows; i++) {
        double s = w[X->n_cols] * o->intercept_scaling, xi;
        for (p = X->indptr64[i]; p < X->indptr64[i + 1]; p++)
            s += X->data[p] * w[X->indices64[p]];
        xi = 1 - y[i] * s;
        if (xi > 0)
            f += (y[i] > 0 ? o->C_pos : o->C_neg) * (o->weights ? o->weights[i] : 1.0) * xi * xi;
    }
    return f;
}

/* Newton on the primal reaches ts_dcd_svm's optimum, with w = sum y alpha x, from a cold and a
 * warm start, with unequal C and per-document weights (one of them zero). */
static void test_primal_newton_matches_coordinate_descent(void)
{
    const int64_t cols[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    int boolean;
    for (boolean = 0; boolean < 2; boolean++) {
        dense D = make_dense(150, 12, boolean, 3 + (uint64_t)boolean);
        csr C = to_csr(&D, cols, 12, 0);
        double weights[150], w_ref[13], a_ref[150], w[13], alpha[150], w_sum[13];
        ts_svm_options o = options(1e-12), on = options(1e-6);
        ts_svm_result r;
        int64_t i, p;
        for (i = 0; i < 150; i++)
            weights[i] = i == 5 ? 0.0 : 1.0 + (double)(i % 4);
        o.C_pos = on.C_pos = 2.0;
        o.weights = on.weights = weights;
        CHECK(ts_dcd_svm(&C.X, D.y, &o, NULL, w_ref, a_ref, &r) == TS_OK && r.converged);
        CHECK(ts_l2svm_newton(&C.X, D.y, &on, NULL, w, alpha, &r) == TS_OK && r.converged);
        CHECK(r.n_iter < 30);
        CHECK(fabs(objective(&C.X, D.y, &on, w) - objective(&C.X, D.y, &o, w_ref)) <=
              1e-9 * objective(&C.X, D.y, &o, w_ref));
        memset(w_sum, 0, sizeof w_sum);
        for (i = 0; i < 150; i++) {
            CHECK(alpha[i] >= 0);
            for (p = C.ptr[i]; p < C.ptr[i + 1]; p++)
                w_sum[C.ind[p]] += D.y[i] * alpha[i] * C.data[p];
            w_sum[12] += D.y[i] * alpha[i];
        }
        CHECK(alpha[5] == 0.0); /* weightless */
        for (i = 0; i < 13; i++)
            CHECK(fabs(w_sum[i] - w[i]) <= 1e-9 * (1 + fabs(w[i])));
        /* started at the optimum's multipliers: the first check stops it */
        CHECK(ts_l2svm_newton(&C.X, D.y, &on, a_ref, w, alpha, &r) == TS_OK && r.converged && r.n_iter == 1);
        free_csr(&C);
        free(D.X);
        free(D.y);
    }
}

static void test_primal_newton_refuses_what_it_cannot_solve(void)
{
    const int64_t cols[4] = {0, 1, 2, 3};
    dense D = make_dense(20, 4, 1, 1);
    csr C = to_csr(&D, cols, 4, 0);
    double w[5], alpha[20];
    ts_svm_options o = options(1e-4);
    ts_svm_result r;
    o.loss = TS_HINGE; /* not differentiable: no Newton step */
    CHECK(ts_l2svm_newton(&C.X, D.y, &o, NULL, w, alpha, &r) == TS_ERR_ARG);
    o = options(1e-4);
    D.y[3] = 0.5;
    CHECK(ts_l2svm_newton(&C.X, D.y, &o, NULL, w, alpha, &r) == TS_ERR_ARG);
    D.y[3] = 1.0;
    C.data[0] = NAN;
    CHECK(ts_l2svm_newton(&C.X, D.y, &o, NULL, w, alpha, &r) == TS_ERR_NONFINITE);
    C.data[0] = 1.0;
    o.max_iter = 1; /* one step from zero does not reach the optimum */
    CHECK(ts_l2svm_newton(&C.X, D.y, &o, NULL, w, alpha, &r) == TS_OK && !r.converged && r.n_iter == 1);
    free_csr(&C);
    free(D.X);
    free(D.y);
}

/* The chain's confusion counts equal those of a fit per k by hand (ts_dcd_svm on the top-k
 * columns, tight tolerance), with and without grouping repeated rows, with and without the
 * early stop on certified predictions, on Boolean and valued features: the Newton path (few
 * columns), the coordinate-descent path, the grouping and the early stop are all checked
 * against the plain solver. */
static void test_chain_matches_a_fit_per_k(void)
{
    const int64_t n = 90, m = 400, m_test = 150, ks[4] = {2, 5, 40, 90};
    int64_t order[90], i, t, g;
    int boolean;
    for (i = 0; i < n; i++)
        order[i] = (i * 37 + 11) % n; /* a permutation of the columns */
    for (boolean = 0; boolean < 2; boolean++) {
        dense train = make_dense(m, n, boolean, 10 + (uint64_t)boolean);
        dense test = make_dense(m_test, n, boolean, 20 + (uint64_t)boolean);
        csr train_t = to_csr(&train, NULL, 0, 1), test_t = to_csr(&test, NULL, 0, 1);
        ts_svm_options o = options(1e-10);
        int64_t confusion[12], by_hand[12];
        ts_svm_result results[4];
        for (t = 0; t < 4; t++) { /* the reference: one cold fit per k */
            csr top = to_csr(&train, order, ks[t], 0);
            double w[91], alpha[400];
            ts_svm_result r;
            int64_t tp = 0, fp = 0, fn = 0;
            CHECK(ts_dcd_svm(&top.X, train.y, &o, NULL, w, alpha, &r) == TS_OK && r.converged);
            for (i = 0; i < m_test; i++) {
                double s = w[ks[t]];
                int64_t j;
                for (j = 0; j < ks[t]; j++)
                    s += test.X[i * n + order[j]] * w[j];
                tp += s > 0 && test.y[i] > 0;
                fp += s > 0 && test.y[i] < 0;
                fn += !(s > 0) && test.y[i] > 0;
            }
            by_hand[3 * t] = tp;
            by_hand[3 * t + 1] = fp;
            by_hand[3 * t + 2] = fn;
            free_csr(&top);
        }
        for (g = 0; g < 8; g++) { /* grouping or not; 32- or 64-bit solved rows; early stop or not */
            int64_t certified = 0;
            ts_debug_nested_narrow_limit(g % 4 < 2 ? INT32_MAX : 0);
            memset(confusion, -1, sizeof confusion);
            CHECK(ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, n, 4, ks, &o, g % 2 ? 0.7 : 0.0,
                                g >= 4, confusion, results) == TS_OK);
            for (t = 0; t < 12; t++)
                CHECK(confusion[t] == by_hand[t]);
            for (t = 0; t < 4; t++) {
                CHECK(results[t].converged != results[t].certified);
                certified += results[t].certified;
            }
            CHECK(g >= 4 ? certified > 0 : certified == 0); /* at this tolerance, early stops happen */
        }
        ts_debug_nested_narrow_limit(INT32_MAX);
        CHECK(by_hand[0] + by_hand[2] > 0); /* the held-out part has positives */
        free_split(&train, &test, &train_t, &test_t);
    }
}

/* A held-out document with no terms and no intercept has a zero margin whatever the weights:
 * its sign is never proven, so no fit stops early, and the counts are those of the stopping
 * test alone, bit for bit.  Without it, the same chain stops early. */
static void test_chain_certifies_only_what_it_can_prove(void)
{
    const int64_t n = 90, m = 300, m_test = 60, ks[3] = {5, 70, 90}; /* coordinate descent above 63 */
    int64_t order[90], i, j, plain[9], early[9], certified = 0;
    dense train = make_dense(m, n, 0, 31), test = make_dense(m_test, n, 0, 32);
    csr train_t = to_csr(&train, NULL, 0, 1), test_t;
    ts_svm_options o = options(1e-9);
    ts_svm_result results[3];
    for (i = 0; i < n; i++)
        order[i] = i;
    o.fit_intercept = 0;
    for (j = 0; j < n; j++)
        test.X[7 * n + j] = 0.0; /* held-out document 7: empty */
    test_t = to_csr(&test, NULL, 0, 1);
    CHECK(ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, n, 3, ks, &o, 0.0, 0, plain, NULL) == TS_OK);
    CHECK(ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, n, 3, ks, &o, 0.0, 1, early, results) ==
          TS_OK);
    for (i = 0; i < 3; i++)
        CHECK(results[i].converged && !results[i].certified);
    CHECK(memcmp(plain, early, sizeof plain) == 0);
    free_csr(&test_t);
    test.X[7 * n] = 1.0; /* now it has a term */
    test_t = to_csr(&test, NULL, 0, 1);
    CHECK(ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, n, 3, ks, &o, 0.0, 1, early, results) ==
          TS_OK);
    for (i = 0; i < 3; i++)
        certified += results[i].certified;
    CHECK(certified > 0);
    free_split(&train, &test, &train_t, &test_t);
}

static int64_t interrupt_calls;
static int stop_at_third_call(void *ctx)
{
    (void)ctx;
    return ++interrupt_calls >= 3;
}

static void test_chain_refuses_bad_input_and_survives_every_allocation_failure(void)
{
    const int64_t n = 30, m = 60, ks[3] = {3, 10, 30};
    int64_t order[30], bad_ks[2] = {10, 10}, confusion[9], i, k, failures = 0;
    dense train = make_dense(m, n, 1, 5), test = make_dense(20, n, 1, 6);
    csr train_t = to_csr(&train, NULL, 0, 1), test_t = to_csr(&test, NULL, 0, 1), narrow;
    ts_svm_options o = options(1e-4);
    int status;
    for (i = 0; i < n; i++)
        order[i] = n - 1 - i;
    CHECK(ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, n, 3, ks, &o, 0.7, 1, confusion, NULL) == TS_OK);
    CHECK(ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, n, 2, bad_ks, &o, 0.7, 1, confusion, NULL) ==
          TS_ERR_ARG); /* ks not increasing */
    CHECK(ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, 20, 3, ks, &o, 0.7, 1, confusion, NULL) ==
          TS_ERR_ARG); /* k beyond the ranking */
    CHECK(ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, n, 0, ks, &o, 0.7, 1, confusion, NULL) ==
          TS_ERR_ARG);
    order[4] = n;
    CHECK(ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, n, 3, ks, &o, 0.7, 1, confusion, NULL) ==
          TS_ERR_INDEX);
    order[4] = n - 5;
    test.y[2] = 0.0;
    CHECK(ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, n, 3, ks, &o, 0.7, 1, confusion, NULL) ==
          TS_ERR_ARG);
    test.y[2] = 1.0;
    train_t.data[3] = INFINITY;
    CHECK(ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, n, 3, ks, &o, 0.7, 1, confusion, NULL) ==
          TS_ERR_NONFINITE);
    train_t.data[3] = 1.0;
    narrow = test_t;
    narrow.X.n_rows = n - 1; /* held-out documents with other features */
    narrow.X.indptr64 = test_t.ptr;
    CHECK(ts_nested_svm(&train_t.X, train.y, &narrow.X, test.y, order, n - 1, 3, ks, &o, 0.7, 1, confusion, NULL) ==
          TS_ERR_ARG);
    o.weights = train.y; /* the chain makes its own weights */
    CHECK(ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, n, 3, ks, &o, 0.7, 1, confusion, NULL) ==
          TS_ERR_ARG);
    o = options(1e-4);
    o.interrupted = stop_at_third_call;
    interrupt_calls = 0;
    CHECK(ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, n, 3, ks, &o, 0.7, 1, confusion, NULL) ==
          TS_ERR_INTERRUPTED);
    o = options(1e-4);
    for (k = 1; k < 200; k++) {
        ts_debug_fail_alloc_at(k);
        status = ts_nested_svm(&train_t.X, train.y, &test_t.X, test.y, order, n, 3, ks, &o, 0.7, 1, confusion, NULL);
        if (status == TS_ERR_NOMEM)
            failures++;
        else
            CHECK(status == TS_OK);
    }
    ts_debug_fail_alloc_at(0);
    CHECK(failures > 20); /* the chain's own buffers and each solver's, all freed (ASan's leak check) */
    free_split(&train, &test, &train_t, &test_t);
}

int main(void)
{
    int passed = 0, failed = 0;
    RUN(test_primal_newton_matches_coordinate_descent, passed, failed);
    RUN(test_primal_newton_refuses_what_it_cannot_solve, passed, failed);
    RUN(test_chain_matches_a_fit_per_k, passed, failed);
    RUN(test_chain_certifies_only_what_it_can_prove, passed, failed);
    RUN(test_chain_refuses_bad_input_and_survives_every_allocation_failure, passed, failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
