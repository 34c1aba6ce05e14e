"""Input checks shared by every public entry point.

Each function takes the caller's object, never modifies it, and returns
arrays in the one layout the kernels accept, raising ``TypeError`` or
``ValueError`` that names the offending parameter.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from . import _termstats
from ._dispatch import distributed_method

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


class CheckedSelectorMixin:
    """Put before scikit-learn's ``SelectorMixin``: ``transform`` and ``inverse_transform`` refuse a
    malformed sparse ``X`` (see :func:`check_sparse_structure`) before scikit-learn slices it."""

    @distributed_method("map_row_blocks")
    def transform(self, X):
        """Keep the selected columns of ``X`` (scikit-learn's ``SelectorMixin.transform``); a Dask
        array of CSR row blocks gives a lazy Dask array of the selected columns' blocks."""
        return super().transform(check_sparse_structure(X))

    def inverse_transform(self, X):
        """Put the selected columns back in place (``SelectorMixin.inverse_transform``)."""
        return super().inverse_transform(check_sparse_structure(X))


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


@dataclass(frozen=True)
class Labels:
    """Labels as per-class document lists (CSC-like, int64).

    Class ``c`` holds documents ``class_docs[class_ptr[c]:class_ptr[c+1]]``,
    ascending; ``primary`` flags each document's entry under its lowest class
    (every entry, for single-label ``y``); ``unlabeled`` lists the documents
    in no class (multi-label ``y`` only).
    """

    class_ptr: np.ndarray
    class_docs: np.ndarray
    primary: np.ndarray
    unlabeled: np.ndarray
    classes: np.ndarray
    multilabel: bool


def as_labels(y, n_docs: int, classes=None, name: str = "y") -> Labels:
    """Check labels and turn them into per-class document lists.

    Parameters
    ----------
    y : array-like of shape (n_docs,) or (n_docs, n_classes), or sparse
        Binary or multi-class labels, or a multi-label indicator matrix.
    n_docs : int
        Number of documents; ``y`` must match it.
    classes : array-like, optional
        Fixes the class order (and lets a chunk of a corpus miss some
        classes).  For indicator ``y`` these are the names of the columns.

    Returns
    -------
    Labels
    """
    if y is None:
        raise ValueError(f"{name} is required")
    if sp.issparse(y):
        if y.ndim != 2 or y.shape[0] != n_docs:
            raise ValueError(f"{name} has shape {y.shape} but X has {n_docs} documents")
        # a copy: sum_duplicates and eliminate_zeros work in place
        Y = sp.csr_matrix(y, copy=True)
        Y.sum_duplicates()
        Y.eliminate_zeros()
        if Y.data.size and not (Y.data == 1).all():
            raise ValueError(f"a 2-D {name} must be a multi-label indicator matrix holding only 0 and 1")
        docs = np.repeat(np.arange(n_docs, dtype=np.int64), np.diff(Y.indptr))
        return _indicator_labels(docs, Y.indices.astype(np.int64), n_docs, Y.shape[1], classes, name)
    y_arr = np.asarray(y)
    if y_arr.ndim == 2 and y_arr.shape[1] == 1:
        y_arr = y_arr.ravel()
    if y_arr.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D labels or a 2-D indicator matrix, got shape {y_arr.shape}")
    if y_arr.shape[0] != n_docs:
        raise ValueError(f"{name} has {y_arr.shape[0]} entries but X has {n_docs} documents")
    if y_arr.dtype.kind == "f" and not np.isfinite(y_arr).all():
        raise ValueError(f"{name} contains NaN or infinity")
    if y_arr.ndim == 2:
        return _dense_indicator_labels(y_arr, classes, name)
    if y_arr.dtype.kind not in "biuUS":  # integer, bool and string labels are class labels as they are
        from sklearn.utils.multiclass import type_of_target  # here: a Dask worker's kernels skip sklearn

        kind = type_of_target(y_arr, input_name=name)
        if kind not in ("binary", "multiclass"):
            raise ValueError(f"Unknown label type: {name} must hold class labels, got target type {kind!r}")
    if classes is None:
        classes, inverse = np.unique(y_arr, return_inverse=True)
    else:
        classes = check_classes(classes, name)
        inverse = label_positions(y_arr, classes, name)
    inverse = inverse.ravel()
    return Labels(
        class_ptr=_pointers(np.bincount(inverse, minlength=classes.size)),
        class_docs=np.argsort(_small_ints(inverse, classes.size), kind="stable").astype(np.int64),
        primary=np.ones(n_docs, dtype=np.uint8),
        unlabeled=np.empty(0, dtype=np.int64),
        classes=classes,
        multilabel=False,
    )


def label_positions(y: np.ndarray, classes: np.ndarray, name: str = "y") -> np.ndarray:
    """The position of each label of ``y`` in ``classes`` (sorted and unique, as
    :func:`check_classes` leaves them); a label not in ``classes`` raises ``ValueError``.

    Small non-negative integer labels (the usual class indices) are looked up in one table, a
    tenth of a binary search's time on 20 Newsgroups x 16; any others are searched.
    """
    y_num, classes_num = y, classes
    if y.dtype.kind == "b":  # as numbers: Boolean arrays would index as masks
        y_num, classes_num = y.view(np.uint8), classes.astype(np.uint8)
    if (
        y_num.dtype.kind in "iu" and classes_num.dtype.kind in "iu" and y_num.size
        and y_num.min() >= 0 and classes_num.min() >= 0
        and max(int(y_num.max()), int(classes_num.max())) < 4 * y_num.size
    ):  # fmt: skip
        table = np.full(max(int(y_num.max()), int(classes_num.max())) + 1, -1, dtype=np.intp)
        table[classes_num] = np.arange(classes.size)
        positions = table[y_num]
        unknown = positions < 0
    else:
        positions = np.clip(np.searchsorted(classes, y), 0, classes.size - 1)
        unknown = classes[positions] != y
    if unknown.any():
        raise ValueError(f"{name} holds labels not in classes: {np.unique(y[unknown])[:5]}")
    return positions


def _small_ints(codes, n_codes):
    """``codes`` in the narrowest integer type: numpy's stable argsort is a radix sort
    for 16-bit integers, ten times faster than its merge sort on int64."""
    return codes.astype(np.int16) if n_codes <= np.iinfo(np.int16).max else codes


def _pointers(counts):
    ptr = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    return ptr


def check_classes(classes, name):
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.size == 0:
        raise ValueError("classes must be a non-empty 1-D array")
    if classes.size > 1 and not (classes[1:] > classes[:-1]).all():
        raise ValueError("classes must be sorted and unique")
    return classes


def _dense_indicator_labels(Y: np.ndarray, classes, name):
    # type_of_target would np.unique the whole matrix; min/max and a flat
    # nonzero over Booleans cost a tenth of that
    if Y.dtype.kind not in "biuf":
        raise ValueError(f"a 2-D {name} must be a multi-label indicator matrix of 0/1")
    bad_float = Y.dtype.kind == "f" and not np.isin(Y, (0, 1)).all()
    if Y.size and (bad_float or Y.min() < 0 or Y.max() > 1):
        raise ValueError(f"a 2-D {name} must be a multi-label indicator matrix holding only 0 and 1")
    n_docs, n_cols = Y.shape
    # one byte per cell for the kernel: a view where the bytes already are 0/1
    if Y.dtype.itemsize == 1 and Y.dtype.kind in "biu":
        Y8 = np.ascontiguousarray(Y).view(np.uint8)
    else:
        Y8 = (Y != 0).view(np.uint8)
    class_ptr, class_docs, primary, n_unlabeled = _termstats.indicator_lists(
        Y8.ravel(), n_cols, np.count_nonzero(Y8)
    )
    unlabeled = np.empty(0, dtype=np.int64)
    if n_unlabeled:
        unlabeled = np.flatnonzero(~Y8.any(axis=1)).astype(np.int64)
    return Labels(class_ptr, class_docs, primary, unlabeled, _label_names(classes, n_cols, name), True)


def _label_names(classes, n_cols, name):
    if classes is None:
        return np.arange(n_cols)
    classes = np.asarray(classes)
    if classes.shape != (n_cols,):
        raise ValueError(f"classes has {classes.size} entries but {name} has {n_cols} columns")
    return classes


def _indicator_labels(docs, cols, n_docs, n_cols, classes, name) -> Labels:
    """Labels from (document, class) pairs listed document by document, classes ascending."""
    classes = _label_names(classes, n_cols, name)
    first = np.ones(docs.size, dtype=np.uint8)
    first[1:] = docs[1:] != docs[:-1]  # a document's first pair is its lowest class
    order = np.argsort(_small_ints(cols, n_cols), kind="stable")
    return Labels(
        class_ptr=_pointers(np.bincount(cols, minlength=n_cols)),
        class_docs=docs[order].astype(np.int64),
        primary=first[order],
        unlabeled=np.flatnonzero(np.bincount(docs, minlength=n_docs) == 0).astype(np.int64),
        classes=classes,
        multilabel=True,
    )


def label_repr(label) -> str:
    """A class label as a user wrote it (``3``, ``'earn'``), not as numpy prints it."""
    return repr(np.asarray(label).tolist())


def check_positive_int(value, name: str, low: int = 1, high: int | None = None) -> int:
    """Return ``value`` as int if it is an integer in [low, high]."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be in {bound}, got {value}")
    return int(value)


def terms_to_keep(k, n_available: int, what: str = "n_features") -> int:
    """The number of terms a selector keeps for its ``k``: ``"all"`` or an integer >= 1.

    A ``k`` above what there is keeps everything with a ``UserWarning`` naming both (as
    scikit-learn's ``SelectKBest`` does), so that a grid over k runs on small vocabularies.
    """
    if isinstance(k, str) and k == "all":
        return n_available
    if isinstance(k, str):
        raise TypeError(f"k must be an integer >= 1 or 'all', got {k!r}")
    k = check_positive_int(k, "k", 1)
    if k > n_available:
        warnings.warn(f"k={k} is greater than {what}={n_available}; all {n_available} are kept",
                      UserWarning, stacklevel=3)  # fmt: skip
        return n_available
    return k


def check_real(value, name: str, low: float, high: float | None) -> float:
    """Return ``value`` as float if it is a finite real number in [low, high]."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if not np.isfinite(value) or value < low or (high is not None and value > high):
        bound = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{name} must be in {bound}, got {value}")
    return value
