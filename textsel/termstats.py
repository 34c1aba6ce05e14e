"""Per-class document frequencies: the one pass over a corpus every filter metric needs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _termstats
from ._termstats import Status
from ._validation import as_csr, as_labels, label_repr

__all__ = ["TermStats", "term_stats"]

_ERRORS = {
    Status.ERR_NONFINITE: "X contains NaN or infinity (stored value at position {where})",
    Status.ERR_NEGATIVE: "Negative values in data passed to X (stored value at position {where}); "
    "term statistics need non-negative counts or weights",
    Status.ERR_INDEX: "X.indices holds a column index out of range at position {where}",
    Status.ERR_INDPTR: "X.indptr is not a valid CSR row pointer (row {where})",
}


@dataclass(frozen=True, eq=False)
class TermStats:
    """Document frequencies of every term, overall and per class.

    Attributes
    ----------
    class_df : ndarray of int64, shape (n_classes, n_terms)
        ``class_df[c, t]`` is the number of documents of class ``c`` that contain term ``t``.
    df : ndarray of int64, shape (n_terms,)
        Number of documents containing each term.
    class_sizes : ndarray of int64, shape (n_classes,)
        Number of documents of each class.
    n_docs : int
        Number of documents.
    classes : ndarray, shape (n_classes,)
        Class labels (column indices for an indicator ``y`` unless given).
    multilabel : bool
        Whether the labels came as an indicator matrix (a document may have any
        number of classes, including none).

    Notes
    -----
    Statistics of disjoint document sets add up: ``term_stats(X1, y1) +
    term_stats(X2, y2)`` equals the statistics of the stacked corpus.  Classes
    are aligned by label, so chunks may each miss some classes; this is how
    chunked and distributed corpora are handled.
    """

    class_df: np.ndarray
    df: np.ndarray
    class_sizes: np.ndarray
    n_docs: int
    classes: np.ndarray
    multilabel: bool = False

    @property
    def n_classes(self) -> int:
        return self.class_df.shape[0]

    @property
    def n_terms(self) -> int:
        return self.class_df.shape[1]

    def __add__(self, other: TermStats) -> TermStats:
        if not isinstance(other, TermStats):
            return NotImplemented
        if other.n_terms != self.n_terms:
            raise ValueError(f"cannot add TermStats over {self.n_terms} and {other.n_terms} terms")
        if other.multilabel != self.multilabel:
            raise ValueError("cannot add multi-label and single-label TermStats")
        if _same(self.classes, other.classes):
            classes = self.classes
            class_df = self.class_df + other.class_df
            class_sizes = self.class_sizes + other.class_sizes
        else:
            if self.multilabel:
                raise ValueError(
                    "multi-label TermStats with different classes cannot be aligned; "
                    "pass the same classes= to term_stats for every chunk"
                )
            classes = np.union1d(self.classes, other.classes)
            class_df = np.zeros((classes.size, self.n_terms), dtype=np.int64)
            class_sizes = np.zeros(classes.size, dtype=np.int64)
            for part in (self, other):
                rows = np.searchsorted(classes, part.classes)
                class_df[rows] += part.class_df
                class_sizes[rows] += part.class_sizes
        return TermStats(
            class_df=class_df,
            df=self.df + other.df,
            class_sizes=class_sizes,
            n_docs=self.n_docs + other.n_docs,
            classes=classes,
            multilabel=self.multilabel,
        )

    def __eq__(self, other) -> bool:
        if not isinstance(other, TermStats):
            return NotImplemented
        return (
            self.n_docs == other.n_docs
            and self.multilabel == other.multilabel
            and _same(self.classes, other.classes)
            and np.array_equal(self.class_df, other.class_df)
            and np.array_equal(self.df, other.df)
            and np.array_equal(self.class_sizes, other.class_sizes)
        )

    __hash__ = None

    def __repr__(self) -> str:
        kind = "multi-label" if self.multilabel else "single-label"
        return f"TermStats(n_docs={self.n_docs}, n_terms={self.n_terms}, n_classes={self.n_classes}, {kind})"


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.all(a == b))


def term_stats(X, y, *, classes=None) -> TermStats:
    """Count, for every term, the documents containing it overall and per class.

    One pass over the CSR buffers without the GIL; cost O(nnz x labels per
    document), memory the (n_classes x n_terms) int64 output plus one int64
    per term.  No densified copy of ``X`` and no dense documents x classes
    matrix is formed.

    Parameters
    ----------
    X : {sparse matrix, array-like} of shape (n_docs, n_terms)
        Document-term matrix of non-negative counts or weights.  A stored
        nonzero counts as presence (stored zeros do not); duplicate or unsorted
        column indices are handled without a copy.  CSR with float32/float64
        data and int32/int64 indices is read in place; other formats and dtypes
        are converted.
    y : array-like of shape (n_docs,), or (n_docs, n_classes) indicator
        Binary or multi-class labels, or a multi-label indicator matrix (dense
        or scipy.sparse).
    classes : array-like, optional
        Fix the class order.  Pass the same classes for every chunk of a corpus
        whose statistics will be added together.

    Returns
    -------
    TermStats

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = sp.csr_matrix(np.array([[1, 0, 2], [0, 1, 1], [3, 0, 0]]))
    >>> s = term_stats(X, ["a", "b", "a"])
    >>> s.class_df
    array([[2, 0, 1],
           [0, 1, 1]])
    >>> s.df
    array([2, 1, 2])
    """
    X = as_csr(X, "X")
    n_docs, n_terms = X.shape
    label_indptr, label_indices, classes_, multilabel = as_labels(y, n_docs, classes)
    if classes is None and not multilabel and classes_.size < 2:
        raise ValueError(
            f"y has 1 class ({label_repr(classes_[0])}); term statistics need at least 2 classes"
        )
    class_df = np.zeros((classes_.size, n_terms), dtype=np.int64)
    df = np.zeros(n_terms, dtype=np.int64)
    class_ptr, class_docs = _docs_by_class(label_indptr, label_indices, classes_.size)
    status, where = _termstats.count_class_df(
        X.data, X.indices, X.indptr, n_terms, class_ptr, class_docs, class_df, df
    )
    if status == Status.ERR_NOMEM:
        raise MemoryError("term_stats could not allocate its per-term scratch array")
    if status != Status.OK:
        raise ValueError(_ERRORS[status].format(where=where))
    class_sizes = np.diff(class_ptr)
    return TermStats(class_df, df, class_sizes, int(n_docs), classes_, multilabel)


def _docs_by_class(label_indptr, label_indices, n_classes):
    """Transpose per-document label lists into per-class document lists."""
    sizes = np.bincount(label_indices, minlength=n_classes)
    class_ptr = np.zeros(n_classes + 1, dtype=np.int64)
    np.cumsum(sizes, out=class_ptr[1:])
    docs = np.repeat(np.arange(label_indptr.size - 1, dtype=np.int64), np.diff(label_indptr))
    return class_ptr, docs[np.argsort(label_indices, kind="stable")]
