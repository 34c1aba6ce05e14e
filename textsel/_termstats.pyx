# cython: language_level=3
"""Document frequencies, overall and per class, from CSR buffers.

``count_classes`` fills a list of rows of the class table, class by class,
so that disjoint lists can run on separate threads; it also counts overall
document frequencies on each document's *primary* visit (its lowest class),
so a corpus in which every document has a label is read once per label and
no more (documents with no label are counted as one pseudo-class of their
own).  It validates what it reads and runs without the GIL; its scratch
comes from the caller.
``indicator_lists`` turns a dense 0/1 label matrix into per-class document
lists.
"""

from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t, uint16_t, uint64_t
from cpython.exc cimport PyErr_CheckSignals
from libc.string cimport memcpy, memset

from ._fused cimport floating, integral

# Status codes; the Python layer turns them into errors.
cpdef enum Status:
    OK = 0
    ERR_NONFINITE = 1
    ERR_NEGATIVE = 2
    ERR_INDEX = 3
    ERR_INDPTR = 4
    ERR_INTERRUPTED = 5

cdef enum:
    # documents visited between two interrupt checks (about a millisecond of counting)
    _CHECK_EVERY = 1 << 14


cdef bint _interrupted(void *ctx) noexcept nogil:
    """Ctrl-C or a sibling thread's stop, through the caller's textsel._ccore.Interrupt
    (anything with an ``error`` attribute): run Python's signal handlers, record what they raise."""
    with gil:
        interrupt = <object> ctx
        if interrupt.error is not None:
            return True
        try:
            PyErr_CheckSignals()
        except BaseException as exc:
            interrupt.error = exc
            return True
    return False


cdef inline int _count_row(const floating[::1] data, const integral[::1] indices,
                           const integral[::1] indptr, Py_ssize_t i, Py_ssize_t n_terms,
                           bint check_values, int64_t *row, int64_t *df, uint16_t *mark,
                           uint16_t stamp, Py_ssize_t *where) noexcept nogil:
    # add document i's presence to row (and to df, if given) in one pass:
    # each column index is bounds-checked before it is used, a stored zero
    # is not presence, and a column repeated within the row counts once
    # (mark[t] == stamp: already seen in this visit; unsorted rows are the
    # norm from scikit-learn's vectorizers, so no sortedness is assumed)
    cdef Py_ssize_t j, start, end
    cdef int64_t t
    cdef double v
    if <uint64_t> i >= <uint64_t> (indptr.shape[0] - 1):
        where[0] = i
        return ERR_INDPTR
    start = indptr[i]
    end = indptr[i + 1]
    if start < 0 or end < start or end > indices.shape[0]:
        where[0] = i
        return ERR_INDPTR
    for j in range(start, end):
        t = indices[j]
        if <uint64_t> t >= <uint64_t> n_terms:
            where[0] = j
            return ERR_INDEX
        v = data[j]
        if check_values:
            if not isfinite(v):
                where[0] = j
                return ERR_NONFINITE
            if v < 0:
                where[0] = j
                return ERR_NEGATIVE
        if v != 0 and mark[t] != stamp:
            mark[t] = stamp
            row[t] += 1
            if df != NULL:
                df[t] += 1
    return OK


