/*
 * The linear SVM on the top-k columns of one ranking, for every k of an increasing list, each
 * tested on held-out documents: the inner loop of Forman's protocol (one fold, one metric).
 *
 * Done one fit at a time from Python, the slicing, grouping and scoring around each small fit
 * cost as much as the fit.  Here the ranked rows are built once (rows sorted by rank, so every
 * top-k subset is a prefix of each row, and a prefix only grows with k), and each fit warm-starts
 * from the previous k's multipliers: they belong to the documents, not to the features.
 *
 * On a few dozen Boolean terms most documents repeat.  A linear SVM on repeated documents is the
 * same problem as on one copy of each with its C multiplied by its copies, and identical copies
 * share their group's multiplier equally at the optimum; so while the distinct rows are few
 * enough to pay, each k is solved on them (rows are hashed, and rows of equal hash compared
 * entry by entry, so the grouping is exact).
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Fits of at most this many weights (terms and bias) go to Newton on the primal, whose step
 * factors a dense square of that size; coordinate descent is faster from about 100 terms. */
#define PRIMAL_NEWTON_MAX 64

#ifdef TS_TESTING
/* Test builds only (see ts_debug_fail_alloc_at): the stored values above which the solved rows
 * keep 64-bit indices, lowered by the C tests to reach that path on small data. */
static int64_t narrow_limit = INT32_MAX;
void ts_debug_nested_narrow_limit(int64_t limit)
{
    narrow_limit = limit;
}
#else
#define narrow_limit INT32_MAX
void ts_debug_nested_narrow_limit(int64_t limit) { (void)limit; }
#endif

/* A row's hash and index, sorted by hash to bring candidate copies together. */
typedef struct {
    uint64_t hash;
    int64_t row;
} keyed_row;

static int by_hash_then_row(const void *a, const void *b)
{
    const keyed_row *p = a, *q = b;
    if (p->hash != q->hash)
        return p->hash < q->hash ? -1 : 1;
    return (p->row > q->row) - (p->row < q->row);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h = (h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 29);
}

/* Rows of a matrix given by its columns, kept to the columns order[0 .. kmax) and relabelled by
 * rank: row r holds ranks idx[ptr[r] .. end[r]) in increasing order.  A document listed twice in
 * one column (a non-canonical matrix) adds up into one entry, as scipy sums it. */
typedef struct {
    int64_t *ptr, *end, *idx, *cut; /* cut: the end of the current top-k prefix, per row */
    double *val;
} ranked_rows;

static void free_ranked(ranked_rows *R)
{
    free(R->ptr);
    free(R->end);
    free(R->idx);
    free(R->cut);
    free(R->val);
}

static int rank_rows(const ts_csr *Xt, const int64_t *order, int64_t kmax, ranked_rows *R)
{
    const int64_t m = Xt->n_cols;
    int64_t j, p, r, nnz = 0;
    R->ptr = ts_calloc((size_t)m + 1, sizeof(int64_t));
    R->end = ts_calloc((size_t)m + 1, sizeof(int64_t));
    R->cut = ts_calloc((size_t)m + 1, sizeof(int64_t));
    if (!R->ptr || !R->end || !R->cut)
        return TS_ERR_NOMEM;
    for (j = 0; j < kmax; j++)
        for (p = PTR(Xt, order[j]); p < PTR(Xt, order[j] + 1); p++)
            R->ptr[IDX(Xt, p) + 1]++;
    for (r = 0; r < m; r++)
        R->ptr[r + 1] += R->ptr[r];
    nnz = R->ptr[m];
    R->idx = ts_calloc((size_t)nnz + 1, sizeof(int64_t));
    R->val = ts_calloc((size_t)nnz + 1, sizeof(double));
    if (!R->idx || !R->val)
        return TS_ERR_NOMEM;
    for (r = 0; r < m; r++)
        R->end[r] = R->cut[r] = R->ptr[r];
    for (j = 0; j < kmax; j++)
        for (p = PTR(Xt, order[j]); p < PTR(Xt, order[j] + 1); p++) {
            r = IDX(Xt, p);
            if (R->end[r] > R->ptr[r] && R->idx[R->end[r] - 1] == j) {
                R->val[R->end[r] - 1] += Xt->data[p];
            } else {
                R->idx[R->end[r]] = j;
                R->val[R->end[r]++] = Xt->data[p];
            }
        }
    return TS_OK;
}

