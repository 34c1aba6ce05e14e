# cython: language_level=3
"""Words counted from Python strings by the C core's tokenizer (``csrc/tokens.c``), without the
GIL and without a Python object per token.

``Vocabulary`` holds terms numbered in the order first seen; ``count_terms`` counts a list of
strings' terms into CSR rows (term ids sorted within each row) and, unless the vocabulary is
fixed, adds their new terms to it; ``word_bitmap`` is the set of code points Python's regular
expressions call word characters (``\\w``: ``str.isalnum()`` or ``_``), read from the running
Python so that the tokens are exactly the ones its ``re`` finds.
"""

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdlib cimport free
from libc.string cimport memcpy

from .core cimport TS_ERR_NOMEM, TS_OK, ts_interrupt_check
from .interrupts cimport stop_requested

from .ccore import check_status  # the one route from a kernel's status to its exception

cdef extern from "Python.h":
    int PyUnicode_KIND(object text)
    void *PyUnicode_DATA(object text)
    Py_ssize_t PyUnicode_GET_LENGTH(object text)
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch) nogil
    object PyUnicode_FromKindAndData(int kind, const void *buffer, Py_ssize_t size)
    # a dict of n entries made at its final size (CPython's, used by Cython itself; every
    # version textsel supports has it): vocabulary_ holds up to millions of terms
    dict _PyDict_NewPresized(Py_ssize_t minused)
    int PyDict_SetItem(object d, object key, object value) except -1

cdef extern from "textsel.h" nogil:
    unsigned int TS_CODE_POINTS

    ctypedef struct ts_text:
        const void *data
        int64_t length
        int kind

    ctypedef struct ts_vocab:
        pass

    ctypedef struct ts_count_options:
        const uint8_t *word
        const ts_vocab *stop
        int64_t ngram_min
        int64_t ngram_max
        int fixed
        ts_interrupt_check interrupted
        void *interrupt_ctx
        const uint8_t *lower

    ts_vocab *ts_vocab_new()
    void ts_vocab_free(ts_vocab *v)
    int64_t ts_vocab_size(const ts_vocab *v)
    uint64_t ts_term_hash(const uint32_t *cps, int64_t len)
    int ts_vocab_add(ts_vocab *v, const uint32_t *cps, int64_t len, uint64_t h, int64_t *id)
    int ts_vocab_term(ts_vocab *v, int64_t id, const uint32_t **cps, int64_t *len)
    int ts_vocab_flatten(ts_vocab *v)
    int ts_vocab_merge(ts_vocab *into, ts_vocab *part, int64_t *map)
    int ts_vocab_order(ts_vocab *v, const int64_t *ids, int64_t n, int64_t *order)
    int ts_count_terms(const ts_text *docs, int64_t n_docs, ts_vocab *vocab, const ts_count_options *opt,
                       int64_t *indptr, int64_t **ids, int64_t **counts, int64_t *nnz)
    void ts_remap_rows(const int64_t *indptr, int64_t n_rows, int64_t *ids, int64_t *counts,
                       const int64_t *map)
    int ts_hash_terms(const ts_text *docs, int64_t n_docs, const ts_count_options *options, int64_t n_features,
                      int alternate_sign, int64_t *indptr, int64_t **indices, int64_t **values, int64_t *nnz)


_WORD = None
#: str.lower() of each Latin-1 code point (a Latin-1 code point, as Python's own lower gives it):
#: the map the kernel lowercases one-byte strings by
_LOWER = bytes(ord(chr(c).lower()) for c in range(256))


def plain_texts(documents, decoded, bint content, Py_ssize_t first):
    """The documents as a list of str: each taken as it is where it is a str and ``content``,
    else ``decoded(document, position)`` (positions numbered from ``first``)."""
    out = []
    cdef Py_ssize_t position = first
    for doc in documents:
        out.append(doc if content and type(doc) is str else decoded(doc, position))
        position += 1
    return out