def count_classes(const floating[::1] data,
                  const integral[::1] indices,
                  const integral[::1] indptr,
                  const int64_t[::1] class_ptr,
                  const int64_t[::1] class_docs,
                  const unsigned char[::1] primary,
                  const int64_t[::1] class_list,
                  uint16_t[::1] mark,
                  int64_t[::1] df,
                  int64_t[:, ::1] class_df,
                  bint accumulate=False,
                  object interrupt=None):
    """Fill the rows ``class_list`` of ``class_df``: ``class_df[c, t]`` documents of class ``c`` hold term ``t``.

    ``class_docs[class_ptr[c]:class_ptr[c+1]]`` lists the documents of class
    ``c``.  Walking one class at a time writes a single row meanwhile, which
    stays in cache; scattering each document's labels in document order
    would touch the whole table.  Each row is zeroed here, just before it is
    filled, for the same reason; with ``accumulate`` the rows keep their
    counts and this block's are added (a sum over chunks in one table).  With
    ``interrupt`` (a textsel._ccore.Interrupt) the pass checks for Ctrl-C every
    2^14 documents and stops with ``Status.ERR_INTERRUPTED``.  Threads may fill disjoint class lists of
    one table at once.  Where ``primary[l]`` is set for the entry
    ``class_docs[l]``, the document's values are checked and it is counted
    into ``df`` too.  ``mark`` (one uint16 per term, this caller's own, any
    content; 16 bits keep it in the first-level cache) deduplicates column indices in rows that need it.

    Returns ``(status, where)``: ``Status.OK`` or the first problem found,
    and its position in ``data``/``indices`` (or the row, for ``ERR_INDPTR``).
    """
    cdef Py_ssize_t n_classes = class_df.shape[0]
    cdef Py_ssize_t n_terms = class_df.shape[1]
    cdef Py_ssize_t nnz = indices.shape[0]
    cdef Py_ssize_t k, l, i, t, c
    cdef uint16_t stamp = 0
    cdef int status = OK
    cdef Py_ssize_t where = -1
    cdef int64_t *row
    cdef int64_t *dfp = &df[0]
    cdef uint16_t *markp = &mark[0]
    cdef int64_t visits = 0
    cdef bint checking = interrupt is not None
    cdef void *interrupt_ctx = <void *> interrupt  # held by the caller for the whole pass
    if data.shape[0] != nnz or mark.shape[0] < n_terms or df.shape[0] != n_terms:
        raise ValueError("count_classes: buffer lengths disagree")
    if primary.shape[0] != class_docs.shape[0] or class_ptr.shape[0] != n_classes + 1:
        raise ValueError("count_classes: label lists and class table disagree")
    with nogil:
        memset(markp, 0, n_terms * sizeof(uint16_t))
        for k in range(class_list.shape[0]):
            c = class_list[k]
            if <uint64_t> c >= <uint64_t> n_classes:
                status = ERR_INDPTR
                where = c
                break
            row = &class_df[c, 0]
            if not accumulate:
                memset(row, 0, n_terms * sizeof(int64_t))
            for l in range(class_ptr[c], class_ptr[c + 1]):
                i = class_docs[l]
                visits += 1
                if checking and (visits & (_CHECK_EVERY - 1)) == 0 and _interrupted(interrupt_ctx):
                    status = ERR_INTERRUPTED
                    break
                if stamp == 65535:
                    # the stamps wrap: forget every mark
                    memset(markp, 0, n_terms * sizeof(uint16_t))
                    stamp = 0
                stamp += 1
                if primary[l]:
                    status = _count_row(data, indices, indptr, i, n_terms, True, row, dfp, markp,
                                        stamp, &where)
                else:
                    status = _count_row(data, indices, indptr, i, n_terms, False, row, NULL, markp,
                                        stamp, &where)
                if status != OK:
                    break
            if status != OK:
                break
    return status, where


# Eight indicator bytes at a time: masks for "which bytes of a word are nonzero", and the
# multiplier that turns the lowest such byte's bit (1 << 8b, once shifted down) into b.
cdef uint64_t _LOW7 = 0x7F7F7F7F7F7F7F7FULL
cdef uint64_t _HIGH = 0x8080808080808080ULL
cdef uint64_t _BYTE_INDEX = 0x0001020304050607ULL


cdef inline bint _little_endian() noexcept nogil:
    cdef uint64_t one = 1
    return (<unsigned char *> &one)[0] == 1


cdef inline uint64_t _byte_swap(uint64_t w) noexcept nogil:
    # big-endian machines: put the word's first byte in its lowest bits
    cdef uint64_t out = 0
    cdef int b
    for b in range(8):
        out = (out << 8) | (w & 0xFF)
        w >>= 8
    return out


