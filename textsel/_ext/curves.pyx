# cython: language_level=3
"""The mask and SV-set curves of model masking, for every subset size in one call.

Both take matrices whose column j is the j-th ranked feature and whose rows list their entries
by size group (``group_by_size``; rows sorted by rank, as ``textsel._ranked.rank_columns`` makes
them, also qualify), so "the top-n features of a row", n a size, is a prefix of it.
``prefix_row_sums`` walks each row once and emits a running sum at every size bound (the mask
curve's decision values, and the restricted norms).  ``svset_curve`` rebuilds the SV-set weight
vector for each size, since every support vector's restricted norm, and so its share of every
weight, changes with the size; the cost is the stored values inside the top-n columns summed over
the sizes.  The loops run without the GIL.
"""

from libc.stdint cimport int32_t, int64_t

from .core cimport TS_ERR_INTERRUPTED
from .fused cimport floating, integral
from .interrupts cimport stop_requested

import numpy as np

from .ccore import Interrupt, check_status

cdef enum:
    CHECK_EVERY = 1 << 20  # units of work between two looks at the signal handlers


cdef inline int64_t _checked(int64_t work, void *interrupt) except -1 nogil:
    """``work`` if it is below CHECK_EVERY, else 0 after the interrupt check (raising what a
    signal handler raised; the loops hold nothing to free)."""
    if work < CHECK_EVERY:
        return work
    if stop_requested(interrupt):
        with gil:
            check_status(TS_ERR_INTERRUPTED, "curves", <object> interrupt)
    return 0


def prefix_row_sums(const floating[::1] data, const integral[::1] indices, const integral[::1] indptr,
                    const double[::1] weights, const int64_t[::1] bounds, bint square):
    """Per row r and size s, the sum over the row's entries with column < ``bounds[s]`` of
    ``value * weights[column]`` (or ``value ** 2`` with ``square``; ``weights`` is then unused).

    ``bounds`` must ascend.  Returns an (n_rows, n_sizes) float64 array.
    """
    cdef object interrupt = Interrupt()  # Ctrl-C, looked for every CHECK_EVERY units of work
    cdef void *stop = <void *> interrupt
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1
    cdef Py_ssize_t n_sizes = bounds.shape[0]
    cdef Py_ssize_t r, s, p, end
    cdef double total, v
    cdef int64_t col, work = 0
    for s in range(1, n_sizes):
        if bounds[s] < bounds[s - 1]:
            raise ValueError("bounds must ascend")
    if not square and n_sizes and weights.shape[0] < bounds[n_sizes - 1]:
        raise ValueError("weights must cover the largest bound")
    out_array = np.zeros((n_rows, n_sizes))
    cdef double[:, ::1] out = out_array
    if n_sizes == 0:
        return out_array
    with nogil:
        for r in range(n_rows):
            work = _checked(work + indptr[r + 1] - indptr[r] + n_sizes, stop)
            p = indptr[r]
            end = indptr[r + 1]
            total = 0.0
            for s in range(n_sizes):
                while p < end and indices[p] < bounds[s]:
                    v = data[p]
                    if square:
                        total = total + v * v
                    else:
                        col = indices[p]
                        if col >= 0:
                            total = total + v * weights[col]
                    p += 1
                out[r, s] = total
    return out_array


