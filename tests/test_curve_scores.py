"""AUC and best F1 for many score columns at once, against scikit-learn call by call."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.metrics import precision_recall_curve, roc_auc_score

from textsel.masking import auc_best_f1


def sklearn_best_f1(truth, scores):
    precision, recall, _ = precision_recall_curve(truth, scores)
    f1 = np.divide(2 * precision * recall, precision + recall, out=np.zeros_like(precision),
                   where=precision + recall > 0)  # fmt: skip
    return f1.max()


def assert_matches_sklearn(truth, S):
    auc, best = auc_best_f1(truth, S)
    for j in range(S.shape[1]):
        assert auc[j] == pytest.approx(roc_auc_score(truth, S[:, j]), abs=1e-12)
        assert best[j] == pytest.approx(sklearn_best_f1(truth, S[:, j]), abs=1e-12)


@st.composite
def labelled_scores(draw):
    n = draw(st.integers(2, 80))
    truth = draw(hnp.arrays(bool, n))
    if truth.all() or not truth.any():  # both classes; one of either is the common shrunk case
        truth[0] = not truth[0]
    # few distinct values make ties the rule; wide floats, signed zeros and huge values too
    values = st.one_of(
        st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5]),
        st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False),
    )
    S = draw(hnp.arrays(np.float64, (n, draw(st.integers(1, 4))), elements=values))
    return truth, S


@settings(max_examples=300, deadline=None)
@given(labelled_scores())
def test_equals_sklearn_on_adversarial_scores(case):
    """Ties, signed zeros, extreme magnitudes, one positive or one negative: equal to
    roc_auc_score and the best F1 of precision_recall_curve to 1e-12."""
    truth, S = case
    assert_matches_sklearn(truth, S)


def test_random_scores_many_columns():
    rng = np.random.default_rng(0)
    truth = rng.random(3000) < 0.08
    S = rng.normal(size=(3000, 40)) + truth[:, None] * np.linspace(0, 2, 40)
    S[:, :5] = np.round(S[:, :5], 1)  # coarse scores: many ties
    assert_matches_sklearn(truth, S)


@pytest.mark.parametrize(
    "truth, scores, auc, f1",
    [
        ([0, 1, 0, 1], [3.0, 3.0, 3.0, 3.0], 0.5, 2 * 2 / (4 + 2)),  # constant: one threshold
        ([0, 0, 0, 1], [0.1, 0.2, 0.3, 0.9], 1.0, 1.0),  # one positive, ranked first
        ([1, 0, 0, 0], [0.1, 0.2, 0.3, 0.9], 0.0, 2 * 1 / (4 + 1)),  # one positive, ranked last
    ],
)
def test_hand_computed_cases(truth, scores, auc, f1):
    got_auc, got_f1 = auc_best_f1(truth, scores)
    assert got_auc[0] == pytest.approx(auc, abs=1e-15)
    assert got_f1[0] == pytest.approx(f1, abs=1e-15)


@pytest.mark.parametrize(
    "truth, scores, match",
    [
        ([1, 1, 1], [0.1, 0.2, 0.3], "both classes"),
        ([0, 1, 0], [0.1, np.nan, 0.3], "NaN"),
        ([0, 1, 0], [0.1, 0.2], "shape"),
    ],
)
def test_bad_input(truth, scores, match):
    with pytest.raises(ValueError, match=match):
        auc_best_f1(truth, scores)
