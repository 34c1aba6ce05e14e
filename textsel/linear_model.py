"""Least-squares linear classifiers solved by textsel's batched LSQR.

Three members of one family, ``min ||D (A w - t)||^2 + damp^2 ||w||^2`` with
targets t in {-1, +1} one-vs-rest, all classes solved together (one pass over
``X`` per LSQR iteration for every class still running):

- :class:`RLSClassifier` — regularized least squares (Dasgupta et al. 2007):
  A = X, D = I, damp^2 = alpha.
- :class:`ProximalSVC` — the proximal SVM (Fung & Mangasarian 2001): A = [X, 1]
  (the bias is regularized too), D = I, damp^2 = v.
- :class:`WeightedProximalSVC` — Zhuang et al. (2006): per-document weights
  delta balance skewed classes, D = diag(delta).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.exceptions import ConvergenceWarning

from . import least_squares
from ._base import Estimator, LinearScoresMixin, fit_input
from ._checks import check_positive_int, check_real, plain
from ._dispatch import dispatched
from ._errors import warn
from ._products import row_norms as _row_norms
from ._rows import DocumentRows, delta_from_counts, out_of_fold_scores

__all__ = ["ProximalSVC", "RLSClassifier", "WeightedProximalSVC", "proximal_weights", "scut_thresholds"]


def proximal_weights(T: np.ndarray, sample_weight=None) -> np.ndarray:
    """Zhuang et al.'s document weights for one-vs-rest targets ``T`` (documents x columns, +-1);
    with ``sample_weight``, N+ and N- are the weighted counts (a weight of 2 counts twice).

    ``delta- = 1`` and ``delta+ = 1 + (ratio - 1) / 2`` per column with
    ``ratio = sqrt(N-/N+)``: half-way from no reweighting (1) to full balance.
    The weights enter the objective squared, so full balance (the paper's
    Eq. 8, equal expected error mass: ``delta+^2 N+ = delta-^2 N-``) is
    ``delta+ = sqrt(N-/N+)``, and the paper sets ``delta+`` short of it on
    purpose ("we do not set delta+ = ratio to exactly satisfy Equation (8)",
    so that a minor class's precision stays a little above its recall).  The
    extracted text lost the square root; reading ``ratio = N-/N+`` instead
    (as a first reading of the extraction does) puts ``delta+`` far *above* full
    balance for rare classes (N-/N+ = 100: 50.5 against 10), contradicting that
    sentence, and costs about 0.07 micro-F1 on Reuters-21578 (see
    docs/benchmarks.md).  That reading stays available as an explicit
    ``delta=1 + (N-/N+ - 1) / 2``.
    """
    s = np.ones(T.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    return delta_from_counts(s @ (T > 0), s.sum())


def scut_thresholds(scores: np.ndarray, positive: np.ndarray, fbr: float = 0.3) -> np.ndarray:
    """Per-class thresholds maximising F1 on (held-out) scores: SCut with the SCutFBR.1 fallback.

    For each column, the documents are ranked by score and the cut with the best
    F1 is taken; the threshold lies half-way between the last document kept and
    the next.  Where even the best F1 is below ``fbr`` (a rare class the scores
    do not separate), the threshold falls back to the top-ranked document's
    score, so that only documents scoring at least that high are assigned
    (Yang 2001, "A study of thresholding strategies for text categorization").

    Parameters
    ----------
    scores : ndarray of shape (n_docs, n_classes)
    positive : ndarray of bool, same shape
        Which documents belong to each class.
    fbr : float in [0, 1]
        The F1 below which the fallback applies.

    Returns
    -------
    ndarray of shape (n_classes,)
        A document is assigned a class where its score is greater than the threshold.
    """
    scores = np.asarray(scores, dtype=np.float64)
    positive = np.asarray(positive)
    if scores.ndim != 2 or not np.isfinite(scores).all():
        raise ValueError(f"scores must be a finite (documents x classes) array, got shape {scores.shape}")
    if positive.shape != scores.shape or not np.isin(positive, (0, 1)).all():
        got = f"shape {positive.shape}" if positive.shape != scores.shape else "other values"
        raise ValueError(
            f"positive must say, as True/False or 1/0, which documents belong to each class (the "
            f"shape of scores, {scores.shape}), got {got}"
        )
    fbr = check_real(fbr, "fbr", 0.0, 1.0)
    positive = positive.astype(bool)
    n_docs, n_classes = scores.shape
    thresholds = np.empty(n_classes)
    for k in range(n_classes):
        order = np.argsort(-scores[:, k], kind="stable")
        ranked = scores[order, k]
        tp = np.cumsum(positive[order, k])
        n_pos = tp[-1]
        f1 = 2.0 * tp / (n_pos + np.arange(1, n_docs + 1)) if n_pos else np.zeros(n_docs)
        # only cut between distinct scores: tied documents are assigned together
        last_of_tie = np.r_[ranked[1:] < ranked[:-1], True]
        f1 = np.where(last_of_tie, f1, -1.0)
        best = int(np.argmax(f1))
        if f1[best] < fbr:
            thresholds[k] = np.nextafter(ranked[0], -np.inf)
        elif best + 1 < n_docs:
            thresholds[k] = 0.5 * (ranked[best] + ranked[best + 1])
        else:
            thresholds[k] = np.nextafter(ranked[best], -np.inf)
    return thresholds


@dispatched("document_rows", x_at=1)
def _document_rows(est, X, y, sample_weight):
    """The documents' side of ``est``'s fit on ``X`` (checked by :func:`textsel._base.fit_input`):
    :class:`textsel._rows.DocumentRows` in memory, or its cluster counterpart for a Dask array,
    built on the workers (``textsel.distributed.rows.BlockRows``, over the checked blocks)."""
    owner = type(est).__name__
    return DocumentRows(y, sample_weight, est.class_weight, owner, lambda: _row_norms(X, est.n_jobs),
                        least_squares.lsqr, X)  # fmt: skip


class _LSQRLinearClassifier(LinearScoresMixin, ClassifierMixin, Estimator):
    """Shared fitting and prediction; subclasses say what A, D and damp are."""

    _fit_intercept = True

    def _delta_and_damp(self, rows):
        """The weight of each column's positives (None: 1) and the damp of each column, from the
        documents' :class:`textsel._rows.DocumentRows` (or their blocks on a cluster)."""
        raise NotImplementedError

    def fit(self, X, y, sample_weight=None):
        """Fit one least-squares problem per class (one-vs-rest), all in one batched LSQR.

        With ``threshold="scut"``, per-class decision thresholds are then chosen
        for F1 on out-of-fold scores of the training data (see :func:`scut_thresholds`).

        Parameters
        ----------
        X : {sparse matrix, array-like} of shape (n_docs, n_terms), or a Dask array
            A Dask array of CSR row blocks (or a :class:`textsel.distributed.BlockMatrix`)
            is fitted on its cluster through the distributed LSQR.
        y : array-like of shape (n_docs,) or (n_docs, n_classes), or a Dask array
            Binary or multi-class labels, or a multi-label 0/1 indicator matrix.  With a Dask
            ``X``, a Dask array chunked like ``X``'s rows keeps the labels on the cluster.
        sample_weight : array-like of shape (n_docs,), optional
            Non-negative weight of each document's squared error (a weight of 2 is the document
            twice, 0 leaves it out), multiplied by ``class_weight``'s; the "auto" estimates of v
            and delta count documents by their weights too.

        Returns
        -------
        self
        """
        X, y = fit_input(self, X, y, accept_sparse="csr", dtype=(np.float64, np.float32), multi_output=True)
        rows = _document_rows(self, X, y, sample_weight)
        try:
            return self._fit_rows(rows)
        finally:
            rows.release()

    def _fit_rows(self, rows):
        """The fit on the documents' ``rows`` (in memory or on a cluster: ``rows.X`` is the matrix
        the solver reads): the estimates, one batched solve, then the SCut thresholds."""
        X = rows.X
        self.classes_ = rows.recipe.classes
        self._multilabel = rows.recipe.multilabel
        if self.threshold not in (None, "scut"):
            raise ValueError(f"threshold must be None or 'scut', got {plain(self.threshold)!r}")
        if self.threshold == "scut":
            n_folds = check_positive_int(self.cv, "cv", 2, rows.n_docs)
            fbr = check_real(self.fbr, "fbr", 0.0, 1.0)
        delta, damp = self._delta_and_damp(rows)
        self.coef_, self.intercept_, self.n_iter_ = self._solve(X, rows, delta, damp)
        n_columns = rows.recipe.n_columns
        self.thresholds_ = np.zeros(n_columns)
        if self.threshold == "scut" and (self._multilabel or n_columns == 1):
            # the folds' models keep the weights and damp estimated on all the training data:
            # a fold may hold no positive of a rare class, where the estimates are undefined
            def fold_model(X_fold, fold_rows):
                return self._solve(X_fold, fold_rows, delta, damp)

            scores = out_of_fold_scores(rows, n_folds, fold_model)
            self.thresholds_ = scut_thresholds(scores, rows.positive(), fbr)
        return self

    def _solve(self, X, rows, delta, damp):
        """One batched weighted solve: ``(coef, intercept, n_iter)``; ``rows`` gives the targets
        and row weights."""
        max_iter = None if self.max_iter is None else check_positive_int(self.max_iter, "max_iter", 1)
        tol = check_real(self.tol, "tol", 0.0, None)
        result = rows.lsqr(
            X, delta, damp=damp, fit_intercept=self._fit_intercept, atol=tol, btol=tol, iter_lim=max_iter,
            n_jobs=self.n_jobs,
        )  # fmt: skip
        stopped = np.atleast_1d(result.istop) == 7  # LSQR's "iteration limit reached"
        if stopped.any():
            warn(
                f"{type(self).__name__}: LSQR reached its iteration limit ({int(np.max(result.itn))} "
                f"iterations) for {int(stopped.sum())} of {stopped.size} classes before tol={tol}; "
                "increase max_iter",
                ConvergenceWarning,
            )
        n_terms = X.shape[1]
        coef = np.ascontiguousarray(result.x[:n_terms].T)
        intercept = result.x[n_terms] if self._fit_intercept else np.zeros(rows.recipe.n_columns)
        self.damp_ = damp
        return coef, intercept, result.itn

    @dispatched("map_row_blocks", x_at=1)
    def predict(self, X):
        """Class labels; for multi-label ``y``, a 0/1 indicator matrix (lazily, block by block,
        for a Dask array).

        A class is predicted where its score exceeds its threshold (0, or the
        SCut threshold) for binary and multi-label tasks; a single-label
        multi-class task takes the highest score (one class per document is a
        ranking decision, which per-class thresholds do not improve: measured on
        20 Newsgroups, subtracting them lost a third of the micro-F1).
        """
        scores = self.decision_function(X)
        if self._multilabel:
            return (scores > self.thresholds_).astype(np.int64)
        if scores.ndim == 1:
            return self.classes_[(scores > self.thresholds_[0]).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        return tags


def _positive_or_auto(value, name):
    if isinstance(value, str) and value == "auto":
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be 'auto' or a positive number, got {plain(value)!r}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be 'auto' or a positive number, got {value}")
    return float(value)


class RLSClassifier(_LSQRLinearClassifier):
    """Regularized least-squares classification (RLSC), one-vs-rest.

    ``min ||X w - t||^2 + alpha ||w||^2`` per class, no intercept, the kernel-free
    form of Dasgupta et al. (2007): the same solution as ``(K + alpha I)^-1 t``
    with K = X X', predicting ``X w``.

    Parameters
    ----------
    alpha : float, default 1.0
        Ridge penalty (LSQR damp = sqrt(alpha)).
    tol : float, default 1e-4
        LSQR's atol and btol.  1e-4 (LinearSVC's default tolerance too) halves the
        iterations of 1e-6 on Reuters-21578 with the same F1 to three decimals
        (docs/benchmarks.md); scipy's 1e-6 remains the default of :func:`textsel.lsqr`.
    max_iter : int, optional
        LSQR iteration limit (default twice the number of terms).
    n_jobs : int, default=None
        The number of threads, over groups of documents (rows).  ``None`` or ``-1`` means every core this
        process may use, within the limits of threadpoolctl's ``threadpool_limits`` and
        ``OMP_NUM_THREADS`` (as for scikit-learn's OpenMP estimators, not joblib's ``None`` = 1; see
        "Threads: n_jobs" in the scaling page). The model does not depend on it.
    threshold : None or "scut", default None
        None predicts a class where its score is positive; "scut" chooses a
        threshold per class for F1 by ``cv``-fold cross-validation on the training
        data, with the SCutFBR.1 fallback below F1 = ``fbr`` (:func:`scut_thresholds`).
        Thresholds decide binary and multi-label tasks; single-label multi-class
        prediction stays the highest score.
    cv : int, default 5
        Folds for "scut".
    fbr : float, default 0.3
        The fallback F1 of "scut".
    class_weight : dict, "balanced" or None, default None
        Weights of each class's documents (scikit-learn's convention, as in RidgeClassifier):
        multiply every document's squared error by its class's weight.

    Attributes
    ----------
    coef_ : ndarray of shape (n_columns, n_terms)
        One row per class (one row for a binary task).
    intercept_ : ndarray of zeros
        RLSC has no intercept; zeros, one per row of ``coef_``, for scikit-learn's conventions.
    classes_ : ndarray
        The class labels, sorted (indicator columns for multi-label ``y``).
    n_iter_ : ndarray of int
        LSQR iterations per class.
    thresholds_ : ndarray
        Decision threshold per class (zeros unless ``threshold="scut"``).
    """

    _fit_intercept = False

    def __init__(self, alpha=1.0, tol=1e-4, max_iter=None, n_jobs=None, threshold=None, cv=5, fbr=0.3,
                 class_weight=None):  # fmt: skip
        self.class_weight = class_weight
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.threshold = threshold
        self.cv = cv
        self.fbr = fbr

    def _delta_and_damp(self, rows):
        alpha = check_real(self.alpha, "alpha", 0.0, None)
        return None, np.full(rows.recipe.n_columns, np.sqrt(alpha))


class ProximalSVC(_LSQRLinearClassifier):
    """Proximal SVM (Fung & Mangasarian 2001), one-vs-rest.

    ``min v/2 ||(w, b)||^2 + 1/2 ||[X, 1](w, b) - t||^2`` per class.

    Parameters
    ----------
    v : "auto" or float
        Regularisation; "auto" is Zhuang et al.'s estimate 2 mean_i ||x_i||
        with unit weights.
    tol, max_iter, n_jobs, threshold, cv, fbr, class_weight
        As in :class:`RLSClassifier`.

    Attributes
    ----------
    coef_, intercept_, classes_, n_iter_
        As in :class:`RLSClassifier`; ``intercept_`` is the bias b.
    v_ : ndarray
        The v used for each class.
    """

    def __init__(self, v="auto", tol=1e-4, max_iter=None, n_jobs=None, threshold=None, cv=5, fbr=0.3,
                 class_weight=None):  # fmt: skip
        self.class_weight = class_weight
        self.v = v
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.threshold = threshold
        self.cv = cv
        self.fbr = fbr

    def _delta_and_damp(self, rows):
        v = _positive_or_auto(self.v, "v")
        if v is None:  # 2 x the documents' mean norm, each counted by its weight
            sums = rows.norm_sums()
            v = 2.0 * sums.norms / sums.total
        self.v_ = np.full(rows.recipe.n_columns, v)
        return None, np.sqrt(self.v_)


class WeightedProximalSVC(_LSQRLinearClassifier):
    """Weighted proximal SVM for skewed classes (Zhuang et al. 2006), one-vs-rest.

    ``min v/2 ||(w, b)||^2 + 1/2 ||Delta ([X, 1](w, b) - t)||^2`` per class, with
    document weights ``delta- = 1`` for negatives and ``delta+`` for positives.

    Parameters
    ----------
    v : "auto" or float
        "auto" (default) is 2 mean_i(delta_i ||x_i||) per class, the best reading
        of the paper's garbled estimate of v (its Sec. 4.1).
    delta : "auto", float or array-like of shape (n_columns,)
        ``delta+``; "auto" is 1 + (sqrt(N-/N+) - 1)/2 per class, half-way to full
        balance (see :func:`proximal_weights` for the reading of the paper).
    tol, max_iter, n_jobs, threshold, cv, fbr, class_weight
        As in :class:`RLSClassifier`.

    Attributes
    ----------
    coef_, intercept_, classes_, n_iter_
        As in :class:`ProximalSVC`.
    v_, delta_ : ndarray
        The v and ``delta+`` used for each class.
    """

    def __init__(
        self, v="auto", delta="auto", tol=1e-4, max_iter=None, n_jobs=None, threshold=None, cv=5, fbr=0.3,
        class_weight=None,
    ):  # fmt: skip
        self.class_weight = class_weight
        self.v = v
        self.delta = delta
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.threshold = threshold
        self.cv = cv
        self.fbr = fbr

    def _delta_and_damp(self, rows):
        n_columns = rows.recipe.n_columns
        if isinstance(self.delta, str) and self.delta == "auto":
            empty = np.flatnonzero(rows.sums.positives == 0)
            if empty.size:
                raise ValueError(
                    f"WeightedProximalSVC: sample_weight and class_weight leave class column {empty[0]} no "
                    "positive document of weight > 0, and its delta (from N- / N+) is undefined; give its "
                    "positives a weight, or fix delta"
                )
            delta = delta_from_counts(rows.sums.positives, rows.sums.total)
        else:
            delta = np.asarray(self.delta, dtype=np.float64)
            if delta.ndim > 1 or (delta.ndim == 1 and delta.shape[0] != n_columns):
                raise ValueError(f"delta must be 'auto', a number or {n_columns} numbers (one per class)")
            delta = np.broadcast_to(delta, (n_columns,)).copy()
            if not np.isfinite(delta).all() or (delta <= 0).any():
                raise ValueError("delta must be 'auto' or positive numbers, one per class column")
        v = _positive_or_auto(self.v, "v")
        if v is None:  # 2 x the mean of delta_i ||x_i|| per column, each document counted by its weight
            sums = rows.norm_sums()
            self.v_ = 2.0 * (sums.norms + (delta - 1.0) * sums.positive_norms) / sums.total
        else:
            self.v_ = np.full(n_columns, v)
        self.delta_ = delta
        return delta, np.sqrt(self.v_)
