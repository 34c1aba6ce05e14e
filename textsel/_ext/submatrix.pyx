# cython: language_level=3
"""Sub-matrices of CSR buffers: the first k columns, and identical rows found exactly.

``prefix_columns`` takes the first k columns of a CSR matrix whose rows are sorted, by bisection
per row.  ``row_hashes`` and ``group_sorted`` group identical rows: they hash every row (an
order-free sum of mixed (column, value) words, with the row's label code), sort by hash, and
compare each row of a run of equal hashes with the run's groups entry by entry, so a hash
collision costs a comparison, never a wrong group.  The loops run without the GIL.
"""

from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.string cimport memcpy

from .fused cimport floating, integral

import numpy as np


cdef inline Py_ssize_t _prefix_end(const integral[::1] indices, Py_ssize_t lo, Py_ssize_t hi,
                                   int64_t k) noexcept nogil:
    # the first position in [lo, hi) of a sorted row whose column is k or more
    cdef Py_ssize_t mid
    while lo < hi:
        mid = (lo + hi) // 2
        if indices[mid] < k:
            lo = mid + 1
        else:
            hi = mid
    return lo


def prefix_columns(const floating[::1] data, const integral[::1] indices, const integral[::1] indptr,
                   int64_t k):
    """(data, indices, indptr) of the columns below ``k`` of a CSR matrix whose rows are sorted by
    column (as ``textsel._ranked.rank_columns`` makes them): one bisection per row and a copy of what is
    kept, so the cost follows the kept values, not the whole matrix."""
    cdef Py_ssize_t m = indptr.shape[0] - 1, i, p, q = 0, end
    index_type = np.int32 if integral is int32_t else np.int64
    out_indptr = np.empty(m + 1, dtype=index_type)
    ends_array = np.empty(max(m, 1), dtype=np.int64)
    cdef integral[::1] optr = out_indptr
    cdef int64_t[::1] ends = ends_array
    with nogil:
        optr[0] = 0
        for i in range(m):
            ends[i] = _prefix_end(indices, indptr[i], indptr[i + 1], k)
            q += ends[i] - indptr[i]
            optr[i + 1] = <integral>q
    out_data = np.empty(q, dtype=np.float32 if floating is float else np.float64)
    out_indices = np.empty(q, dtype=index_type)
    cdef floating[::1] dv = out_data
    cdef integral[::1] iv = out_indices
    with nogil:
        q = 0
        for i in range(m):
            for p in range(indptr[i], ends[i]):
                dv[q] = data[p]
                iv[q] = indices[p]
                q += 1
    return out_data, out_indices, out_indptr


cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    # splitmix64's finaliser: every input bit moves every output bit
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline bint _same_row(const double[::1] data, const integral[::1] indices, const integral[::1] indptr,
                           Py_ssize_t a, Py_ssize_t b, double *value, int64_t *stamp, int64_t tick) noexcept nogil:
    # rows a and b hold the same (column, value) entries, each column once
    cdef Py_ssize_t p, q
    cdef int64_t col
    if indptr[a + 1] - indptr[a] != indptr[b + 1] - indptr[b]:
        return False
    for p in range(indptr[a], indptr[a + 1]):
        col = indices[p]
        if stamp[col] == tick:
            return False  # a repeated column: not canonical, so do not merge
        stamp[col] = tick
        value[col] = data[p]
    for q in range(indptr[b], indptr[b + 1]):
        col = indices[q]
        if stamp[col] != tick or value[col] != data[q]:
            return False
        stamp[col] = -tick  # matched once
    return True


def row_hashes(const double[::1] data, const integral[::1] indices, const integral[::1] indptr,
               const int64_t[::1] codes):
    """One 64-bit hash per row of (its entries as a set, its label code)."""
    cdef Py_ssize_t m = indptr.shape[0] - 1, i, p
    cdef uint64_t h, bits
    out = np.empty(m, dtype=np.uint64)
    cdef uint64_t[::1] hv = out
    with nogil:
        for i in range(m):
            h = _mix(<uint64_t>codes[i] + 0x9E3779B97F4A7C15ULL)
            for p in range(indptr[i], indptr[i + 1]):
                memcpy(&bits, &data[p], sizeof(double))
                h += _mix(_mix(<uint64_t>indices[p] + 0x632BE59BD9B4E019ULL) ^ bits)
            hv[i] = h
    return out


