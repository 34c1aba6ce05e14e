/*
 * Microbenchmark of a distributed solve's worker step (a group step, ts_rowgroup_step, on each
 * block it holds, v packed into lanes once and the blocks' parts of A'D u added: u updated, its
 * norm and A'D u for K right-hand sides, row weights and the intercept) against one iteration of the
 * in-memory solve on one thread on the same rows (ts_lsqr_rowop on the row groups, ten iterations
 * timed, per iteration), min of N
 * runs, with a checksum so nothing is optimised away.  The rows are the file's matrix repeated
 * `copies` times, each copy in memory of its own: one stacked matrix in memory, `copies` blocks
 * for the worker (a worker holds several blocks).
 *
 * Input: a binary file written by benchmarks/c/dump_matrix.py.
 *
 *   cc -O3 -std=c99 -Icsrc benchmarks/c/bench_rowblocks.c csrc/csr.c csrc/lsqr.c csrc/rowblocks.c \
 *      csrc/rowgroups.c -lm -o /tmp/bench_rowblocks
 *   /tmp/bench_rowblocks matrix.bin K [runs] [copies]
 */
#include "matrix_file.h"

#include "textsel.h"

#include <math.h>
#include <string.h>

int main(int argc, char **argv)
{
    int64_t m, n, K, runs, copies, r, r2, i, k, it, n_lanes, L;
    double *b, *w, *wT, *x, *damp, *v, *vb, *gb, *vcoef, *ucoef, *g, *scale, *ssq;
    double best_step = 1e30, best_iter = 1e30;
    double checksum = 0, *sdata, *sb, *sw;
    int32_t *sind, *sptr;
    int64_t *cols;
    ts_row_block *blocks;
    ts_lsqr_result *res;
    matrix_file M;
    if (argc < 3) {
        fprintf(stderr, "usage: %s matrix.bin K [runs] [copies]\n", argv[0]);
        return 2;
    }
    if (read_matrix_file(argv[1], &M))
        return 2;
    m = M.m;
    n = M.n;
    K = atoll(argv[2]);
    runs = argc > 3 ? atoll(argv[3]) : 5;
    copies = argc > 4 ? atoll(argv[4]) : 1;
    if (K < 1 || runs < 1 || copies < 1)
        return 2;
    b = malloc(sizeof(double) * (size_t)(m * K));
    w = malloc(sizeof(double) * (size_t)(m * K));
    wT = malloc(sizeof(double) * (size_t)(m * K));
    for (i = 0; i < m; i++)
        for (k = 0; k < K; k++) {
            b[i * K + k] = M.stored > 0 ? M.targets[i * M.stored + k % M.stored] : ((i % 7 == 0) ? 1.0 : -1.0);
            w[i * K + k] = b[i * K + k] > 0 ? 3.0 : 1.0; /* a weighted proximal SVM's weights */
            wT[k * m + i] = w[i * K + k];
        }
    x = malloc(sizeof(double) * (size_t)((n + 1) * K));
    damp = malloc(sizeof(double) * (size_t)K);
    res = malloc(sizeof(ts_lsqr_result) * (size_t)K);
    v = malloc(sizeof(double) * (size_t)((n + 1) * K));
    g = malloc(sizeof(double) * (size_t)((n + 1) * K));
    n_lanes = (K + 7) / 8;
    L = K == 1 ? 1 : 8;
    vb = calloc((size_t)(n_lanes * (n + 1) * L), sizeof(double));
    gb = calloc((size_t)(n_lanes * (n + 1) * L), sizeof(double));
    vcoef = malloc(sizeof(double) * (size_t)K);
    ucoef = malloc(sizeof(double) * (size_t)K);
    scale = malloc(sizeof(double) * (size_t)K);
    ssq = malloc(sizeof(double) * (size_t)K);
    cols = malloc(sizeof(int64_t) * (size_t)K);
    blocks = malloc(sizeof(ts_row_block) * (size_t)copies);
    for (k = 0; k < K; k++) {
        damp[k] = 1.4;
        vcoef[k] = 1.0;
        ucoef[k] = -0.5;
        cols[k] = k;
    }
    for (i = 0; i < (n + 1) * K; i++)
        v[i] = sin((double)i);
    for (r = 0; r < copies; r++) {
        ts_csr X = {m, n, NULL, NULL, NULL, NULL, NULL};
        double *data = malloc(sizeof(double) * (size_t)M.nnz);
        int32_t *indices = malloc(sizeof(int32_t) * (size_t)M.nnz);
        memcpy(data, M.data, sizeof(double) * (size_t)M.nnz);
        memcpy(indices, M.indices, sizeof(int32_t) * (size_t)M.nnz);
        X.data = data;
        X.indices32 = indices;
        X.indptr32 = M.indptr;
        blocks[r].X = X;
        blocks[r].weights = wT;
        blocks[r].u = calloc((size_t)(m * K), sizeof(double));
        blocks[r].col_stride = m; /* u and the weights column by column, as a worker keeps them */
    }
    /* the same rows stacked, for the in-memory solve */
    sdata = malloc(sizeof(double) * (size_t)(M.nnz * copies));
    sind = malloc(sizeof(int32_t) * (size_t)(M.nnz * copies));
    sptr = malloc(sizeof(int32_t) * (size_t)(m * copies + 1));
    sb = malloc(sizeof(double) * (size_t)(m * K * copies));
    sw = malloc(sizeof(double) * (size_t)(m * K * copies));
    sptr[0] = 0;
    for (r = 0; r < copies; r++) {
        memcpy(sdata + r * M.nnz, M.data, sizeof(double) * (size_t)M.nnz);
        memcpy(sind + r * M.nnz, M.indices, sizeof(int32_t) * (size_t)M.nnz);
        memcpy(sb + r * m * K, b, sizeof(double) * (size_t)(m * K));
        memcpy(sw + r * m * K, w, sizeof(double) * (size_t)(m * K));
        for (i = 1; i <= m; i++)
            sptr[r * m + i] = (int32_t)(r * M.nnz + M.indptr[i]);
    }
    for (r = 0; r < runs; r++) { /* ten LSQR iterations on all the rows, in memory */
        ts_csr X = {m * copies, n, sdata, sind, sptr, NULL, NULL};
        const ts_lsqr_options o = {0, 0, 1e300, 10, NULL, NULL};
        double t0 = now(), t;
        if (solve_in_memory(&X, K, sb, sw, damp, &o, x, res) != TS_OK)
            return 1;
        t = (now() - t0) / 10;
        checksum += x[0];
        if (t < best_iter)
            best_iter = t;
    }
    for (r = 0; r < runs; r++) { /* ten worker steps on the blocks */
        double t0 = now(), t;
        for (it = 0; it < 10; it++) {
            for (i = 0; i <= n; i++)
                for (k = 0; k < K; k++)
                    vb[(k / L * (n + 1) + i) * L + k % L] = v[i * K + k];
            for (i = 0; i < (n + 1) * K; i++)
                g[i] = 0.0;
            for (r2 = 0; r2 < copies; r2++) {
                if (ts_rowgroup_step(&blocks[r2], n, 1, K, K, cols, vb, vcoef, ucoef, scale, ssq, gb) != TS_OK)
                    return 1;
                for (i = 0; i <= n; i++)
                    for (k = 0; k < K; k++)
                        g[i * K + k] += gb[(k / L * (n + 1) + i) * L + k % L];
            }
        }
        t = (now() - t0) / 10;
        checksum += g[0] + ssq[0];
        if (t < best_step)
            best_step = t;
    }
    printf("%lld x %lld, %lld nonzeros, %lld block(s), K = %lld, min of %lld runs\n", (long long)m,
           (long long)n, (long long)M.nnz, (long long)copies, (long long)K, (long long)runs);
    printf("in-memory LSQR iteration: %.2f ms\n", 1e3 * best_iter);
    printf("worker step:              %.2f ms (%.2fx the iteration)\n", 1e3 * best_step,
           best_step / best_iter);
    printf("total: %.2f ms, checksum %g\n", 1e3 * (best_iter + best_step), checksum);
    for (r = 0; r < copies; r++) {
        free(blocks[r].u);
        free((void *)blocks[r].X.data);
        free((void *)blocks[r].X.indices32);
    }
    free(sdata);
    free(sind);
    free(sptr);
    free(sb);
    free(sw);
    free(blocks);
    free(b);
    free(w);
    free(wT);
    free(vb);
    free(gb);
    free(x);
    free(damp);
    free(res);
    free(v);
    free(g);
    free(vcoef);
    free(ucoef);
    free(scale);
    free(ssq);
    free(cols);
    free_matrix_file(&M);
    return 0;
}
