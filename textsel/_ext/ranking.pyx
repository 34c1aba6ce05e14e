"""The round-robin merge of the classes' term rankings.

A class's ranking is its terms by score, best first, equal scores by lower index, NaN last.  Its
head, every term scoring above a guessed threshold ``g``, comes ranked from the caller; after the
head come the terms scoring exactly ``g`` (already in index order, so they are found by a lazy
scan of the row, never sorted), then the rest, sorted only if the merge reaches them.  A guess
from a sample of the row makes the head a little longer than the merge needs, so a 130,000-term
row costs one pass and a sort of a few thousand entries, however many ties it holds.
"""

import numpy as np

from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc, qsort

cdef struct Entry:
    double score
    int64_t index


cdef int _ranked_before(const void *a, const void *b) noexcept nogil:
    cdef const Entry *x = <const Entry *>a
    cdef const Entry *y = <const Entry *>b
    cdef bint x_nan = x.score != x.score
    cdef bint y_nan = y.score != y.score
    if x_nan != y_nan:
        return 1 if x_nan else -1
    if not x_nan:
        if x.score > y.score:
            return -1
        if x.score < y.score:
            return 1
    return (x.index > y.index) - (x.index < y.index)


cdef struct Cursor:
    const double *row
    double g
    const int64_t *head
    Py_ssize_t n_head, at_head   # the head, and the next position in it
    Py_ssize_t at_tie            # the next term to scan for a score equal to g
    int64_t *rest                # the terms after the ties, ranked once a merge reaches them
    Py_ssize_t n_rest, at_rest
    bint rest_built


cdef extern from "Python.h":
    # declared without an exception value: the exception a handler raises stays set, for
    # _raise_pending to raise once the merge has freed its memory
    int _check_signals "PyErr_CheckSignals"() noexcept


cdef int _signalled() noexcept nogil:
    # Python's signal handlers, run between the row sorts (each at most a second on the largest
    # tables), so that Ctrl-C stops a long merge; a handler's exception is left set
    with gil:
        return _check_signals()


cdef int _raise_pending() except -1:
    return -1  # the exception _signalled left set


cdef int64_t _next(Cursor *q, Py_ssize_t n, const unsigned char *taken) noexcept nogil:
    """The class's best term not taken yet; -1 when out of memory, -2 when none is left, -3 when
    a signal handler raised."""
    cdef int64_t t
    cdef Py_ssize_t j, count
    cdef Entry *entries
    while True:
        if q.at_head < q.n_head:
            t = q.head[q.at_head]
            q.at_head += 1
        elif q.at_tie < n:
            j = q.at_tie
            while j < n and not (q.row[j] == q.g):
                j += 1
            q.at_tie = j + 1
            if j == n:
                continue
            t = j
        elif not q.rest_built:
            if _signalled():
                return -3
            count = 0
            for j in range(n):
                count += not (q.row[j] > q.g or q.row[j] == q.g)
            entries = <Entry *>malloc((count if count else 1) * sizeof(Entry))
            q.rest = <int64_t *>malloc((count if count else 1) * sizeof(int64_t))
            if entries == NULL or q.rest == NULL:
                free(entries)
                return -1
            count = 0
            for j in range(n):
                if not (q.row[j] > q.g or q.row[j] == q.g):
                    entries[count].score = q.row[j]
                    entries[count].index = j
                    count += 1
            qsort(entries, count, sizeof(Entry), _ranked_before)
            for j in range(count):
                q.rest[j] = entries[j].index
            free(entries)
            q.n_rest = count
            q.rest_built = True
            continue
        elif q.at_rest < q.n_rest:
            t = q.rest[q.at_rest]
            q.at_rest += 1
        else:
            return -2
        if not taken[t]:
            return t


def round_robin(const double[:, ::1] table, heads, const double[::1] guesses, Py_ssize_t k):
    """Round-robin over the classes' rankings (class 0 first): each in turn takes its best term
    not taken yet, until ``k`` are taken.  ``heads[c]`` (int64) holds the terms of row ``c``
    scoring above ``guesses[c]``, ranked.  Returns the terms in the order taken (intp)."""
    cdef Py_ssize_t n_classes = table.shape[0], n = table.shape[1], c, count = 0
    cdef int64_t t = 0
    cdef int64_t[::1] head
    if len(heads) != n_classes or guesses.shape[0] != n_classes:
        raise ValueError("round_robin needs one head and one guess per row of the table")
    if k < 0 or k > n or (k and not n_classes):
        raise ValueError(f"k must be in [0, {n if n_classes else 0}], got {k}")
    chosen_array = np.empty(k, dtype=np.intp)
    cdef Py_ssize_t[::1] chosen = chosen_array
    if k == 0:
        return chosen_array
    cdef Cursor *cursors = <Cursor *>malloc(n_classes * sizeof(Cursor))
    cdef unsigned char *taken = <unsigned char *>malloc(n)
    if cursors == NULL or taken == NULL:
        free(cursors)
        free(taken)
        raise MemoryError("round_robin: no memory for its cursors")
    for c in range(n_classes):
        head = heads[c]
        for t in head:
            if t < 0 or t >= n:
                free(cursors)
                free(taken)
                raise ValueError(f"heads must hold terms in [0, {n}), got {t}")
        t = 0
        cursors[c].row = &table[c, 0]
        cursors[c].g = guesses[c]
        cursors[c].head = &head[0] if head.shape[0] else NULL
        cursors[c].n_head = head.shape[0]
        cursors[c].at_head = 0
        cursors[c].at_tie = 0
        cursors[c].rest = NULL
        cursors[c].n_rest = 0
        cursors[c].at_rest = 0
        cursors[c].rest_built = False
    with nogil:
        for c in range(n):
            taken[c] = 0
        while count < k and t >= 0:
            for c in range(n_classes):
                t = _next(&cursors[c], n, taken)
                if t < 0:
                    break
                taken[t] = 1
                chosen[count] = t
                count += 1
                if count == k:
                    break
        for c in range(n_classes):
            free(cursors[c].rest)
        free(cursors)
        free(taken)
    if t == -3:
        _raise_pending()
    if t == -1:
        raise MemoryError("round_robin: no memory for a class's ranking")
    if t == -2:
        raise ValueError("round_robin: a class ran out of terms (heads do not match the table)")
    return chosen_array
