"""term_stats and the selectors on the real corpora (skipped without TEXTSEL_DATA)."""

import numpy as np
import pytest
from reference import class_df as ref_class_df
from reference import indicator
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.feature_selection import chi2 as sklearn_chi2

import textsel
from textsel.datasets import load_20newsgroups, load_arff, load_reuters21578


@pytest.fixture(scope="module")
def reuters(data_home):
    b = load_reuters21578(data_home)
    X = TfidfVectorizer(sublinear_tf=True, min_df=2).fit_transform(b.data_train)
    return X, b.target_train


@pytest.fixture(scope="module")
def newsgroups(data_home):
    b = load_20newsgroups(data_home)
    X = TfidfVectorizer(sublinear_tf=True, min_df=2).fit_transform(b.data_train)
    return X, b.target_train


def test_reuters_term_stats_equal_the_sparse_product(reuters):
    X, Y = reuters
    stats = textsel.term_stats(X, Y)
    cdf, df = ref_class_df(X, Y.astype(np.int64))
    np.testing.assert_array_equal(stats.class_df, cdf)
    np.testing.assert_array_equal(stats.df, df)
    assert stats.multilabel and stats.n_classes == 90


def test_newsgroups_term_stats_equal_the_sparse_product(newsgroups):
    X, y = newsgroups
    stats = textsel.term_stats(X, y)
    cdf, df = ref_class_df(X, indicator(y))
    np.testing.assert_array_equal(stats.class_df, cdf)
    np.testing.assert_array_equal(stats.df, df)


def test_newsgroups_chunked_stats_add_up(newsgroups):
    X, y = newsgroups
    classes = np.unique(y)
    parts = [textsel.term_stats(X[i:i + 4000], y[i:i + 4000], classes=classes)
             for i in range(0, X.shape[0], 4000)]  # fmt: skip
    assert sum(parts[1:], parts[0]) == textsel.term_stats(X, y)


def test_chi2_on_binary_presence_equals_sklearn_with_full_table(newsgroups):
    """On Boolean features scikit-learn's chi2 is the present-cells-only half of the 2x2 table;
    adding the absent cells by hand turns it into textsel's full statistic."""
    X, y = newsgroups
    Xb = (X[:3000] > 0).astype(np.float64)
    Xb = Xb[:, np.flatnonzero(Xb.getnnz(axis=0))]  # terms absent from the subset give sklearn 0/0
    yb = (y[:3000] == 3).astype(int)
    ours = textsel.score(textsel.term_stats(Xb, yb), "chi2")[1]
    present, _ = sklearn_chi2(Xb, yb)
    absent, _ = sklearn_chi2(1.0 - Xb.toarray(), yb)
    finite = np.isfinite(absent)  # sklearn gives 0/0 for a term present in every document
    assert finite.sum() > 0.99 * finite.size
    np.testing.assert_allclose(ours[finite], (present + absent)[finite], rtol=1e-9)


def test_bns_selects_reuters_category_words(reuters, data_home):
    X, Y = reuters
    names = load_reuters21578(data_home).target_names
    vocab = TfidfVectorizer(sublinear_tf=True, min_df=2).fit(
        load_reuters21578(data_home).data_train).get_feature_names_out()  # fmt: skip
    table = textsel.score(textsel.term_stats(X, Y), "bns")
    top = set(vocab[np.argsort(-table[names.index("crude")])[:20]])
    assert {"crude", "oil"} <= top


def test_forman_arff_round_robin_selection(data_home):
    b = load_arff(data_home / "forman-arff" / "tr11.wc.arff.gz")
    sel = textsel.TermSelector("bns", k=100).fit(b.data, b.target)
    assert sel.get_support().sum() == 100
    # every one of the nine classes contributes its single best term under round-robin
    for c in range(len(sel.classes_)):
        assert np.argmax(sel.score_table_[c]) in sel.ranking_
