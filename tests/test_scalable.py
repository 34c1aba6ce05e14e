"""Scalable term selection (Li & Sun 2007): AVL, the lambda search, PR smoothing."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_corpus
from sklearn.utils.estimator_checks import check_estimator

import textsel
from textsel.scalable import average_vector_length, probability_ratio, target_avl, zeta


def test_check_estimator():
    check_estimator(textsel.ScalableTermSelector(k=1))


def test_target_avl_matches_the_papers_example():
    """AVL_T = 898.5, k = 4000: AVL° = 898.5 ** (0.085 ln 4000), about 121 (the paper says 120)."""
    assert target_avl(898.5, 4000) == pytest.approx(120.8, abs=0.1)


def test_average_vector_length_is_df_sum_over_m():
    X = sp.csr_matrix(np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [1, 0, 0]], float))
    stats = textsel.term_stats(X, [0, 1, 0, 1])
    assert average_vector_length(stats.df, np.array([0, 2]), 4) == pytest.approx((3 + 1) / 4)
    # over all terms it is nnz / m
    assert average_vector_length(stats.df, np.arange(3), 4) == pytest.approx(X.nnz / 4)


def test_probability_ratio_by_hand():
    # term 0: class 0 holds it in 2 of 2 documents, the rest in 0 of 3
    X = sp.csr_matrix(np.array([[1, 1], [1, 0], [0, 1], [0, 0], [0, 1]], float))
    stats = textsel.term_stats(X, [0, 0, 1, 1, 1])
    pr = probability_ratio(stats, smoothing=0.5)
    class0 = ((2 + 0.5) / (2 + 1)) / ((0 + 0.5) / (3 + 1))
    class1 = ((0 + 0.5) / (3 + 1)) / ((2 + 0.5) / (2 + 1))
    assert pr[0] == pytest.approx(max(class0, class1))
    with pytest.raises(ValueError, match="pr_smoothing"):
        probability_ratio(stats, smoothing=-1)


def test_zeta_limits():
    log_pr = np.array([2.0, -0.5, 1.0])
    log_df = np.array([3.0, 3.0, 0.0])
    np.testing.assert_allclose(zeta(log_pr, log_df, 0.0)[:2], [3.0, 3.0])  # coverage only
    z1 = zeta(log_pr, log_df, 1.0)
    assert z1[0] == pytest.approx(2.0) and z1[1] == 0.0 and z1[2] == -np.inf  # df < 2 cut
    assert zeta(log_pr, log_df, 0.5)[0] == pytest.approx(1 / (0.5 / 2 + 0.5 / 3))


def test_lambda_search_meets_the_target_as_closely_as_a_grid_does():
    X, y = random_corpus(n_docs=400, n_terms=300, n_classes=4, density=0.08, seed=3)
    k = 40
    sel = textsel.ScalableTermSelector(k=k).fit(X, y)
    assert sel.get_support().sum() == k
    assert sel.target_avl_ == pytest.approx(sel.avl_all_ ** (0.085 * math.log(k)))
    # brute force over a fine grid of lambda: bisection does at least as well, up to one step
    stats = textsel.term_stats(X, y)
    log_pr = np.log(probability_ratio(stats))
    log_df = np.log(np.maximum(stats.df, 1))
    grid = []
    for lam in np.linspace(0, 1, 401):
        top = np.argsort(-zeta(log_pr, log_df, lam), kind="stable")[:k]
        grid.append(abs(stats.df[top].sum() / stats.n_docs - sel.target_avl_))
    assert abs(sel.avl_ - sel.target_avl_) <= min(grid) + 0.05 * sel.target_avl_


def test_corpus_avl_counts_the_candidate_terms_as_the_paper_does():
    """Li & Sun compute AVL_T after cutting terms in fewer than two documents: words seen once in
    a raw matrix must not lengthen the target.  Adding such words (and empty columns) to a corpus
    must leave AVL_T, the target and the selection as they were, and AVL_T must be the candidate
    terms' df summed by hand over the documents."""
    X, y = random_corpus(n_docs=300, n_terms=150, n_classes=3, density=0.08, seed=6)
    stats = textsel.term_stats(X, y)
    X = X[:, stats.df >= 2]  # a corpus already cut, as the paper's
    once = sp.csr_matrix((np.ones(120), (np.arange(120) * 2, np.arange(120))), shape=(300, 130))
    raw = sp.hstack([X, once, sp.csr_matrix((300, 5))]).tocsr()  # 120 words seen once, 10 never
    cut = textsel.ScalableTermSelector(k=25).fit(X, y)
    full = textsel.ScalableTermSelector(k=25).fit(raw, y)
    df = np.asarray((raw > 0).sum(axis=0)).ravel()
    assert full.avl_all_ == pytest.approx(df[df >= 2].sum() / 300)
    assert full.avl_all_ == pytest.approx(cut.avl_all_) and full.avl_all_ < df.sum() / 300
    assert full.target_avl_ == pytest.approx(cut.target_avl_)
    np.testing.assert_array_equal(full.get_support()[: X.shape[1]], cut.get_support())
    assert not full.get_support()[X.shape[1] :].any()


