"""The documents' side of the least-squares classifiers' problem, built block by block.

A least-squares classifier solves ``min ||D (A w - T)||^2 + damp^2 ||w||^2`` with one-vs-rest
targets T (documents x columns, +-1) and row weights D.  Both are functions of each document's
labels and weight and of a few numbers per class, so they need never be held for the whole corpus
at once: the functions here build them, and the sums the estimators need (weighted class sizes,
norm sums), one row block at a time.  :class:`DocumentRows` applies them to a corpus in memory (one
block); ``textsel.distributed.rows`` applies the same functions to each block on the worker that
holds it, so that a fit on a cluster gives the same numbers.

The per-block functions import numpy (and textsel's label coding) only, as a Dask worker's kernels
do; what needs scikit-learn (the label kind, the class weights) runs once per fit, on the merged
summaries, in :func:`resolve`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._labels import check_two_classes, label_positions, target_kind, unique_labels

__all__ = [
    "DocumentRows",
    "LabelSummary",
    "RowRecipe",
    "RowSums",
    "block_class_weights",
    "block_row_weights",
    "block_sums",
    "block_targets",
    "delta_from_counts",
    "document_weights",
    "merge_summaries",
    "out_of_fold_scores",
    "resolve",
    "summarize_labels",
]


@dataclass(frozen=True)
class LabelSummary:
    """What the label kind, the classes and the class weights depend on, for some documents.

    1-D labels: the distinct ``values`` (sorted) and how many documents have each (``counts``).
    2-D labels (an indicator matrix, dense or sparse): the distinct ``values`` of its cells, its
    ``width``, and the documents with a positive cell in each column (``counts``).
    """

    ndim: int
    width: int
    values: np.ndarray
    counts: np.ndarray
    n_docs: int


def summarize_labels(y) -> LabelSummary:
    """The :class:`LabelSummary` of one block of labels (1-D, or a 2-D indicator)."""
    if sp.issparse(y):
        Y = sp.csr_matrix(y, copy=True)
        Y.sum_duplicates()
        values = np.unique(Y.data)
        if Y.nnz < Y.shape[0] * Y.shape[1]:  # some cells are implicit zeros
            values = np.union1d(values, np.zeros(1, dtype=Y.dtype))
        positives = np.bincount(Y.indices[Y.data > 0], minlength=Y.shape[1]).astype(np.int64)
        return LabelSummary(2, Y.shape[1], values, positives, Y.shape[0])
    y = np.asarray(y)
    if y.ndim == 2:
        return LabelSummary(2, y.shape[1], np.unique(y), (y > 0).sum(axis=0).astype(np.int64), y.shape[0])
    values, counts = unique_labels(y, "y", return_counts=True)
    return LabelSummary(1, 1, values, counts.astype(np.int64), y.shape[0])


def merge_summaries(parts) -> LabelSummary:
    """The summary of the blocks summarised by ``parts`` together."""
    parts = list(parts)
    ndims = {p.ndim for p in parts}
    if len(ndims) > 1:
        raise ValueError("y mixes 1-D labels and 2-D indicator blocks; give one kind of labels")
    first = parts[0]
    n_docs = sum(p.n_docs for p in parts)
    if first.ndim == 2:
        widths = {p.width for p in parts}
        if len(widths) > 1:
            raise ValueError(f"y's indicator blocks have different numbers of columns: {sorted(widths)}")
        values = np.unique(np.concatenate([p.values for p in parts]))
        return LabelSummary(2, first.width, values, np.sum([p.counts for p in parts], axis=0), n_docs)
    values = unique_labels(np.concatenate([p.values for p in parts]), "y")
    counts = np.zeros(values.size, dtype=np.int64)
    for p in parts:
        np.add.at(counts, np.searchsorted(values, p.values), p.counts)
    return LabelSummary(1, 1, values, counts, n_docs)


@dataclass(frozen=True)
class RowRecipe:
    """How each document's targets and class weight follow from its labels: the classes (sorted
    labels, or the indicator's column numbers), whether the task is multi-label, the number of
    target columns, and per output of the labels the (values, weights) of ``class_weight``
    (None: no class weights)."""

    classes: np.ndarray
    multilabel: bool
    n_columns: int
    class_tables: list | None


def resolve(summary: LabelSummary, class_weight=None, owner: str = "classifier") -> RowRecipe:
    """The :class:`RowRecipe` of the merged labels, or the error the labels deserve (one class, a
    class on every document or on none, labels that are not classes)."""
    from ._checks import check_class_weight

    if summary.ndim == 1:
        kind = target_kind(summary.values, "y")
    else:
        # a small array with the same width and cell values has the same kind as y
        rep = np.zeros((max(summary.values.size, 1), summary.width), dtype=summary.values.dtype)
        rep[: summary.values.size, 0] = summary.values
        kind = target_kind(rep, "y")
    if kind == "multilabel-indicator":
        classes, multilabel, positives = np.arange(summary.width), True, summary.counts
    elif kind in ("binary", "multiclass"):
        classes, multilabel = summary.values, False
        check_two_classes(classes, "a classifier needs")
        positives = summary.counts[1:] if classes.size == 2 else summary.counts
    else:
        raise ValueError(f"Unknown label type: y must hold class labels, got target type {kind!r}")
    bad = np.flatnonzero((positives == 0) | (positives == summary.n_docs))
    if bad.size:
        raise ValueError(
            f"y: class column {bad[0]} has {'no' if positives[bad[0]] == 0 else 'every'} "
            "document; one-vs-rest needs both positives and negatives"
        )
    tables = None
    if class_weight is not None:
        tables = _class_tables(summary, multilabel, check_class_weight(class_weight, owner))
    return RowRecipe(classes, multilabel, positives.size, tables)


def _class_tables(summary, multilabel, class_weight) -> list:
    """Per output, (its values, their class weights) as ``compute_sample_weight`` finds them: the
    same scikit-learn function on each value once, counted by its documents."""
    from sklearn.utils.class_weight import compute_class_weight

    outputs = []
    if multilabel:
        for pos in summary.counts:  # each indicator column is an output of values 0 and 1
            counts = np.array([summary.n_docs - pos, pos], dtype=np.float64)
            outputs.append((np.array([0, 1])[counts > 0], counts[counts > 0]))
    else:
        outputs.append((summary.values, summary.counts.astype(np.float64)))
    n = len(outputs)
    if n > 1 and (class_weight is None or isinstance(class_weight, dict)):
        raise ValueError(
            "For multi-output, class_weight should be a list of dicts, or the string 'balanced'."
        )
    if n > 1 and isinstance(class_weight, list) and len(class_weight) != n:
        raise ValueError(
            "For multi-output, number of elements in class_weight should match number of outputs. "
            f"Got {len(class_weight)} element(s) while having {n} outputs."
        )
    tables = []
    for k, (values, counts) in enumerate(outputs):
        weight_k = class_weight if (class_weight == "balanced" or n == 1) else class_weight[k]
        weights = compute_class_weight(weight_k, classes=values, y=values, sample_weight=counts)
        tables.append((values, np.asarray(weights, dtype=np.float64)))
    return tables


def block_targets(y, recipe: RowRecipe) -> np.ndarray:
    """One block's targets, +-1 (documents x columns), as ``LabelBinarizer(neg_label=-1)`` codes
    1-D labels and ``Y > 0`` an indicator."""
    if recipe.multilabel:
        Y = y.toarray() if sp.issparse(y) else np.asarray(y)
        return np.where(Y > 0, 1.0, -1.0)
    positions = label_positions(np.asarray(y), recipe.classes, "y")
    T = np.full((positions.size, recipe.n_columns), -1.0)
    if recipe.n_columns == 1:
        T[positions == 1, 0] = 1.0
    else:
        T[np.arange(positions.size), positions] = 1.0
    return T


def block_class_weights(y, recipe: RowRecipe) -> np.ndarray | None:
    """Each document's class weight (the product over the outputs, as ``compute_sample_weight``
    takes it), or None without class weights."""
    if recipe.class_tables is None:
        return None
    if recipe.multilabel:
        Y = y.toarray() if sp.issparse(y) else np.asarray(y)
        columns = [(Y[:, k] > 0).astype(np.int64) for k in range(Y.shape[1])]
    else:
        columns = [np.asarray(y)]
    weight = None
    for (values, weights), column in zip(recipe.class_tables, columns, strict=True):
        w = weights[np.searchsorted(values, column)]
        weight = w if weight is None else weight * w
    return weight


def document_weights(y, sample_weight, recipe: RowRecipe) -> np.ndarray | None:
    """One block's document weights: ``sample_weight`` (checked, non-negative) times the class
    weights, or None for all ones."""
    s = None
    if sample_weight is not None:
        from sklearn.utils.validation import _check_sample_weight

        n = y.shape[0]
        if n == 0:  # an empty block (scikit-learn's check refuses 0 samples)
            s = np.zeros(0)
        else:
            s = _check_sample_weight(
                sample_weight,
                np.empty((n, 0)),
                dtype=np.float64,
                ensure_non_negative=True,
                allow_all_zero_weights=True,  # a block may weigh nothing; check_weighted judges the whole
            )
    by_class = block_class_weights(y, recipe)
    if by_class is not None:
        s = by_class if s is None else s * by_class
    return s


@dataclass(frozen=True)
class RowSums:
    """Sums over documents, each counted by its weight s (1 without weights): the weight, the
    positives of each column, the documents of weight > 0; with the documents' norms, the norms and
    the positives' norms of each column (None without them)."""

    total: float
    positives: np.ndarray
    n_weighted: int
    norms: float | None = None
    positive_norms: np.ndarray | None = None

    def __add__(self, other: RowSums) -> RowSums:
        def add(a, b):
            return None if a is None else a + b

        return RowSums(
            self.total + other.total, self.positives + other.positives, self.n_weighted + other.n_weighted,
            add(self.norms, other.norms), add(self.positive_norms, other.positive_norms),
        )  # fmt: skip


