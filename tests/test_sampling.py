"""Subspace, weight and uniform sampling probabilities, the sampling and rescaling, SRLS."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import check_estimator

import textsel
from textsel.sampling import feature_probabilities, hellinger, sample_features


def matrix(seed=0, m=60, n=40, density=0.2):
    return sp.random(m, n, density=density, random_state=seed, format="csr")


def test_subspace_probabilities_are_leverage_scores_of_a_dense_svd():
    X = matrix(1)
    _, s, vt = np.linalg.svd(X.toarray(), full_matrices=False)
    for k in (3, 10):
        expected = (vt[:k] ** 2).sum(axis=0) / k
        np.testing.assert_allclose(feature_probabilities(X, "ss", k), expected, atol=1e-12)
    rank = np.linalg.matrix_rank(X.toarray())
    np.testing.assert_allclose(
        feature_probabilities(X, "ss"), (vt[:rank] ** 2).sum(axis=0) / rank, atol=1e-12
    )


def test_randomized_subspace_probabilities_approach_the_exact_ones():
    """With a spectral gap after the 10th value (as text has a decaying spectrum), the range
    finder's probabilities are close to the exact ones."""
    rng = np.random.default_rng(2)
    low_rank = rng.random((300, 10)) @ (rng.random((10, 200)) * (rng.random((10, 200)) < 0.3))
    X = sp.csr_matrix(low_rank + 0.01 * rng.random((300, 200)))
    exact = feature_probabilities(X, "ss", 10, method="exact")
    approx = feature_probabilities(X, "ss", 10, method="randomized", n_iter=7, random_state=0)
    assert hellinger(exact, approx) < 0.01


def known_spectrum(m, n, singular_values, seed):
    """X = U diag(s) V' with random orthonormal U, V: its leverage scores are known exactly."""
    rng = np.random.default_rng(seed)
    r = len(singular_values)
    U = np.linalg.qr(rng.standard_normal((m, r)))[0]
    V = np.linalg.qr(rng.standard_normal((n, r)))[0]
    return sp.csr_matrix((U * singular_values) @ V.T), V


@pytest.mark.parametrize("decay", ["gap", "slow"])
def test_range_finder_recovers_known_leverage_scores(decay):
    """On matrices with a known spectrum the randomized method's probabilities approach the true
    ones as tol shrinks (more power iterations), and with a clear gap after k they are exact to
    rounding."""
    k = 8
    s = np.r_[np.linspace(10, 5, k), np.full(30, 0.5)] if decay == "gap" else 1.0 / np.arange(1, 39) ** 0.5
    X, V = known_spectrum(400, 250, s, seed=3)
    truth = (V[:, :k] ** 2).sum(axis=1) / k
    loose = feature_probabilities(X, "ss", k, method="randomized", tol=4.0, random_state=0)
    tight = feature_probabilities(X, "ss", k, method="randomized", tol=0.05, random_state=0)
    assert hellinger(tight, truth) <= hellinger(loose, truth) + 1e-12
    assert hellinger(tight, truth) < (1e-8 if decay == "gap" else 0.05)


@pytest.mark.parametrize("condition", [1e2, 1e6, 1e14])
def test_orthonormal_basis_for_any_conditioning(condition):
    """The final basis: Cholesky QR twice, or Householder QR when Y'Y has no Cholesky factor (a
    condition number near 1/eps); either way orthonormal columns spanning Y."""
    from textsel.sampling import _orthonormal

    rng = np.random.default_rng(6)
    Y = np.linalg.qr(rng.standard_normal((500, 40)))[0] * np.logspace(0, -np.log10(condition), 40)
    Q = _orthonormal(Y.copy())
    np.testing.assert_allclose(Q.T @ Q, np.eye(40), atol=1e-12)
    np.testing.assert_allclose(Q @ (Q.T @ Y), Y, atol=1e-12 * np.abs(Y).max())


def test_power_iterations_follow_the_stated_bound():
    """q is the fewest iterations with (1 + sqrt(k/(p-1)) + e sqrt(k+p)/p sqrt(min_dim-k))^(1/(2q+1))
    <= 1 + tol, evaluated here by hand for k = 100, p = 50 on 20 Newsgroups' 11,314 documents."""
    import math

    from textsel.sampling import power_iterations

    spread = 1 + math.sqrt(100 / 49) + math.e * math.sqrt(150) / 50 * math.sqrt(11314 - 100)
    q = power_iterations(100, 50, 11314, 0.75)
    assert spread ** (1 / (2 * q + 1)) <= 1.75 < spread ** (1 / (2 * q - 1))
    assert q == 4
    assert power_iterations(100, 50, 11314, 0.1) > q > power_iterations(100, 50, 11314, 3.0)


