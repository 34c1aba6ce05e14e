"""What textsel's estimators share.

Every public estimator derives from :class:`Estimator`, whose subclasses' ``fit`` and
``partial_fit`` leave the estimator as it was when they fail, by construction.  The mixins hold
the behaviour common to a family (checked ``transform`` for the selectors, ``decision_function``
for the linear classifiers, how many terms a selector keeps).  :func:`fit_input` is how every
``fit`` reads ``X``, in memory or a Dask array alike: an estimator has one ``fit``, and the Dask
layer never calls into an estimator.
"""

from __future__ import annotations

import functools

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted, validate_data

from ._checks import check_positive_int, check_sparse_structure, plain
from ._dispatch import dispatched
from ._errors import warn

__all__ = [
    "FITTING_METHODS",
    "CheckedSelectorMixin",
    "Estimator",
    "LinearScoresMixin",
    "fit_input",
    "terms_to_keep",
]


class CheckedSelectorMixin:
    """Put before scikit-learn's ``SelectorMixin``: ``transform`` and ``inverse_transform`` refuse a
    malformed sparse ``X`` (see :func:`textsel._checks.check_sparse_structure`) before
    scikit-learn slices it."""

    @dispatched("map_row_blocks", x_at=1)
    def transform(self, X):
        """Keep the selected columns of ``X`` (scikit-learn's ``SelectorMixin.transform``); a Dask
        array of CSR row blocks gives a lazy Dask array of the selected columns' blocks."""
        return super().transform(check_sparse_structure(X))

    def inverse_transform(self, X):
        """Put the selected columns back in place (``SelectorMixin.inverse_transform``)."""
        return super().inverse_transform(check_sparse_structure(X))


class LinearScoresMixin:
    """``decision_function`` for estimators with ``coef_`` (n_problems x n_features) and ``intercept_``."""

    @dispatched("map_row_blocks", x_at=1)
    def decision_function(self, X):
        """Signed distances: (n_samples,) for a single problem, else (n_samples, n_problems);
        for a Dask array of CSR row blocks, a lazy Dask array computed block by block."""
        check_is_fitted(self, "coef_")
        X = check_sparse_structure(X)
        X = validate_data(self, X, accept_sparse="csr", dtype=(np.float64, np.float32), reset=False)
        scores = safe_sparse_dot(X, self.coef_.T, dense_output=True) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


#: the methods that change a fitted estimator; :class:`Estimator` makes each all-or-nothing
FITTING_METHODS = ("fit", "partial_fit", "fit_stats", "fit_file")


class Estimator(BaseEstimator):
    """scikit-learn's ``BaseEstimator`` whose subclasses' fits are all-or-nothing.

    Every method of :data:`FITTING_METHODS` a subclass defines is wrapped when the class is
    created, so that when it raises (KeyboardInterrupt included) the estimator's attributes are
    put back as they were before the call: an unfitted estimator stays unfitted, a fitted one
    keeps its previous model and predicts as before, a chunk that ``partial_fit`` refused is not
    counted.  A new estimator gets this by deriving from the class, not by remembering a decorator.
    Fits assign new arrays rather than writing into the old ones, so a shallow copy of the
    attributes is what is restored (``tests/test_atomic_fits.py`` checks every estimator's arrays
    cell by cell after a failure).
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in FITTING_METHODS:
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_all_or_nothing", False):
                setattr(cls, name, _all_or_nothing(method))

    def __setstate__(self, state):
        # estimators pickled before the thread count was named n_jobs (scikit-learn's name) kept it
        # as n_threads: the same setting, read under its present name
        if isinstance(state, dict) and "n_threads" in state and "n_jobs" not in state:
            state = dict(state)
            state["n_jobs"] = state.pop("n_threads")
        super().__setstate__(state)


def _all_or_nothing(fit):
    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        saved = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    wrapper._all_or_nothing = True
    return wrapper


@dispatched("input_as_is", x_at=1)
def fit_input(est, X, y, **validate):
    """``X`` and ``y`` as a ``fit`` reads them: in memory, checked by scikit-learn's
    ``validate_data`` (with ``validate``) after textsel's own check of a sparse matrix's structure;
    a Dask array of row blocks (or a :class:`textsel.distributed.BlockMatrix`) as it is, its width
    recorded as ``validate_data`` records it, for the calls that accept it to read on the cluster
    (``textsel.distributed.handlers.input_as_is``)."""
    return validate_data(est, check_sparse_structure(X), y, **validate)


def fit_statistics(est, stats) -> None:
    """Record, for a selector fitted on ``stats`` (a :class:`textsel.TermStats`) rather than on
    ``X``, the width ``validate_data`` would record: the statistics' terms are its columns."""
    from ._stats import TermStats

    if not isinstance(stats, TermStats):
        raise TypeError(f"stats must be a TermStats (textsel.term_stats, TermCounter.stats_), got "
                        f"{type(stats).__name__}")  # fmt: skip
    est.n_features_in_ = stats.n_terms
    if hasattr(est, "feature_names_in_"):
        del est.feature_names_in_


def terms_to_keep(k, n_available: int, what: str = "n_features") -> int:
    """The number of terms a selector keeps for its ``k``: ``"all"`` or an integer >= 0 (0 keeps
    none, as ``SelectKBest(k=0)``: its ``transform`` then warns that no feature was selected).

    A ``k`` above what there is keeps everything with a ``UserWarning`` naming both (as
    scikit-learn's ``SelectKBest`` does), so that a grid over k runs on small vocabularies.
    """
    if isinstance(k, str) and k == "all":
        return n_available
    if isinstance(k, str):
        raise TypeError(f"k must be an integer >= 0 or 'all', got {plain(k)!r}")
    k = check_positive_int(k, "k", 0)
    if k > n_available:
        warn(f"k={k} is greater than {what}={n_available}; all {n_available} are kept")
        return n_available
    return k
