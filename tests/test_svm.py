"""DualLinearSVC: KKT conditions, the primal objective against LinearSVC's, determinism, conventions."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import check_estimator

import textsel


def data(seed=0, n=200, d=40, n_classes=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = rng.random((n, d)) * (rng.random((n, d)) < 0.3)
    X[np.arange(n), y] += 1.0  # class k leans on feature k
    return sp.csr_matrix(X), y


def primal(model, X, y, C, loss):
    """1/2 ||(w, b/scaling)||^2 + C sum loss: liblinear's objective, bias regularized."""
    w = model.coef_.ravel()
    b = np.ravel(model.intercept_)[0]
    scaling = getattr(model, "intercept_scaling", 1.0)
    signs = np.where(y == model.classes_[1], 1.0, -1.0)
    margins = np.maximum(0.0, 1 - signs * (X @ w + b))
    losses = margins if loss == "hinge" else margins**2
    return 0.5 * (w @ w + (b / scaling) ** 2) + C * losses.sum()


def test_check_estimator():
    # scikit-learn's repetition check compares at the default tol = 1e-4, where two runs of an
    # iterative solver agree to about 1e-4 only; test_sample_weight_is_repetition below makes
    # the same comparison at a tight tolerance
    tolerance = "weighted and repeated fits agree to the solver tolerance (tested at tol=1e-10)"
    check_estimator(
        textsel.DualLinearSVC(),
        expected_failed_checks={
            "check_sample_weight_equivalence_on_dense_data": tolerance,
            "check_sample_weight_equivalence_on_sparse_data": tolerance,
        },
    )


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("newton", [False, True])
def test_sample_weight_is_repetition(loss, newton):
    """Integer weights equal repeating documents, and zero weights dropping them, at tight tol."""
    X, y = data(3, n=120, d=15, n_classes=3)
    weights = np.arange(120) % 3
    repeat = np.repeat(np.arange(120), weights)
    params = dict(loss=loss, tol=1e-10, max_iter=200_000, random_state=0, newton=newton)
    weighted = textsel.DualLinearSVC(**params).fit(X, y, sample_weight=weights)
    repeated = textsel.DualLinearSVC(**params).fit(X[repeat], y[repeat])
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(weighted.intercept_, repeated.intercept_, rtol=1e-6, atol=1e-7)
    assert (weighted.alpha_[:, weights == 0] == 0).all()


def test_copies_with_opposite_labels_reach_the_optimum_of_their_weights():
    """Two copies of one document, labelled apart and weighted 1,158 and 12 (one term repeated in
    every document, grouped): after two exact coordinate steps every projected gradient is -1.99,
    so their spread passed liblinear's stopping test there, on the model where the lighter label
    wins.  The default tolerance now reaches the tight optimum: the intercept of scikit-learn's
    LinearSVC on the 1,170 documents themselves."""
    X = sp.csr_matrix(np.ones((2, 10)))
    y = np.array([0, 1])
    expanded = sp.csr_matrix(np.ones((1170, 10)))
    expanded_y = np.r_[np.zeros(1158, dtype=int), np.ones(12, dtype=int)]
    reference = LinearSVC(tol=1e-10, max_iter=1_000_000).fit(expanded, expanded_y)
    for seed in range(6):
        model = textsel.DualLinearSVC(random_state=seed).fit(X, y, sample_weight=[1158.0, 12.0])
        assert model.converged_.all()
        np.testing.assert_allclose(model.intercept_, reference.intercept_, atol=1e-5)
        assert (model.predict(X) == 0).all()


