/*
 * Microbenchmark of the C LSQR core: the time of one batched LSQR iteration (two passes over
 * the CSR buffers for K right-hand sides) against a plain pass that only reads the CSR arrays
 * (the memory-bandwidth floor), min of N runs, with a checksum so nothing is optimised away.
 *
 * Input: a binary file written by benchmarks/c/dump_matrix.py (m, n, nnz as int64; indptr and
 * indices as int32; data and an m x K row-major right-hand side block as float64).
 *
 *   cc -O3 -std=c99 -Icsrc benchmarks/c/bench_lsqr.c csrc/lsqr.c -lm -o /tmp/bench_lsqr
 *   /tmp/bench_lsqr matrix.bin K [runs]
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

int main(int argc, char **argv)
{
    int64_t hdr[3], m, n, nnz, K, runs, r, i, k, total_rhs;
    int32_t *indptr, *indices;
    double *data, *b, *x, *damp, best_plain = 1e30, best_iter = 1e30, checksum = 0;
    ts_lsqr_result *res;
    FILE *f;
    if (argc < 3) {
        fprintf(stderr, "usage: %s matrix.bin K [runs]\n", argv[0]);
        return 2;
    }
    f = fopen(argv[1], "rb");
    if (!f || fread(hdr, sizeof(int64_t), 3, f) != 3)
        return 2;
    m = hdr[0];
    n = hdr[1];
    nnz = hdr[2];
    K = atoll(argv[2]);
    runs = argc > 3 ? atoll(argv[3]) : 5;
    indptr = malloc(sizeof(int32_t) * (size_t)(m + 1));
    indices = malloc(sizeof(int32_t) * (size_t)nnz);
    data = malloc(sizeof(double) * (size_t)nnz);
    if (fread(indptr, sizeof(int32_t), (size_t)(m + 1), f) != (size_t)(m + 1) ||
        fread(indices, sizeof(int32_t), (size_t)nnz, f) != (size_t)nnz ||
        fread(data, sizeof(double), (size_t)nnz, f) != (size_t)nnz)
        return 2;
    /* the file's right-hand sides (if any) repeated to K columns */
    {
        int64_t stored = 0;
        double *file_b;
        long pos = ftell(f);
        fseek(f, 0, SEEK_END);
        stored = (ftell(f) - pos) / (int64_t)sizeof(double) / m;
        fseek(f, pos, SEEK_SET);
        total_rhs = stored > 0 ? stored : 1;
        file_b = malloc(sizeof(double) * (size_t)(m * total_rhs));
        if (stored > 0 && fread(file_b, sizeof(double), (size_t)(m * stored), f) != (size_t)(m * stored))
            return 2;
        if (stored == 0)
            for (i = 0; i < m; i++)
                file_b[i] = (i % 7 == 0) ? 1.0 : -1.0;
        b = malloc(sizeof(double) * (size_t)(m * K));
        for (i = 0; i < m; i++)
            for (k = 0; k < K; k++)
                b[i * K + k] = file_b[i * total_rhs + k % total_rhs];
        free(file_b);
    }
    fclose(f);
    x = malloc(sizeof(double) * (size_t)((n + 1) * K));
    damp = malloc(sizeof(double) * (size_t)K);
    res = malloc(sizeof(ts_lsqr_result) * (size_t)K);
    for (k = 0; k < K; k++)
        damp[k] = 1.4;

    for (r = 0; r < runs; r++) { /* plain pass: read every stored value and index once */
        double t0 = now(), s = 0;
        for (i = 0; i < m; i++)
            for (k = indptr[i]; k < indptr[i + 1]; k++)
                s += data[k] * (double)indices[k];
        t0 = now() - t0;
        checksum += s;
        if (t0 < best_plain)
            best_plain = t0;
    }
    for (r = 0; r < runs; r++) { /* ten LSQR iterations for K right-hand sides */
        ts_csr X = {m, n, data, indices, indptr, NULL, NULL};
        ts_lsqr_options o = {0, 0, 0, 10};
        double t0 = now();
        int status = ts_lsqr(&X, 1, K, b, NULL, damp, &o, x, res);
        t0 = now() - t0;
        if (status != TS_OK)
            return 3;
        checksum += x[0];
        if (t0 / 10 < best_iter)
            best_iter = t0 / 10;
    }
    printf("matrix %lld x %lld, %lld nonzeros, K = %lld right-hand sides\n", (long long)m, (long long)n,
           (long long)nnz, (long long)K);
    printf("plain pass over CSR:        %8.3f ms  (%.2f GB/s)\n", best_plain * 1e3,
           (double)nnz * 12.0 / best_plain / 1e9);
    printf("one batched LSQR iteration: %8.3f ms  = %.1f plain passes, %.1f per right-hand side\n",
           best_iter * 1e3, best_iter / best_plain, best_iter / best_plain / (double)K);
    printf("checksum %g\n", checksum);
    free(indptr);
    free(indices);
    free(data);
    free(b);
    free(x);
    free(damp);
    free(res);
    return 0;
}
