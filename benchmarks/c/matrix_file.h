/*
 * Reading the binary files benchmarks/c/dump_matrix.py writes, for the C microbenchmarks:
 * m, n, nnz as int64; indptr (m + 1) and indices (nnz) as int32; data (nnz) as float64; then
 * any number of m-long target columns, row-major float64 (m x stored).  And the in-memory solve
 * the benchmarks time: LSQR on the row groups of one thread, as textsel runs it.
 */
#ifndef TEXTSEL_BENCH_MATRIX_FILE_H
#define TEXTSEL_BENCH_MATRIX_FILE_H

#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "textsel.h"

typedef struct {
    int64_t m, n, nnz, stored; /* stored: the target columns after the matrix (may be 0) */
    int32_t *indptr, *indices;
    double *data, *targets;    /* targets: m x stored, NULL when stored = 0 */
} matrix_file;

/* Reads `path` into M; returns 0, or 2 on any read error (the caller exits with it). */
static int read_matrix_file(const char *path, matrix_file *M)
{
    int64_t hdr[3];
    long pos;
    FILE *f = fopen(path, "rb");
    if (!f || fread(hdr, sizeof(int64_t), 3, f) != 3)
        return 2;
    M->m = hdr[0];
    M->n = hdr[1];
    M->nnz = hdr[2];
    M->indptr = malloc(sizeof(int32_t) * (size_t)(M->m + 1));
    M->indices = malloc(sizeof(int32_t) * (size_t)M->nnz);
    M->data = malloc(sizeof(double) * (size_t)M->nnz);
    if (fread(M->indptr, sizeof(int32_t), (size_t)(M->m + 1), f) != (size_t)(M->m + 1) ||
        fread(M->indices, sizeof(int32_t), (size_t)M->nnz, f) != (size_t)M->nnz ||
        fread(M->data, sizeof(double), (size_t)M->nnz, f) != (size_t)M->nnz)
        return 2;
    pos = ftell(f);
    fseek(f, 0, SEEK_END);
    M->stored = (ftell(f) - pos) / (int64_t)sizeof(double) / M->m;
    fseek(f, pos, SEEK_SET);
    M->targets = NULL;
    if (M->stored > 0) {
        M->targets = malloc(sizeof(double) * (size_t)(M->m * M->stored));
        if (fread(M->targets, sizeof(double), (size_t)(M->m * M->stored), f) != (size_t)(M->m * M->stored))
            return 2;
    }
    fclose(f);
    return 0;
}

static void free_matrix_file(matrix_file *M)
{
    free(M->indptr);
    free(M->indices);
    free(M->data);
    free(M->targets);
}

/* Monotonic wall-clock seconds. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The in-memory solve on one thread (ts_lsqr_rowop on ts_row_groups, X as one group, the
 * intercept fitted): b and w (NULL: all 1) m x K row-major; returns the solver's status. */
static inline int solve_in_memory(const ts_csr *X, int64_t K, const double *b, const double *w, const double *damp,
                                  const ts_lsqr_options *o, double *x, ts_lsqr_result *res)
{
    const int64_t m = X->n_rows;
    double *bT = malloc(sizeof(double) * (size_t)(m * K)), *wT = w ? malloc(sizeof(double) * (size_t)(m * K)) : NULL;
    double *u = calloc((size_t)(m * K), sizeof(double));
    ts_row_block group;
    ts_row_groups G;
    ts_rowop A;
    int64_t i, k;
    int status;
    for (i = 0; i < m; i++)
        for (k = 0; k < K; k++) {
            bT[k * m + i] = b[i * K + k];
            if (wT)
                wT[k * m + i] = w[i * K + k];
        }
    group.X = *X;
    group.weights = wT;
    group.u = u;
    group.col_stride = m;
    status = ts_row_groups_init(&G, &group, 1, m, X->n_cols, 1, K, bT, wT, u);
    if (status == TS_OK) {
        A = ts_row_groups_op(&G);
        status = ts_lsqr_rowop(&A, K, damp, o, x, res);
        ts_row_groups_free(&G);
    }
    free(bT);
    free(wT);
    free(u);
    return status;
}

#endif