def test_sample_weight_rejects_bad_values():
    X, y = data(4)
    with pytest.raises(ValueError, match="(?i)negative"):
        textsel.DualLinearSVC().fit(X, y, sample_weight=-np.ones(X.shape[0]))
    with pytest.raises(ValueError, match="sample_weight"):
        textsel.DualLinearSVC().fit(X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError):
        textsel.DualLinearSVC().fit(X, y, sample_weight=np.full(X.shape[0], np.nan))


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_newton_finish_reaches_the_same_optimum(loss):
    """The Newton finish changes the path, not the problem: same objective, same KKT point."""
    rng = np.random.default_rng(5)
    X = sp.csr_matrix((rng.random((400, 300)) < 0.1).astype(float))  # Boolean, unnormalised
    y = (X[:, :10].sum(axis=1).A.ravel() + rng.normal(0, 0.7, 400) > 1.2).astype(int)
    plain = textsel.DualLinearSVC(loss=loss, tol=1e-6, max_iter=50_000, newton=False, random_state=0).fit(
        X, y
    )
    finish = textsel.DualLinearSVC(loss=loss, tol=1e-6, max_iter=50_000, random_state=0).fit(X, y)
    assert plain.converged_.all() and finish.converged_.all()
    assert primal(finish, X, y, 1.0, loss) == pytest.approx(primal(plain, X, y, 1.0, loss), rel=1e-6)
    np.testing.assert_allclose(finish.coef_, plain.coef_, atol=1e-3)
    if loss == "squared_hinge":
        assert finish.n_iter_ < plain.n_iter_


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_primal_objective_matches_linear_svc(loss, C):
    X, y = data(1)
    ours = textsel.DualLinearSVC(C=C, loss=loss, tol=1e-8, max_iter=100_000, random_state=0).fit(X, y)
    ref = LinearSVC(C=C, loss=loss, dual=True, tol=1e-8, max_iter=100_000, random_state=0).fit(X, y)
    p_ours, p_ref = primal(ours, X, y, C, loss), primal(ref, X, y, C, loss)
    assert p_ours == pytest.approx(p_ref, rel=1e-3)
    assert ours.converged_.all()


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_kkt_box_and_weights_from_multipliers(loss):
    X, y = data(2, n_classes=3)
    model = textsel.DualLinearSVC(C=0.5, loss=loss, tol=1e-6, random_state=1).fit(X, y)
    assert (model.alpha_ >= 0).all()
    if loss == "hinge":
        assert (model.alpha_ <= 0.5 + 1e-12).all()
    Xd = X.toarray()
    for k in range(3):
        signs = np.where(y == model.classes_[k], 1.0, -1.0)
        np.testing.assert_allclose(model.coef_[k], (signs * model.alpha_[k]) @ Xd, atol=1e-10)
        np.testing.assert_allclose(model.intercept_[k], (signs * model.alpha_[k]).sum(), atol=1e-10)
        # SVC's convention: coef_ = dual_coef_ . support vectors
        np.testing.assert_allclose(model.coef_[k], model.dual_coef_[k] @ Xd[model.support_], atol=1e-10)


def test_same_seed_same_model():
    X, y = data(3)
    a = textsel.DualLinearSVC(random_state=5).fit(X, y)
    b = textsel.DualLinearSVC(random_state=5).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.alpha_, b.alpha_)
    c = textsel.DualLinearSVC(random_state=6, tol=1e-8, max_iter=10_000).fit(X, y)
    d = textsel.DualLinearSVC(random_state=5, tol=1e-8, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(c.coef_, d.coef_, atol=1e-4)


def test_threads_do_not_change_the_model():
    X, y = data(4, n_classes=4)
    one = textsel.DualLinearSVC(random_state=0, n_jobs=1).fit(X, y)
    two = textsel.DualLinearSVC(random_state=0, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.coef_, two.coef_)


def test_class_weight_scales_the_box():
    X, y = data(5)
    model = textsel.DualLinearSVC(C=1.0, loss="hinge", class_weight={0: 1.0, 1: 3.0}, tol=1e-6).fit(X, y)
    pos = y == 1
    assert model.alpha_[0, pos].max() <= 3.0 + 1e-12 and model.alpha_[0, ~pos].max() <= 1.0 + 1e-12
    assert model.alpha_[0, pos].max() > 1.0  # the wider box is used


def test_agrees_with_linear_svc_on_predictions():
    X, y = data(6, n=400, n_classes=3)
    ours = textsel.DualLinearSVC(random_state=0).fit(X, y).predict(X)
    ref = LinearSVC(dual=True, random_state=0).fit(X, y).predict(X)
    assert (ours == ref).mean() > 0.98


@pytest.mark.parametrize(
    "params, exc, match",
    [
        ({"C": 0}, ValueError, "C must be > 0"),
        ({"C": -1}, ValueError, "C must be > 0"),
        ({"loss": "log"}, ValueError, "loss must be one of"),
        ({"tol": 0}, ValueError, "tol must be > 0"),
        ({"max_iter": 0}, ValueError, "max_iter must be >= 1"),
        ({"intercept_scaling": 0}, ValueError, "intercept_scaling must be > 0"),
    ],
)
def test_bad_parameters(params, exc, match):
    X, y = data(7)
    with pytest.raises(exc, match=match):
        textsel.DualLinearSVC(**params).fit(X, y)


def test_single_class_and_nan():
    X, y = data(8)
    with pytest.raises(ValueError, match="1 class"):
        textsel.DualLinearSVC().fit(X, np.zeros(X.shape[0]))
    X = X.copy()
    X.data[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        textsel.DualLinearSVC().fit(X, y)


def test_weights_near_the_double_range_give_a_finite_model():
    """Found by fuzzing: documents weighted 1e308 made the Newton finish's conjugate gradients
    overflow (the face's diagonal 1/(2C) is subnormal) and the intercept NaN.  The step is now
    abandoned; coordinate descent reaches the model it reaches without the finish."""
    X = sp.csr_matrix((4, 2))
    y = np.array([3, 0, 0, 3])
    w = np.full(4, 1e308)
    with_newton = textsel.DualLinearSVC(newton=True, random_state=0).fit(X, y, sample_weight=w)
    without = textsel.DualLinearSVC(newton=False, random_state=0).fit(X, y, sample_weight=w)
    assert np.isfinite(with_newton.intercept_).all() and np.isfinite(with_newton.alpha_).all()
    np.testing.assert_allclose(with_newton.intercept_, without.intercept_, rtol=1e-6)
