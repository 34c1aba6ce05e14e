"""Every metric against its formula evaluated by brute force, chi2 against scipy, BNS against ndtri."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_corpus
from reference import metric as ref_metric
from scipy.special import ndtri
from scipy.stats import chi2_contingency

import textsel
from textsel.metrics import INVERTIBLE, SYMMETRIC

DETERMINISTIC = [m for m in textsel.METRICS if m != "rand"]


def stats_for(seed=0, n_classes=3, **kw):
    X, y = random_corpus(n_docs=80, n_terms=60, n_classes=n_classes, seed=seed, **kw)
    return textsel.term_stats(X, y)


def reference_table(stats, name, **params):
    out = np.empty(stats.class_df.shape)
    for c in range(stats.n_classes):
        tp = stats.class_df[c]
        fp = stats.df - tp
        pos = stats.class_sizes[c]
        out[c] = ref_metric(name, tp, fp, pos, stats.n_docs - pos, **params)
    return out


@pytest.mark.parametrize("name", DETERMINISTIC)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_metric_matches_formula(name, seed):
    stats = stats_for(seed)
    np.testing.assert_allclose(textsel.score(stats, name), reference_table(stats, name), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(INVERTIBLE))
def test_negative_feature_inversion_can_be_switched_off(name):
    stats = stats_for(5)
    raw = textsel.score(stats, name, negative_features=False)
    np.testing.assert_allclose(raw, reference_table(stats, name, invert=False), rtol=1e-12)
    inverted = textsel.score(stats, name)
    tp = stats.class_df
    fp = stats.df - tp
    pos = stats.class_sizes[:, None]
    negative = tp * (stats.n_docs - pos) < fp * pos
    assert negative.any()
    # inversion touches exactly the negatively correlated cells
    np.testing.assert_array_equal(raw[~negative], inverted[~negative])


@pytest.mark.parametrize("name", sorted(SYMMETRIC))
def test_symmetric_metrics_ignore_the_inversion_switch(name):
    stats = stats_for(6)
    np.testing.assert_array_equal(
        textsel.score(stats, name), textsel.score(stats, name, negative_features=False)
    )


def cells(stats):
    """Every (class, term) cell as (c, t, tp, fp, pos, neg), one at a time."""
    for c in range(stats.n_classes):
        pos = stats.class_sizes[c]
        for t in range(stats.n_terms):
            tp = stats.class_df[c, t]
            yield c, t, tp, stats.df[t] - tp, pos, stats.n_docs - pos


def test_chi2_equals_scipy_chi2_contingency_without_correction():
    stats = stats_for(7)
    table = textsel.score(stats, "chi2")
    checked = 0
    for c, t, tp, fp, pos, neg in cells(stats):
        obs = np.array([[tp, fp], [pos - tp, neg - fp]])
        if obs.sum(axis=1).min() == 0:
            assert table[c, t] == 0.0  # zero margin: no information, scored 0
            continue
        expected = chi2_contingency(obs, correction=False).statistic
        assert table[c, t] == pytest.approx(expected, rel=1e-12, abs=1e-12)
        checked += 1
    assert checked > 100


def test_bns_equals_ndtri_per_element_with_clipping():
    stats = stats_for(8)
    table = textsel.score(stats, "bns")
    for c, t, tp, fp, pos, neg in cells(stats):
        tpr = min(max(tp / pos, 0.0005), 0.9995)
        fpr = min(max(fp / neg, 0.0005), 0.9995)
        assert table[c, t] == pytest.approx(abs(float(ndtri(tpr)) - float(ndtri(fpr))), rel=1e-14)


def test_bns_handles_rates_of_zero_and_one_on_a_large_class():
    """Clipping at both ends: a term in every positive and no negative document is finite."""
    n = 5000
    X = sp.csr_matrix(np.r_[np.ones(2500), np.zeros(2500)].reshape(-1, 1))
    y = np.r_[np.ones(2500, int), np.zeros(2500, int)]
    s = textsel.term_stats(X, y)
    expected = float(ndtri(0.9995) - ndtri(0.0005))
    np.testing.assert_allclose(textsel.score(s, "bns"), [[expected], [expected]])
    assert s.n_docs == n


@pytest.mark.parametrize("alpha", [0.0, 0.1, 0.6, 1.0])
def test_bns_alpha_weights_positive_and_negative_features(alpha):
    stats = stats_for(9)
    np.testing.assert_allclose(
        textsel.score(stats, "bns", alpha=alpha), reference_table(stats, "bns", alpha=alpha), rtol=1e-12
    )
    plain = textsel.score(stats, "bns")
    np.testing.assert_allclose(textsel.score(stats, "bns", alpha=0.5), plain)


def test_pow_exponent_parameter():
    stats = stats_for(10)
    np.testing.assert_allclose(
        textsel.score(stats, "pow", pow_k=2), reference_table(stats, "pow", pow_k=2.0), rtol=1e-12
    )


def test_hand_computed_cell():
    """One 2x2 table worked by hand: tp=3, fp=1, pos=4, neg=6 (10 documents)."""
    X = sp.csr_matrix(np.array([1, 1, 1, 0, 1, 0, 0, 0, 0, 0], float).reshape(-1, 1))
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    s = textsel.term_stats(X, y)
    row = {m: textsel.score(s, m)[1, 0] for m in DETERMINISTIC}
    assert row["acc"] == 2
    assert row["acc2"] == pytest.approx(3 / 4 - 1 / 6)
    assert row["dfreq"] == 4
    assert row["f1"] == pytest.approx(6 / 8)
    assert row["oddn"] == pytest.approx(0.75 * (5 / 6))
    assert row["odds"] == pytest.approx(3 * 5 / (1 * 1))
    assert row["pr"] == pytest.approx(0.75 / (1 / 6))
    assert row["pow"] == pytest.approx((5 / 6) ** 5 - 0.25**5)
    assert row["chi2"] == pytest.approx(10 * (3 * 5 - 1 * 1) ** 2 / (4 * 6 * 4 * 6))
    e = lambda a, b: -sum(p * np.log2(p) for p in (a / (a + b), b / (a + b)) if p > 0)  # noqa: E731
    assert row["ig"] == pytest.approx(e(4, 6) - (0.4 * e(3, 1) + 0.6 * e(1, 5)))
    assert row["bns"] == pytest.approx(float(ndtri(0.75) - ndtri(1 / 6)))


def test_rand_is_seeded():
    stats = stats_for(11)
    a = textsel.score(stats, "rand", random_state=3)
    np.testing.assert_array_equal(a, textsel.score(stats, "rand", random_state=3))
    assert not np.array_equal(a, textsel.score(stats, "rand", random_state=4))
    assert a.min() >= 0 and a.max() < 1


@pytest.mark.parametrize("name", textsel.METRICS)
def test_scores_are_finite_on_multilabel_stats(name):
    X, _ = random_corpus(n_docs=100, seed=12)
    Y = (np.random.default_rng(12).random((100, 5)) < 0.3).astype(int)
    table = textsel.score(textsel.term_stats(X, Y), name, random_state=0)
    assert table.shape == (5, X.shape[1]) and np.isfinite(table).all()


def test_bns_kernel_returns_its_scratch_clean_after_a_table_and_after_bad_counts():
    """bns_table resets only the fp grid points it used, so its scratch must come back all NaN
    after a normal call and after one stopped by inconsistent counts; a second table drawn
    with the same scratch must equal the first."""
    from textsel._ext import scoring

    X, y = random_corpus(n_docs=300, n_terms=80, n_classes=4, seed=12)
    stats = textsel.term_stats(X, y)
    z, touched = scoring.bns_scratch(stats.n_docs)
    width = stats.n_docs + 1
    order = np.argsort(stats.class_sizes, kind="stable").astype(np.int64)
    tables = []
    for _ in range(2):
        out = np.empty(stats.class_df.shape)
        assert scoring.bns_table(stats.class_df, stats.df, stats.class_sizes, order, stats.n_docs, 0.0005,
                                 1.0, 1.0, z, touched, out) == 0  # fmt: skip
        assert np.isnan(z[width:]).all()
        tables.append(out)
    np.testing.assert_array_equal(tables[0], tables[1])
    np.testing.assert_array_equal(tables[0], textsel.score(stats, "bns"))
    bad = stats.class_df.copy()
    bad[1, 40] = stats.df[40] + 1  # more documents of the class than of the corpus hold the term
    assert scoring.bns_table(bad, stats.df, stats.class_sizes, order, stats.n_docs, 0.0005, 1.0, 1.0,
                             z, touched, np.empty(bad.shape)) == -1  # fmt: skip
    assert np.isnan(z[width:]).all()