def block_sums(T, s, norms=None) -> RowSums:
    """One block's :class:`RowSums` from its targets, document weights (None: ones) and, when
    given, its documents' Euclidean norms."""
    positive = T > 0
    n = T.shape[0]
    weight = np.ones(n) if s is None else s
    total = float(weight.sum())
    positives = weight @ positive if n else np.zeros(T.shape[1])
    n_weighted = n if s is None else int(np.count_nonzero(s > 0))
    if norms is None:
        return RowSums(total, positives, n_weighted)
    weighted_norms = weight * norms
    return RowSums(total, positives, n_weighted, float(weighted_norms.sum()),
                   weighted_norms @ positive if n else np.zeros(T.shape[1]))  # fmt: skip


def dealt_folds(n_docs: int, n_folds: int) -> list[slice]:
    """SCut's folds: document i in fold i mod ``n_folds``, each fold a stepped slice.  Dealt, not
    cut in runs as ``KFold`` without shuffling cuts them: a corpus stored sorted by class (20
    Newsgroups is) would otherwise hold a rare class's documents out of its model whole, and its
    threshold would learn nothing; dealing needs no seed, and a row block finds its own rows of a
    fold from its first row's number alone."""
    return [slice(f, n_docs, n_folds) for f in range(n_folds)]


