# cython: language_level=3
"""Dealing work to threads: what each class costs the counting pass, and greedy
longest-first grouping of weighted items (``textsel._parallel`` splits calls with them)."""

from libc.stdint cimport int64_t

from .fused cimport integral


def class_loads(const integral[::1] indptr, const int64_t[::1] class_ptr, const int64_t[::1] class_docs):
    """Stored values per class: the sum of the row lengths of each class's documents.

    The work a class costs the counting pass, for dealing classes to threads.  Document
    indices must be valid rows of ``indptr`` (``as_labels`` checked them).
    """
    import numpy as np
    cdef Py_ssize_t n_classes = class_ptr.shape[0] - 1
    cdef Py_ssize_t c, l, i
    loads_arr = np.zeros(n_classes, dtype=np.int64)
    cdef int64_t[::1] loads = loads_arr
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1
    with nogil:
        for c in range(n_classes):
            for l in range(class_ptr[c], class_ptr[c + 1]):
                i = class_docs[l]
                if 0 <= i < n_rows:
                    loads[c] += indptr[i + 1] - indptr[i]
    return loads_arr


def deal_longest_first(const double[::1] weights, Py_ssize_t n_groups):
    """Group of each item under greedy longest-processing-time-first dealing.

    Items go, heaviest first (ties: lower index first), to the group with the least total
    so far (ties: the lower group).  Returns an int64 array of group numbers.
    """
    import numpy as np
    cdef Py_ssize_t n = weights.shape[0]
    cdef Py_ssize_t k, g, best
    if n_groups < 1:
        raise ValueError("n_groups must be >= 1")
    order_arr = np.argsort(np.negative(weights), kind="stable")
    group_arr = np.empty(n, dtype=np.int64)
    loads_arr = np.zeros(n_groups)
    cdef const Py_ssize_t[::1] order = order_arr
    cdef int64_t[::1] group = group_arr
    cdef double[::1] loads = loads_arr
    with nogil:
        for k in range(n):
            best = 0
            for g in range(1, n_groups):
                if loads[g] < loads[best]:
                    best = g
            group[order[k]] = best
            loads[best] += weights[order[k]]
    return group_arr
