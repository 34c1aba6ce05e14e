"""Scalable term selection (Li & Sun 2007): discriminability against coverage, tuned by vector length."""

from __future__ import annotations

import math
import numbers

import numpy as np
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from ._base import CheckedSelectorMixin, Estimator, fit_input, fit_statistics, terms_to_keep
from ._checks import check_positive_int, check_real, plain
from .selection import top_k
from .termstats import TermStats, term_stats

__all__ = ["ScalableTermSelector", "average_vector_length", "probability_ratio", "target_avl", "zeta"]


def probability_ratio(stats: TermStats, smoothing: float = 0.5) -> np.ndarray:
    """PR(t) = max over classes of (df(t, c+)/df(c+)) / (df(t, c-)/df(c-)), smoothed.

    The paper leaves df(t, c-) = 0 unspecified.  Here every count gets ``smoothing`` added and
    every total twice that (add-s estimates of the two rates; s = 0.5 is the Jeffreys prior):
    PR = ((tp + s)/(pos + 2s)) / ((fp + s)/(neg + 2s)).  With s > 0 every ratio is finite and a
    term absent from the rest scores higher the more documents of the class hold it.
    """
    s = check_real(smoothing, "pr_smoothing", 0.0, None)
    tp = stats.class_df.astype(np.float64)
    fp = stats.df[None, :] - tp
    pos = stats.class_sizes[:, None].astype(np.float64)
    neg = stats.n_docs - pos
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = ((tp + s) / (pos + 2 * s)) / ((fp + s) / (neg + 2 * s))
    return ratio.max(axis=0)


