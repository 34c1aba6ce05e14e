# cython: language_level=3
"""Sub-matrices of CSR buffers: columns kept and relabelled, and identical rows found exactly.

``select_columns`` keeps the stored values of the columns a map sends to a new index, in one
counting pass and one filling pass.  ``row_hashes`` and ``group_sorted`` group identical rows:
they hash every row (an order-free sum of mixed (column, value) words, with the row's
label code), sorts by hash, and compares each row of a run of equal hashes with the run's groups
entry by entry, so a hash collision costs a comparison, never a wrong group.  It runs without
the GIL; its scratch comes from the caller.
"""

from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.string cimport memcpy

import numpy as np

ctypedef fused integral:
    int32_t
    int64_t

ctypedef fused floating:
    float
    double

ctypedef fused out_integral:
    int32_t
    int64_t


cdef void _fill(const floating[::1] data, const integral[::1] indices, const integral[::1] indptr,
                const int64_t[::1] new_index, floating[::1] out_data, out_integral[::1] out_indices,
                out_integral[::1] out_indptr) noexcept nogil:
    cdef Py_ssize_t m = indptr.shape[0] - 1, i, p, q = 0
    cdef int64_t j
    out_indptr[0] = 0
    for i in range(m):
        for p in range(indptr[i], indptr[i + 1]):
            j = new_index[indices[p]]
            if j >= 0:
                out_data[q] = data[p]
                out_indices[q] = <out_integral>j
                q += 1
        out_indptr[i + 1] = <out_integral>q


def select_columns(const floating[::1] data, const integral[::1] indices, const integral[::1] indptr,
                   const int64_t[::1] new_index, int64_t n_new):
    """(data, indices, indptr) of the stored values whose column c has ``new_index[c] >= 0``,
    moved to that column; int32 indices when they fit.  Row order and in-row order are kept."""
    cdef Py_ssize_t m = indptr.shape[0] - 1, p
    cdef int64_t kept = 0
    with nogil:
        for p in range(indptr[0], indptr[m]):
            kept += new_index[indices[p]] >= 0
    out_type = np.int32 if kept < 2**31 and n_new < 2**31 else np.int64
    out_data = np.empty(kept, dtype=np.float32 if floating is float else np.float64)
    out_indices = np.empty(kept, dtype=out_type)
    out_indptr = np.empty(m + 1, dtype=out_type)
    cdef int32_t[::1] i32, p32
    cdef int64_t[::1] i64, p64
    cdef floating[::1] dv = out_data
    if out_type is np.int32:
        i32, p32 = out_indices, out_indptr
        with nogil:
            _fill(data, indices, indptr, new_index, dv, i32, p32)
    else:
        i64, p64 = out_indices, out_indptr
        with nogil:
            _fill(data, indices, indptr, new_index, dv, i64, p64)
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
