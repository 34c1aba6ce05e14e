"""Model masking: the prefix-sum curves against per-size brute force, exact re-training, records."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import normalize

import textsel
from textsel.masking import evaluate_subsets, mask_scores, ranked_features, subset_sizes, svset_scores


@pytest.fixture(scope="module")
def task():
    rng = np.random.default_rng(0)
    n, d = 500, 200
    y = (rng.random(n) < 0.3).astype(int)
    X = (rng.random((n, d)) < 0.06).astype(float)
    X[:, :15] += (rng.random((n, 15)) < 0.3) * y[:, None]
    X = normalize(sp.csr_matrix(X))  # unit-length documents, as in Kolcz & Chowdhury
    model = textsel.DualLinearSVC(loss="hinge", random_state=0, tol=1e-6).fit(X[:350], y[:350])
    return model, X[:350], y[:350], X[350:], y[350:]


def test_mask_scores_equal_brute_force(task):
    model, _, _, X_test, _ = task
    rank = ranked_features(model)
    sizes = [1, 7, 40, rank.size]
    scores = mask_scores(model, X_test, sizes)
    w, b = model.coef_[0], model.intercept_[0]
    for s, n in enumerate(sizes):
        expected = X_test[:, rank[:n]] @ w[rank[:n]] + b
        np.testing.assert_allclose(scores[:, s], expected, rtol=1e-12, atol=1e-12)


def test_svset_scores_equal_brute_force(task):
    model, X_train, y_train, X_test, _ = task
    rank = ranked_features(model)
    sizes = [3, 25, 90]
    scores, weights = svset_scores(model, X_train, y_train, X_test, sizes)
    support = np.flatnonzero(model.alpha_[0] > 0)
    coeffs = model.alpha_[0][support] * np.where(y_train[support] == 1, 1.0, -1.0)
    for s, n in enumerate(sizes):
        cols = rank[:n]
        sv = normalize(X_train[support][:, cols])  # each support vector restricted, re-normalised
        w_m = sv.T @ coeffs
        np.testing.assert_allclose(weights[s], w_m, rtol=1e-10, atol=1e-12)
        expected = normalize(X_test[:, cols]) @ w_m + model.intercept_[0]
        np.testing.assert_allclose(scores[:, s], expected, rtol=1e-10, atol=1e-12)


def test_all_features_reproduce_the_original_decision_values(task):
    model, X_train, y_train, X_test, _ = task
    everything = [ranked_features(model).size]
    original = model.decision_function(X_test)
    np.testing.assert_allclose(mask_scores(model, X_test, everything)[:, 0], original, atol=1e-12)
    np.testing.assert_allclose(svset_scores(model, X_train, y_train, X_test, everything)[0][:, 0], original,
                               atol=1e-10)  # fmt: skip


def test_exact_equals_a_fresh_fit_on_the_subset(task):
    model, X_train, y_train, X_test, y_test = task
    rank = ranked_features(model)
    records = evaluate_subsets(model, X_train, y_train, X_test, y_test, [30], methods=("exact",))
    cols = rank[:30]
    fresh = textsel.DualLinearSVC(loss="hinge", random_state=0, tol=1e-6)
    fresh.fit(normalize(X_train[:, cols]), y_train)
    from sklearn.metrics import roc_auc_score

    auc = roc_auc_score(y_test, fresh.decision_function(normalize(X_test[:, cols])))
    assert records[0]["auc"] == pytest.approx(auc, abs=2e-3)


def test_records(task):
    model, X_train, y_train, X_test, y_test = task
    records = evaluate_subsets(model, X_train, y_train, X_test, y_test, [0.1, 0.5, 1.0])
    assert len(records) == 9
    keys = {"size", "fraction", "method", "auc", "best_f1", "cosine", "pearson", "sv_overlap",
            "sv_containment", "seconds"}  # fmt: skip
    for r in records:
        assert set(r) == keys
        assert 0 <= r["auc"] <= 1 and 0 <= r["best_f1"] <= 1
    full = [r for r in records if r["fraction"] == 1.0]
    assert {r["method"] for r in full} == {"exact", "mask", "svset"}
    for r in full:  # at n = all, the three models are the original (up to the re-training tolerance)
        assert r["auc"] == pytest.approx(full[0]["auc"], abs=1e-3)
    exact = [r for r in records if r["method"] == "exact"]
    assert all(r["cosine"] == pytest.approx(1.0) and r["sv_overlap"] == 1.0 for r in exact)


def test_subset_sizes():
    np.testing.assert_array_equal(subset_sizes([0.5, 0.1, 1.0], 10), [1, 5, 10])
    np.testing.assert_array_equal(subset_sizes([3, 3, 1], 10), [1, 3])
    with pytest.raises(ValueError, match="in \\[1, 10\\]"):
        subset_sizes([11], 10)
    with pytest.raises(ValueError, match="\\(0, 1\\]"):
        subset_sizes([1.5], 10)
    with pytest.raises(TypeError):
        subset_sizes(["a"], 10)


def test_bad_input(task):
    model, X_train, y_train, X_test, y_test = task
    with pytest.raises(TypeError, match="fitted textsel.DualLinearSVC"):
        evaluate_subsets(object(), X_train, y_train, X_test, y_test, [5])
    with pytest.raises(ValueError, match="methods must be drawn from"):
        evaluate_subsets(model, X_train, y_train, X_test, y_test, [5], methods=("retrain",))
    with pytest.raises(ValueError, match="both classes"):
        evaluate_subsets(model, X_train, y_train, X_test, np.zeros_like(y_test), [5])
    with pytest.raises(ValueError, match="features but the model"):
        evaluate_subsets(model, X_train, y_train, X_test[:, :10], y_test, [5])
    multi = textsel.DualLinearSVC().fit(X_train, np.arange(X_train.shape[0]) % 3)
    with pytest.raises(ValueError, match="binary"):
        evaluate_subsets(multi, X_train, y_train, X_test, y_test, [5])
