# cython: language_level=3
"""Columns of CSR buffers without the GIL: the first k of rows sorted by column (by bisection per
row), the columns a map keeps, renumbered, each column's number of entries, and columns renumbered
in place."""

from libc.stdint cimport int32_t, int64_t

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


def mapped_columns(data, const integral[::1] indices, const integral[::1] indptr,
                   const integral[::1] mapping):
    """The entries of CSR buffers whose column ``mapping`` sends to a column (not -1), renumbered,
    in their rows' order: ``(data, indices, indptr)``.  One pass without the GIL, the values
    moved in it where they are 8 bytes wide (int64, float64), by a mask after it otherwise."""
    cdef Py_ssize_t m = indptr.shape[0] - 1, n = indices.shape[0], i, p, q = 0
    cdef integral column
    cdef bint wide = data.dtype.itemsize == 8 and data.flags.c_contiguous
    index_type = np.int32 if integral is int32_t else np.int64
    out_indices = np.empty(n, dtype=index_type)
    out_indptr = np.empty(m + 1, dtype=index_type)
    out_data = np.empty(n if wide else 0, dtype=data.dtype)
    kept = np.empty(0 if wide else n, dtype=np.bool_)
    cdef integral[::1] iv = out_indices
    cdef integral[::1] optr = out_indptr
    cdef const int64_t[::1] dv = data.view(np.int64) if wide else np.empty(0, dtype=np.int64)
    cdef int64_t[::1] ov = out_data.view(np.int64) if wide else np.empty(0, dtype=np.int64)
    cdef unsigned char[::1] kv = kept.view(np.uint8)
    with nogil:
        optr[0] = 0
        for i in range(m):
            for p in range(indptr[i], indptr[i + 1]):
                column = mapping[indices[p]]
                if not wide:
                    kv[p] = column >= 0
                if column >= 0:
                    iv[q] = column
                    if wide:
                        ov[q] = dv[p]
                    q += 1
            optr[i + 1] = <integral>q
    return (out_data[:q] if wide else data[kept]), out_indices[:q], out_indptr


def column_counts(const integral[::1] indices, Py_ssize_t n_columns):
    """How many entries each column has (``np.bincount(indices, minlength=n_columns)`` for columns
    known to lie in ``[0, n_columns)``, without its copy of the indices), without the GIL."""
    counts = np.zeros(n_columns, dtype=np.int64)
    cdef int64_t[::1] cv = counts
    cdef Py_ssize_t p
    for p in range(indices.shape[0]):
        if not 0 <= indices[p] < n_columns:
            raise IndexError(f"column {indices[p]} of {n_columns}")
    with nogil:
        for p in range(indices.shape[0]):
            cv[indices[p]] += 1
    return counts


def map_in_place(integral[::1] indices, const integral[::1] mapping, Py_ssize_t first=0, Py_ssize_t end=-1):
    """``indices[first:end] = mapping[indices[first:end]]`` in place, without the GIL (disjoint runs
    may be mapped at once on threads); every index must lie in ``mapping``."""
    cdef Py_ssize_t p, n = mapping.shape[0]
    if end < 0:
        end = indices.shape[0]
    if not 0 <= first <= end <= indices.shape[0]:
        raise IndexError(f"entries {first} to {end} of {indices.shape[0]}")
    for p in range(first, end):
        if not 0 <= indices[p] < n:
            raise IndexError(f"column {indices[p]} of {n}")
    with nogil:
        for p in range(first, end):
            indices[p] = mapping[indices[p]]
