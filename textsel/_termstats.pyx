# cython: language_level=3
"""Per-class document frequencies in one pass over CSR buffers."""

from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc

ctypedef fused floating:
    float
    double

ctypedef fused integral:
    int32_t
    int64_t

# Status codes returned by the kernel; the Python layer turns them into errors.
cpdef enum Status:
    OK = 0
    ERR_NONFINITE = 1
    ERR_NEGATIVE = 2
    ERR_INDEX = 3
    ERR_INDPTR = 4
    ERR_NOMEM = 5


def count_class_df(const floating[::1] data,
                   const integral[::1] indices,
                   const integral[::1] indptr,
                   Py_ssize_t n_terms,
                   const int64_t[::1] class_ptr,
                   const int64_t[::1] class_docs,
                   int64_t[:, ::1] class_df,
                   int64_t[::1] df):
    """Accumulate document frequencies into ``class_df`` and ``df``.

    ``class_docs[class_ptr[c]:class_ptr[c+1]]`` lists the documents of class
    ``c``.  A first pass over all documents validates the buffers and counts
    ``df``; a second pass walks each class's documents, so that only row
    ``c`` of ``class_df`` is written meanwhile and stays in cache (writing
    every document's labels in document order scatters increments over the
    whole table).  Each document counts at most once per term: a per-term
    marker of the last document seen makes duplicate or unsorted column
    indices harmless, so non-canonical CSR needs no copy.  Stored zeros are
    not presence.  Returns a status code (0 ok) and, on error, the offending
    position in ``data``/``indices``, or the row.
    """
    cdef Py_ssize_t n_docs = indptr.shape[0] - 1
    cdef Py_ssize_t nnz = indices.shape[0]
    cdef Py_ssize_t n_classes = class_df.shape[0]
    cdef Py_ssize_t i, j, t, c, l, start, end
    cdef int64_t stamp
    cdef int status = 0
    cdef bint duplicates = False
    cdef Py_ssize_t where = -1
    cdef double v
    cdef int64_t *mark
    cdef int64_t *row

    if data.shape[0] != nnz:
        return ERR_INDPTR, -1
    mark = <int64_t *> malloc(max(n_terms, 1) * sizeof(int64_t))
    if mark == NULL:
        return ERR_NOMEM, -1
    with nogil:
        for t in range(n_terms):
            mark[t] = -1
        if indptr[0] != 0:
            status = ERR_INDPTR
            where = 0
        for i in range(n_docs):
            if status != 0:
                break
            start = indptr[i]
            end = indptr[i + 1]
            if end < start or end > nnz:
                status = ERR_INDPTR
                where = i
                break
            for j in range(start, end):
                v = data[j]
                if not isfinite(v):
                    status = ERR_NONFINITE
                    where = j
                    break
                if v < 0:
                    status = ERR_NEGATIVE
                    where = j
                    break
                t = indices[j]
                if t < 0 or t >= n_terms:
                    status = ERR_INDEX
                    where = j
                    break
                if v == 0:
                    continue
                if mark[t] == i:
                    duplicates = True
                    continue
                mark[t] = i
                df[t] += 1
        # second pass, class by class; the buffers are known valid now
        stamp = n_docs
        for c in range(n_classes):
            if status != 0:
                break
            row = &class_df[c, 0]
            for l in range(class_ptr[c], class_ptr[c + 1]):
                i = class_docs[l]
                if duplicates:
                    stamp += 1
                    for j in range(indptr[i], indptr[i + 1]):
                        t = indices[j]
                        if data[j] != 0 and mark[t] != stamp:
                            mark[t] = stamp
                            row[t] += 1
                else:
                    for j in range(indptr[i], indptr[i + 1]):
                        if data[j] != 0:
                            row[indices[j]] += 1
    free(mark)
    return status, where