def svset_curve(const floating[::1] sv_data, const integral[::1] sv_indices, const integral[::1] sv_indptr,
                const double[:, ::1] scale,
                const floating[::1] test_data, const integral[::1] test_indices,
                const integral[::1] test_indptr, const int64_t[::1] bounds):
    """Raw SV-set decision values and weight vectors, for every size.

    For size s (the top ``bounds[s]`` ranked features), w_s = sum_j scale[j, s] * sv_j restricted
    to the top features, and the raw value of test row r is its restricted row dotted with w_s.
    ``scale`` is (n_support_vectors, n_sizes); ``bounds`` must ascend.  Returns ``(raw, weights)``:
    an (n_test, n_sizes) array and one array of length ``bounds[s]`` per size.
    """
    cdef object interrupt = Interrupt()  # Ctrl-C, looked for every CHECK_EVERY units of work
    cdef void *stop = <void *> interrupt
    cdef Py_ssize_t n_sv = sv_indptr.shape[0] - 1
    cdef Py_ssize_t n_test = test_indptr.shape[0] - 1
    cdef Py_ssize_t n_sizes = bounds.shape[0]
    cdef Py_ssize_t j, r, s, p, end
    cdef int64_t n, work = 0
    cdef double c, total
    if scale.shape[0] != n_sv or scale.shape[1] != n_sizes:
        raise ValueError("scale must be (support vectors, sizes)")
    for s in range(n_sizes):
        if bounds[s] < 0 or (s and bounds[s] < bounds[s - 1]):
            raise ValueError("bounds must be non-negative and ascend")
    raw_array = np.zeros((n_test, n_sizes))
    cdef double[:, ::1] raw = raw_array
    weights = []
    cdef double[::1] w
    for s in range(n_sizes):
        n = bounds[s]
        w_array = np.zeros(n)
        weights.append(w_array)
        if n == 0:
            continue
        w = w_array
        with nogil:
            for j in range(n_sv):
                work = _checked(work + sv_indptr[j + 1] - sv_indptr[j] + 1, stop)
                c = scale[j, s]
                if c == 0:
                    continue
                p = sv_indptr[j]
                end = sv_indptr[j + 1]
                while p < end and sv_indices[p] < n:
                    if sv_indices[p] >= 0:
                        w[sv_indices[p]] += c * sv_data[p]
                    p += 1
            for r in range(n_test):
                work = _checked(work + test_indptr[r + 1] - test_indptr[r] + 1, stop)
                p = test_indptr[r]
                end = test_indptr[r + 1]
                total = 0.0
                while p < end and test_indices[p] < n:
                    if test_indices[p] >= 0:
                        total = total + test_data[p] * w[test_indices[p]]
                    p += 1
                raw[r, s] = total
    return raw_array, weights


def group_by_size(const floating[::1] data, const integral[::1] indices, const integral[::1] indptr,
                  const int64_t[::1] rank_of, const int64_t[::1] bounds):
    """The entries of a CSR matrix whose columns are ranked below ``bounds[-1]``, relabelled by rank
    and grouped in each row by the first size that holds them (a counting sort over the sizes).

    ``rank_of[column]`` is the column's rank, or -1 if it is not ranked.  Within a group the order
    is the input's; that is all ``prefix_row_sums`` and ``svset_curve`` need, and it costs two
    passes over the row instead of a full sort.  Returns ``(data, indices, indptr, duplicates)``
    (int64 arrays, and whether some row repeats a ranked column: sums of squares would then
    not be the squared norms, so the caller sums the duplicates first).
    """
    cdef object interrupt = Interrupt()  # Ctrl-C, looked for every CHECK_EVERY units of work
    cdef void *stop = <void *> interrupt
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1
    cdef Py_ssize_t n_cols = rank_of.shape[0]
    cdef Py_ssize_t n_sizes = bounds.shape[0]
    cdef Py_ssize_t r, p, s, q = 0, lo, hi, mid
    cdef int64_t col, rank, top, work = 0
    if n_sizes == 0:
        raise ValueError("bounds must not be empty")
    for s in range(1, n_sizes):
        if bounds[s] < bounds[s - 1]:
            raise ValueError("bounds must ascend")
    top = bounds[n_sizes - 1]
    # the caller's buffers: every row's range must lie inside both arrays (a malformed CSR is an
    # error here, not a read past their ends)
    for r in range(n_rows):
        if indptr[r] < 0 or indptr[r + 1] < indptr[r] or indptr[r + 1] > indices.shape[0] \
                or indptr[r + 1] > data.shape[0]:
            raise ValueError(f"the matrix's indptr is malformed at row {r}")
    # the size group of every rank below top, by bisection once per column
    group_arr = np.full(n_cols, -1, dtype=np.int64)
    cdef int64_t[::1] group = group_arr
    counts_arr = np.zeros(n_sizes + 1, dtype=np.int64)
    cdef int64_t[::1] counts = counts_arr
    out_indptr = np.zeros(n_rows + 1, dtype=np.int64)
    cdef int64_t[::1] optr = out_indptr
    mark_arr = np.full(n_cols, -1, dtype=np.int64)
    cdef int64_t[::1] mark = mark_arr
    cdef bint duplicates = False
    with nogil:
        for col in range(n_cols):
            rank = rank_of[col]
            if 0 <= rank < top:
                lo = 0
                hi = n_sizes - 1
                while lo < hi:
                    mid = (lo + hi) // 2
                    if rank < bounds[mid]:
                        hi = mid
                    else:
                        lo = mid + 1
                group[col] = lo
        for r in range(n_rows):
            work = _checked(work + indptr[r + 1] - indptr[r] + 1, stop)
            for p in range(indptr[r], indptr[r + 1]):
                col = indices[p]
                if 0 <= col < n_cols and group[col] >= 0:
                    q += 1
                    duplicates |= mark[col] == r
                    mark[col] = r
            optr[r + 1] = q
    out_data = np.empty(q, dtype=np.float32 if floating is float else np.float64)
    out_indices = np.empty(q, dtype=np.int64)
    cdef floating[::1] od = out_data
    cdef int64_t[::1] oi = out_indices
    with nogil:
        for r in range(n_rows):
            work = _checked(work + 2 * (indptr[r + 1] - indptr[r]) + n_sizes, stop)
            for s in range(n_sizes + 1):
                counts[s] = 0
            for p in range(indptr[r], indptr[r + 1]):
                col = indices[p]
                if 0 <= col < n_cols and group[col] >= 0:
                    counts[group[col] + 1] += 1
            counts[0] = optr[r]
            for s in range(1, n_sizes + 1):
                counts[s] += counts[s - 1]
            for p in range(indptr[r], indptr[r + 1]):
                col = indices[p]
                if 0 <= col < n_cols and group[col] >= 0:
                    q = counts[group[col]]
                    od[q] = data[p]
                    oi[q] = rank_of[col]
                    counts[group[col]] += 1
    return out_data, out_indices, out_indptr, duplicates


