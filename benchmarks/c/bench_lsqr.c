/*
 * Microbenchmark of the C LSQR core: the time of one batched LSQR iteration of the in-memory
 * solve on one thread (ts_lsqr_rowop on the row groups: one pass over the CSR buffers per eight
 * right-hand sides, ten iterations timed; the time to set up b and u included) against a plain
 * pass that only reads the CSR arrays (the memory-bandwidth floor), min of N runs, with a
 * checksum so nothing is optimised away.
 *
 * Input: a binary file written by benchmarks/c/dump_matrix.py (m, n, nnz as int64; indptr and
 * indices as int32; data and an m x K row-major right-hand side block as float64).
 *
 *   cc -O3 -std=c99 -Icsrc benchmarks/c/bench_lsqr.c csrc/lsqr.c csrc/csr.c csrc/rowblocks.c \
 *      csrc/rowgroups.c -lm -o /tmp/bench_lsqr
 *   /tmp/bench_lsqr matrix.bin K [runs]
 */
#include "matrix_file.h"

#include "textsel.h"

int main(int argc, char **argv)
{
    int64_t m, n, nnz, K, runs, r, i, k, total_rhs;
    int32_t *indptr, *indices;
    double *data, *b, *x, *damp, best_plain = 1e30, best_iter = 1e30, checksum = 0;
    ts_lsqr_result *res;
    matrix_file M;
    if (argc < 3) {
        fprintf(stderr, "usage: %s matrix.bin K [runs]\n", argv[0]);
        return 2;
    }
    if (read_matrix_file(argv[1], &M))
        return 2;
    m = M.m;
    n = M.n;
    nnz = M.nnz;
    indptr = M.indptr;
    indices = M.indices;
    data = M.data;
    K = atoll(argv[2]);
    runs = argc > 3 ? atoll(argv[3]) : 5;
    /* the file's right-hand sides (if any) repeated to K columns */
    total_rhs = M.stored > 0 ? M.stored : 1;
    b = malloc(sizeof(double) * (size_t)(m * K));
    for (i = 0; i < m; i++)
        for (k = 0; k < K; k++)
            b[i * K + k] = M.stored > 0 ? M.targets[i * total_rhs + k % total_rhs] : ((i % 7 == 0) ? 1.0 : -1.0);
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
        ts_lsqr_options o = {0, 0, 0, 10, NULL, NULL};
        double t0 = now();
        int status = solve_in_memory(&X, K, b, NULL, damp, &o, x, res);
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
    free_matrix_file(&M);
    free(b);
    free(x);
    free(damp);
    free(res);
    return 0;
}
