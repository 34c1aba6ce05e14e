"""Checks of the arrays and numbers every public entry point takes.

Each function takes the caller's object, never modifies it, and returns it in the one layout the
kernels accept, raising ``TypeError`` or ``ValueError`` that names the offending parameter.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

_FLOAT_DTYPES = (np.float32, np.float64)


def as_csr(X, name: str = "X", check_structure: bool = True, float64: bool = False) -> sp.csr_matrix:
    """Return ``X`` as a CSR matrix the Cython kernels accept.

    Dense arrays and any scipy.sparse format are converted (a copy); CSR input
    whose buffers already fit is wrapped without copying.  Data becomes float32
    or float64 (integer and Boolean counts are promoted to float64), and
    ``indices``/``indptr`` share one dtype, int32 or int64.  Values are not
    inspected here: the kernels check finiteness and sign in the same pass
    that reads them.  ``check_structure`` checks that ``indptr`` starts at 0
    and never decreases, that the rows lie inside ``indices`` and ``data``, and
    that every column index is in range, on CSR or CSC input before it is
    converted (vectorised; scipy and scikit-learn would read past the arrays
    of a malformed matrix; what scipy builds from dense or COO input is well
    formed).  Callers whose kernel checks every row and index as it reads
    them switch it off.  ``float64`` converts float32 data too (a copy of the values only),
    for callers whose kernels or precision need doubles.
    """
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got {X.ndim}-D")
        if check_structure:
            # before any conversion: scipy's CSC to CSR would read past a malformed matrix too
            check_sparse_structure(X, name)
        X = X.tocsr() if X.format != "csr" else X
        data, indices, indptr = X.data, X.indices, X.indptr
    else:
        if isinstance(X, (str, bytes)) or X is None:
            raise TypeError(f"{name} must be a 2-D array or scipy.sparse matrix, got {type(X)!r}")
        try:
            arr = np.asarray(X)
        except Exception as exc:  # ragged lists and the like
            raise TypeError(f"{name} could not be read as an array: {exc}") from exc
        if arr.ndim != 2:
            raise ValueError(f"{name} must be 2-D (documents x terms), got shape {arr.shape}")
        _check_numeric(arr.dtype, name)
        X = sp.csr_matrix(arr)
        data, indices, indptr = X.data, X.indices, X.indptr
    _check_numeric(data.dtype, name)
    if data.dtype not in _FLOAT_DTYPES or (float64 and data.dtype != np.float64):
        data = data.astype(np.float64)
    idx_dtype = np.result_type(indices.dtype, indptr.dtype)
    if idx_dtype not in (np.int32, np.int64):
        idx_dtype = np.int64
    indices = np.ascontiguousarray(indices, dtype=idx_dtype)
    indptr = np.ascontiguousarray(indptr, dtype=idx_dtype)
    data = np.ascontiguousarray(data)
    n_docs, n_terms = X.shape
    if n_docs == 0 or n_terms == 0:
        raise ValueError(f"{name} must have at least one document and one term, got shape {X.shape}")
    if indptr.shape[0] != n_docs + 1:
        raise ValueError(f"{name}.indptr has length {indptr.shape[0]}, expected {n_docs + 1}")
    out = sp.csr_matrix((n_docs, n_terms), dtype=data.dtype)
    # assign the buffers directly: the constructor would re-check and may copy
    out.data, out.indices, out.indptr = data, indices, indptr
    return out


def check_sparse_structure(X, name: str = "X"):
    """Refuse a malformed scipy CSR or CSC matrix with a ``ValueError`` naming ``name``.

    scipy does not check the buffers a matrix is built around, and its kernels (and so
    scikit-learn's) read past them when ``indptr`` or ``indices`` are out of range; every public
    entry point that hands ``X`` to them checks it here first.  Other inputs pass untouched.
    Returns ``X``.
    """
    if sp.issparse(X) and X.format in ("csr", "csc"):
        n_major, n_minor = X.shape if X.format == "csr" else X.shape[::-1]
        if X.indptr.shape != (n_major + 1,):
            raise ValueError(f"{name}.indptr has length {X.indptr.size}, expected {n_major + 1}")
        _check_structure(X.data, X.indices, X.indptr, n_minor, name)
    return X


def _check_structure(data, indices, indptr, n_minor: int, name: str) -> None:
    if indptr[0] != 0 or (indptr.size > 1 and np.diff(indptr).min() < 0):
        raise ValueError(f"{name}.indptr must start at 0 and never decrease")
    nnz = int(indptr[-1])
    if nnz > indices.size or nnz > data.size:
        raise ValueError(
            f"{name}.indptr ends at {nnz}, past the {min(indices.size, data.size)} stored values"
        )
    if nnz and (indices[:nnz].min() < 0 or indices[:nnz].max() >= n_minor):
        raise ValueError(f"{name}.indices holds an index outside [0, {n_minor})")


def _check_numeric(dtype: np.dtype, name: str) -> None:
    if dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {dtype}")


def check_positive_int(value, name: str, low: int = 1, high: int | None = None) -> int:
    """Return ``value`` as int if it is an integer in [low, high]."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {plain(value)!r}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be {_bounds(low, high, False)}, got {int(value)}")
    return int(value)