/* Moves every row's prefix end past the ranks below k. */
static void cut_at(ranked_rows *R, int64_t m, int64_t k)
{
    int64_t r;
    for (r = 0; r < m; r++)
        while (R->cut[r] < R->end[r] && R->idx[R->cut[r]] < k)
            R->cut[r]++;
}

static int same_prefix(const ranked_rows *R, int64_t a, int64_t b)
{
    const int64_t len = R->cut[a] - R->ptr[a];
    if (len != R->cut[b] - R->ptr[b])
        return 0;
    return memcmp(R->idx + R->ptr[a], R->idx + R->ptr[b], (size_t)len * sizeof(int64_t)) == 0 &&
           memcmp(R->val + R->ptr[a], R->val + R->ptr[b], (size_t)len * sizeof(double)) == 0;
}

/* A held-out document's margin on its top-k prefix; *norm2 gets its squared length (the
 * constant feature included). */
static double held_out_margin(const ranked_rows *R, int64_t r, const double *w, int64_t k, double bias_value,
                              double *norm2)
{
    double s = bias_value * w[k], q = bias_value * bias_value;
    int64_t p;
    for (p = R->ptr[r]; p < R->cut[r]; p++) {
        s += R->val[p] * w[R->idx[p]];
        q += R->val[p] * R->val[p];
    }
    *norm2 = q;
    return s;
}

/* The held-out documents at the current k, for the solver's early stop (ts_certify): a fit is
 * only used for the signs of their margins. */
typedef struct {
    const ranked_rows *test;
    int64_t m_test, k;
    double bias_value;
} held_out;

static double worst_held_out(void *ctx, const double *w, double radius)
{
    const held_out *h = ctx;
    double worst = 0;
    int64_t r;
    for (r = 0; r < h->m_test; r++) {
        double norm2, s = held_out_margin(h->test, r, w, h->k, h->bias_value, &norm2);
        double ratio = s != 0 ? radius * sqrt(norm2) / fabs(s) : INFINITY;
        worst = ratio > worst ? ratio : worst;
    }
    return worst;
}

/* Work arrays of one chain, allocated once. */
typedef struct {
    keyed_row *keys;     /* m */
    int64_t *group;      /* m: each document's group */
    int64_t *first;      /* m: each group's first document */
    double *count;       /* m: each group's size, the C multiplier of its row */
    double *y_solve;     /* m */
    double *alpha;       /* m: per document, carried across k */
    double *alpha_solve; /* m: the solved problem's warm start ... */
    double *alpha_out;   /* m: ... and solution */
    double *w;           /* kmax + 1 */
    int64_t *sptr;       /* m + 1: the solved rows, compacted ... */
    int64_t *sidx;       /* nnz */
    int32_t *sptr32;     /* ... in 32 bits when they fit: a pass of the solver reads these */
    int32_t *sidx32;
    double *sval;        /* nnz */
} chain_ws;

/* Groups of identical rows (same label, same top-k prefix): returns their number, or -1 when
 * they would be more than max_share of the rows (then grouping no longer pays). */
static int64_t group_rows(const ranked_rows *R, const double *y, int64_t m, double max_share, chain_ws *ws)
{
    int64_t r, s, a, n_groups = 0, n_hashes = 0;
    for (r = 0; r < m; r++) {
        uint64_t h = y[r] > 0 ? 0x51ED27ULL : 0x2545F49ULL;
        int64_t p;
        for (p = R->ptr[r]; p < R->cut[r]; p++) {
            uint64_t bits;
            memcpy(&bits, &R->val[p], sizeof bits);
            h = mix(mix(h, (uint64_t)R->idx[p]), bits);
        }
        ws->keys[r].hash = h;
        ws->keys[r].row = r;
    }
    qsort(ws->keys, (size_t)m, sizeof(keyed_row), by_hash_then_row);
    for (s = 0; s < m; s++)
        n_hashes += s == 0 || ws->keys[s].hash != ws->keys[s - 1].hash;
    if ((double)n_hashes > max_share * (double)m)
        return -1; /* every distinct hash is at least one group */
    for (s = 0; s < m;) {
        const int64_t run_start = s, groups_before = n_groups;
        while (s < m && ws->keys[s].hash == ws->keys[run_start].hash) {
            const int64_t row = ws->keys[s].row;
            /* equal hashes are nearly always equal rows: compare with this run's groups */
            for (a = groups_before; a < n_groups; a++)
                if (y[ws->first[a]] == y[row] && same_prefix(R, ws->first[a], row))
                    break;
            if (a == n_groups)
                ws->first[n_groups++] = row;
            ws->group[row] = a;
            s++;
        }
    }
    if ((double)n_groups > max_share * (double)m)
        return -1;
    return n_groups;
}

