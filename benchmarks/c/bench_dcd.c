/*
 * Microbenchmark of the C dual coordinate-descent SVM: for each of the first K one-vs-rest
 * targets, the time (min of N runs) and the passes of plain coordinate descent and of the
 * Newton finish, on the features as stored or made Boolean (Forman's representation), with
 * the primal objectives so the two can be seen to reach the same optimum.
 *
 * Input: a binary file written by benchmarks/c/dump_matrix.py.
 *
 *   cc -O3 -std=c99 -Icsrc benchmarks/c/bench_dcd.c csrc/dcd_svm.c csrc/csr.c -lm -o /tmp/bench_dcd
 *   /tmp/bench_dcd matrix.bin K [runs] [boolean]
 */
#define _POSIX_C_SOURCE 199309L
#include "textsel.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 1/2 ||w||^2 + C sum max(0, 1 - y w'x)^2 with the bias as a constant feature of value 1. */
static double primal(const ts_csr *X, const double *y, const double *w)
{
    int64_t i, k;
    double obj = 0;
    for (i = 0; i <= X->n_cols; i++)
        obj += 0.5 * w[i] * w[i];
    for (i = 0; i < X->n_rows; i++) {
        double s = w[X->n_cols], xi;
        for (k = X->indptr32[i]; k < X->indptr32[i + 1]; k++)
            s += X->data[k] * w[X->indices32[k]];
        xi = 1 - y[i] * s;
        obj += xi > 0 ? xi * xi : 0;
    }
    return obj;
}

int main(int argc, char **argv)
{
    int64_t hdr[3], m, n, nnz, K, runs, stored, j, r, i;
    int32_t *indptr, *indices;
    double *data, *targets, *w, *alpha, total[2] = {0, 0};
    int64_t passes[2] = {0, 0};
    FILE *f;
    if (argc < 3) {
        fprintf(stderr, "usage: %s matrix.bin K [runs] [boolean]\n", argv[0]);
        return 2;
    }
    f = fopen(argv[1], "rb");
    if (!f || fread(hdr, sizeof(int64_t), 3, f) != 3)
        return 2;
    m = hdr[0];
    n = hdr[1];
    nnz = hdr[2];
    K = atoll(argv[2]);
    runs = argc > 3 ? atoll(argv[3]) : 3;
    indptr = malloc(sizeof(int32_t) * (size_t)(m + 1));
    indices = malloc(sizeof(int32_t) * (size_t)nnz);
    data = malloc(sizeof(double) * (size_t)nnz);
    w = malloc(sizeof(double) * (size_t)(n + 1));
    alpha = malloc(sizeof(double) * (size_t)m);
    if (fread(indptr, sizeof(int32_t), (size_t)(m + 1), f) != (size_t)(m + 1) ||
        fread(indices, sizeof(int32_t), (size_t)nnz, f) != (size_t)nnz ||
        fread(data, sizeof(double), (size_t)nnz, f) != (size_t)nnz)
        return 2;
    {
        long pos = ftell(f);
        fseek(f, 0, SEEK_END);
        stored = (ftell(f) - pos) / (int64_t)sizeof(double) / m;
        fseek(f, pos, SEEK_SET);
    }
    if (stored < 1)
        return 2;
    K = K < stored ? K : stored;
    targets = malloc(sizeof(double) * (size_t)(m * stored));
    if (fread(targets, sizeof(double), (size_t)(m * stored), f) != (size_t)(m * stored))
        return 2;
    fclose(f);
    if (argc > 4 && atoi(argv[4]))
        for (i = 0; i < nnz; i++)
            data[i] = 1.0;
    {
        ts_csr X = {m, n, data, indices, indptr, NULL, NULL};
        double *y = malloc(sizeof(double) * (size_t)m);
        printf("target  plain: ms passes objective  |  newton: ms passes objective\n");
        for (j = 0; j < K; j++) {
            double best[2] = {1e30, 1e30}, obj[2] = {0, 0};
            int64_t it[2] = {0, 0};
            int newton;
            for (i = 0; i < m; i++)
                y[i] = targets[i * stored + j];
            for (newton = 0; newton <= 1; newton++) {
                ts_svm_options o = {TS_SQUARED_HINGE, 1.0, 1.0, 1e-4, 1000, 1, 1.0, 1, 42, NULL, newton};
                for (r = 0; r < runs; r++) {
                    ts_svm_result res;
                    double t0 = now(), dt;
                    if (ts_dcd_svm(&X, y, &o, NULL, w, alpha, &res) != TS_OK)
                        return 1;
                    dt = now() - t0;
                    best[newton] = dt < best[newton] ? dt : best[newton];
                    it[newton] = res.n_iter;
                }
                obj[newton] = primal(&X, y, w);
                total[newton] += best[newton];
                passes[newton] += it[newton];
            }
            printf("%6lld  %8.2f %6lld %12.6g  |  %8.2f %6lld %12.6g\n", (long long)j, best[0] * 1e3,
                   (long long)it[0], obj[0], best[1] * 1e3, (long long)it[1], obj[1]);
        }
        printf("total: plain %.1f ms (%lld passes), newton %.1f ms (%lld passes), ratio %.2fx\n", total[0] * 1e3,
               (long long)passes[0], total[1] * 1e3, (long long)passes[1], total[0] / total[1]);
        free(y);
    }
    free(indptr);
    free(indices);
    free(data);
    free(targets);
    free(w);
    free(alpha);
    return 0;
}