def word_bitmap():
    """The word characters of Python's ``re`` (``\\w`` in a str pattern: ``str.isalnum()``, or
    ``_``) as a bitmap over every code point, built once per process (a few milliseconds)."""
    global _WORD
    cdef uint8_t[::1] bits
    cdef uint32_t c
    if _WORD is None:
        out = np.zeros(TS_CODE_POINTS // 8, dtype=np.uint8)
        bits = out
        with nogil:
            for c in range(TS_CODE_POINTS):
                if Py_UNICODE_ISALNUM(<Py_UCS4> c) or c == 95:  # '_'
                    bits[c >> 3] |= <uint8_t> (1 << (c & 7))
        out.flags.writeable = False
        _WORD = out
    return _WORD


cdef class Vocabulary:
    """Terms numbered in the order first added (the C core's ``ts_vocab``)."""

    cdef ts_vocab *v

    def __cinit__(self):
        self.v = ts_vocab_new()
        if self.v == NULL:
            check_status(TS_ERR_NOMEM, "a vocabulary")

    def __dealloc__(self):
        ts_vocab_free(self.v)

    def __len__(self):
        return ts_vocab_size(self.v)

    def __reduce__(self):
        # pickled as its terms in order: the ids come back the same
        return _vocabulary_of, (self.terms(),)

    def add(self, terms):
        """Add each term of ``terms`` (strings); returns their ids."""
        ids = np.empty(len(terms), dtype=np.int64)
        cdef int64_t[::1] out = ids
        cdef Py_ssize_t k = 0, n, j, cap = 0
        cdef uint32_t *buf = NULL
        cdef const uint32_t *cps
        cdef int kind
        cdef const void *data
        cdef int64_t term_id
        cdef int status
        try:
            for term in terms:
                if type(term) is not str:
                    raise TypeError(f"a term is {type(term).__name__}, not str")
                n, kind, data = PyUnicode_GET_LENGTH(term), PyUnicode_KIND(term), PyUnicode_DATA(term)
                if kind == 4:
                    cps = <const uint32_t *> data
                else:  # read out of the string's own buffer, widened
                    if n > cap:
                        PyMem_Free(buf)
                        cap = max(n, 2 * cap)
                        buf = <uint32_t *> PyMem_Malloc(cap * sizeof(uint32_t))
                        if buf == NULL:
                            cap = 0
                            check_status(TS_ERR_NOMEM, "the vocabulary's terms")
                    for j in range(n):
                        buf[j] = (<const uint8_t *> data)[j] if kind == 1 else (<const uint16_t *> data)[j]
                    cps = buf
                status = ts_vocab_add(self.v, cps, n, ts_term_hash(cps, n), &term_id)
                if status != TS_OK:
                    check_status(status, "the vocabulary's terms")
                out[k] = term_id
                k += 1
        finally:
            PyMem_Free(buf)
        return ids

    def terms(self, order=None):
        """The terms as strings, by id, or in the order of the ids in ``order``."""
        cdef const int64_t[::1] ids
        cdef const uint32_t *cps
        cdef int64_t size = ts_vocab_size(self.v), length, k, i
        if order is None:
            order = np.arange(size, dtype=np.int64)
        ids = np.ascontiguousarray(order, dtype=np.int64)
        out = [None] * ids.shape[0]
        for k in range(ids.shape[0]):
            i = ids[k]
            if not 0 <= i < size:
                raise IndexError(f"no term {i}")
            check_status(ts_vocab_term(self.v, i, &cps, &length), "the vocabulary's terms")
            out[k] = PyUnicode_FromKindAndData(4, cps, length)
        return out

    def columns_of(self, const int64_t[::1] columns):
        """``{term: column}`` for the terms of ids ``columns`` (column k holds term ``columns[k]``),
        in the order the terms were first added (scikit-learn's ``vocabulary_``)."""
        cdef int64_t size = ts_vocab_size(self.v), k, i, length
        cdef const uint32_t *cps
        column_of = np.full(size, -1, dtype=np.int64)
        cdef int64_t[::1] at = column_of
        for k in range(columns.shape[0]):
            i = columns[k]
            if not 0 <= i < size:
                raise IndexError(f"no term {i}")
            at[i] = k
        cdef dict out = _PyDict_NewPresized(columns.shape[0])
        for i in range(size):
            if at[i] >= 0:
                check_status(ts_vocab_term(self.v, i, &cps, &length), "the vocabulary's terms")
                PyDict_SetItem(out, PyUnicode_FromKindAndData(4, cps, length), at[i])
        return out

    def subset(self, const int64_t[::1] ids):
        """A new Vocabulary of the terms of ``ids``, numbered 0, 1, ... in that order, made from
        the code points here without a Python string per term (a fitted vocabulary's columns, as
        a fixed vocabulary counts by)."""
        cdef int64_t size = ts_vocab_size(self.v), k, length, got
        cdef const uint32_t *cps
        cdef int status = TS_OK
        for k in range(ids.shape[0]):
            if not 0 <= ids[k] < size:
                raise IndexError(f"no term {ids[k]}")
        out = Vocabulary()
        cdef ts_vocab *into = (<Vocabulary> out).v
        # under the GIL: writing an n-gram's code points out changes this vocabulary
        for k in range(ids.shape[0]):
            status = ts_vocab_term(self.v, ids[k], &cps, &length)
            if status == TS_OK:
                status = ts_vocab_add(into, cps, length, ts_term_hash(cps, length), &got)
            if status != TS_OK:
                check_status(status, "the vocabulary's terms")
            if got != k:
                raise ValueError(f"term {ids[k]} is asked for twice (ids must be distinct)")
        return out

    def order(self, ids=None):
        """The positions of ``ids`` (default: every term's id) sorted by their terms, as Python
        sorts strings (stable)."""
        cdef const int64_t[::1] given
        cdef const int64_t *given_ptr = NULL
        cdef int64_t n = ts_vocab_size(self.v)
        cdef int status
        if ids is not None:
            given = np.ascontiguousarray(ids, dtype=np.int64)
            n = given.shape[0]
            if n:
                given_ptr = &given[0]
        order = np.empty(n, dtype=np.int64)
        cdef int64_t[::1] out = order
        with nogil:
            status = ts_vocab_order(self.v, given_ptr, n, &out[0] if n else NULL)
        check_status(status, "sorting the vocabulary")
        return order

    def merge(self, Vocabulary part):
        """Add ``part``'s terms in its order; returns each of its terms' ids here."""
        mapping = np.empty(max(ts_vocab_size(part.v), 1), dtype=np.int64)
        cdef int64_t[::1] out = mapping
        cdef int status
        with nogil:
            status = ts_vocab_merge(self.v, part.v, &out[0])
        check_status(status, "merging vocabularies")
        return mapping[: ts_vocab_size(part.v)]


def _vocabulary_of(terms):
    """A Vocabulary of ``terms``, numbered in their order (how a pickled one comes back)."""
    vocabulary = Vocabulary()
    vocabulary.add(terms)
    return vocabulary


def count_terms(list texts, Vocabulary vocabulary, Vocabulary stop, int64_t ngram_min,
                int64_t ngram_max, bint fixed, interrupt, bint lowercase=False):
    """Count the terms of ``texts`` (str, lowercased as ``str.lower()`` does where ``lowercase``)
    into CSR rows: ``(status, indptr, ids, counts)``, each row's term ids sorted (ids of
    ``vocabulary``, which gains the new terms unless ``fixed``).

    The strings are read in place without the GIL: ``texts`` keeps them alive meanwhile.
    """
    return _rows(texts, vocabulary, stop, ngram_min, ngram_max, fixed, 0, False, interrupt, lowercase)


def hash_terms(list texts, Vocabulary stop, int64_t ngram_min, int64_t ngram_max, int64_t n_features,
               bint alternate_sign, interrupt, bint lowercase=False):
    """scikit-learn's HashingVectorizer's rows of ``texts``: ``(status, indptr, columns, values)``,
    each row's columns sorted and summed (``TS_ERR_ARG`` for a lone surrogate in a word)."""
    return _rows(texts, None, stop, ngram_min, ngram_max, False, n_features, alternate_sign, interrupt,
                 lowercase)


def _rows(list texts, Vocabulary vocabulary, Vocabulary stop, int64_t ngram_min, int64_t ngram_max,
          bint fixed, int64_t n_features, bint alternate_sign, interrupt, bint lowercase):
    """Counted (``vocabulary`` given) or hashed (``n_features``) rows of ``texts``.  Where
    ``lowercase``, the kernel lowercases one-byte (Latin-1) strings through ``_LOWER`` as it reads
    them, and the others are lowercased here by ``str.lower()`` first: no lowered copy of most
    documents is made."""
    cdef Py_ssize_t n = len(texts), d
    cdef ts_text *docs = NULL
    cdef const uint8_t[::1] word = word_bitmap()
    cdef int64_t *ids = NULL
    cdef int64_t *counts = NULL
    cdef int64_t nnz = 0
    cdef int status
    cdef ts_count_options options
    cdef bytes lower_map = _LOWER  # held here while the kernel reads it
    cdef const uint8_t *lower = lower_map
    cdef list lowered = []  # the lowercased copies, alive while the kernel reads them
    indptr = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] ptr = indptr
    if interrupt is None:
        raise TypeError("counting words needs the call's Interrupt")
    # shared by the threads, which only read them: their n-grams findable by code points first
    # (under the GIL, so that one thread does it and the others find it done)
    if stop is not None:
        check_status(ts_vocab_flatten(stop.v), "the stop words")
    if vocabulary is not None and fixed:
        check_status(ts_vocab_flatten(vocabulary.v), "the vocabulary")
    options.word = &word[0]
    options.stop = stop.v if stop is not None else NULL
    options.ngram_min = ngram_min
    options.ngram_max = ngram_max
    options.fixed = fixed
    options.interrupted = stop_requested
    options.interrupt_ctx = <void *> interrupt
    options.lower = lower if lowercase else NULL
    docs = <ts_text *> PyMem_Malloc(max(n, 1) * sizeof(ts_text))
    if docs == NULL:
        check_status(TS_ERR_NOMEM, "the documents' list")
    try:
        for d in range(n):
            text = texts[d]
            if type(text) is not str:
                raise TypeError(f"document {d} is {type(text).__name__}, not str")
            if lowercase and PyUnicode_KIND(text) != 1:
                text = text.lower()
                lowered.append(text)
            docs[d].data = PyUnicode_DATA(text)
            docs[d].length = PyUnicode_GET_LENGTH(text)
            docs[d].kind = PyUnicode_KIND(text)
        if vocabulary is not None:
            with nogil:
                status = ts_count_terms(docs, n, vocabulary.v, &options, &ptr[0], &ids, &counts, &nnz)
        else:
            with nogil:
                status = ts_hash_terms(docs, n, &options, n_features, alternate_sign, &ptr[0], &ids, &counts,
                                       &nnz)
    finally:
        PyMem_Free(docs)
    if status != TS_OK:
        return status, None, None, None
    return TS_OK, indptr, _taken(ids, nnz), _taken(counts, nnz)