def test_threaded_products_equal_scipy():
    """textsel's row-parallel CSR x dense product (the range finder's passes) equals scipy's,
    written into a reused buffer or a new one, for int32 and int64 indices."""
    from textsel._ext.ccore import csr_matmat
    from textsel._products import PANEL_BYTES, matmat

    rng = np.random.default_rng(4)
    X = sp.random(3000, 700, density=0.05, format="csr", random_state=5)
    V = rng.standard_normal((700, 37))
    out = np.empty((3000, 37))
    np.testing.assert_allclose(matmat(X, V, n_jobs=2, out=out), X @ V, rtol=1e-13, atol=1e-13)
    X64 = X.copy()
    X64.indices, X64.indptr = X64.indices.astype(np.int64), X64.indptr.astype(np.int64)
    np.testing.assert_allclose(matmat(X64, np.asfortranarray(V), n_jobs=3), X @ V, rtol=1e-13, atol=1e-13)
    # a V above PANEL_BYTES takes the column-panel walk: the same sums in the same order, so equal
    # bit for bit to the plain walk's (scipy's, too, here), rows sorted or not
    wide = rng.standard_normal((700, 400))
    assert wide.nbytes > PANEL_BYTES
    shuffled = X.copy()
    for i in range(shuffled.shape[0]):
        a, b = shuffled.indptr[i], shuffled.indptr[i + 1]
        order = rng.permutation(b - a)
        shuffled.indices[a:b], shuffled.data[a:b] = shuffled.indices[a:b][order], shuffled.data[a:b][order]
    for M in (X, shuffled):
        plain = csr_matmat(M.data, M.indices, M.indptr, 700, wide)
        np.testing.assert_array_equal(matmat(M, wide, n_jobs=2), plain)
        np.testing.assert_allclose(plain, X @ wide, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("strategy", ["ss", "ws", "us"])
def test_probabilities_sum_to_one(strategy):
    p = feature_probabilities(matrix(3), strategy, 5 if strategy == "ss" else None)
    assert p.sum() == pytest.approx(1.0) and (p >= 0).all()


def test_weight_probabilities():
    X = matrix(4)
    col_sq = np.asarray(X.multiply(X).sum(axis=0)).ravel()
    np.testing.assert_allclose(feature_probabilities(X, "ws"), col_sq / col_sq.sum())


def test_expected_kept_count_and_rescaling():
    p = feature_probabilities(matrix(5), "ws")
    r = 15
    counts = [sample_features(p, r, seed)[0].size for seed in range(3000)]
    assert np.mean(counts) == pytest.approx(np.minimum(1, r * p).sum(), rel=0.02)
    kept, scales = sample_features(p, r, 0)
    np.testing.assert_allclose(scales, 1 / np.sqrt(np.minimum(1, r * p[kept])))
    a, _ = sample_features(p, r, 7)
    b, _ = sample_features(p, r, 7)
    np.testing.assert_array_equal(a, b)


def test_hellinger():
    assert hellinger([0.5, 0.5], [0.5, 0.5]) == 0
    assert hellinger([1.0, 0.0], [0.0, 1.0]) == pytest.approx(np.sqrt(2))
    with pytest.raises(ValueError):
        hellinger([0.5, 0.5], [1.0])


def test_srls_check_estimator():
    check_estimator(textsel.SRLSClassifier(r=50, random_state=0))


def test_srls_equals_rlsc_on_the_sampled_rescaled_columns():
    X = matrix(6, m=120, n=50)
    y = np.arange(120) % 3
    model = textsel.SRLSClassifier(r=30, strategy="ws", alpha=0.5, random_state=1).fit(X, y)
    Xs = X[:, model.kept_] @ sp.diags(model.scales_)
    ref = textsel.RLSClassifier(alpha=0.5).fit(Xs, y)
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(Xs))


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: feature_probabilities(matrix(7), "xx"), ValueError, "strategy must be one of"),
        (lambda: feature_probabilities(sp.csr_matrix((5, 5)), "ws"), ValueError, "all zeros"),
        (lambda: feature_probabilities(matrix(7), "ss", 0), ValueError, "k must be"),
        (lambda: sample_features([0.5, -0.1], 3), ValueError, "non-negative"),
        (lambda: sample_features([0.5, 0.5], 0), ValueError, "r must be > 0"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_randomized_default_k_is_stated_and_works():
    """Issue 15: with the randomized method and no k, k = min(100, min(X.shape)) (was an error)."""
    from textsel.sampling import RANDOMIZED_K

    X = sp.random(300, 150, density=0.05, random_state=3, format="csr")
    p = feature_probabilities(X, "ss", method="randomized", random_state=0)
    q = feature_probabilities(X, "ss", k=min(RANDOMIZED_K, 150), method="randomized", random_state=0)
    np.testing.assert_array_equal(p, q)


def test_srls_defaults_work_on_20newsgroups(data_home):
    """SRLSClassifier() at its defaults on 20 Newsgroups tf-idf (11,314 x 56,436, far above the
    exact SVD's 4M cells) used to raise "k is required"; it now fits by the randomized method
    and classifies far above chance (20 classes)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from textsel.datasets import load_20newsgroups

    news = load_20newsgroups(data_home)
    vec = TfidfVectorizer(sublinear_tf=True, min_df=2)
    X = vec.fit_transform(news.data_train)
    model = textsel.SRLSClassifier(random_state=0).fit(X, news.target_train)
    accuracy = (model.predict(vec.transform(news.data_test)) == news.target_test).mean()
    assert model.kept_.size <= 1000 and accuracy > 0.3


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("scale", [1e38, 1e30, 1e-30, 1e-38])
def test_probabilities_do_not_depend_on_scale_or_dtype(dtype, scale):
    """Found by fuzzing: float32 values of 3e38 overflowed their squares and "ws" gave NaN.  The
    probabilities are scale-invariant, so X far from 1 is rescaled by a power of two (within
    float32's narrower range too)."""
    base = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [3.0, 1.0, 0.0]])
    for strategy in ("ws", "ss"):
        want = feature_probabilities(sp.csr_matrix(base), strategy, method="exact")
        got = feature_probabilities(sp.csr_matrix((base * scale).astype(dtype)), strategy, method="exact")
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-10, atol=1e-7)