def check_real(value, name: str, low: float, high: float | None, low_open: bool = False) -> float:
    """Return ``value`` as float if it is a finite real number in [low, high] (``(low, high]``
    with ``low_open``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {plain(value)!r}")
    value = float(value)
    below = value <= low if low_open else value < low
    if not np.isfinite(value) or below or (high is not None and value > high):
        raise ValueError(f"{name} must be {_bounds(low, high, low_open)}, got {value}")
    return value


def check_class_weight(class_weight, owner: str):
    """Refuse a ``class_weight`` dict (or list of dicts) holding a weight that is not a finite
    number >= 0, naming ``owner`` (the estimator) and the class.  A weight of 0 is allowed, as
    scikit-learn's LinearSVC allows it: the class's documents then count for nothing."""
    dicts = class_weight if isinstance(class_weight, list) else [class_weight]
    for weights in dicts:
        if not isinstance(weights, dict):
            continue  # None, "balanced": computed by scikit-learn from the labels
        for label, weight in weights.items():
            value = plain(weight)
            number = isinstance(value, numbers.Real) and not isinstance(value, bool)
            if not number or not np.isfinite(value) or value < 0:
                raise ValueError(
                    f"{owner}: class_weight must give each class a finite weight >= 0, got "
                    f"{plain(label)!r}: {value!r}"
                )
    return class_weight


def _bounds(low, high, low_open) -> str:
    """The allowed range as a user reads it: ">= 1", "> 0", "in [0, 1]"."""
    if high is None:
        return f"{'>' if low_open else '>='} {low:g}"
    return f"in {'(' if low_open else '['}{low:g}, {high:g}]"


def plain(value):
    """A numpy scalar as the Python value it holds, so that messages show ``0.5``, not
    ``np.float64(0.5)``."""
    return value.item() if isinstance(value, np.generic) else value


#: the C core's iteration count is a 64-bit integer
_NO_LIMIT = 2**63 - 1


def check_lsqr_options(K, damp, atol, btol, conlim, iter_lim, weights=None):
    """lsqr's options checked for ``K`` right-hand sides: ``(damps, weights, tolerances, limit)``,
    ``weights`` as given, ``limit`` -1 for the default (in memory and on a cluster alike)."""
    damps = _per_column(damp, "damp", K)
    tolerances = [
        check_real(v, name, 0.0, None) for v, name in ((atol, "atol"), (btol, "btol"), (conlim, "conlim"))
    ]
    limit = -1 if iter_lim is None else check_positive_int(iter_lim, "iter_lim", 0)
    # a limit no solve reaches is no limit: as scipy's lsqr takes any Python int, so does this
    return damps, weights, tolerances, min(limit, _NO_LIMIT)


def _per_column(value, name, K):
    arr = np.asarray(value, dtype=np.float64) if not isinstance(value, str) else None
    if arr is None or arr.ndim > 1:
        raise TypeError(f"{name} must be a number or a 1-D array")
    arr = np.ascontiguousarray(np.broadcast_to(arr, (K,)) if arr.ndim == 0 else arr)
    if arr.shape != (K,):
        raise ValueError(f"{name} has {arr.shape[0]} values but b has {K} columns")
    if not np.isfinite(arr).all() or (arr < 0).any():
        raise ValueError(f"{name} must be finite and >= 0")
    return arr
