"""Turning a (classes x terms) score table into a selected set of terms: :class:`TermSelector`,
and the ranking functions it is built on (``textsel._ranking``), public here."""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
from sklearn.exceptions import NotFittedError
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._base import CheckedSelectorMixin, Estimator, fit_input, fit_statistics, terms_to_keep
from ._checks import check_sparse_structure, plain
from ._dispatch import dispatched
from ._labels import label_list, unique_labels
from ._ranking import (
    _positive_row,
    _present,
    _round_robin_by_rows,
    combine_scores,
    present_in_class,
    rank_terms,
    top_k,
)
from .metrics import METRICS, row_scorer, score
from .names import MULTICLASS
from .termstats import TermStats, term_stats

__all__ = [
    "MULTICLASS",
    "TermSelector",
    "combine_scores",
    "present_in_class",
    "rank_terms",
    "term_directions",
    "top_k",
]


def term_directions(selector, columns=None) -> tuple[np.ndarray, np.ndarray]:
    """For each selected term (or each of ``columns``) of a fitted :class:`TermSelector`: the
    class that scores it highest, and whether its *presence* indicates that class (True) or its
    absence does (False).

    Where classes tie for the highest score (a binary task's two classes, under a symmetric
    metric such as BNS, always do), the class whose documents contain the term is preferred.

    Returns
    -------
    classes : ndarray
        A label of ``selector.classes_`` per term.
    present : ndarray of bool
    """
    check_is_fitted(selector, "ranking_")
    if columns is None:
        columns = selector.ranking_
    else:
        columns = np.asarray(columns)
        if columns.ndim != 1 or columns.dtype.kind not in "iu":
            raise TypeError("columns must be a 1-D array of integer column indices")
        if columns.size and (columns.min() < 0 or columns.max() >= selector.n_features_in_):
            raise ValueError(f"columns must be in [0, {selector.n_features_in_}), the fitted terms")
    table = selector.score_table_[:, columns]
    stats = selector.stats_
    # the scored classes only: partial_fit leaves out classes that are not scoreable yet
    rows = np.isin(stats.classes, selector.classes_)
    present = _present(
        stats.class_df[rows][:, columns], stats.df[columns], stats.class_sizes[rows], stats.n_docs
    )
    best = table >= table.max(axis=0) * (1 - 1e-12)
    choice = np.where(
        (best & present).any(axis=0), np.argmax(best & present, axis=0), np.argmax(best, axis=0)
    )
    return selector.classes_[choice], present[choice, np.arange(columns.size)]