@pytest.mark.parametrize("method", ["exact", "randomized"])
def test_probabilities_are_float64_for_float32_input(method):
    """Found by fuzzing: "ss" on float32 input gave float32 probabilities (an SVD in single
    precision) summing to 1 - 6e-8, while "ws" and "us" gave float64.  Every strategy now returns
    float64 summing to 1 to double precision, and "ss" matches the float64 input's answer to
    float32's rounding of X."""
    X = sp.random(40, 12, density=0.4, random_state=3, format="csr", dtype=np.float64)
    X32 = X.astype(np.float32)
    for strategy in ("ss", "ws", "us"):
        p = feature_probabilities(X32, strategy, method=method, k=3, random_state=0)
        assert p.dtype == np.float64
        assert abs(p.sum() - 1.0) < 1e-12
        want = feature_probabilities(X32.astype(np.float64), strategy, method=method, k=3, random_state=0)
        np.testing.assert_allclose(p, want, rtol=1e-10, atol=1e-12)


def test_srls_fits_float32_input_with_the_randomized_method():
    """Found with the fuzzing above: the randomized method (SRLSClassifier's default above 4M
    cells, e.g. TfidfVectorizer(dtype=np.float32) on 20 Newsgroups) refused float32 matrices with
    "Buffer dtype mismatch".  It now samples the same terms as for the float64 matrix."""
    X = sp.random(300, 2000, density=0.05, random_state=0, format="csr", dtype=np.float64)
    y = np.arange(300) % 3
    X32 = X.astype(np.float32)
    got = textsel.SRLSClassifier(r=50, method="randomized", random_state=0).fit(X32, y)
    want = textsel.SRLSClassifier(r=50, method="randomized", random_state=0).fit(X32.astype(np.float64), y)
    np.testing.assert_array_equal(got.kept_, want.kept_)


def test_rate_for_inverts_the_expected_kept_count():
    """rate_for(p, c) is the r at which sum min(1, r p_i) = c, exactly, on both kinds of segment
    (no term certain; some certain), checked against the sum evaluated directly and a bisection."""
    from textsel.sampling import expected_kept, rate_for

    rng = np.random.default_rng(0)
    p = rng.pareto(1.0, 3000) + 1e-9
    p[:5] = 0.0  # terms of zero probability are never kept
    p /= p.sum()
    for count in (1, 10, 500, 2990, 2995):
        r = rate_for(p, count)
        assert expected_kept(p, r) == pytest.approx(count, rel=1e-12)
        lo, hi = 0.0, 1e15  # an independent bisection on the monotone count
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if np.minimum(1, mid * p).sum() < count else (lo, mid)
        assert r == pytest.approx(hi, rel=1e-9)
    assert expected_kept(p, 10.0) < 10  # r = 10 keeps fewer than 10: the largest p exceed 1/10
    for bad in (0, 2996, -1):
        with pytest.raises(ValueError, match="kept"):
            rate_for(p, bad)


def test_expected_kept_and_rate_for_name_their_bad_input_and_leave_p_alone():
    from textsel.sampling import expected_kept, rate_for

    p = np.array([0.5, 0.3, 0.2])
    before = p.copy()
    assert expected_kept(p, 2.0) == pytest.approx(1.0 + 0.6 + 0.4) and rate_for(p, 2.0) > 0
    assert np.array_equal(p, before)
    for bad in ([[0.5, 0.5]], [], [0.5, np.nan], [-0.1, 1.1]):
        with pytest.raises(ValueError, match="p must be"):
            expected_kept(bad, 1.0)
        with pytest.raises(ValueError, match="p must be"):
            rate_for(bad, 1.0)
    with pytest.raises(ValueError, match="r must be"):
        expected_kept(p, 0.0)
    with pytest.raises(TypeError, match="kept"):
        rate_for(p, "two")
