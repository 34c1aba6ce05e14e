"""The table of document frequencies every filter metric reads, and how row blocks are counted
into it in one pass (by ``textsel._ext.counting``, on several threads).

:class:`TermStats`, :func:`count_blocks` and :class:`BlockValueError` are public as
``textsel.termstats.*``; they live here, below the Dask seam, so that the Dask workers count
and add tables without importing the public modules that dispatch to them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._checks import as_csr
from ._errors import CoreArgumentError, CoreValueError, status_error
from ._ext import counting, dealing, pool
from ._ext.ccore import Interrupt, check_status
from ._labels import as_labels, check_two_classes
from ._parallel import effective_n_jobs, run_blocks, split_groups

__all__ = ["BlockValueError", "TermStats", "count_blocks"]


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

    def __radd__(self, other) -> TermStats:
        """``0 + stats`` is ``stats``, so that ``sum(...)`` adds the statistics of chunks."""
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            return self
        return NotImplemented

    def __add__(self, other: TermStats) -> TermStats:
        if not isinstance(other, TermStats):
            return NotImplemented
        if other.n_terms != self.n_terms:
            raise ValueError(f"cannot add TermStats over {self.n_terms} and {other.n_terms} terms")
        if other.multilabel != self.multilabel:
            raise ValueError("cannot add multi-label and single-label TermStats")
        kinds = {_label_kind(self.classes), _label_kind(other.classes)}
        if len(kinds) > 1:
            # numpy would turn the numbers into strings and count 1 and "1" as one class
            mixed = " and ".join(sorted(kinds))
            raise ValueError(f"Mix of label input types ({mixed}): every chunk's labels must be of one type")
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

    def __post_init__(self):
        # the kernels index lookup tables with these counts: shapes and
        # dtypes are fixed here, value consistency is checked in the kernels
        class_df = _int64_array(self.class_df, "class_df", 2)
        n_classes, n_terms = class_df.shape
        fields = {
            "class_df": class_df,
            "df": _int64_array(self.df, "df", 1),
            "class_sizes": _int64_array(self.class_sizes, "class_sizes", 1),
            "classes": np.asarray(self.classes),
        }
        if fields["df"].shape != (n_terms,):
            raise ValueError(f"df has shape {fields['df'].shape}, expected ({n_terms},)")
        for name in ("class_sizes", "classes"):
            if fields[name].shape != (n_classes,):
                raise ValueError(f"{name} has shape {fields[name].shape}, expected ({n_classes},)")
        if isinstance(self.n_docs, (bool, np.bool_)) or not isinstance(self.n_docs, (int, np.integer)):
            raise TypeError(f"n_docs must be an integer, got {self.n_docs!r}")
        if self.n_docs < 0:
            raise ValueError(f"n_docs must be >= 0, got {self.n_docs}")
        fields["n_docs"] = int(self.n_docs)
        fields["multilabel"] = bool(self.multilabel)
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        kind = "multi-label" if self.multilabel else "single-label"
        return f"TermStats(n_docs={self.n_docs}, n_terms={self.n_terms}, n_classes={self.n_classes}, {kind})"


def _int64_array(value, name, ndim):
    arr = np.asarray(value)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer counts, got dtype {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.int64)


def _label_kind(classes: np.ndarray) -> str:
    """What a class array holds: "string", "number" or, for object arrays, its values' kind."""
    if classes.dtype.kind in "US":
        return "string"
    if classes.dtype.kind == "O":
        return "string" if all(isinstance(c, str) for c in classes) else "number"
    return "number"


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.all(a == b))


def count_blocks(blocks, y, *, classes=None, n_jobs=None, into=None) -> TermStats:
    """:func:`term_stats` of row blocks read as one matrix (their rows one after another).

    One pass: each class's documents are counted across every block while its row of the table
    is in cache, where counting the blocks one after another would pass the whole table through
    the cache once per block.  No stacked copy of the blocks is made.  This is how a Dask
    worker counts the blocks it holds, and how a corpus read in chunks is counted at once.

    Parameters
    ----------
    blocks : sequence of sparse matrices or array-likes
        Row blocks of equal width, each what :func:`term_stats` accepts as ``X``; blocks with no
        rows are allowed among others.  Value and index types may differ between blocks.
    y : array-like of shape (total rows,), or (total rows, n_classes) indicator
        Labels of the stacked rows, as for :func:`term_stats`.
    classes : array-like, optional
        Fix the class order (ignored with ``into``, whose classes are used).
    n_jobs : int, optional
        As for :func:`term_stats`; the result does not depend on it.
    into : TermStats, optional
        Statistics counted with the same classes: the counts are added into its tables, which
        are modified, and it is returned (a sum over many chunks in one table).

    Returns
    -------
    TermStats

    Raises
    ------
    BlockValueError
        A block's values or structure are refused (NaN, a negative count, a malformed row
        pointer, an index out of range, another width); ``block`` is its position in ``blocks``.
    """
    if sp.issparse(blocks) or isinstance(blocks, np.ndarray):
        raise TypeError(
            f"blocks must be a sequence of row blocks (a list of matrices), got one {type(blocks).__name__}"
        )
    if len(blocks) == 0:
        raise ValueError("blocks must hold at least one block")
    # blocks with no rows hold nothing to count (one alone is refused by as_csr, as X would be)
    positions = [i for i, X in enumerate(blocks) if np.shape(X)[:1] != (0,)] or [0]
    checked = []
    for i in positions:
        try:
            checked.append(as_csr(blocks[i], "X", check_structure=False))
        except ValueError as exc:
            raise CoreArgumentError(str(exc), block=i) from exc
        except TypeError as exc:
            if len(blocks) == 1:
                raise
            raise TypeError(f"blocks[{i}]: {exc}") from exc
    n_terms = checked[0].shape[1]
    for position, X in zip(positions, checked, strict=True):
        if X.shape[1] != n_terms:
            raise CoreArgumentError(
                f"X has {X.shape[1]} terms but the first block has {n_terms}", block=position
            )
        if X.indptr[0] != 0:
            raise status_error("TS_ERR_INDPTR", None, "count_blocks", array="X", position=0, block=position)
    if into is not None:
        classes = into.classes
    n_docs = sum(X.shape[0] for X in checked)
    labels = as_labels(y, n_docs, classes)
    if classes is None and not labels.multilabel:
        check_two_classes(labels.classes, "term statistics need")
    if into is None:
        # not zeroed here: the kernel zeroes each row just before filling it, in cache and on its
        # own thread; and from the table pool, so that a caller dropping the tables of one call
        # does not make the next call fault in fresh pages (textsel/_ext/pool.pyx)
        class_df = pool.empty((labels.classes.size, n_terms), dtype=np.int64)
        df = _count(checked, positions, labels, class_df, effective_n_jobs(n_jobs), accumulate=False)
        return TermStats(class_df, df, np.diff(labels.class_ptr), n_docs, labels.classes, labels.multilabel)
    if labels.multilabel != into.multilabel:
        raise ValueError("cannot add multi-label and single-label counts")
    if n_terms != into.n_terms:
        raise ValueError(f"X has {n_terms} terms but the statistics count {into.n_terms}")
    df = _count(checked, positions, labels, into.class_df, effective_n_jobs(n_jobs), accumulate=True)
    into.df[...] += df
    into.class_sizes[...] += np.diff(labels.class_ptr)
    return TermStats(into.class_df, into.df, into.class_sizes, into.n_docs + n_docs,
                     into.classes, into.multilabel)  # fmt: skip