static int check_chain(const ts_csr *train_t, const double *y, const ts_csr *test_t, const double *y_test,
                       const int64_t *order, int64_t n_order, int64_t n_ks, const int64_t *ks,
                       const ts_svm_options *o, int64_t *confusion)
{
    int64_t i;
    int status;
    if (!train_t || !test_t || !y || !y_test || !order || !ks || !o || !confusion || n_ks < 1)
        return TS_ERR_ARG;
    if (train_t->n_cols < 1)
        return TS_ERR_ARG;
    if ((status = ts_csr_check(train_t)) != TS_OK || (status = ts_csr_check(test_t)) != TS_OK)
        return status;
    if (train_t->n_rows != test_t->n_rows || o->weights != NULL)
        return TS_ERR_ARG;
    if (ts_csr_has_nonfinite(train_t) || ts_csr_has_nonfinite(test_t))
        return TS_ERR_NONFINITE;
    for (i = 0; i < n_ks; i++)
        if (ks[i] < 1 || ks[i] > n_order || (i > 0 && ks[i] <= ks[i - 1]))
            return TS_ERR_ARG;
    for (i = 0; i < n_order; i++)
        if (order[i] < 0 || order[i] >= train_t->n_rows)
            return TS_ERR_INDEX;
    for (i = 0; i < test_t->n_cols; i++)
        if (y_test[i] != 1.0 && y_test[i] != -1.0)
            return TS_ERR_ARG;
    return TS_OK; /* y and the options are ts_dcd_svm's to check */
}

