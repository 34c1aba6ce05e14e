"""Probabilities from textsel's classifiers, by the route the docs give (docs/linear_models.md,
"Probabilities"): scikit-learn's CalibratedClassifierCV around each of them.

Each classifier, calibrated, gives probabilities (rows summing to 1, in the order of classes_) on
the embedded SMS Spam Collection and on a three-class corpus, as good as scikit-learn's LinearSVC
calibrated the same way is (the independent reference) within a margin; and the docs page's
table of check_estimator's expected failures is the one the test suite expects."""

import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import ClassifierMixin
from sklearn.calibration import CalibratedClassifierCV
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC

import textsel
from textsel.datasets import load_sms_spam, make_synthetic_corpus

#: every public classifier of textsel, found rather than listed, so that a new one is tested too
CLASSIFIERS = sorted(
    name for name in textsel.__all__
    if isinstance(getattr(textsel, name), type) and issubclass(getattr(textsel, name), ClassifierMixin)
)  # fmt: skip
#: SRLSClassifier trains on r sampled terms: with r=3000 (most of either vocabulary) it is held to the
#: bar of LinearSVC on every term; with fewer terms its probabilities are as calibrated but less sharp
SETTINGS = {"DualLinearSVC": {"random_state": 0}, "SRLSClassifier": {"r": 3000, "random_state": 0}}


def make(name):
    return getattr(textsel, name)(**SETTINGS.get(name, {}))


@pytest.fixture(scope="module")
def sms():
    messages, spam = load_sms_spam(return_X_y=True)
    train, test, y_train, y_test = train_test_split(messages, spam, test_size=0.25, stratify=spam,
                                                    random_state=0)  # fmt: skip
    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
    return vectorizer.fit_transform(train), vectorizer.transform(test), y_train, y_test


@pytest.fixture(scope="module")
def three_classes():
    corpus = make_synthetic_corpus(n_docs=900, n_terms=2000, n_classes=3, random_state=0)
    train, test, y_train, y_test = train_test_split(corpus.data, corpus.target, test_size=0.3,
                                                    stratify=corpus.target, random_state=0)  # fmt: skip
    vectorizer = TfidfVectorizer(sublinear_tf=True)
    return vectorizer.fit_transform(train), vectorizer.transform(test), y_train, y_test


def calibrated_proba(estimator, data, method="sigmoid"):
    X, X_test, y, _ = data
    model = CalibratedClassifierCV(estimator, method=method, cv=3).fit(X, y)
    proba = model.predict_proba(X_test)
    assert proba.shape == (X_test.shape[0], len(np.unique(y)))
    assert np.all((proba >= 0) & (proba <= 1)) and np.allclose(proba.sum(axis=1), 1)
    assert np.array_equal(model.classes_, np.unique(y))
    return model, proba


def test_every_public_classifier_is_found():
    assert set(CLASSIFIERS) >= {"DualLinearSVC", "RLSClassifier", "ProximalSVC", "WeightedProximalSVC",
                                "SRLSClassifier"}  # fmt: skip
    assert not any(hasattr(getattr(textsel, name), "predict_proba") for name in CLASSIFIERS)


@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
@pytest.mark.parametrize("name", CLASSIFIERS)
def test_calibrated_probabilities_of_spam_are_as_good_as_calibrated_linear_svcs(name, method, sms):
    """Brier score of P(spam) on held-out messages: far below the base rate's, and within 1.5x of
    scikit-learn's LinearSVC calibrated the same way (0.015 to 0.02 here)."""
    _, _, y_train, y_test = sms
    model, proba = calibrated_proba(make(name), sms, method)
    _, reference = calibrated_proba(LinearSVC(), sms, method)
    brier, reference_brier = brier_score_loss(y_test, proba[:, 1]), brier_score_loss(y_test, reference[:, 1])
    base_rate = brier_score_loss(y_test, np.full(len(y_test), y_train.mean()))
    assert brier < base_rate / 3 and brier < 1.5 * reference_brier + 0.005, (brier, reference_brier)
    # the probabilities order the messages as the classifier's own scores do, up to the calibrator's ties
    assert np.mean(model.predict(sms[1]) == (proba[:, 1] > 0.5)) > 0.99


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_calibrated_probabilities_of_three_classes(name, three_classes):
    _, _, y_train, y_test = three_classes
    _, proba = calibrated_proba(make(name), three_classes)
    _, reference = calibrated_proba(LinearSVC(), three_classes)
    prior = np.tile(np.bincount(y_train) / len(y_train), (len(y_test), 1))
    loss = log_loss(y_test, proba)
    assert loss < log_loss(y_test, prior) / 2 and loss < 1.5 * log_loss(y_test, reference) + 0.05


def test_the_docs_state_the_check_estimator_failures_the_suite_expects():
    """Each (estimator, check) pair of EXPECTED_FAILURES is on the docs page's table, and no other."""
    from test_sklearn_conventions import EXPECTED_FAILURES

    page = (Path(__file__).resolve().parents[1] / "docs" / "linear_models.md").read_text()
    section = page.split("## scikit-learn's checks", 1)[1].split("\n## ", 1)[0]
    stated = set()
    for row in re.findall(r"^\| (`.*?) \| (`.*?) \|", section, re.M):
        estimators, checks = (re.findall(r"`(\w+)`", cell) for cell in row)
        stated |= {(e, c) for e in estimators for c in checks}
    expected = {(e, c) for e, checks in EXPECTED_FAILURES.items() for c in checks}
    assert stated == expected