def out_of_fold_scores(rows, n_folds: int, solve) -> np.ndarray:
    """SCut's held-out scores, documents x columns: each document scored by the model
    ``solve(X, fold_rows)`` fitted without its fold (:func:`dealt_folds`), in memory or on a
    cluster alike.  ``rows`` (:class:`DocumentRows`, or ``textsel.distributed.rows.BlockRows``)
    gives each fold's training problem (``holding_out``: the training rows alone in memory, the
    fold's documents weighted 0 on a cluster, the same least-squares problem) and scores the
    fold's documents (``held_out_scores``)."""
    scores = np.empty((rows.n_docs, rows.recipe.n_columns))
    for fold, held in enumerate(dealt_folds(rows.n_docs, n_folds)):
        coef, intercept, _ = solve(*rows.holding_out(fold, n_folds))
        scores[held] = rows.held_out_scores(fold, n_folds, coef, intercept)
    return scores


def block_row_weights(T, s, delta, held_out=None) -> np.ndarray | None:
    """One block's row weights: ``delta`` on each column's positives (None: 1), times sqrt(s), and
    0 on the rows ``held_out`` (a slice of the block, or None); None when all are 1."""
    if delta is None and s is None and held_out is None:
        return None
    W = np.ones(T.shape) if delta is None else np.where(T > 0, delta, 1.0)
    if s is not None:  # each document's squared error counts s times: row weight sqrt(s)
        W *= np.sqrt(s)[:, None]
    if held_out is not None:
        W[held_out] = 0.0
    return np.ascontiguousarray(W)


