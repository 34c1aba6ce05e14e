# The element types every CSR kernel is compiled for: float32/float64 values, int32/int64 indices.
from libc.stdint cimport int32_t, int64_t

ctypedef fused floating:
    float
    double

ctypedef fused integral:
    int32_t
    int64_t
