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
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.string cimport memcpy, memset

from .fused cimport floating, integral
from .interrupts cimport stop_requested

# the C core's status codes (csrc/textsel.h), one vocabulary for every kernel; the Python layer
# turns them into errors
from .core cimport (TS_ERR_INDEX, TS_ERR_INDPTR, TS_ERR_INTERRUPTED, TS_ERR_NEGATIVE, TS_ERR_NOMEM,
                    TS_ERR_NONFINITE, TS_OK)

cdef enum:
    # documents visited between two interrupt checks (about a millisecond of counting)
    _CHECK_EVERY = 1 << 14
    # how far ahead in a class's document list the next rows are fetched into cache: the row
    # pointers of the document this far ahead, the values and indices of the one half as far
    _AHEAD = 8
    # stored values of a row whose cache lines are asked for ahead
    _ROW_HEAD = 256

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define TEXTSEL_PREFETCH(p) __builtin_prefetch((const void *) (p), 0, 1)
    #else
    #define TEXTSEL_PREFETCH(p) ((void) 0)
    #endif
    """
    void _prefetch "TEXTSEL_PREFETCH"(const void *p) noexcept nogil


cdef struct Block:
    # one CSR row block's buffers (element types fixed per call) and its first row among all blocks
    const void *data
    const void *indices
    const void *indptr
    Py_ssize_t n_rows
    Py_ssize_t nnz
    Py_ssize_t first_row


cdef inline int _count_row(const floating *data, const integral *indices, const integral *indptr,
                           Py_ssize_t n_rows, Py_ssize_t nnz, Py_ssize_t i, Py_ssize_t n_terms,
                           bint check_values, int64_t *row, int64_t *df, uint16_t *mark,
                           uint16_t stamp, Py_ssize_t *where) noexcept nogil:
    # add row i's presence to row (and to df, if given) in one pass:
    # each column index is bounds-checked before it is used, a stored zero
    # is not presence, and a column repeated within the row counts once
    # (mark[t] == stamp: already seen in this visit; unsorted rows are the
    # norm from scikit-learn's vectorizers, so no sortedness is assumed)
    cdef Py_ssize_t j, start, end
    cdef int64_t t
    cdef double v
    if <uint64_t> i >= <uint64_t> n_rows:
        where[0] = i
        return TS_ERR_INDPTR
    start = indptr[i]
    end = indptr[i + 1]
    if start < 0 or end < start or end > nnz:
        where[0] = i
        return TS_ERR_INDPTR
    for j in range(start, end):
        t = indices[j]
        if <uint64_t> t >= <uint64_t> n_terms:
            where[0] = j
            return TS_ERR_INDEX
        v = data[j]
        if check_values:
            if not isfinite(v):
                where[0] = j
                return TS_ERR_NONFINITE
            if v < 0:
                where[0] = j
                return TS_ERR_NEGATIVE
        if v != 0 and mark[t] != stamp:
            mark[t] = stamp
            row[t] += 1
            if df != NULL:
                df[t] += 1
    return TS_OK


cdef Py_ssize_t _block_of(const Block *blocks, Py_ssize_t n_blocks, Py_ssize_t hint,
                          Py_ssize_t i) noexcept nogil:
    # the block holding global row i (its last row is first_row + n_rows - 1), or -1; documents
    # come in ascending order within a class, so the block of the previous one is tried first
    cdef Py_ssize_t lo = 0, hi = n_blocks, mid
    if 0 <= hint < n_blocks and blocks[hint].first_row <= i < blocks[hint].first_row + blocks[hint].n_rows:
        return hint
    while lo < hi:  # the last block whose first row is <= i
        mid = (lo + hi) // 2
        if blocks[mid].first_row <= i:
            lo = mid + 1
        else:
            hi = mid
    lo -= 1
    while lo >= 0 and blocks[lo].n_rows == 0:  # empty blocks share their first row with the next
        lo -= 1
    if lo < 0 or i >= blocks[lo].first_row + blocks[lo].n_rows:
        return -1
    return lo


cdef struct Pass:
    # everything one counting pass reads and writes, but the blocks' element types
    const Block *blocks
    Py_ssize_t n_blocks
    Py_ssize_t n_rows
    const int64_t *class_ptr
    const int64_t *class_docs
    const unsigned char *primary
    const int64_t *class_list
    Py_ssize_t n_listed
    Py_ssize_t n_classes
    Py_ssize_t n_terms
    uint16_t *mark
    int64_t *df
    int64_t *table
    bint accumulate
    void *interrupt_ctx
    Py_ssize_t where
    Py_ssize_t where_block


cdef inline void _prefetch_doc(const floating *kind_data, const integral *kind_index, const Pass *p,
                               Py_ssize_t i, Py_ssize_t *hint, bint row) noexcept nogil:
    # ask for document i's row pointers (row false) or the first values and indices of its row
    # (row true: its row pointers were asked for earlier, so reading them here rarely waits);
    # documents of a class lie scattered through the matrix, and each row start would otherwise
    # wait on memory.  Nothing invalid is read: a bad row is reported by the count itself.
    cdef Py_ssize_t b, r, j, start, end
    cdef const Block *blk
    if <uint64_t> i >= <uint64_t> p.n_rows:
        return
    b = _block_of(p.blocks, p.n_blocks, hint[0], i)
    if b < 0:
        return
    hint[0] = b
    blk = &p.blocks[b]
    r = i - blk.first_row
    if not row:
        _prefetch(<const integral *> blk.indptr + r)
        return
    start = (<const integral *> blk.indptr)[r]
    end = (<const integral *> blk.indptr)[r + 1]
    if start < 0 or end > blk.nnz:
        return
    # the first few cache lines: the hardware prefetcher takes over once a row is being read
    end = min(end, start + _ROW_HEAD)
    j = start
    while j < end:
        _prefetch(<const floating *> blk.data + j)
        j += 64 // sizeof(floating)
    j = start
    while j < end:
        _prefetch(<const integral *> blk.indices + j)
        j += 64 // sizeof(integral)


cdef int _count_blocks(const floating *kind_data, const integral *kind_index, Pass *p) noexcept nogil:
    # kind_data and kind_index are never read: their types pick the blocks' element types
    cdef Py_ssize_t k, l, i, c, t, end, b = 0, ahead_b = 0, half_b = 0
    cdef bint whole_row_df
    cdef uint16_t stamp = 0
    cdef int status = TS_OK
    cdef int64_t visits = 0
    cdef int64_t *row
    cdef const Block *blk
    memset(p.mark, 0, p.n_terms * sizeof(uint16_t))
    for k in range(p.n_listed):
        c = p.class_list[k]
        if <uint64_t> c >= <uint64_t> p.n_classes:
            p.where = c
            return TS_ERR_INDPTR
        row = p.table + c * p.n_terms
        if not p.accumulate:
            memset(row, 0, p.n_terms * sizeof(int64_t))
        end = p.class_ptr[c + 1]
        # a class whose documents are all visited here first (every class of single-label y)
        # adds its finished row to df while the row is still in cache, instead of a second random
        # increment per stored value
        whole_row_df = not p.accumulate
        for l in range(p.class_ptr[c], end):
            if not p.primary[l]:
                whole_row_df = False
                break
        for l in range(p.class_ptr[c], end):
            if l + _AHEAD < end:
                _prefetch_doc(kind_data, kind_index, p, p.class_docs[l + _AHEAD], &ahead_b, False)
            if l + _AHEAD // 2 < end:
                _prefetch_doc(kind_data, kind_index, p, p.class_docs[l + _AHEAD // 2], &half_b, True)
            i = p.class_docs[l]
            visits += 1
            if p.interrupt_ctx != NULL and (visits & (_CHECK_EVERY - 1)) == 0 \
                    and stop_requested(p.interrupt_ctx):
                return TS_ERR_INTERRUPTED
            if stamp == 65535:
                # the stamps wrap: forget every mark
                memset(p.mark, 0, p.n_terms * sizeof(uint16_t))
                stamp = 0
            stamp += 1
            b = _block_of(p.blocks, p.n_blocks, b, i) if <uint64_t> i < <uint64_t> p.n_rows else -1
            if b < 0:
                p.where = i
                return TS_ERR_INDPTR
            blk = &p.blocks[b]
            status = _count_row(<const floating *> blk.data, <const integral *> blk.indices,
                                <const integral *> blk.indptr, blk.n_rows, blk.nnz, i - blk.first_row,
                                p.n_terms, p.primary[l], row,
                                p.df if p.primary[l] and not whole_row_df else NULL, p.mark,
                                stamp, &p.where)
            if status != TS_OK:
                p.where_block = b
                return status
        if whole_row_df:
            for t in range(p.n_terms):
                p.df[t] += row[t]
    return TS_OK


def count_classes(blocks, const int64_t[::1] class_ptr, const int64_t[::1] class_docs,
                  const unsigned char[::1] primary, const int64_t[::1] class_list,
                  uint16_t[::1] mark, int64_t[::1] df, int64_t[:, ::1] class_df,
                  bint accumulate=False, object interrupt=None):
    """Fill the rows ``class_list`` of ``class_df``: ``class_df[c, t]`` documents of class ``c`` hold term ``t``.

    ``blocks`` is a sequence of CSR row blocks, each a ``(data, indices, indptr)`` triple of
    1-D C-contiguous arrays, read as one matrix with their rows one after another; all share
    one value type (float32 or float64) and one index type (int32 or int64, ``indices`` and
    ``indptr`` alike).  ``class_docs[class_ptr[c]:class_ptr[c+1]]`` lists the documents (rows
    of that stacked matrix, best in ascending order) of class ``c``.  Walking one class at a
    time, across every block, writes a single row meanwhile, which stays in cache; scattering
    each document's labels in document order, or counting the blocks one after another, would
    pass the whole table through the cache again and again.  Each row is zeroed here, just
    before it is filled, for the same reason; with ``accumulate`` the rows keep their counts
    and these blocks' are added (a sum over chunks in one table).  With ``interrupt`` (a
    textsel._ext.ccore.Interrupt) the pass checks for Ctrl-C every 2^14 documents and stops with
    ``TS_ERR_INTERRUPTED``.  Threads may fill disjoint class lists of one table at once.
    Where ``primary[l]`` is set for the entry ``class_docs[l]``, the document's values are
    checked and it is counted into ``df`` too.  ``mark`` (one uint16 per term, this caller's
    own, any content; 16 bits keep it in the first-level cache) deduplicates column indices in
    rows that need it.

    Returns ``(status, where, block)``: ``TS_OK`` or the first problem found, its position
    in that block's ``data``/``indices`` (or its row, for ``TS_ERR_INDPTR``), and the block's
    position in ``blocks`` (-1 for a document in no block, ``where`` then its stacked row).
    """
    import numpy as np
    cdef Pass p
    cdef Block *table
    cdef Py_ssize_t b, n_blocks = len(blocks)
    cdef int status = TS_OK, kind
    cdef int64_t no_cell = 0
    cdef uint16_t no_mark = 0
    if mark.shape[0] < class_df.shape[1] or df.shape[0] != class_df.shape[1]:
        raise ValueError("count_classes: buffer lengths disagree")
    if primary.shape[0] != class_docs.shape[0] or class_ptr.shape[0] != class_df.shape[0] + 1:
        raise ValueError("count_classes: label lists and class table disagree")
    arrays = [tuple(np.asarray(a) for a in blk) for blk in blocks]  # held until the pass ends
    if n_blocks == 0:
        arrays = [(np.empty(0), np.empty(0, np.int32), np.zeros(1, np.int32))]
    value_type, index_type = arrays[0][0].dtype, arrays[0][1].dtype
    if value_type not in (np.float32, np.float64) or index_type not in (np.int32, np.int64):
        raise TypeError("count_classes: values must be float32/float64 and indices int32/int64")
    for data, indices, indptr in arrays:
        if data.dtype != value_type or indices.dtype != index_type or indptr.dtype != index_type:
            raise TypeError("count_classes: every block needs the same value and index types")
        if data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1 or indptr.shape[0] < 1 \
                or data.shape[0] != indices.shape[0]:
            raise ValueError("count_classes: buffer lengths disagree")
        if not (data.flags.c_contiguous and indices.flags.c_contiguous and indptr.flags.c_contiguous):
            raise ValueError("count_classes: block buffers must be C-contiguous")
    kind = 2 * (value_type == np.float32) + (index_type == np.int64)
    p.n_blocks = len(arrays)
    p.n_rows = 0
    p.class_ptr = &class_ptr[0]
    p.class_docs = &class_docs[0] if class_docs.shape[0] else NULL
    p.primary = &primary[0] if primary.shape[0] else NULL
    p.class_list = &class_list[0] if class_list.shape[0] else NULL
    p.n_listed = class_list.shape[0]
    p.n_classes = class_df.shape[0]
    p.n_terms = class_df.shape[1]
    p.mark = &mark[0] if mark.shape[0] else &no_mark
    p.df = &df[0] if df.shape[0] else &no_cell
    # a table with no cells is never written: every index is out of range before a count
    p.table = &class_df[0, 0] if class_df.shape[0] and class_df.shape[1] else &no_cell
    p.accumulate = accumulate
    p.interrupt_ctx = NULL if interrupt is None else <void *> interrupt
    p.where = -1
    p.where_block = -1
    table = <Block *> PyMem_Malloc(p.n_blocks * sizeof(Block))
    if table == NULL:
        return TS_ERR_NOMEM, -1, -1
    try:
        for b in range(p.n_blocks):
            data, indices, indptr = arrays[b]
            table[b].data = <const void *> <size_t> data.ctypes.data
            table[b].indices = <const void *> <size_t> indices.ctypes.data
            table[b].indptr = <const void *> <size_t> indptr.ctypes.data
            table[b].n_rows = indptr.shape[0] - 1
            table[b].nnz = indices.shape[0]
            table[b].first_row = p.n_rows
            p.n_rows += table[b].n_rows
        p.blocks = table
        with nogil:
            if kind == 0:
                status = _count_blocks(<const double *> NULL, <const int32_t *> NULL, &p)
            elif kind == 1:
                status = _count_blocks(<const double *> NULL, <const int64_t *> NULL, &p)
            elif kind == 2:
                status = _count_blocks(<const float *> NULL, <const int32_t *> NULL, &p)
            else:
                status = _count_blocks(<const float *> NULL, <const int64_t *> NULL, &p)
    finally:
        PyMem_Free(table)
    return status, p.where, p.where_block


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
