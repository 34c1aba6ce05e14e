"""Every public estimator's ``fit`` and ``partial_fit`` is all-or-nothing.

Each estimator is fitted, then made to fail midway through a second fit on other data: by labels
it refuses, by a parameter checked late in the fit, and by an exception injected after part of
the work is done (after the statistics are counted, the terms sampled, the first class or the
full problem solved), a ``BaseException`` as Ctrl-C is.  Afterwards its attributes must be
exactly what they were (every array cell by cell, nested models too) and it must predict or
transform exactly as before; an unfitted estimator must stay unfitted.  The list of estimators
is read from ``textsel.__all__``, so a new one without its cases here fails the test, and each is
checked to take the mechanism from ``textsel._base.Estimator`` rather than a decorator.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator

import textsel
from textsel._base import FITTING_METHODS, Estimator


class Injected(BaseException):
    """Raised inside a fit, as KeyboardInterrupt would be (not an Exception: nothing may catch it)."""


#: estimators whose cases are binary, so that SCut runs (its thresholds are fitted for a binary or
#: multi-label task) and a failure can come after the model is solved
BINARY = {"RLSClassifier", "ProximalSVC"}


def corpus(seed, n_docs=90, n_terms=60, name=""):
    rng = np.random.default_rng(seed)
    X = sp.random(n_docs, n_terms, density=0.2, format="csr", random_state=rng)
    X.data = np.ceil(X.data * 4)
    y = np.arange(n_docs) % (2 if name in BINARY else 3)
    rng.shuffle(y)
    return X, np.array(["earn", "grain", "trade"])[y]


def fails_on_call(n, real):
    """``real`` that raises :class:`Injected` on its n-th call (after n - 1 calls did their work)."""
    calls = {"n": 0}

    def wrapper(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] >= n:
            raise Injected(f"injected at call {calls['n']}")
        return real(*args, **kwargs)

    return wrapper


#: estimator -> (a fresh one, a late-checked bad parameter, where to inject a failure and at
#: which call, whether it has partial_fit)
CASES = {
    "TermSelector": (
        lambda: textsel.TermSelector("bns", k=7),
        {"alpha": 2.0},  # read by the scoring, after the statistics are counted and stored
        ("textsel.selection", "row_scorer", 1),  # after stats_ and classes_ are set
    ),
    "ScalableTermSelector": (
        lambda: textsel.ScalableTermSelector(k=7),
        {"gamma": -1.0},  # checked after the statistics are counted
        ("textsel.scalable", "zeta", 3),  # after avl_all_ and target_avl_ are set, mid-search
    ),
    "DualLinearSVC": (
        lambda: textsel.DualLinearSVC(n_jobs=1),
        {"intercept_scaling": 0.0},
        ("textsel.svm", "fit_binary", 2),  # after the first class's SVM is trained
    ),
    "RLSClassifier": (
        lambda: textsel.RLSClassifier(threshold="scut", cv=2),
        {"fbr": 2.0},  # checked after the labels are encoded (classes_ set)
        ("textsel.least_squares", "lsqr", 2),  # after coef_ is set, in SCut's first fold
    ),
    "ProximalSVC": (
        lambda: textsel.ProximalSVC(threshold="scut", cv=2),
        {"cv": 1000},
        ("textsel.linear_model", "scut_thresholds", 1),  # after every fold is solved
    ),
    "WeightedProximalSVC": (
        lambda: textsel.WeightedProximalSVC(threshold="scut", cv=2),
        {"tol": -1.0},  # checked by the solve, after the weights are estimated
        ("textsel.least_squares", "lsqr", 1),
    ),
    "SRLSClassifier": (
        lambda: textsel.SRLSClassifier(r=30, strategy="ws", random_state=0),
        {"alpha": -1.0},  # checked by the RLS fit, after the terms are sampled (kept_, scales_ set)
        ("textsel.sampling", "RLSClassifier", 1),  # the classifier of the sampled columns
    ),
}


def public_estimators():
    return sorted(
        name
        for name in textsel.__all__
        if isinstance(getattr(textsel, name), type) and issubclass(getattr(textsel, name), BaseEstimator)
    )


def test_every_public_estimator_has_its_cases_and_takes_the_base_class_mechanism():
    assert public_estimators() == sorted(CASES)
    for name in CASES:
        cls = getattr(textsel, name)
        assert issubclass(cls, Estimator), name
        for method in FITTING_METHODS:
            if hasattr(cls, method):
                assert getattr(cls, method)._all_or_nothing, (name, method)


def test_a_new_estimator_gets_all_or_nothing_fits_without_a_decorator():
    class Careless(Estimator):
        def fit(self, X, y=None):
            self.first_ = 1
            raise Injected

        def partial_fit(self, X, y=None):
            self.seen_ = getattr(self, "seen_", 0) + 1
            if self.seen_ > 1:
                raise Injected
            return self

    est = Careless()
    with pytest.raises(Injected):
        est.fit(None)
    assert vars(est) == {}
    est.partial_fit(None)
    with pytest.raises(Injected):
        est.partial_fit(None)
    assert vars(est) == {"seen_": 1}


def same(a, b) -> bool:
    """Deep equality of fitted attributes: arrays cell by cell (NaN equal to NaN, same dtype),
    sparse matrices, term statistics, nested estimators attribute by attribute."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return (
            a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
        )
    if sp.issparse(a):
        return a.shape == b.shape and (a != b).nnz == 0
    if isinstance(a, BaseEstimator):
        return same(vars(a), vars(b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and np.isnan(a):
        return np.isnan(b)
    return bool(a == b)


def snapshot(est):
    """The estimator's attributes, arrays copied (so an in-place write would show)."""
    import copy

    return {k: copy.deepcopy(v) for k, v in vars(est).items()}


def output(est, X):
    if hasattr(est, "predict"):
        return est.predict(X), est.decision_function(X)
    return est.transform(X).toarray(), est.get_support()


def failures(name, est, monkeypatch, fitted=True):
    """(description, call) for each way of failing ``est``'s fits midway on other data (with
    ``fitted``, also the ways that only a fitted estimator refuses)."""
    _, bad_param, (module, attribute, n) = CASES[name]
    X2, y2 = corpus(seed=2, n_docs=80, n_terms=60, name=name)
    one_class = np.full(X2.shape[0], y2[0])

    def with_bad_param(method):
        def call():
            saved = est.get_params()
            est.set_params(**bad_param)
            try:
                getattr(est, method)(X2, y2)
            finally:
                est.set_params(**{k: saved[k] for k in bad_param})

        return call

    def injected(method):
        def call():
            import importlib

            target = importlib.import_module(module)
            with monkeypatch.context() as patch:
                patch.setattr(target, attribute, fails_on_call(n, getattr(target, attribute)))
                getattr(est, method)(X2, y2)

        return call

    cases = [
        ("one class in y", lambda: est.fit(X2, one_class)),
        ("y of another length", lambda: est.fit(X2, y2[:-3])),
        (f"bad parameter {bad_param}", with_bad_param("fit")),
        (f"{Injected.__name__} in {module}.{attribute}", injected("fit")),
    ]
    if hasattr(est, "partial_fit"):
        cases += [
            (
                "partial_fit: labels outside the classes given",
                lambda: est.partial_fit(X2, np.full(80, "wheat"), classes=["earn", "grain", "trade"]),
            ),
            ("partial_fit: other classes given", lambda: est.partial_fit(X2, y2, classes=["earn", "wheat"])),
            (f"partial_fit: bad parameter {bad_param}", with_bad_param("partial_fit")),
            (f"partial_fit: {Injected.__name__} in {module}.{attribute}", injected("partial_fit")),
        ]
        if fitted:
            cases.append(("partial_fit: another vocabulary", lambda: est.partial_fit(X2[:, :50], y2)))
    return cases


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("fitted_by", ["fit", "partial_fit"])
def test_a_failed_fit_leaves_a_fitted_estimator_exactly_as_it_was(name, fitted_by, monkeypatch):
    est = CASES[name][0]()
    if not hasattr(est, fitted_by):
        pytest.skip(f"{name} has no {fitted_by}")
    X1, y1 = corpus(seed=1, name=name)
    if fitted_by == "fit":
        est.fit(X1, y1)
    else:
        est.partial_fit(X1[:45], y1[:45], classes=np.unique(y1)).partial_fit(X1[45:], y1[45:])
    probe, _ = corpus(seed=3, n_docs=30)
    before_output = output(est, probe)
    for what, call in failures(name, est, monkeypatch):
        before = snapshot(est)
        with pytest.raises((ValueError, TypeError, Injected)):
            call()
            pytest.fail(f"{name}, {what}: did not fail")
        after = vars(est)
        changed = sorted(k for k in before.keys() | after.keys() if k not in before or k not in after
                         or not same(before[k], after[k]))  # fmt: skip
        assert not changed, f"{name}, {what}: changed {changed}"
        assert same(output(est, probe), before_output), f"{name}, {what}: predicts differently"


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_failed_first_fit_leaves_the_estimator_unfitted(name, monkeypatch):
    est = CASES[name][0]()
    unfitted = snapshot(est)
    for what, call in failures(name, est, monkeypatch, fitted=False):
        with pytest.raises((ValueError, TypeError, Injected)):
            call()
            pytest.fail(f"{name}, {what}: did not fail")
        assert same(vars(est), unfitted), f"{name}, {what}: left {sorted(set(vars(est)) - set(unfitted))}"