def test_avl_decreases_with_lambda():
    X, y = random_corpus(n_docs=300, n_terms=200, n_classes=3, density=0.1, seed=4)
    stats = textsel.term_stats(X, y)
    log_pr = np.log(probability_ratio(stats))
    log_df = np.log(np.maximum(stats.df, 1))
    avls = [stats.df[np.argsort(-zeta(log_pr, log_df, lam))[:30]].sum() for lam in (0.0, 0.3, 0.7, 1.0)]
    assert avls == sorted(avls, reverse=True)


def test_explicit_target_and_bad_input():
    X, y = random_corpus(n_docs=200, n_terms=100, seed=5)
    sel = textsel.ScalableTermSelector(k=10, target_avl=0.5).fit(X, y)
    assert sel.target_avl_ == 0.5
    with pytest.raises(ValueError, match="k must be"):  # k = 0 keeps no term, as SelectKBest(k=0)
        textsel.ScalableTermSelector(k=-1).fit(X, y)
    with pytest.warns(UserWarning, match="k=10000 is greater than the terms in two or more documents"):
        textsel.ScalableTermSelector(k=10_000).fit(X, y)
    with pytest.raises(TypeError, match="target_avl must be a number"):
        textsel.ScalableTermSelector(k=5, target_avl="long").fit(X, y)
    with pytest.raises(ValueError, match="two or more documents"):
        textsel.ScalableTermSelector(k=1).fit(sp.eye(4, 4, format="csr"), [0, 1, 0, 1])


def test_k_all_keeps_every_term_in_two_or_more_documents():
    """Issue 15: k="all" as in TermSelector."""
    X, y = random_corpus(n_docs=120, n_terms=60, seed=14)
    sel = textsel.ScalableTermSelector(k="all").fit(X, y)
    eligible = np.asarray((X > 0).sum(axis=0)).ravel() >= 2
    np.testing.assert_array_equal(sel.get_support(), eligible)


def test_the_lambda_search_stops_once_lambda_has_settled(monkeypatch):
    """A large max_bisections costs no more than the halvings a double can make: the search stops
    when lambda stops moving (or meets the target), with the same choice as a bounded search
    (before, 500 halvings scored the terms 502 times, and 10**9 ran for ever)."""
    import textsel.scalable as scalable

    X, y = random_corpus(n_docs=200, n_terms=400, seed=0)
    calls = []
    real = scalable.top_k
    monkeypatch.setattr(scalable, "top_k", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    endless = textsel.ScalableTermSelector(k=50, max_bisections=500).fit(X, y)
    assert len(calls) <= 2 + 64  # the two ends of [0, 1], then at most 64 halvings
    bounded = textsel.ScalableTermSelector(k=50, max_bisections=70).fit(X, y)
    assert endless.lambda_ == bounded.lambda_ and np.array_equal(endless.get_support(), bounded.get_support())


def test_a_gamma_that_overflows_is_a_value_error_naming_gamma():
    X, y = random_corpus(n_docs=120, n_terms=300, seed=1)
    with pytest.raises(ValueError, match="gamma=400"):
        textsel.ScalableTermSelector(k=50, gamma=400).fit(X, y)
    fitted = textsel.ScalableTermSelector(k=50).fit(X, y)
    before = (fitted.avl_all_, fitted.target_avl_, fitted.lambda_, fitted.get_support().copy())
    with pytest.raises(ValueError, match="gamma"):
        fitted.set_params(gamma=400).fit(X, y)
    after = (fitted.avl_all_, fitted.target_avl_, fitted.lambda_, fitted.get_support())
    assert before[:3] == after[:3] and np.array_equal(before[3], after[3])  # the failed refit changed nothing
    with pytest.raises(ValueError, match="gamma"):
        target_avl(50.0, 1000, 400.0)
