# What other kernels' modules cimport from ccore: a ts_csr pointed at CSR buffers.
from libc.stdint cimport int32_t, int64_t

from .core cimport ts_csr


cdef class _Buffers:
    cdef const int32_t[::1] ind32, ptr32
    cdef const int64_t[::1] ind64, ptr64
    cdef const double[::1] data
    cdef double dummy


cdef _Buffers _fill_csr(ts_csr *X, const double[::1] data, indices, indptr, int64_t n_rows, int64_t n_cols)
