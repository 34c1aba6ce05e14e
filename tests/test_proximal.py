"""RLSC, the proximal SVM and the weighted proximal SVM against independent references."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_corpus
from sklearn.linear_model import Ridge

import textsel
import textsel.proximal
from textsel.proximal import proximal_weights

TIGHT = dict(tol=1e-12)


def data(seed=0, n_docs=120, n_terms=30, n_classes=3):
    rng = np.random.default_rng(seed)
    X = sp.random(n_docs, n_terms, density=0.2, random_state=seed, format="csr")
    y = rng.integers(0, n_classes, n_docs)
    y[:n_classes] = np.arange(n_classes)
    return X, y


def with_ones(X):
    return sp.hstack([X, np.ones((X.shape[0], 1))]).tocsr()


def targets(y, classes):
    return np.where(y[:, None] == classes[None, :], 1.0, -1.0)


def test_rlsc_is_ridge_without_intercept():
    X, y = data(1)
    model = textsel.RLSClassifier(alpha=0.7, **TIGHT).fit(X, y)
    ref = Ridge(alpha=0.7, fit_intercept=False, solver="cholesky").fit(X, targets(y, model.classes_))
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-7, atol=1e-9)
    assert not model.intercept_.any()


def test_proximal_svc_is_ridge_on_x_with_a_regularized_bias_column():
    X, y = data(2)
    model = textsel.ProximalSVC(v=0.9, **TIGHT).fit(X, y)
    ref = Ridge(alpha=0.9, fit_intercept=False, solver="cholesky").fit(
        with_ones(X), targets(y, model.classes_)
    )
    np.testing.assert_allclose(np.c_[model.coef_, model.intercept_], ref.coef_, rtol=1e-7, atol=1e-9)


def test_weighted_proximal_svc_is_weighted_ridge_with_the_papers_weights():
    X, y = data(3, n_classes=4)
    y[y == 3] = np.r_[3, 3, np.zeros(np.sum(y == 3) - 2, int)]  # a rare class
    model = textsel.WeightedProximalSVC(**TIGHT).fit(X, y)
    T = targets(y, model.classes_)
    n_pos = (T > 0).sum(axis=0)
    n_neg = len(y) - n_pos
    np.testing.assert_allclose(model.delta_, 1 + (np.sqrt(n_neg / n_pos) - 1) / 2)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    for k in range(T.shape[1]):
        delta = np.where(T[:, k] > 0, model.delta_[k], 1.0)
        assert model.v_[k] == pytest.approx(2 * np.mean(delta * norms))
        ref = Ridge(alpha=model.v_[k], fit_intercept=False, solver="cholesky")
        ref.fit(with_ones(X), T[:, k], sample_weight=delta**2)
        np.testing.assert_allclose(
            np.r_[model.coef_[k], model.intercept_[k]], ref.coef_, rtol=1e-6, atol=1e-9
        )


def test_normal_equations_residual_is_small():
    """(A'D^2 A + v I) beta = A'D^2 t holds for every class at a tight tolerance."""
    X, y = data(4)
    model = textsel.WeightedProximalSVC(v=0.5, delta=3.0, **TIGHT).fit(X, y)
    A = with_ones(X).toarray()
    T = targets(y, model.classes_)
    for k in range(T.shape[1]):
        d2 = np.where(T[:, k] > 0, 9.0, 1.0)
        beta = np.r_[model.coef_[k], model.intercept_[k]]
        lhs = A.T @ (d2 * (A @ beta)) + 0.5 * beta
        rhs = A.T @ (d2 * T[:, k])
        assert np.linalg.norm(lhs - rhs) <= 1e-8 * np.linalg.norm(rhs)


def test_binary_multiclass_and_multilabel_shapes():
    X, y = data(5, n_classes=2)
    binary = textsel.ProximalSVC().fit(X, np.array(["no", "yes"])[y])
    assert binary.coef_.shape == (1, X.shape[1]) and binary.decision_function(X).shape == (X.shape[0],)
    assert set(binary.predict(X)) <= {"no", "yes"}
    X3, y3 = data(6)
    multi = textsel.WeightedProximalSVC().fit(X3, y3)
    assert multi.decision_function(X3).shape == (X3.shape[0], 3)
    np.testing.assert_array_equal(multi.predict(X3), multi.classes_[multi.decision_function(X3).argmax(1)])
    Y = (np.random.default_rng(6).random((X3.shape[0], 4)) < 0.3).astype(int)
    Y[:2] = 1
    Y[2:4] = 0
    ml = textsel.WeightedProximalSVC().fit(X3, Y)
    assert ml.predict(X3).shape == Y.shape and set(np.unique(ml.predict(X3))) <= {0, 1}
    assert ml.n_iter_.shape == (4,)


def test_classes_are_solved_in_one_batch_like_one_at_a_time():
    X, y = data(7)
    model = textsel.WeightedProximalSVC(**TIGHT).fit(X, y)
    for k, c in enumerate(model.classes_):
        one = textsel.WeightedProximalSVC(delta=model.delta_[k], v=model.v_[k], **TIGHT).fit(
            X, (y == c).astype(int)
        )
        np.testing.assert_allclose(one.coef_[0], model.coef_[k], rtol=1e-12, atol=1e-14)


def test_weighting_repairs_a_rare_class():
    """On a skewed task the weighted model finds more of the rare class than the plain one."""
    rng = np.random.default_rng(8)
    n = 600
    y = (rng.random(n) < 0.05).astype(int)
    dense = rng.random((n, 40)) * (rng.random((n, 40)) < 0.2)
    dense[:, :3] += y[:, None] * (rng.random((n, 3)) < 0.5)
    X = sp.csr_matrix(dense)
    plain = textsel.ProximalSVC().fit(X, y).predict(X)
    weighted = textsel.WeightedProximalSVC().fit(X, y).predict(X)
    assert (weighted[y == 1] == 1).sum() > (plain[y == 1] == 1).sum()


@pytest.mark.parametrize(
    "est, fit_y, exc, match",
    [
        (textsel.ProximalSVC(v=-1), None, ValueError, "v must be 'auto' or a positive number"),
        (textsel.ProximalSVC(v="big"), None, TypeError, "v must be 'auto' or a positive number"),
        (textsel.WeightedProximalSVC(delta=[1, 2]), None, ValueError, "delta"),
        (textsel.WeightedProximalSVC(delta=-2.0), None, ValueError, "delta must be"),
        (textsel.RLSClassifier(alpha=-1), None, ValueError, "alpha must be"),
        (textsel.RLSClassifier(tol=-1), None, ValueError, "tol must be"),
        (textsel.RLSClassifier(max_iter=0), None, ValueError, "max_iter must be"),
        (textsel.ProximalSVC(), np.zeros(120), ValueError, "1 class"),
        (textsel.ProximalSVC(), np.c_[np.ones(120), np.r_[np.ones(60), np.zeros(60)]], ValueError, "every"),
        (textsel.ProximalSVC(), np.linspace(0, 1, 120), ValueError, "Unknown label type"),
    ],
)
def test_bad_input(est, fit_y, exc, match):
    X, y = data(9)
    with pytest.raises(exc, match=match):
        est.fit(X, y if fit_y is None else fit_y)


def test_nan_in_x_is_rejected():
    X, y = data(10)
    X = X.copy()
    X.data[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        textsel.WeightedProximalSVC().fit(X, y)


def test_proximal_weights_formula():
    """delta+ = 1 + (sqrt(N-/N+) - 1)/2: by hand, 1 on balanced data (WPSVM = PSVM), and short of
    the full balance delta+^2 N+ = N- that the paper's Eq. 8 describes."""
    T = np.array([[1, -1], [-1, -1], [-1, 1], [-1, -1]], float)
    np.testing.assert_allclose(proximal_weights(T), [1 + (np.sqrt(3) - 1) / 2] * 2)
    T = -np.ones((100, 3))
    T[:50, 0] = 1  # balanced
    T[:10, 1] = 1  # N-/N+ = 9: delta+ = 1 + (3 - 1)/2 = 2
    T[:1, 2] = 1  # N-/N+ = 99
    delta = proximal_weights(T)
    assert delta[0] == 1.0 and delta[1] == pytest.approx(2.0)
    n_pos = (T > 0).sum(axis=0)
    assert (delta[1:] > 1).all() and (delta**2 * n_pos < 100 - n_pos)[1:].all()


def test_scut_thresholds_by_hand():
    scores = np.array([[0.9, 0.2], [0.8, 0.1], [0.4, 0.3], [0.3, 0.0], [-0.5, -0.2]])
    positive = np.array([[1, 0], [1, 0], [0, 0], [1, 0], [0, 1]], bool)
    th = textsel.proximal.scut_thresholds(scores, positive, fbr=0.3)
    # column 0: keeping the top 2 gives F1 = 2*2/(3+2) = 0.8, the top 4: 2*3/(3+4) = 0.857 (best)
    assert th[0] == pytest.approx((0.3 + -0.5) / 2)
    # column 1: its one positive ranks last: best F1 = 2/(1+5) = 0.33 >= 0.3 keeps all 5
    assert th[1] < -0.2
    # with fbr above that, the fallback: only the top-ranked document's score passes
    th_fb = textsel.proximal.scut_thresholds(scores, positive, fbr=0.5)
    assert th_fb[1] == np.nextafter(0.3, -np.inf) and (scores[:, 1] > th_fb[1]).sum() == 1


def test_scut_is_only_a_threshold_shift():
    """SCut changes thresholds_, not the fitted weights; predictions follow scores > thresholds_."""
    X, _ = data(11, n_docs=200)
    Y = (np.random.default_rng(11).random((200, 3)) < 0.2).astype(int)
    plain = textsel.WeightedProximalSVC().fit(X, Y)
    scut = textsel.WeightedProximalSVC(threshold="scut", cv=4).fit(X, Y)
    np.testing.assert_array_equal(plain.coef_, scut.coef_)
    assert not plain.thresholds_.any() and scut.thresholds_.any()
    np.testing.assert_array_equal(scut.predict(X), (scut.decision_function(X) > scut.thresholds_).astype(int))


def test_scut_handles_a_class_absent_from_a_fold():
    X, y = data(12, n_docs=100)
    Y = np.zeros((100, 2), int)
    Y[:50, 0] = 1
    Y[[3, 7], 1] = 1  # both positives fall in the first of 5 folds
    model = textsel.WeightedProximalSVC(threshold="scut", cv=5).fit(X, Y)
    assert np.isfinite(model.thresholds_).all()


@pytest.mark.parametrize(
    "params, match",
    [
        ({"threshold": "rcut"}, "threshold must be None or 'scut'"),
        ({"threshold": "scut", "cv": 1}, "cv must be"),
        ({"threshold": "scut", "fbr": 2.0}, "fbr must be"),
    ],  # fmt: skip
)
def test_scut_parameters_are_checked(params, match):
    X, y = data(13)
    with pytest.raises(ValueError, match=match):
        textsel.ProximalSVC(**params).fit(X, y)


@pytest.mark.parametrize("cls", [textsel.RLSClassifier, textsel.ProximalSVC, textsel.WeightedProximalSVC])
def test_integer_sample_weights_are_repeated_documents(cls):
    """Issue 15: sample_weight multiplies a document's squared error, and the "auto" estimates
    (v, delta) count documents by weight, so weight 2 is the document twice and 0 leaves it out."""
    X, y = random_corpus(n_docs=90, n_terms=25, n_classes=3, seed=12)
    w = np.random.default_rng(1).integers(0, 3, X.shape[0])
    w[:3] = 1  # every class keeps documents
    repeated = np.repeat(np.arange(X.shape[0]), w)
    kw = dict(tol=1e-12, max_iter=10_000)
    a = cls(**kw).fit(X, y, sample_weight=w)
    b = cls(**kw).fit(X[repeated], y[repeated])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("cls", [textsel.RLSClassifier, textsel.ProximalSVC, textsel.WeightedProximalSVC])
def test_class_weight_is_sample_weight_by_class(cls):
    from sklearn.utils.class_weight import compute_sample_weight

    X, y = random_corpus(n_docs=90, n_terms=25, n_classes=3, seed=13)
    kw = dict(tol=1e-12, max_iter=10_000)
    a = cls(class_weight="balanced", **kw).fit(X, y)
    b = cls(**kw).fit(X, y, sample_weight=compute_sample_weight("balanced", y))
    np.testing.assert_array_equal(a.coef_, b.coef_)
    with pytest.raises(ValueError, match="at least one non-zero"):
        cls().fit(X, y, sample_weight=np.zeros(90))
    with pytest.raises(ValueError, match="Negative values"):
        cls().fit(X, y, sample_weight=-np.ones(90))