cdef object _taken(int64_t *values, int64_t n):
    """A numpy array over ``values`` (n int64 the kernel allocated), which it now owns: no copy."""
    cdef _Allocated owner
    try:
        owner = _Allocated()
    except BaseException:
        free(values)
        raise
    owner.data, owner.shape[0], owner.strides[0] = values, n, sizeof(int64_t)
    return np.frombuffer(owner, dtype=np.int64) if n else np.empty(0, dtype=np.int64)


cdef class _Allocated:
    """Memory from the C core's allocator, freed with the last array over it."""

    cdef int64_t *data
    cdef Py_ssize_t shape[1]
    cdef Py_ssize_t strides[1]

    def __dealloc__(self):
        free(self.data)

    def __getbuffer__(self, Py_buffer *view, int flags):
        view.buf = self.data
        view.obj = self
        view.len = self.shape[0] * sizeof(int64_t)
        view.itemsize = sizeof(int64_t)
        view.readonly = 0
        view.format = "q"
        view.ndim = 1
        view.shape = self.shape
        view.strides = self.strides
        view.suboffsets = NULL
        view.internal = NULL

    def __releasebuffer__(self, Py_buffer *view):
        pass


def recast(values, dtype):
    """The kernel's fresh int64 array ``values`` (no other array over it) rewritten as ``dtype``
    in its own memory, where ``dtype`` is int32, float32 or float64 (None for another): no second
    array to allocate and fill.  Each value is read before a narrower one is written over it."""
    dtype = np.dtype(dtype)
    if values.dtype != np.int64 or not values.flags.c_contiguous or not values.flags.writeable:
        return None
    if dtype not in (np.dtype(np.int32), np.dtype(np.float32), np.dtype(np.float64)):
        return None
    cdef int64_t[::1] source = values
    cdef Py_ssize_t k, n = source.shape[0]
    cdef char *at = <char *> &source[0] if n else NULL
    cdef int64_t v
    cdef int32_t narrow
    cdef float single
    cdef double wide
    cdef int kind = 0 if dtype == np.int32 else 1 if dtype == np.float32 else 2
    with nogil:  # memcpy: the two types share the bytes without aliasing each other
        for k in range(n):
            memcpy(&v, at + 8 * k, 8)
            if kind == 0:
                narrow = <int32_t> v
                memcpy(at + 4 * k, &narrow, 4)
            elif kind == 1:
                single = <float> v
                memcpy(at + 4 * k, &single, 4)
            else:
                wide = <double> v
                memcpy(at + 8 * k, &wide, 8)
    return values.view(dtype)[:n]


def remap_rows(int64_t[::1] indptr, int64_t[::1] ids, int64_t[::1] counts, const int64_t[::1] mapping,
               Py_ssize_t first=0, Py_ssize_t end=-1):
    """Map the term ids of rows ``first`` to ``end`` (default: all) through ``mapping`` and sort
    each row again, in place (disjoint ranges of rows may be remapped at once on threads)."""
    if end < 0:
        end = indptr.shape[0] - 1
    if not 0 <= first <= end <= indptr.shape[0] - 1:
        raise IndexError(f"rows {first} to {end} of {indptr.shape[0] - 1}")
    with nogil:
        ts_remap_rows(&indptr[first], end - first, &ids[0] if ids.shape[0] else NULL,
                      &counts[0] if counts.shape[0] else NULL, &mapping[0] if mapping.shape[0] else NULL)
