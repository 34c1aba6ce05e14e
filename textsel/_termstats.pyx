# cython: language_level=3
"""Document frequencies, overall and per class, from CSR buffers.

Two kernels: ``count_df`` validates the buffers and counts overall document
frequencies in one pass over all documents; ``count_class_rows`` then fills a
block of rows of the class table, class by class, so blocks can run on
separate threads.  Both run without the GIL; scratch arrays come from the
caller (so nothing here can fail to allocate, and Python's memory tracing
sees every byte).
"""

from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t

ctypedef fused floating:
    float
    double

ctypedef fused integral:
    int32_t
    int64_t

# Status codes returned by count_df; the Python layer turns them into errors.
cpdef enum Status:
    OK = 0
    ERR_NONFINITE = 1
    ERR_NEGATIVE = 2
    ERR_INDEX = 3
    ERR_INDPTR = 4


def count_df(const floating[::1] data,
             const integral[::1] indices,
             const integral[::1] indptr,
             int64_t[::1] mark,
             int64_t[::1] df):
    """Validate the CSR buffers and count ``df[t]``, the documents holding term ``t``.

    ``indptr`` may be a slice of the full row pointer (a block of rows); the
    rows then start where ``indptr[0]`` says.

    A stored nonzero is presence; stored zeros are not.  ``mark`` (one int64
    per term) remembers the last document that touched each term, so a column
    index repeated within a row counts once: non-canonical CSR needs no copy.

    Returns
    -------
    status : int
        ``Status.OK`` or the first problem found.
    where : int
        Position in ``data``/``indices`` (or the row, for ``ERR_INDPTR``) of the problem.
    duplicates : bool
        Whether some row repeats a column index (the class pass must then deduplicate too).
    """
    cdef Py_ssize_t n_docs = indptr.shape[0] - 1
    cdef Py_ssize_t nnz = indices.shape[0]
    cdef Py_ssize_t n_terms = df.shape[0]
    cdef Py_ssize_t i, j, t, start, end
    cdef int status = OK
    cdef bint duplicates = False
    cdef Py_ssize_t where = -1
    cdef double v

    if data.shape[0] != nnz or mark.shape[0] != n_terms:
        return ERR_INDPTR, -1, False
    with nogil:
        mark[:] = -1
        if n_docs >= 0 and indptr[0] < 0:
            status = ERR_INDPTR
            where = 0
        for i in range(n_docs):
            if status != OK:
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
    return status, where, duplicates


def count_class_rows(const floating[::1] data,
                     const integral[::1] indices,
                     const integral[::1] indptr,
                     const int64_t[::1] class_ptr,
                     const int64_t[::1] class_docs,
                     Py_ssize_t first_class,
                     bint duplicates,
                     int64_t[::1] mark,
                     int64_t[:, ::1] rows):
    """Fill ``rows[k, t]`` with the documents of class ``first_class + k`` holding term ``t``.

    ``class_docs[class_ptr[c]:class_ptr[c+1]]`` lists the documents of class
    ``c``.  Walking one class at a time writes a single row meanwhile, which
    stays in cache; scattering each document's labels in document order
    would touch the whole table.  The buffers must have passed ``count_df``.
    With ``duplicates``, ``mark`` (one int64 per term, this block's own)
    deduplicates column indices within a row.
    """
    cdef Py_ssize_t n_rows = rows.shape[0]
    cdef Py_ssize_t k, l, i, j, t
    cdef int64_t stamp = 0
    cdef int64_t *row
    with nogil:
        if duplicates:
            mark[:] = -1
        for k in range(n_rows):
            row = &rows[k, 0]
            for l in range(class_ptr[first_class + k], class_ptr[first_class + k + 1]):
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
