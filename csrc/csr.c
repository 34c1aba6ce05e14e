/* CSR checks and the allocator shared by the C core. */
#include "internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef TS_TESTING
/* Test builds only: a process-wide counter is fine in the single-threaded C tests, and
 * release builds (where threads call the core at once) have no such state. */
static int64_t fail_at = 0, n_allocs = 0;
void ts_debug_fail_alloc_at(int64_t k)
{
    fail_at = k;
    n_allocs = 0;
}
#else
void ts_debug_fail_alloc_at(int64_t k) { (void)k; }
#endif

void *ts_calloc(size_t n, size_t size)
{
#ifdef TS_TESTING
    if (fail_at > 0 && ++n_allocs == fail_at)
        return NULL;
#endif
    if (n == 0)
        n = 1;
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    return calloc(n, size);
}

void *ts_realloc(void *p, size_t n, size_t size)
{
#ifdef TS_TESTING
    if (fail_at > 0 && ++n_allocs == fail_at)
        return NULL;
#endif
    if (n == 0)
        n = 1;
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    return realloc(p, n * size);
}

int ts_csr_check(const ts_csr *X)
{
    int64_t i, k, start, end, nnz;
    if (X == NULL || X->n_rows < 0 || X->n_cols < 0 || X->data == NULL)
        return TS_ERR_ARG;
    if ((X->indices32 == NULL) == (X->indices64 == NULL))
        return TS_ERR_ARG;
    if ((X->indices32 != NULL) != (X->indptr32 != NULL))
        return TS_ERR_ARG;
    if (PTR(X, 0) != 0)
        return TS_ERR_INDEX;
    nnz = PTR(X, X->n_rows);
    for (i = 0; i < X->n_rows; i++) {
        start = PTR(X, i);
        end = PTR(X, i + 1);
        if (end < start || end > nnz)
            return TS_ERR_INDEX;
        for (k = start; k < end; k++) {
            int64_t j = IDX(X, k);
            if (j < 0 || j >= X->n_cols)
                return TS_ERR_INDEX;
        }
    }
    return TS_OK;
}

int ts_csr_has_nonfinite(const ts_csr *X)
{
    int64_t k, nnz = PTR(X, X->n_rows);
    for (k = 0; k < nnz; k++)
        if (!isfinite(X->data[k]))
            return 1;
    return 0;
}

/* Y = X V on row-major n_vec-column matrices, once per index width (the width
 * must be known in the inner loops for them to vectorize over the columns). */
#define DEFINE_MATMAT(SUFFIX, ITYPE)                                                           \
    TS_VECTOR_CLONES static void matmat_##SUFFIX(const ts_csr *X, const ITYPE *indptr, const ITYPE *indices,   \
                                int64_t n_vec, const double *V, double *Y)                     \
    {                                                                                          \
        int64_t i, k, q;                                                                       \
        for (i = 0; i < X->n_rows; i++) {                                                      \
            double *y = Y + i * n_vec;                                                         \
            for (q = 0; q < n_vec; q++)                                                        \
                y[q] = 0.0;                                                                    \
            for (k = indptr[i]; k < indptr[i + 1]; k++) {                                      \
                const double xv = X->data[k];                                                  \
                const double *v = V + (int64_t)indices[k] * n_vec;                             \
                for (q = 0; q < n_vec; q++)                                                    \
                    y[q] += xv * v[q];                                                         \
            }                                                                                  \
        }                                                                                      \
    }

DEFINE_MATMAT(i32, int32_t)
DEFINE_MATMAT(i64, int64_t)

/* Y = X V one panel of panel_cols columns at a time: every row advances its cursor through its
 * next entries below the panel's end, so the rows of V in use, a few MB, stay in the core's own
 * cache while all rows pass.  Entries are consumed in stored order whatever it is (an entry
 * beyond the panel holds back the ones after it until its own panel), so every entry is added
 * exactly once and in the plain product's order; ascending indices are what make it fast. */