def delta_from_counts(n_pos, total) -> np.ndarray:
    """Zhuang et al.'s delta+ from each column's (weighted) positives and the weight of all
    documents (see :func:`textsel.linear_model.proximal_weights`)."""
    n_neg = total - n_pos
    return 1.0 + (np.sqrt(n_neg / n_pos) - 1.0) / 2.0


def check_weighted(sums: RowSums) -> None:
    """Refuse document weights that leave no document counted."""
    if sums.n_weighted == 0:
        raise ValueError(
            "sample_weight must contain at least one non-zero number: every document has weight zero"
        )


class DocumentRows:
    """The documents' labels and weights of a corpus in memory: the targets, document weights and
    sums the least-squares classifiers read, by the block functions above on one block.

    Parameters
    ----------
    y : array-like or sparse matrix
        Labels, checked as the fit checks them.
    sample_weight : array-like, optional
    class_weight : dict, list of dicts, "balanced" or None
    owner : str
        The estimator's name, for errors.
    row_norms : callable
        Gives the documents' Euclidean norms, when an estimate needs them.
    solver : callable
        :func:`textsel.lsqr` (given by the estimator: this module stays below the solvers).
    X : sparse matrix
        The checked matrix the solver reads (``X`` of the fit).
    """

    def __init__(self, y, sample_weight, class_weight, owner, row_norms, solver, X=None):
        from sklearn.utils.validation import column_or_1d

        if not sp.issparse(y) and np.ndim(y) == 2 and np.shape(y)[1] == 1:
            y = column_or_1d(y, warn=True)
        self.recipe = resolve(summarize_labels(y), class_weight, owner)
        self.targets = np.ascontiguousarray(block_targets(y, self.recipe))
        self.weights = document_weights(y, sample_weight, self.recipe)
        self.sums = block_sums(self.targets, self.weights)
        check_weighted(self.sums)
        self._row_norms, self._solver, self.X = row_norms, solver, X

    @property
    def n_docs(self) -> int:
        return self.targets.shape[0]

    def norm_sums(self) -> RowSums:
        """:class:`RowSums` with the documents' norms."""
        return block_sums(self.targets, self.weights, self._row_norms())

    def row_weights(self, delta) -> np.ndarray | None:
        return block_row_weights(self.targets, self.weights, delta)

    def holding_out(self, fold, n_folds):
        """The training problem of SCut's fold ``fold`` (:func:`out_of_fold_scores`): the rows of
        ``X`` outside it and these documents' rows there."""
        train = np.ones(self.n_docs, dtype=bool)
        train[dealt_folds(self.n_docs, n_folds)[fold]] = False
        train = np.flatnonzero(train)
        part = copy.copy(self)  # the same recipe and solver; the fold's targets and weights
        part.targets = np.ascontiguousarray(self.targets[train])
        part.weights = None if self.weights is None else self.weights[train]
        part.sums = block_sums(part.targets, part.weights)
        part._row_norms, part.X = None, None
        return self.X[train], part

    def held_out_scores(self, fold, n_folds, coef, intercept) -> np.ndarray:
        """The scores of fold ``fold``'s documents by the model ``(coef, intercept)``."""
        from sklearn.utils.extmath import safe_sparse_dot

        held = self.X[dealt_folds(self.n_docs, n_folds)[fold]]
        return safe_sparse_dot(held, coef.T, dense_output=True) + intercept

    def lsqr(self, X, delta, **options):
        """:func:`textsel.lsqr` of ``X`` against the targets with the row weights of ``delta``."""
        return self._solver(X, self.targets, row_weights=self.row_weights(delta), **options)

    def positive(self) -> np.ndarray:
        """Which documents belong to each column (documents x columns, bool)."""
        return self.targets > 0

    def release(self):
        """Nothing to release in memory."""
