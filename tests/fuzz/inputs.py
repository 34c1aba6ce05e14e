"""Structured inputs built from a fuzzer's bytes: sparse matrices, labels, files.

The fuzzer hands a target raw bytes; these helpers read them as decisions (a shape, a dtype, a
corruption, a value), so that most inputs reach textsel's checks and kernels instead of dying
in a constructor.  Reading past the end gives zeros, so every byte string is a valid input and
a shorter one is a simpler one (which is what libFuzzer's minimiser needs).
"""

from __future__ import annotations

import struct

import numpy as np
import scipy.sparse as sp

#: values a count matrix meets at its edges
SPECIAL_VALUES = (0.0, 1.0, 2.0, -1.0, 0.5, np.nan, np.inf, -np.inf, 1e308, 5e-324, -0.0, 3e38, 1e-300, 7.0)
DATA_DTYPES = (
    np.float64, np.float32, np.int64, np.int32, np.uint8, np.bool_, np.float16, np.complex128, object,
)  # fmt: skip
INDEX_DTYPES = (np.int32, np.int64)


class Bytes:
    """Read decisions off a byte string; past its end every read gives the smallest answer."""

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            return 0
        self.pos += 1
        return self.data[self.pos - 1]

    def int(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi]."""
        span = hi - lo + 1
        value = 0
        for _ in range((span.bit_length() + 7) // 8):
            value = value << 8 | self.byte()
        return lo + value % span

    def bool(self) -> bool:
        return bool(self.byte() & 1)

    def pick(self, options):
        return options[self.int(0, len(options) - 1)]

    def float(self) -> float:
        """A small count, one of SPECIAL_VALUES, or any double."""
        kind = self.byte() % 8
        if kind < 4:
            return float(self.byte() % 5)
        if kind < 7:
            return float(self.pick(SPECIAL_VALUES))
        raw = bytes(self.byte() for _ in range(8))
        return struct.unpack("<d", raw)[0]

    def raw(self, max_len: int) -> bytes:
        n = self.int(0, max_len)
        out = self.data[self.pos : self.pos + n]
        self.pos += len(out)
        return out

    def rest(self) -> bytes:
        out = self.data[self.pos :]
        self.pos = len(self.data)
        return out

    def text(self, max_len: int) -> str:
        return self.raw(max_len).decode("latin-1")


def csr(b: Bytes, max_rows: int = 10, max_cols: int = 10):
    """A matrix as a caller might pass one: mostly a CSR matrix, canonical or not, sometimes with
    corrupt buffers, odd dtypes, special values, or in another container."""
    n_rows, n_cols = b.int(0, max_rows), b.int(0, max_cols)
    density = b.int(0, 4)
    rows, cols, vals = [], [], []
    for i in range(n_rows):
        for j in range(n_cols):
            if b.int(0, 4) < density:
                rows.append(i)
                cols.append(j)
                vals.append(b.float() if b.int(0, 7) == 0 else float(1 + b.int(0, 3)))
    data = np.asarray(vals, dtype=np.float64)
    M = sp.csr_matrix((data, (rows, cols)), shape=(n_rows, n_cols))
    mode = b.int(0, 15)
    if mode == 1 and M.nnz:  # unsorted indices inside a row
        M.indices[:] = M.indices.copy()
        M.has_sorted_indices = False
        order = np.concatenate([np.arange(M.indptr[r], M.indptr[r + 1])[::-1] for r in range(n_rows)])
        M.indices, M.data = M.indices[order].copy(), M.data[order].copy()
    elif mode == 2 and M.nnz:  # duplicates (the same column twice in a row)
        k = b.int(0, M.nnz - 1)
        row = int(np.searchsorted(M.indptr, k, side="right") - 1)
        indices = np.insert(M.indices, k, M.indices[k])
        values = np.insert(M.data, k, b.float())
        indptr = M.indptr.copy()
        indptr[row + 1 :] += 1
        M = sp.csr_matrix((M.shape), dtype=np.float64)
        M.data, M.indices, M.indptr = values, indices.astype(np.int32), indptr.astype(np.int32)
    elif mode == 3:  # corrupt buffers, set behind scipy's back
        M = _corrupt(b, M)
    elif mode == 4:  # explicit zeros kept
        if M.nnz:
            M.data[b.int(0, M.nnz - 1)] = 0.0
    if mode != 3:
        index_dtype = b.pick(INDEX_DTYPES)
        if M.indices.dtype != index_dtype:
            M.indices = M.indices.astype(index_dtype)
            M.indptr = M.indptr.astype(index_dtype)
    dtype = b.pick(DATA_DTYPES) if b.int(0, 3) == 0 else np.float64
    container = b.int(0, 11) if mode != 3 else 0  # corrupt buffers only reach textsel as CSR
    if container == 1:
        return _astype(M.toarray(), dtype)
    if container == 2:
        M = sp.csr_array(M)
    elif container == 3:
        M = M.tocsc()
    elif container == 4:
        return M.toarray().tolist()
    elif container == 5:
        return b.pick((None, "text", 3.0, np.zeros(b.int(0, 3)), np.zeros((2, 2, 2))))
    M.data = _astype(M.data, dtype)
    return M


def _astype(values: np.ndarray, dtype) -> np.ndarray:
    with np.errstate(all="ignore"):
        return values.astype(dtype)


def _corrupt(b: Bytes, M):
    """Indptr or indices that point outside the buffers or the columns."""
    indptr = M.indptr.astype(np.int64)
    indices = M.indices.astype(np.int64)
    what = b.int(0, 5)
    if what == 0 and indices.size:
        indices[b.int(0, indices.size - 1)] = b.pick((-1, M.shape[1], 2**31 - 1, -(2**31), 2**40))
    elif what == 1 and indptr.size > 1:
        indptr[b.int(1, indptr.size - 1)] = b.pick((-1, indices.size + 1, 2**31 - 1, 2**40))
    elif what == 2:
        indptr = indptr[:-1] if indptr.size > 1 else np.array([1], dtype=np.int64)
    elif what == 3:
        indptr = indptr[::-1].copy()
    elif what == 4 and indptr.size:
        indptr[0] = b.int(1, 3)
    else:
        indices = indices[: max(indices.size - 1, 0)]
    dtype = b.pick(INDEX_DTYPES)
    if dtype == np.int32:
        indptr = np.clip(indptr, -(2**31), 2**31 - 1)
        indices = np.clip(indices, -(2**31), 2**31 - 1)
    bad = sp.csr_matrix(M.shape, dtype=np.float64)
    bad.data = M.data[: indices.size].copy()
    bad.indices, bad.indptr = indices.astype(dtype), indptr.astype(dtype)
    return bad


def labels(b: Bytes, n: int):
    """Labels for ``n`` documents: ints, strings, floats, bools, objects, an indicator, or a
    wrong length."""
    n_classes = b.int(1, 4)
    codes = np.array([b.int(0, n_classes - 1) for _ in range(n)], dtype=np.int64)
    kind = b.int(0, 11)
    if kind == 1:
        return np.array(["spam", "ham", "eggs", "x"])[codes]
    if kind == 2:
        return codes.astype(np.float64) + b.pick((0.0, 0.5))
    if kind == 3:
        return codes.astype(bool)
    if kind == 4:
        out = codes.astype(object)
        if n:
            out[b.int(0, n - 1)] = b.pick((None, np.nan, "a", 1.5))
        return out
    if kind == 5:  # indicator matrix, maybe not 0/1
        Y = np.array([[b.int(0, 2) == 0 for _ in range(n_classes)] for _ in range(n)], dtype=np.int64)
        if b.bool() and Y.size:
            Y.flat[b.int(0, Y.size - 1)] = b.pick((2, -1))
        return sp.csr_matrix(Y) if b.bool() else Y
    if kind == 6:
        return codes[: max(n - 1, 0)] if b.bool() else np.append(codes, 0)
    if kind == 7:
        return codes.tolist()
    return codes