#define DEFINE_MATMAT_PANELS(SUFFIX, ITYPE)                                                    \
    TS_VECTOR_CLONES static void matmat_panels_##SUFFIX(const ts_csr *X, const ITYPE *indptr,   \
                                                       const ITYPE *indices, int64_t n_vec,    \
                                                       const double *V, double *Y,             \
                                                       int64_t panel_cols, int64_t *cursor)    \
    {                                                                                          \
        int64_t i, k, q, stop = 0;                                                             \
        for (i = 0; i < X->n_rows; i++) {                                                      \
            double *y = Y + i * n_vec;                                                         \
            for (q = 0; q < n_vec; q++)                                                        \
                y[q] = 0.0;                                                                    \
            cursor[i] = indptr[i];                                                             \
        }                                                                                      \
        while (stop < X->n_cols) {                                                             \
            stop = X->n_cols - stop > panel_cols ? stop + panel_cols : X->n_cols;              \
            for (i = 0; i < X->n_rows; i++) {                                                  \
                double *y = Y + i * n_vec;                                                     \
                const int64_t end = indptr[i + 1];                                             \
                for (k = cursor[i]; k < end && indices[k] < stop; k++) {                       \
                    const double xv = X->data[k];                                              \
                    const double *v = V + (int64_t)indices[k] * n_vec;                         \
                    for (q = 0; q < n_vec; q++)                                                \
                        y[q] += xv * v[q];                                                     \
                }                                                                              \
                cursor[i] = k;                                                                 \
            }                                                                                  \
        }                                                                                      \
    }

DEFINE_MATMAT_PANELS(i32, int32_t)
DEFINE_MATMAT_PANELS(i64, int64_t)

static int check_matmat(const ts_csr *X, int64_t n_vec, const double *in, const double *out)
{
    int status = ts_csr_check(X);
    if (status != TS_OK)
        return status;
    if (n_vec < 1 || in == NULL || out == NULL)
        return TS_ERR_ARG;
    if ((X->n_rows > 0 && n_vec > INT64_MAX / X->n_rows) ||
        (X->n_cols > 0 && n_vec > INT64_MAX / X->n_cols))
        return TS_ERR_ARG;
    return TS_OK;
}

int ts_csr_matmat(const ts_csr *X, int64_t n_vec, const double *V, double *Y)
{
    int status = check_matmat(X, n_vec, V, Y);
    if (status != TS_OK)
        return status;
    if (X->indices32)
        matmat_i32(X, X->indptr32, X->indices32, n_vec, V, Y);
    else
        matmat_i64(X, X->indptr64, X->indices64, n_vec, V, Y);
    return TS_OK;
}

int ts_csr_matmat_panels(const ts_csr *X, int64_t n_vec, const double *V, double *Y,
                         int64_t panel_cols, int64_t *cursor)
{
    int status = check_matmat(X, n_vec, V, Y);
    if (status != TS_OK)
        return status;
    if (panel_cols < 1 || (cursor == NULL && X->n_rows > 0))
        return TS_ERR_ARG;
    if (X->indices32)
        matmat_panels_i32(X, X->indptr32, X->indices32, n_vec, V, Y, panel_cols, cursor);
    else
        matmat_panels_i64(X, X->indptr64, X->indices64, n_vec, V, Y, panel_cols, cursor);
    return TS_OK;
}

int ts_csr_row_sumsq(const ts_csr *X, double *out, int64_t *mark, double *acc)
{
    int64_t i, k, n;
    int status = ts_csr_check(X);
    if (status != TS_OK)
        return status;
    if ((X->n_rows > 0 && out == NULL) || (X->n_cols > 0 && (mark == NULL || acc == NULL)))
        return TS_ERR_ARG;
    for (n = 0; n < X->n_cols; n++)
        mark[n] = -1;
    for (i = 0; i < X->n_rows; i++) {
        double sum = 0;
        /* a column's values first added up (a repeated column is one value), then squared */
        for (k = PTR(X, i); k < PTR(X, i + 1); k++) {
            const int64_t j = IDX(X, k);
            if (mark[j] != i) {
                mark[j] = i;
                acc[j] = X->data[k];
            } else {
                acc[j] += X->data[k];
            }
        }
        for (k = PTR(X, i); k < PTR(X, i + 1); k++) {
            const int64_t j = IDX(X, k);
            if (mark[j] == i) {
                sum += acc[j] * acc[j];
                mark[j] = -1;
            }
        }
        out[i] = sum;
    }
    return TS_OK;
}