int ts_nested_svm(const ts_csr *train_t, const double *y, const ts_csr *test_t, const double *y_test,
                  const int64_t *order, int64_t n_order, int64_t n_ks, const int64_t *ks,
                  const ts_svm_options *options, double max_share, int certify, int64_t *confusion,
                  ts_svm_result *results)
{
    int64_t t, r, p, g;
    int status = check_chain(train_t, y, test_t, y_test, order, n_order, n_ks, ks, options, confusion);
    const int64_t m = train_t ? train_t->n_cols : 0, m_test = test_t ? test_t->n_cols : 0;
    const int64_t kmax = status == TS_OK ? ks[n_ks - 1] : 0;
    ranked_rows train = {NULL, NULL, NULL, NULL, NULL}, test = {NULL, NULL, NULL, NULL, NULL};
    chain_ws ws;
    ts_svm_options o;
    held_out h;
    int grouping = max_share > 0, narrow = 0;
    if (status != TS_OK)
        return status;
    memset(&ws, 0, sizeof ws);
    o = *options;
    h.test = &test;
    h.m_test = m_test;
    h.bias_value = o.fit_intercept ? o.intercept_scaling : 0.0;
    o.certify = certify ? worst_held_out : NULL;
    o.certify_ctx = &h;
    if ((status = rank_rows(train_t, order, kmax, &train)) != TS_OK ||
        (status = rank_rows(test_t, order, kmax, &test)) != TS_OK)
        goto done;
    ws.keys = ts_calloc((size_t)m + 1, sizeof(keyed_row));
    ws.group = ts_calloc((size_t)m + 1, sizeof(int64_t));
    ws.first = ts_calloc((size_t)m + 1, sizeof(int64_t));
    ws.count = ts_calloc((size_t)m + 1, sizeof(double));
    ws.y_solve = ts_calloc((size_t)m + 1, sizeof(double));
    ws.alpha = ts_calloc((size_t)m + 1, sizeof(double));
    ws.alpha_solve = ts_calloc((size_t)m + 1, sizeof(double));
    ws.alpha_out = ts_calloc((size_t)m + 1, sizeof(double));
    ws.w = ts_calloc((size_t)kmax + 2, sizeof(double));
    narrow = train.ptr[m] < narrow_limit && kmax < INT32_MAX;
    ws.sptr = ts_calloc((size_t)m + 1, sizeof(int64_t));
    if (narrow) {
        ws.sptr32 = ts_calloc((size_t)m + 1, sizeof(int32_t));
        ws.sidx32 = ts_calloc((size_t)train.ptr[m] + 1, sizeof(int32_t));
    } else {
        ws.sidx = ts_calloc((size_t)train.ptr[m] + 1, sizeof(int64_t));
    }
    ws.sval = ts_calloc((size_t)train.ptr[m] + 1, sizeof(double));
    if (!ws.keys || !ws.group || !ws.first || !ws.count || !ws.y_solve || !ws.alpha || !ws.alpha_solve ||
        !ws.alpha_out || !ws.w || !ws.sptr || !ws.sval || (narrow ? !ws.sptr32 || !ws.sidx32 : !ws.sidx)) {
        status = TS_ERR_NOMEM;
        goto done;
    }
    for (t = 0; t < n_ks; t++) {
        const int64_t k = ks[t];
        int64_t n_solve = m, tp = 0, fp = 0, fn = 0;
        ts_csr S;
        ts_svm_result result;
        cut_at(&train, m, k);
        cut_at(&test, m_test, k);
        h.k = k;
        if (grouping) {
            n_solve = group_rows(&train, y, m, max_share, &ws);
            grouping = n_solve >= 0; /* groups only split as k grows: once not worth it, never */
            if (!grouping)
                n_solve = m;
        }
        /* the rows to solve, compacted: each group's first document, or every document */
        ws.sptr[0] = 0;
        for (g = 0; g < n_solve; g++) {
            r = grouping ? ws.first[g] : g;
            p = train.cut[r] - train.ptr[r];
            if (narrow) {
                int64_t q;
                for (q = 0; q < p; q++)
                    ws.sidx32[ws.sptr[g] + q] = (int32_t)train.idx[train.ptr[r] + q];
                ws.sptr32[g + 1] = (int32_t)(ws.sptr[g] + p);
            } else {
                memcpy(ws.sidx + ws.sptr[g], train.idx + train.ptr[r], (size_t)p * sizeof(int64_t));
            }
            memcpy(ws.sval + ws.sptr[g], train.val + train.ptr[r], (size_t)p * sizeof(double));
            ws.sptr[g + 1] = ws.sptr[g] + p;
            ws.y_solve[g] = y[r];
            ws.alpha_solve[g] = grouping ? 0.0 : ws.alpha[r];
            ws.count[g] = 0.0;
        }
        if (grouping)
            for (r = 0; r < m; r++) { /* a group starts from its documents' summed multipliers */
                ws.alpha_solve[ws.group[r]] += ws.alpha[r];
                ws.count[ws.group[r]] += 1.0;
            }
        S.n_rows = n_solve;
        S.n_cols = k;
        S.data = ws.sval;
        S.indices32 = narrow ? ws.sidx32 : NULL;
        S.indptr32 = narrow ? ws.sptr32 : NULL;
        S.indices64 = narrow ? NULL : ws.sidx;
        S.indptr64 = narrow ? NULL : ws.sptr;
        o.weights = grouping ? ws.count : NULL;
        if (o.loss == TS_SQUARED_HINGE && k + (o.fit_intercept != 0) <= PRIMAL_NEWTON_MAX)
            status = ts_l2svm_newton(&S, ws.y_solve, &o, ws.alpha_solve, ws.w, ws.alpha_out, &result);
        else
            status = ts_dcd_svm(&S, ws.y_solve, &o, ws.alpha_solve, ws.w, ws.alpha_out, &result);
        if (status != TS_OK)
            goto done;
        if (results)
            results[t] = result;
        for (r = 0; r < m; r++)
            ws.alpha[r] = grouping ? ws.alpha_out[ws.group[r]] / ws.count[ws.group[r]] : ws.alpha_out[r];
        for (r = 0; r < m_test; r++) { /* the held-out documents' top-k prefixes, scored */
            double norm2, s = held_out_margin(&test, r, ws.w, k, h.bias_value, &norm2);
            if (s > 0 && y_test[r] > 0)
                tp++;
            else if (s > 0)
                fp++;
            else if (y_test[r] > 0)
                fn++;
        }
        confusion[3 * t] = tp;
        confusion[3 * t + 1] = fp;
        confusion[3 * t + 2] = fn;
    }

done:
    free_ranked(&train);
    free_ranked(&test);
    free(ws.keys);
    free(ws.group);
    free(ws.first);
    free(ws.count);
    free(ws.y_solve);
    free(ws.alpha);
    free(ws.alpha_solve);
    free(ws.alpha_out);
    free(ws.w);
    free(ws.sptr);
    free(ws.sidx);
    free(ws.sptr32);
    free(ws.sidx32);
    free(ws.sval);
    return status;
}
