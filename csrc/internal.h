/* Helpers shared by the C core's source files; not part of the public header. */
#ifndef TEXTSEL_INTERNAL_H
#define TEXTSEL_INTERNAL_H

#include "textsel.h"

#include <stddef.h>

/* Column index of the k-th stored entry, and row pointer i, whatever the index width. */
#define IDX(X, k) ((X)->indices32 ? (int64_t)(X)->indices32[k] : (X)->indices64[k])
#define PTR(X, i) ((X)->indptr32 ? (int64_t)(X)->indptr32[i] : (X)->indptr64[i])

/* calloc that refuses overflowing sizes and, in -DTS_TESTING builds, fails on request. */
void *ts_calloc(size_t n, size_t size);

/* Nonzero if any stored value of X is NaN or infinite. */
int ts_csr_has_nonfinite(const ts_csr *X);

#endif
