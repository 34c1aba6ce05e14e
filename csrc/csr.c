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
