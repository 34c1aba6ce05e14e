# cython: language_level=3
"""Large result tables drawn from a small pool of recently freed blocks.

term_stats and score each return a (classes x terms) table of several MB, and a caller that
scores, selects and drops them frees two such tables per call.  Whether glibc then keeps that
memory or returns it to the kernel depends on what else sits at the top of the process's heap, so
in some processes every call pays a page fault per 4 kB of both tables (Reuters-21578: 1,200
faults and 2.3 ms on a 4 ms call) and in others none.  A library must not change the process's
malloc settings; instead the tables come from here: a block whose last array is freed goes back
into a pool of at most ``POOL_BLOCKS`` blocks and ``POOL_BYTES`` bytes (the oldest leave first),
and the next table of a fitting size reuses it, already mapped.  Small tables (below
``MIN_BYTES``) are plain numpy arrays.  The randomized leverage scores draw their two product
buffers from here too, for the same reason.
"""

from cpython.buffer cimport PyBuffer_FillInfo
from libc.stdlib cimport free, malloc

import numpy as np

from .core cimport TS_ERR_NOMEM
from .ccore import check_status

#: tables below this size are left to numpy's allocator
MIN_BYTES = 1 << 20

cdef enum:
    _MAX_BLOCKS = 4
cdef Py_ssize_t _max_bytes = 128 << 20
cdef char *_pool_ptr[_MAX_BLOCKS]
cdef Py_ssize_t _pool_cap[_MAX_BLOCKS]
cdef int _pool_n = 0
cdef Py_ssize_t _pool_bytes = 0

POOL_BLOCKS = _MAX_BLOCKS


cdef class _Block:
    """One malloc'd block exposed through the buffer protocol; on deallocation (when the last
    array over it dies) it goes back to the pool, or is freed when it does not fit there."""

    cdef char *ptr
    cdef Py_ssize_t capacity
    cdef Py_ssize_t length

    def __getbuffer__(self, Py_buffer *view, int flags):
        PyBuffer_FillInfo(view, self, self.ptr, self.length, 0, flags)

    def __releasebuffer__(self, Py_buffer *view):
        pass

    def __dealloc__(self):
        if self.ptr != NULL:
            _give_back(self.ptr, self.capacity)
            self.ptr = NULL


cdef void _give_back(char *ptr, Py_ssize_t capacity) noexcept:
    global _pool_n, _pool_bytes
    cdef int i
    if capacity > _max_bytes:
        free(ptr)
        return
    # the oldest blocks leave first, until this one fits
    while _pool_n > 0 and (_pool_n == _MAX_BLOCKS or _pool_bytes + capacity > _max_bytes):
        free(_pool_ptr[0])
        _pool_bytes -= _pool_cap[0]
        for i in range(1, _pool_n):
            _pool_ptr[i - 1] = _pool_ptr[i]
            _pool_cap[i - 1] = _pool_cap[i]
        _pool_n -= 1
    _pool_ptr[_pool_n] = ptr
    _pool_cap[_pool_n] = capacity
    _pool_n += 1
    _pool_bytes += capacity


cdef char *_take(Py_ssize_t nbytes, Py_ssize_t *capacity):
    """The smallest pooled block holding ``nbytes`` and at most twice that, else a new one."""
    global _pool_n, _pool_bytes
    cdef int i, best = -1
    cdef char *ptr
    for i in range(_pool_n):
        if nbytes <= _pool_cap[i] <= 2 * nbytes and (best < 0 or _pool_cap[i] < _pool_cap[best]):
            best = i
    if best < 0:
        capacity[0] = nbytes
        return <char *> malloc(nbytes)
    ptr = _pool_ptr[best]
    capacity[0] = _pool_cap[best]
    _pool_bytes -= _pool_cap[best]
    for i in range(best + 1, _pool_n):
        _pool_ptr[i - 1] = _pool_ptr[i]
        _pool_cap[i - 1] = _pool_cap[i]
    _pool_n -= 1
    return ptr


def empty(shape, dtype=np.float64):
    """An uninitialised C-contiguous array like ``np.empty(shape, dtype)``, its memory from the
    pool when it is large."""
    dtype = np.dtype(dtype)
    n = 1
    for extent in shape:
        n *= int(extent)
    nbytes = n * dtype.itemsize
    if nbytes < MIN_BYTES:
        return np.empty(shape, dtype=dtype)
    cdef Py_ssize_t capacity = 0
    cdef char *ptr = _take(nbytes, &capacity)
    if ptr == NULL:
        check_status(TS_ERR_NOMEM, "pool", detail=f"cannot allocate a table of {nbytes} bytes")
    block = _Block.__new__(_Block)
    (<_Block> block).ptr = ptr
    (<_Block> block).capacity = capacity
    (<_Block> block).length = nbytes
    return np.frombuffer(block, dtype=dtype, count=n).reshape(shape)


def pool_state():
    """(blocks, bytes) held by the pool now: for tests and for a user who wonders."""
    return _pool_n, _pool_bytes


def release_pool():
    """Free every pooled block."""
    global _pool_n, _pool_bytes
    cdef int i
    for i in range(_pool_n):
        free(_pool_ptr[i])
    _pool_n = 0
    _pool_bytes = 0