def group_sorted(const double[::1] data, const integral[::1] indices, const integral[::1] indptr,
                 const int64_t[::1] codes, const uint64_t[::1] hashes, const int64_t[::1] order,
                 Py_ssize_t n_cols):
    """Group ids (in order of first appearance along ``order``) of rows that are identical.

    ``order`` sorts the rows by ``hashes``.  Returns (group per row, first row of each group).
    """
    cdef Py_ssize_t m = order.shape[0], s, t, run_start = 0, g, n_groups = 0, row
    cdef int64_t tick = 0
    group = np.empty(m, dtype=np.int64)
    first = np.empty(m, dtype=np.int64)
    value_buf = np.empty(max(n_cols, 1), dtype=np.float64)
    stamp_buf = np.zeros(max(n_cols, 1), dtype=np.int64)
    cdef int64_t[::1] gv = group, fv = first, stamp = stamp_buf
    cdef double[::1] value = value_buf
    with nogil:
        for s in range(m):
            row = order[s]
            if s == 0 or hashes[row] != hashes[order[s - 1]]:
                run_start = n_groups  # groups of this run of equal hashes start here
            for g in range(run_start, n_groups + 1):
                if g == n_groups:
                    fv[n_groups] = row
                    gv[row] = n_groups
                    n_groups += 1
                    break
                tick += 1
                if codes[fv[g]] == codes[row] and _same_row(data, indices, indptr, fv[g], row,
                                                             &value[0], &stamp[0], tick):
                    gv[row] = g
                    break
    return group, first[:n_groups].copy()


def take_rows(const floating[::1] data, const integral[::1] indices, const integral[::1] indptr,
              const int64_t[::1] rows):
    """(data, indices, indptr) of the rows ``rows`` of a CSR matrix, in that order."""
    cdef Py_ssize_t m = indptr.shape[0] - 1, r, p, q = 0
    cdef int64_t i
    index_type = np.int32 if integral is int32_t else np.int64
    for r in range(rows.shape[0]):
        i = rows[r]
        if i < 0 or i >= m:
            raise ValueError(f"rows must be in [0, {m}), got {i}")
        q += indptr[i + 1] - indptr[i]
    out_data = np.empty(q, dtype=np.float32 if floating is float else np.float64)
    out_indices = np.empty(q, dtype=index_type)
    out_indptr = np.empty(rows.shape[0] + 1, dtype=index_type)
    cdef floating[::1] dv = out_data
    cdef integral[::1] iv = out_indices, optr = out_indptr
    with nogil:
        q = 0
        optr[0] = 0
        for r in range(rows.shape[0]):
            i = rows[r]
            for p in range(indptr[i], indptr[i + 1]):
                dv[q] = data[p]
                iv[q] = indices[p]
                q += 1
            optr[r + 1] = <integral>q
    return out_data, out_indices, out_indptr


def prefix_margins(const floating[::1] data, const integral[::1] indices, const integral[::1] indptr,
                   const double[::1] w, double b):
    """Per row, ``b`` plus the dot product of ``w`` with the row's entries in columns below
    ``len(w)``, for rows sorted by column (the top-k columns of ``rank_columns``)."""
    cdef Py_ssize_t m = indptr.shape[0] - 1, i, p, end
    cdef int64_t k = w.shape[0]
    cdef double s
    out = np.empty(m, dtype=np.float64)
    cdef double[::1] ov = out
    with nogil:
        for i in range(m):
            end = _prefix_end(indices, indptr[i], indptr[i + 1], k)
            s = b
            for p in range(indptr[i], end):
                if <uint64_t> indices[p] < <uint64_t> k:  # (a negative index adds nothing)
                    s += data[p] * w[indices[p]]
            ov[i] = s
    return out
