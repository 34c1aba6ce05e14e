"""The round-robin merge of the classes' term rankings.

A class's ranking is its terms by score, best first, equal scores by lower index, NaN last.  Its
head, every term scoring above a guessed threshold ``g``, comes from the caller in index order and
is ranked here by a stable radix sort on the scores' bits (ties keep index order, and a radix
sort does not slow down on them, where numpy's comparison sorts spend most of a selection).
After the head come the terms scoring exactly ``g`` (already in index order, so they are found by
a lazy scan of the row, never sorted), then the rest, sorted only if the merge reaches them.  A
guess from a sample of the row makes the head a little longer than the merge needs, so a
130,000-term row costs one pass and a sort of a few thousand entries, however many ties it holds.
"""

import numpy as np

from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memcpy
from libc.stdlib cimport free, malloc, qsort

from .core cimport TS_ERR_ARG, TS_ERR_INTERRUPTED, TS_ERR_NOMEM, TS_OK
from .interrupts cimport stop_requested
from .ccore import Interrupt, check_status

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


cdef inline uint64_t _rank_key(double score) noexcept nogil:
    # an unsigned key in ranking order: higher scores first, NaN last, and -0.0 equal to 0.0 (as
    # the comparison sort has them)
    cdef uint64_t bits
    if score != score:
        return 0xFFFFFFFFFFFFFFFFULL
    if score == 0.0:
        score = 0.0
    memcpy(&bits, &score, sizeof(double))
    # the IEEE order as unsigned (negatives flipped whole, positives above them), then reversed
    bits = ~bits if bits >> 63 else bits | (1ULL << 63)
    return ~bits


cdef int _rank_head(const double *row, const double *scores, int64_t *head, Py_ssize_t n) noexcept nogil:
    """Rank ``head`` (terms in index order) by their scores, ``scores[j]`` for ``head[j]`` or, when
    ``scores`` is NULL, ``row[head[j]]``: a least-significant-digit radix sort over the keys' eight
    bytes, each pass stable, so equal scores keep index order; a byte every key shares is skipped.
    Returns 0, or -1 when out of memory."""
    cdef uint64_t *keys = <uint64_t *>malloc(2 * (n if n else 1) * sizeof(uint64_t))
    cdef int64_t *terms = <int64_t *>malloc((n if n else 1) * sizeof(int64_t))
    cdef uint64_t *src_k
    cdef uint64_t *dst_k
    cdef int64_t *src_t
    cdef int64_t *dst_t
    cdef Py_ssize_t count[256]
    cdef Py_ssize_t j, b, total, at
    cdef int shift
    if keys == NULL or terms == NULL:
        free(keys)
        free(terms)
        return TS_ERR_NOMEM
    src_k, dst_k, src_t, dst_t = keys, keys + n, head, terms
    for j in range(n):
        src_k[j] = _rank_key(scores[j] if scores != NULL else row[head[j]])
    for shift in range(0, 64, 8):
        for b in range(256):
            count[b] = 0
        for j in range(n):
            count[(src_k[j] >> shift) & 0xFF] += 1
        if count[(src_k[0] >> shift) & 0xFF] == n:
            continue  # every key has this byte: the pass would not move anything
        total = 0
        for b in range(256):
            at = count[b]
            count[b] = total
            total += at
        for j in range(n):
            b = (src_k[j] >> shift) & 0xFF
            dst_k[count[b]] = src_k[j]
            dst_t[count[b]] = src_t[j]
            count[b] += 1
        src_k, dst_k = dst_k, src_k
        src_t, dst_t = dst_t, src_t
    if src_t != head:
        memcpy(head, src_t, n * sizeof(int64_t))
    free(keys)
    free(terms)
    return TS_OK


cdef struct Cursor:
    const double *row
    double g
    int64_t *head                # the head, ranked (owned)
    Py_ssize_t n_head, at_head   # its length, and the next position in it
    Py_ssize_t at_tie            # the next term to scan for a score equal to g
    int64_t *rest                # the terms after the ties, ranked once a merge reaches them
    Py_ssize_t n_rest, at_rest
    bint rest_built


cdef int _next(Cursor *q, Py_ssize_t n, const unsigned char *taken, void *interrupt,
               int64_t *term) noexcept nogil:
    """The class's best term not taken yet, in ``term``; -1 there when the head is used up and
    there is no row to go on with.  Returns TS_OK, TS_ERR_NOMEM, TS_ERR_ARG when the row has no
    term left (the heads do not match the table), or TS_ERR_INTERRUPTED."""
    cdef int64_t t
    cdef Py_ssize_t j, count
    cdef Entry *entries
    while True:
        if q.at_head < q.n_head:
            t = q.head[q.at_head]
            q.at_head += 1
        elif q.row == NULL:
            term[0] = -1
            return TS_OK
        elif q.at_tie < n:
            j = q.at_tie
            while j < n and not (q.row[j] == q.g):
                j += 1
            q.at_tie = j + 1
            if j == n:
                continue
            t = j
        elif not q.rest_built:
            # the one long step of a merge (a sort of the row's remainder): Ctrl-C is looked for here
            if stop_requested(interrupt):
                return TS_ERR_INTERRUPTED
            count = 0
            for j in range(n):
                count += not (q.row[j] > q.g or q.row[j] == q.g)
            entries = <Entry *>malloc((count if count else 1) * sizeof(Entry))
            q.rest = <int64_t *>malloc((count if count else 1) * sizeof(int64_t))
            if entries == NULL or q.rest == NULL:
                free(entries)
                return TS_ERR_NOMEM
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
            return TS_ERR_ARG
        if not taken[t]:
            term[0] = t
            return TS_OK


