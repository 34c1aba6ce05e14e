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
#include "matrix_file.h"

#include "textsel.h"

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
    int64_t m, n, nnz, K, runs, stored, j, r, i;
    int32_t *indptr, *indices;
    double *data, *targets, *w, *alpha, total[2] = {0, 0};
    int64_t passes[2] = {0, 0};
    matrix_file M;
    if (argc < 3) {
        fprintf(stderr, "usage: %s matrix.bin K [runs] [boolean]\n", argv[0]);
        return 2;
    }
    if (read_matrix_file(argv[1], &M) || M.stored < 1)
        return 2;
    m = M.m;
    n = M.n;
    nnz = M.nnz;
    stored = M.stored;
    indptr = M.indptr;
    indices = M.indices;
    data = M.data;
    targets = M.targets;
    K = atoll(argv[2]);
    K = K < stored ? K : stored;
    runs = argc > 3 ? atoll(argv[3]) : 3;
    w = malloc(sizeof(double) * (size_t)(n + 1));
    alpha = malloc(sizeof(double) * (size_t)m);
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
                ts_svm_options o = {TS_SQUARED_HINGE, 1.0, 1.0, 1e-4, 1000, 1, 1.0, 1, 42, NULL, newton, NULL, NULL, NULL, NULL};
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
    free_matrix_file(&M);
    free(w);
    free(alpha);
    return 0;
}