def indicator_lists(const unsigned char[::1] cells, Py_ssize_t n_classes, Py_ssize_t n_pairs):
    """Per-class document lists of a dense indicator matrix, given as its flat row-major bytes.

    ``n_pairs`` is the number of nonzero bytes.  Returns ``(class_ptr,
    class_docs, primary, n_unlabeled)``: class by class, the documents holding
    it (ascending) and whether it is the document's lowest class; and the
    number of documents with no class.  The bytes are scanned eight at a time
    (an indicator matrix is mostly zeros; the nonzero bytes of a word are found by bit
    arithmetic, not one by one), then the (document, class) pairs,
    found document by document, are placed class by class.
    """
    import numpy as np
    cdef Py_ssize_t n_cells = cells.shape[0]
    cdef Py_ssize_t n_docs = n_cells // n_classes if n_classes > 0 else 0
    cdef Py_ssize_t p, k = 0, c
    cdef int64_t doc, last_doc = -1, labelled = 0
    cdef uint64_t word
    if n_classes <= 0 or n_docs * n_classes != n_cells:
        raise ValueError("indicator_lists: cells is not a documents x classes matrix")
    pair_doc_arr = np.empty(n_pairs, dtype=np.int64)
    pair_class_arr = np.empty(n_pairs, dtype=np.int64)
    class_ptr_arr = np.zeros(n_classes + 1, dtype=np.int64)
    docs_arr = np.empty(n_pairs, dtype=np.int64)
    primary_arr = np.empty(n_pairs, dtype=np.uint8)
    cdef int64_t[::1] pair_doc = pair_doc_arr
    cdef int64_t[::1] pair_class = pair_class_arr
    cdef int64_t[::1] class_ptr = class_ptr_arr
    cdef int64_t[::1] class_docs = docs_arr
    cdef unsigned char[::1] primary = primary_arr
    cdef int64_t[::1] cursor
    cdef const unsigned char *row
    cdef Py_ssize_t i, j, b
    cdef uint64_t nonzero
    cdef bint overflow = False
    cdef bint little = _little_endian()
    with nogil:
        for i in range(n_docs):
            row = &cells[i * n_classes]
            j = 0
            while j + 8 <= n_classes and not overflow:
                memcpy(&word, row + j, 8)
                if word != 0:
                    if not little:
                        word = _byte_swap(word)
                    # the high bit of every nonzero byte, then one byte index per set bit,
                    # lowest first: a row holds a label or two among dozens of classes
                    nonzero = (((word & _LOW7) + _LOW7) | word) & _HIGH
                    while nonzero != 0:
                        b = <Py_ssize_t> ((((nonzero & (~nonzero + 1)) >> 7) * _BYTE_INDEX) >> 56)
                        nonzero &= nonzero - 1
                        if k == n_pairs:
                            overflow = True
                            break
                        pair_doc[k] = i
                        pair_class[k] = j + b
                        class_ptr[j + b + 1] += 1
                        k += 1
                j += 8
            while j < n_classes and not overflow:
                if row[j] != 0:
                    if k == n_pairs:
                        overflow = True
                        break
                    pair_doc[k] = i
                    pair_class[k] = j
                    class_ptr[j + 1] += 1
                    k += 1
                j += 1
        for c in range(n_classes):
            class_ptr[c + 1] += class_ptr[c]
    if overflow or k != n_pairs:
        raise ValueError("indicator_lists: n_pairs does not match the nonzero cells")
    cursor = class_ptr_arr[:n_classes].copy()
    with nogil:
        for p in range(k):
            doc = pair_doc[p]
            c = pair_class[p]
            class_docs[cursor[c]] = doc
            primary[cursor[c]] = doc != last_doc
            if doc != last_doc:
                labelled += 1
            last_doc = doc
            cursor[c] += 1
    return class_ptr_arr, docs_arr, primary_arr, n_docs - labelled


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