class TermSelector(CheckedSelectorMixin, SelectorMixin, Estimator):
    """Select the k best terms by one of Forman's filter metrics.

    A scikit-learn feature selector: put it in a Pipeline after a vectorizer.
    Statistics use Boolean presence, so tf-idf input selects the same terms as
    raw counts.

    Parameters
    ----------
    metric : str, default "bns"
        One of :data:`textsel.METRICS`.
    k : int or "all", default 1000
        Number of terms to keep.  A k above the number of terms keeps them all, with a
        ``UserWarning`` (as scikit-learn's ``SelectKBest`` does).
    percentile : float in (0, 100], optional
        Keep this share of the terms instead (``ceil(percentile/100 * n_terms)``);
        overrides ``k``.
    multiclass : {"round_robin", "max", "mean"}, default "round_robin"
        How classes are combined for more than two classes or for multi-label
        ``y``: round-robin over the classes' rankings (Forman 2004), the
        maximum score, or the prior-weighted mean.  A binary task uses the
        positive class's scores directly.
    negative_features, alpha, pow_k, random_state
        Metric parameters, see :func:`textsel.score`.
    positive_only : bool, default False
        Keep only terms whose presence indicates a class: a term's score for a class counts only
        where it occurs in a larger share of the class's documents than of the rest's
        (tpr > fpr), and is 0 elsewhere.  BNS, information gain and chi2 also rank terms whose
        *absence* indicates a class (Forman 2003 discusses both kinds); :func:`term_directions`
        says which kind each selected term is.
    n_jobs : int, default=None
        The number of threads for counting and scoring.  ``None`` or ``-1`` means every core this process
        may use, within the limits of threadpoolctl's ``threadpool_limits`` and ``OMP_NUM_THREADS`` (as
        for scikit-learn's OpenMP estimators, not joblib's ``None`` = 1; see "Threads: n_jobs" in the
        scaling page). The selection does not depend on it. On a Dask array each block is counted on one
        thread of its worker, whatever this says.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        One score per term: the positive class's for a binary task, otherwise
        the scores combined by ``multiclass`` (the maximum for round-robin,
        whose selection is rank-based).
    score_table_ : ndarray of shape (n_classes, n_features)
        One-vs-rest scores of every class.  Round-robin scores one class at a time and keeps
        only the head of its ranking, so the table is computed when first asked for, from the
        fit's statistics and parameters.
    ranking_ : ndarray of int
        The selected terms' indices in the order they were chosen.
    stats_ : TermStats
        The statistics the terms were chosen from (summed over the chunks of
        :meth:`partial_fit`).
    classes_ : ndarray
        Class labels (indicator columns for multi-label ``y``).
    n_features_in_ : int
        The number of terms (columns of ``X``) seen in fit.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> from sklearn.svm import LinearSVC
    >>> model = make_pipeline(TfidfVectorizer(), TermSelector("bns", k=2), LinearSVC())
    >>> model = model.fit(["good film", "bad film", "good plot", "bad plot"], [1, 0, 1, 0])
    >>> model[:-1].get_feature_names_out().tolist()
    ['bad', 'good']
    """

    def __init__(
        self,
        metric="bns",
        k=1000,
        percentile=None,
        multiclass="round_robin",
        negative_features=True,
        alpha=0.5,
        pow_k=5.0,
        random_state=None,
        n_jobs=None,
        positive_only=False,
    ):
        self.metric = metric
        self.k = k
        self.percentile = percentile
        self.multiclass = multiclass
        self.negative_features = negative_features
        self.alpha = alpha
        self.pow_k = pow_k
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.positive_only = positive_only

    def fit(self, X, y):
        """Compute term statistics and scores, then choose the terms.

        Parameters
        ----------
        X : {sparse matrix, array-like} of shape (n_docs, n_terms), or a Dask array
            Non-negative document-term matrix.  A Dask array of CSR row blocks is counted
            on its cluster (:func:`textsel.term_stats`); scoring and selection stay here.
        y : array-like of shape (n_docs,) or (n_docs, n_classes)
            Labels, or a multi-label indicator matrix.

        Returns
        -------
        self
        """
        self._check_params()
        X, y = fit_input(
            self,
            X,
            y,
            accept_sparse=("csr", "csc", "coo"),
            dtype=(np.float64, np.float32),
            multi_output=True,
            # the counting kernel refuses NaN and infinity on its one pass over the values,
            # naming the entry; checking here too would be a second pass
            ensure_all_finite=False,
        )
        with warnings.catch_warnings():  # k is checked here early; its warning comes once, below
            warnings.simplefilter("ignore", UserWarning)
            self._n_selected(X.shape[1])
        return self._choose(term_stats(X, y, n_jobs=self.n_jobs))

    def fit_stats(self, stats: TermStats):
        """Choose the terms from statistics counted elsewhere: by :func:`textsel.term_stats` on
        chunks, on a cluster, or straight from text by :class:`textsel.text.TermCounter`.

        ``fit_stats(term_stats(X, y))`` chooses what ``fit(X, y)`` chooses; the columns are the
        statistics' terms.

        Parameters
        ----------
        stats : TermStats

        Returns
        -------
        self
        """
        self._check_params()
        fit_statistics(self, stats)
        return self._choose(stats)

    @dispatched("refuse_partial_fit", x_at=1)
    def partial_fit(self, X, y, classes=None):
        """Add one chunk of documents and choose the terms again from every chunk seen so far.

        Statistics of disjoint chunks add up exactly (:class:`textsel.TermStats`), so the terms
        chosen after the last chunk are those :meth:`fit` chooses on all the chunks stacked.

        Parameters
        ----------
        X : {sparse matrix, array-like} of shape (n_docs, n_terms)
            A chunk; every chunk has the same terms (columns).
        y : array-like of shape (n_docs,) or (n_docs, n_classes)
        classes : array-like, optional
            Every class of the corpus, read on the first call (later chunks' labels must be
            among them; given again, they must be the same); without it the classes are those
            the chunks hold, and a chunk may bring a new one.  A class with no
            document yet takes no part in the selection until one arrives.  Not used with an
            indicator ``y``.

        Returns
        -------
        self

        A call that raises leaves the selector as it was, so a chunk is never counted twice.
        """
        self._check_params()
        first = not hasattr(self, "stats_")
        X, y = validate_data(self, check_sparse_structure(X), y, accept_sparse=("csr", "csc", "coo"),
                             dtype=(np.float64, np.float32), multi_output=True, reset=first)  # fmt: skip
        indicator = np.ndim(y) == 2
        given = None if indicator or classes is None else np.unique(classes)
        if first:
            partial_classes = given
        else:
            if indicator != self.stats_.multilabel:
                raise ValueError("y must be labelled like the earlier chunks (1-D labels or an indicator)")
            partial_classes = self._partial_classes
            known = self.stats_.classes if partial_classes is None else partial_classes
            if given is not None and not (given.shape == known.shape and (given == known).all()):
                raise ValueError(
                    f"classes ({label_list(given)}) differ from the classes of the earlier chunks "
                    f"({label_list(known)})"
                )
        # labels outside the classes given are refused (term_stats names y); without classes, a
        # chunk counts the labels it holds (one class is enough) and the sum aligns them by label
        chunk_classes = None if indicator else (given if given is not None else partial_classes)
        if chunk_classes is None and not indicator:
            chunk_classes = unique_labels(np.asarray(y), "y")
        stats = term_stats(X, y, classes=chunk_classes, n_jobs=self.n_jobs)
        total = stats if first else self.stats_ + stats
        self.stats_ = total
        return self._choose(total, scoreable_only=True, partial_classes=partial_classes)

    def _check_params(self):
        """Refuse an unknown metric or multi-class rule before any pass over ``X``."""
        if self.metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}, got {plain(self.metric)!r}")
        if self.multiclass not in MULTICLASS:
            raise ValueError(f"multiclass must be one of {MULTICLASS}, got {plain(self.multiclass)!r}")

    def _choose(self, stats: TermStats, scoreable_only: bool = False, partial_classes=None):
        """Score the terms and choose them.  With ``scoreable_only`` (partial_fit), classes with
        no document yet, or with every document, sit out until a chunk makes one-vs-rest defined
        for them; ``partial_classes`` are the classes partial_fit was given (None: later chunks
        bring their own)."""
        self.stats_ = stats
        self._partial_classes = partial_classes
        if scoreable_only:
            keep = (stats.class_sizes > 0) & (stats.class_sizes < stats.n_docs)
            if not keep.any():
                # counted, and nothing to choose from yet (a stream sorted by class starts so):
                # the terms are chosen once a chunk brings a second class
                return self
            if not keep.all():
                stats = TermStats(stats.class_df[keep], stats.df, stats.class_sizes[keep], stats.n_docs,
                                  stats.classes[keep], stats.multilabel)  # fmt: skip
        k = self._n_selected(stats.n_terms)
        self.classes_ = stats.classes
        self.__dict__.pop("score_table_", None)
        self.__dict__.pop("scores_", None)
        self._scored = stats  # the statistics score_table_ is computed from
        metric_params = dict(negative_features=self.negative_features, alpha=self.alpha, pow_k=self.pow_k)
        self._scoring = dict(metric_params, metric=self.metric, random_state=self.random_state,
                             positive_only=self.positive_only)  # fmt: skip
        if self.multiclass == "round_robin" and _positive_row(stats) is None:
            ranked = None
            if self.metric != "rand":  # rand's table is drawn whole
                fill = row_scorer(stats, self.metric, **metric_params)
                ranked = _round_robin_by_rows(fill, stats, k, self.positive_only, self.n_jobs)
            if ranked is None:  # a class's head ran out: the merge needs the whole rows
                ranked = rank_terms(self.score_table_, stats, k, self.multiclass, self.n_jobs)
            # the selection read the classes' rows one at a time: the table and the per-term
            # maximum are computed when first asked for (see the properties)
            self.ranking_ = ranked
        else:
            self.scores_ = combine_scores(
                self.score_table_, stats, "max" if self.multiclass == "round_robin" else self.multiclass
            )
            self.ranking_ = top_k(self.scores_, k)  # rank_terms' choice for these rules, scores combined once
        return self

    @property
    def score_table_(self):
        """One-vs-rest scores of every class, one row per class (under round-robin, computed
        when first asked for, from the fit's statistics and parameters)."""
        try:
            return self.__dict__["score_table_"]
        except KeyError:
            if "_scored" not in self.__dict__:
                raise AttributeError(
                    f"{type(self).__name__!r} object has no attribute 'score_table_'"
                ) from None
        params = dict(self._scoring)
        positive_only = params.pop("positive_only")
        table = score(self._scored, **params, n_jobs=self.n_jobs)
        if positive_only:
            table[~present_in_class(self._scored)] = 0.0
        self.__dict__["score_table_"] = table
        return table

    @score_table_.setter
    def score_table_(self, value):
        self.__dict__["score_table_"] = value

    @property
    def scores_(self):
        """One score per term: the positive class's for a binary task, otherwise the classes'
        scores combined by ``multiclass`` (the maximum for round-robin)."""
        try:
            return self.__dict__["scores_"]
        except KeyError:
            if "score_table_" not in self.__dict__ and "_scored" not in self.__dict__:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute 'scores_'") from None
        scores = self.__dict__["scores_"] = self.score_table_.max(axis=0)
        return scores

    @scores_.setter
    def scores_(self, value):
        self.__dict__["scores_"] = value

    def _n_selected(self, n_terms: int) -> int:
        if self.percentile is not None:
            p = self.percentile
            if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real):
                raise TypeError(f"percentile must be a number, got {plain(p)!r}")
            if not 0 < p <= 100:
                raise ValueError(f"percentile must be in (0, 100], got {p}")
            return max(1, math.ceil(n_terms * p / 100))
        return terms_to_keep(self.k, n_terms)

    def _get_support_mask(self):
        if "stats_" in self.__dict__ and "ranking_" not in self.__dict__:
            present = label_list(self.stats_.classes[self.stats_.class_sizes > 0])
            raise NotFittedError(
                f"no terms are chosen yet: in the {self.stats_.n_docs} documents partial_fit has counted "
                f"(classes {present}) no class has both documents and non-documents; the terms are "
                "chosen once a chunk brings documents of another class"
            )
        check_is_fitted(self, "ranking_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.ranking_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.target_tags.required = True
        return tags