#: a fault in one of the blocks :func:`count_blocks` counts: a kernel's value error, whose
#: ``block`` is the block's position in the sequence given (-1 for a document in no block)
BlockValueError = CoreValueError


def _count(blocks, positions, labels, class_df, n_jobs, accumulate):
    """Count the stacked ``blocks`` into ``class_df`` (overwritten, or added to with
    ``accumulate``); return df.  A fault names the block by its entry in ``positions``."""
    n_terms = class_df.shape[1]
    buffers = [(X.data, X.indices, X.indptr) for X in _same_types(blocks)]
    if n_jobs == 1:
        class_nnz = np.ones(labels.class_ptr.size - 1)  # one thread takes every class anyway
    else:
        class_nnz = dealing.class_loads(_stacked_indptr(blocks), labels.class_ptr, labels.class_docs)
    interrupt = Interrupt()  # Ctrl-C stops every thread's pass within 2^14 documents

    def fill(class_list, class_ptr=labels.class_ptr, class_docs=labels.class_docs,
             primary=labels.primary, table=class_df, accumulate=accumulate):  # fmt: skip
        df = np.zeros(n_terms, dtype=np.int64)
        mark = np.empty(n_terms, dtype=np.uint16)
        status, where, block = counting.count_classes(
            buffers, class_ptr, class_docs, primary, class_list, mark, df, table, accumulate, interrupt
        )
        return status, where, block, df

    results = run_blocks(fill, [(group,) for group in split_groups(class_nnz, n_jobs)], interrupt)
    if labels.unlabeled.size:
        # documents in no class: one pseudo-class whose primary visits check and count them
        n_unlabeled = labels.unlabeled.size
        results.append(
            fill(np.zeros(1, dtype=np.int64), np.array([0, n_unlabeled]), labels.unlabeled,
                 np.ones(n_unlabeled, dtype=np.uint8), np.empty((1, n_terms), dtype=np.int64), False)
        )  # fmt: skip
    for status, where, block, _ in results:
        check_status(status, "count_blocks", interrupt, array="X", position=where,
                     block=positions[block] if block >= 0 else -1)  # fmt: skip
    df = results[0][-1]
    for *_, part in results[1:]:
        df += part
    return df


def _same_types(blocks):
    """``blocks`` with one value type and one index type, as the kernel reads them: a block
    that differs from the rest is converted (float64 values, int64 indices where any has them)."""
    values = {X.data.dtype for X in blocks}
    index = {X.indices.dtype for X in blocks} | {X.indptr.dtype for X in blocks}
    if len(values) == 1 and len(index) == 1:
        return blocks
    value_type = values.pop() if len(values) == 1 else np.float64
    index_type = index.pop() if len(index) == 1 else np.int64
    converted = []
    for X in blocks:
        converted.append(Y := sp.csr_matrix(X.shape, dtype=value_type))
        # set, not passed to the constructor, which may narrow the index type again
        Y.data = X.data.astype(value_type, copy=False)
        Y.indices = X.indices.astype(index_type, copy=False)
        Y.indptr = X.indptr.astype(index_type, copy=False)
    return converted


def _stacked_indptr(blocks) -> np.ndarray:
    """The row pointer of the blocks stacked (int64): what each row costs the counting pass."""
    if len(blocks) == 1:
        return blocks[0].indptr
    lengths = np.concatenate([np.diff(X.indptr) for X in blocks])
    indptr = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    return indptr


# the public path, for the docs and for pickles (which name a class by its module)
for _public in (TermStats, count_blocks):
    _public.__module__ = "textsel.termstats"
del _public