def zeta(log_pr: np.ndarray, log_df: np.ndarray, lam: float) -> np.ndarray:
    """The weighted harmonic mean (lam / log PR + (1 - lam) / log df)^-1.

    A term with log PR <= 0 (no class prefers it) scores 0 for lam > 0; terms with df < 2
    (log df <= 0) are cut: -inf.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = lam / log_pr + (1.0 - lam) / log_df
        out = np.where(log_pr > 0, 1.0 / inv, 0.0) if lam > 0 else log_df.copy()
    return np.where(log_df > 0, out, -np.inf)


def average_vector_length(df: np.ndarray, selected: np.ndarray, n_docs: int) -> float:
    """AVL of a term set: the mean number of its terms per document, sum of df over the set / m."""
    return float(df[selected].sum() / n_docs)


def target_avl(avl_all: float, k: int, gamma: float = 0.085) -> float:
    """AVL°(k) = AVL_T ** (gamma ln k) (natural log), the length Li & Sun aim the top-k set at
    (0 for k = 0: no term, no length, the formula's limit for AVL_T > 1)."""
    if k == 0:
        return 0.0
    try:
        return float(avl_all ** (gamma * math.log(k)))
    except OverflowError:
        raise ValueError(
            f"gamma={gamma:g} aims the top {k} terms at an average vector length beyond floating point "
            f"(AVL_T ** (gamma ln k) with AVL_T = {avl_all:g}); the paper's gamma is 0.085"
        ) from None


class ScalableTermSelector(CheckedSelectorMixin, SelectorMixin, Estimator):
    """Li & Sun's (2007) scalable term selection, as a scikit-learn selector.

    Each term scores zeta(t; lam), the weighted harmonic mean of its discriminability
    log PR(t) (the largest one-vs-rest probability ratio over the classes) and its coverage
    log df(t); terms in fewer than two documents are cut.  lam is found by bisection on [0, 1]
    so that the top-k terms' average vector length, AVL = sum df / m, comes closest to
    AVL°(k) = AVL_T ** (gamma ln k) (the paper's gamma = 0.085).  AVL_T is the AVL of the
    candidate terms, those in two or more documents: the paper computes it after its df >= 2
    cut, so words seen once in a raw matrix do not lengthen the target.  AVL falls as lam grows,
    in steps (the top-k set changes discretely).

    Parameters
    ----------
    k : int or "all", default 1000
        Terms to keep, among the terms in two or more documents.  ``"all"`` keeps every such
        term; a k above their number keeps them all, with a ``UserWarning``.
    gamma : float, default 0.085
        The exponent's slope in AVL°(k) = AVL_T ** (gamma ln k): larger values aim at longer
        document vectors, favouring coverage over discriminability.
    target_avl : float, optional
        Aim at this AVL instead of AVL°(k).
    pr_smoothing : float, default 0.5
        Add-s smoothing of the probability ratio (see :func:`probability_ratio`).
    max_bisections : int, default 40
        The most halvings of lam's interval [0, 1] in the search for the target AVL; the search
        stops sooner when it meets the target or lam has settled to the last bit (after about 53
        halvings), so a large value costs nothing more.
    n_jobs : int, default=None
        The number of threads for counting.  ``None`` or ``-1`` means every core this process may use,
        within the limits of threadpoolctl's ``threadpool_limits`` and ``OMP_NUM_THREADS`` (as for
        scikit-learn's OpenMP estimators, not joblib's ``None`` = 1; see "Threads: n_jobs" in the scaling
        page).  On a Dask array each block is counted on one thread of its worker, whatever this says.

    Attributes
    ----------
    lambda_ : float
        The lam the bisection settled on (the weight of discriminability in zeta).
    avl_ : float
        AVL of the selected terms.
    target_avl_ : float
        The AVL aimed at: ``target_avl`` if given, else AVL°(k).
    avl_all_ : float
        AVL_T, the AVL of the terms in two or more documents.
    scores_ : ndarray of shape (n_features,)
        zeta(t; ``lambda_``).
    """

    def __init__(
        self, k=1000, gamma=0.085, target_avl=None, pr_smoothing=0.5, max_bisections=40, n_jobs=None
    ):
        self.n_jobs = n_jobs
        self.k = k
        self.gamma = gamma
        self.target_avl = target_avl
        self.pr_smoothing = pr_smoothing
        self.max_bisections = max_bisections

    def fit(self, X, y):
        """Compute term statistics and search lam.

        Parameters
        ----------
        X : {sparse matrix, array-like} of shape (n_docs, n_terms), or a Dask array
            A Dask array of CSR row blocks is counted on its cluster.
        y : array-like of shape (n_docs,) or (n_docs, n_classes)

        Returns
        -------
        self
        """
        X, y = fit_input(self, X, y, accept_sparse=("csr", "csc", "coo"), dtype=(np.float64, np.float32),
                         multi_output=True)  # fmt: skip
        return self._fit_stats(term_stats(X, y, n_jobs=self.n_jobs))

    def fit_stats(self, stats: TermStats):
        """Search lam on statistics counted elsewhere (:func:`textsel.term_stats`,
        :class:`textsel.text.TermCounter`): ``fit_stats(term_stats(X, y))`` is ``fit(X, y)``.

        Returns
        -------
        self
        """
        fit_statistics(self, stats)
        return self._fit_stats(stats)

    def _fit_stats(self, stats: TermStats):
        """Search lam on the corpus's statistics and choose the terms."""
        candidates = stats.df >= 2
        eligible = int(candidates.sum())
        if eligible == 0:
            raise ValueError("X has no term in two or more documents; nothing to select")
        k = terms_to_keep(self.k, eligible, "the terms in two or more documents")
        gamma = check_real(self.gamma, "gamma", 0.0, None)
        bisections = check_positive_int(self.max_bisections, "max_bisections", 1)
        m = stats.n_docs
        self.avl_all_ = average_vector_length(stats.df, candidates, m)
        if self.target_avl is None:
            self.target_avl_ = target_avl(self.avl_all_, k, gamma)
        else:
            if isinstance(self.target_avl, (bool, np.bool_)) or not isinstance(self.target_avl, numbers.Real):
                raise TypeError(f"target_avl must be a number, got {plain(self.target_avl)!r}")
            self.target_avl_ = check_real(self.target_avl, "target_avl", 0.0, None)
        log_pr = np.log(probability_ratio(stats, self.pr_smoothing))
        log_df = np.log(np.maximum(stats.df, 1).astype(np.float64))

        def avl(lam):
            # equal scores by lower index, as TermSelector breaks them: a partition's choice among
            # ties would change with unrelated columns
            top = top_k(zeta(log_pr, log_df, lam), k)
            return average_vector_length(stats.df, top, m), top

        lo, hi = 0.0, 1.0
        best = (math.inf, None, None, None)
        for lam in (lo, hi):
            value, top = avl(lam)
            best = min(best, (abs(value - self.target_avl_), lam, value, top), key=lambda b: b[0])
        for _ in range(bisections):
            mid = 0.5 * (lo + hi)
            if not lo < mid < hi:  # lambda has settled to the last bit: halving changes nothing
                break
            value, top = avl(mid)
            best = min(best, (abs(value - self.target_avl_), mid, value, top), key=lambda b: b[0])
            if value == self.target_avl_:
                break
            if value > self.target_avl_:
                lo = mid  # still too long: more weight on discriminability
            else:
                hi = mid
        _, self.lambda_, self.avl_, top = best
        self.scores_ = zeta(log_pr, log_df, self.lambda_)
        self._support = np.zeros(stats.n_terms, dtype=bool)
        self._support[top] = True
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "_support")
        return self._support

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.target_tags.required = True
        return tags