cdef void _free_cursors(Cursor *cursors, Py_ssize_t n_classes) noexcept nogil:
    cdef Py_ssize_t c
    for c in range(n_classes):
        free(cursors[c].head)
        free(cursors[c].rest)
    free(cursors)


def round_robin(const double[:, ::1] table, heads, const double[::1] guesses, Py_ssize_t k):
    """Round-robin over the classes' rankings (class 0 first): each in turn takes its best term
    not taken yet, until ``k`` are taken.  ``heads[c]`` (int64) holds the terms of row ``c``
    scoring above ``guesses[c]``, in increasing index order (``np.flatnonzero(row > g)``).
    Returns the terms in the order taken (intp)."""
    if len(heads) != table.shape[0] or guesses.shape[0] != table.shape[0]:
        raise ValueError("round_robin needs one head and one guess per row of the table")
    return _round_robin(table, heads, None, guesses, table.shape[1], k)


def round_robin_heads(heads, head_scores, const double[::1] guesses, Py_ssize_t n_terms, Py_ssize_t k):
    """:func:`round_robin` from the heads alone, ``head_scores[c]`` holding the scores of the terms
    in ``heads[c]``, for a caller that kept no table: the same terms, or None when some class's
    head is used up before ``k`` terms are taken (the merge would need that class's whole row)."""
    if len(heads) != guesses.shape[0] or len(head_scores) != guesses.shape[0]:
        raise ValueError("round_robin_heads needs one head, one score array and one guess per class")
    for c in range(guesses.shape[0]):
        if np.shape(head_scores[c]) != np.shape(heads[c]):
            raise ValueError(f"head_scores[{c}] must hold one score per term of heads[{c}]")
    return _round_robin(None, heads, head_scores, guesses, n_terms, k)


def _round_robin(const double[:, ::1] table, heads, head_scores, const double[::1] guesses,
                 Py_ssize_t n, Py_ssize_t k):
    cdef Py_ssize_t n_classes = guesses.shape[0], c, count = 0
    cdef int64_t t = 0
    cdef int64_t previous
    cdef int status = TS_OK
    cdef int64_t[::1] head
    cdef const double[::1] scores
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
        check_status(TS_ERR_NOMEM, "round_robin")
    for c in range(n_classes):
        cursors[c].head = NULL
        cursors[c].rest = NULL
    for c in range(n_classes):
        head = heads[c]
        scores = head_scores[c] if head_scores is not None else None
        previous = -1
        for t in head:
            if t <= previous or t >= n:
                _free_cursors(cursors, n_classes)
                free(taken)
                if t >= n or t < 0:
                    raise ValueError(f"heads must hold terms in [0, {n}), got {t}")
                raise ValueError(f"heads must hold each row's terms in increasing order, got {t} after {previous}")
            previous = t
        t = 0
        cursors[c].row = &table[c, 0] if table is not None else NULL
        cursors[c].g = guesses[c]
        cursors[c].n_head = head.shape[0]
        cursors[c].head = <int64_t *>malloc((head.shape[0] if head.shape[0] else 1) * sizeof(int64_t))
        if cursors[c].head == NULL:
            _free_cursors(cursors, n_classes)
            free(taken)
            check_status(TS_ERR_NOMEM, "round_robin")
        with nogil:
            if head.shape[0]:
                memcpy(cursors[c].head, &head[0], head.shape[0] * sizeof(int64_t))
            status = _rank_head(cursors[c].row,
                                &scores[0] if scores is not None and head.shape[0] else NULL,
                                cursors[c].head, head.shape[0])
        if status != TS_OK:
            _free_cursors(cursors, n_classes)
            free(taken)
            check_status(status, "round_robin")
        cursors[c].at_head = 0
        cursors[c].at_tie = 0
        cursors[c].n_rest = 0
        cursors[c].at_rest = 0
        cursors[c].rest_built = False
    interrupt = Interrupt()
    cdef void *stop = <void *> interrupt
    with nogil:
        for c in range(n):
            taken[c] = 0
        while count < k and t >= 0 and status == TS_OK:
            for c in range(n_classes):
                status = _next(&cursors[c], n, taken, stop, &t)
                if status != TS_OK or t < 0:
                    break
                taken[t] = 1
                chosen[count] = t
                count += 1
                if count == k:
                    break
        _free_cursors(cursors, n_classes)
        free(taken)
    check_status(status, "round_robin", interrupt,
                 detail="a class ran out of terms (heads do not match the table)" if status == TS_ERR_ARG else None)
    if t < 0:
        return None
    return chosen_array