def ranked_auc_f1(const double[:, ::1] ranked, const unsigned char[:, ::1] positive, int64_t n_pos):
    """AUC and best F1 of each row of ``ranked`` (scores sorted descending, any order within
    ties) whose ``positive`` flags are permuted alike; ``n_pos`` positives in every row.

    One pass per row: at the end of each tie group the group's negatives are outscored by the
    positives above the group and tie with its own positives (each tie counting one half), and
    F1 = 2 TP / (TP + FP + P) at that threshold.  Returns two float64 arrays of length n_rows.
    """
    cdef object interrupt = Interrupt()  # Ctrl-C, looked for every CHECK_EVERY units of work
    cdef void *stop = <void *> interrupt
    cdef Py_ssize_t n_rows = ranked.shape[0]
    cdef Py_ssize_t n = ranked.shape[1]
    cdef Py_ssize_t j, i
    cdef int64_t tp, tp_before, neg_group, n_neg = n - n_pos, work = 0
    cdef double wins, best, f1
    if positive.shape[0] != n_rows or positive.shape[1] != n:
        raise ValueError("ranked and positive must have the same shape")
    if n_pos <= 0 or n_neg <= 0:
        raise ValueError("both classes must be present")
    auc_array = np.empty(n_rows)
    f1_array = np.empty(n_rows)
    cdef double[::1] auc = auc_array
    cdef double[::1] best_f1 = f1_array
    with nogil:
        for j in range(n_rows):
            work = _checked(work + n, stop)
            tp = 0
            tp_before = 0
            neg_group = 0
            wins = 0.0  # twice the count of (positive, negative) pairs won, exact below 2^53
            best = 0.0
            for i in range(n):
                if positive[j, i]:
                    tp += 1
                else:
                    neg_group += 1
                if i == n - 1 or ranked[j, i] != ranked[j, i + 1]:
                    wins += <double> neg_group * <double> (tp_before + tp)
                    f1 = 2.0 * tp / <double> (i + 1 + n_pos)
                    if f1 > best:
                        best = f1
                    tp_before = tp
                    neg_group = 0
            auc[j] = wins / (2.0 * n_pos * n_neg)
            best_f1[j] = best
    return auc_array, f1_array
