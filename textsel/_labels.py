"""Class labels as the kernels read them, for memory and Dask alike.

:func:`as_labels` turns 1-D labels or a multi-label indicator matrix into per-class document
lists (:class:`Labels`); :func:`encode_labels` is the one coding of 1-D labels as positions in
the sorted classes, used by it and by the Dask layer, which sends the positions to its workers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._ext import counting


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
        check_class_labels(y_arr, name)
    classes, inverse = encode_labels(y_arr, classes, name)
    return Labels(
        class_ptr=_pointers(np.bincount(inverse, minlength=classes.size)),
        class_docs=np.argsort(_small_ints(inverse, classes.size), kind="stable").astype(np.int64),
        primary=np.ones(n_docs, dtype=np.uint8),
        unlabeled=np.empty(0, dtype=np.int64),
        classes=classes,
        multilabel=False,
    )


def target_kind(y, name: str = "y") -> str:
    """scikit-learn's ``type_of_target`` of ``y``; labels it cannot sort (strings and numbers
    mixed) raise ``ValueError`` naming ``name``."""
    from sklearn.utils.multiclass import type_of_target  # here: a Dask worker's kernels skip sklearn

    try:
        return type_of_target(y, input_name=name)
    except TypeError:
        raise ValueError(_unordered(y, name)) from None


def check_class_labels(y, name: str = "y") -> None:
    """Refuse 1-D ``y`` that is not class labels (continuous values, mixed types), naming ``name``."""
    kind = target_kind(y, name)
    if kind not in ("binary", "multiclass"):
        raise ValueError(f"Unknown label type: {name} must hold class labels, got target type {kind!r}")


def encode_labels(y: np.ndarray, classes=None, name: str = "y") -> tuple[np.ndarray, np.ndarray]:
    """1-D labels as ``(classes, positions)``: the classes sorted and unique (found in ``y``, or
    the ``classes`` given, checked) and each label's position among them.

    The one coding of labels: :func:`as_labels` builds its document lists from it, and the Dask
    layer sends the positions to its workers in place of the labels.
    """
    if classes is None:
        classes = unique_labels(y, name)
    else:
        classes = check_classes(classes, name)
    return classes, label_positions(y, classes, name)


def unique_labels(y: np.ndarray, name: str = "y", return_counts: bool = False):
    """``np.unique(y)`` of 1-D labels (with ``return_counts``, also how often each occurs);
    small non-negative integer labels by one counting pass instead of a sort.  Labels that
    cannot be ordered together (strings and numbers mixed, which scikit-learn's
    ``unique_labels`` refuses too) raise ``ValueError`` naming ``name``: every place that sorts
    labels sorts them here."""
    if y.dtype.kind in "iu" and y.size and 0 <= y.min() and y.max() < 4 * y.size:
        counts = np.bincount(y)
        values = np.flatnonzero(counts)
        return (values.astype(y.dtype), counts[values]) if return_counts else values.astype(y.dtype)
    try:
        return np.unique(y, return_counts=return_counts)
    except TypeError:
        raise ValueError(_unordered(y, name)) from None


def _unordered(y, name: str) -> str:
    kinds = sorted({type(label).__name__ for label in np.asarray(y, dtype=object).ravel().tolist()})
    return (
        f"{name} mixes labels of types that cannot be ordered together ({', '.join(kinds)}); "
        "give every label as a string, or every label as a number"
    )


def label_positions(y: np.ndarray, classes: np.ndarray, name: str = "y", of: str = "classes") -> np.ndarray:
    """The position of each label of ``y`` in ``classes`` (sorted and unique, as
    :func:`check_classes` leaves them); a label not in ``classes`` raises ``ValueError`` naming
    ``name`` and what the classes are ``of`` ("classes", or a fitted model's "classes_").

    The one check of labels against known classes: the counts (:func:`as_labels`), a chunk of
    ``partial_fit``, the Dask workers' blocks, and every entry point that takes labels next to a
    fitted model (model masking, the study's per-document counts) read labels through it.
    Labels of another kind than the classes (0/1 for a model fitted on "neg"/"pos") are labels
    not in them.  Small non-negative integer labels (the usual class indices) are looked up in one
    table, a tenth of a binary search's time on 20 Newsgroups x 16; any others are searched.
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
        try:
            positions = np.clip(np.searchsorted(classes, y), 0, classes.size - 1)
            unknown = classes[positions] != y
        except TypeError:  # labels numpy cannot order (None among strings): looked up one by one
            index = {label: i for i, label in enumerate(classes.tolist())}
            found = np.array([index.get(label, -1) for label in y.tolist()], dtype=np.intp)
            unknown = found < 0
            positions = np.maximum(found, 0)
    if unknown.any():
        strays = list(dict.fromkeys(y[unknown].tolist()))
        raise ValueError(
            f"{name} holds labels not in {of}: [{label_list(strays)}] ({of}: {label_list(classes)})"
        )
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
    try:
        ordered = classes.size < 2 or (classes[1:] > classes[:-1]).all()
    except TypeError:
        raise ValueError(_unordered(classes, "classes")) from None
    if not ordered:
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
    class_ptr, class_docs, primary, n_unlabeled = counting.indicator_lists(
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


def check_two_classes(classes, needs: str, name: str = "y") -> None:
    """The one error for labels of a single class: ``needs`` (what needs two: "a classifier
    needs") said beside the class found."""
    if len(classes) < 2:
        raise ValueError(f"{name} has 1 class ({label_repr(classes[0])}); {needs} at least 2 classes")


def label_repr(label) -> str:
    """A class label as a user wrote it (``3``, ``'earn'``), not as numpy prints it."""
    return repr(np.asarray(label).tolist())


def label_list(labels, limit: int = 5) -> str:
    """The first ``limit`` labels, as a user reads them, then "..." if there are more."""
    labels = list(labels)
    return ", ".join(label_repr(label) for label in labels[:limit]) + (", ..." if len(labels) > limit else "")
