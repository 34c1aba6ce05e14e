"""TermSelector and the score functions, as scikit-learn components."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_corpus
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.feature_selection import SelectKBest
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import check_estimator

import textsel
from textsel.selection import rank_terms, top_k


def test_check_estimator():
    check_estimator(textsel.TermSelector(k=1))


def test_top_k_is_ordered_and_breaks_ties_by_index():
    scores = np.array([0.5, 2.0, 2.0, 1.0, 2.0, -1.0])
    np.testing.assert_array_equal(top_k(scores, 3), [1, 2, 4])
    np.testing.assert_array_equal(top_k(scores, 4), [1, 2, 4, 3])
    np.testing.assert_array_equal(top_k(scores, 6), [1, 2, 4, 3, 0, 5])


def test_round_robin_by_hand():
    """Each class takes its best term not yet taken, in class order."""
    table = np.array([
        [9.0, 8.0, 7.0, 0.0, 0.0],   # class 0 prefers 0, 1, 2
        [9.5, 1.0, 0.0, 5.0, 4.0],   # class 1 prefers 0, 3, 4
    ])  # fmt: skip
    stats = textsel.TermStats(
        np.zeros((2, 5), np.int64),
        np.zeros(5, np.int64),
        np.array([1, 1]),
        3,
        np.array([0, 1]),
        multilabel=True,
    )
    np.testing.assert_array_equal(rank_terms(table, stats, 4, "round_robin"), [0, 3, 1, 4])
    np.testing.assert_array_equal(rank_terms(table, stats, 3, "max"), [0, 1, 2])


def test_round_robin_gives_every_class_its_share():
    """With a 'siren' class whose scores dominate, max starves the others; round-robin does not."""
    rng = np.random.default_rng(0)
    table = rng.random((4, 200))
    table[0] += 10  # siren class
    stats = textsel.TermStats(np.zeros((4, 200), np.int64), np.zeros(200, np.int64),
                              np.ones(4, np.int64), 8, np.arange(4), multilabel=True)  # fmt: skip
    rr = rank_terms(table, stats, 40, "round_robin")
    mx = rank_terms(table, stats, 40, "max")
    assert len(set(rr)) == 40
    best_of = table.argmax(axis=0)
    for c in range(1, 4):
        assert np.isin(top_k(table[c], 5), rr).sum() >= 5 or (best_of[rr] == c).sum() > 0
    assert set(mx) == set(top_k(table[0], 40))
    # class 1's favourite term is in the round-robin set even though the siren outranks it
    assert top_k(table[1], 1)[0] in rr


@pytest.mark.parametrize("multiclass", ["round_robin", "max", "mean"])
def test_selector_selects_k_terms(multiclass, corpus):
    X, y = corpus
    sel = textsel.TermSelector("bns", k=7, multiclass=multiclass).fit(X, y)
    assert sel.get_support().sum() == 7
    assert sel.transform(X).shape == (X.shape[0], 7)
    assert sel.score_table_.shape == (3, X.shape[1])
    np.testing.assert_array_equal(np.sort(sel.ranking_), np.flatnonzero(sel.get_support()))


def test_mean_is_prior_weighted(corpus):
    X, y = corpus
    sel = textsel.TermSelector("ig", k=5, multiclass="mean").fit(X, y)
    priors = np.bincount(y) / len(y)
    np.testing.assert_allclose(sel.scores_, priors @ sel.score_table_)
    np.testing.assert_array_equal(sel.ranking_, top_k(sel.scores_, 5))


def test_binary_task_uses_positive_class_row():
    X, y = random_corpus(n_classes=2, seed=2)
    sel = textsel.TermSelector("pr", k=5).fit(X, y)
    np.testing.assert_array_equal(sel.scores_, sel.score_table_[1])
    np.testing.assert_array_equal(sel.ranking_, top_k(sel.score_table_[1], 5))


def test_percentile_and_all(corpus):
    X, y = corpus
    assert textsel.TermSelector(percentile=10).fit(X, y).get_support().sum() == 4  # ceil(40 * 0.1)
    assert textsel.TermSelector(k="all").fit(X, y).get_support().all()


def test_pipeline_after_tfidf_with_feature_names():
    texts = ["good film great plot", "bad film awful plot", "great acting good", "awful bad acting",
             "good good great", "bad awful bad"]  # fmt: skip
    y = [1, 0, 1, 0, 1, 0]
    model = make_pipeline(TfidfVectorizer(), textsel.TermSelector("bns", k=4), LinearSVC())
    model.fit(texts, y)
    names = set(model[:-1].get_feature_names_out())
    assert names == {"good", "great", "bad", "awful"}
    assert (model.predict(texts) == y).all()


def test_multilabel_selector(corpus):
    X, _ = corpus
    Y = (np.random.default_rng(1).random((X.shape[0], 4)) < 0.3).astype(int)
    sel = textsel.TermSelector("chi2", k=10).fit(X, Y)
    np.testing.assert_array_equal(sel.classes_, np.arange(4))
    assert sel.get_support().sum() == 10


@pytest.mark.parametrize("name", textsel.METRICS)
def test_score_functions_plug_into_select_k_best(name, corpus):
    X, y = corpus
    func = getattr(textsel, name)
    sel = SelectKBest(func, k=5).fit(X, y)
    stats = textsel.term_stats(X, y)
    expected = textsel.score(stats, name, random_state=None if name != "rand" else 0).max(axis=0)
    if name != "rand":
        np.testing.assert_allclose(sel.scores_, expected)
    assert sel.transform(X).shape[1] == 5


def test_presence_makes_tfidf_and_counts_select_alike():
    texts = [f"w{i % 7} w{i % 3} w{i % 11} common" for i in range(60)]
    y = np.arange(60) % 3
    counts = CountVectorizer().fit_transform(texts)
    tfidf = TfidfVectorizer().fit_transform(texts)
    a = textsel.TermSelector("bns", k=5).fit(counts, y).get_support()
    b = textsel.TermSelector("bns", k=5).fit(tfidf, y).get_support()
    np.testing.assert_array_equal(a, b)


def test_fit_does_not_modify_inputs(corpus):
    X, y = corpus
    X = sp.csr_matrix(X)
    copies = X.data.copy(), X.indices.copy(), X.indptr.copy(), y.copy()
    textsel.TermSelector(k=3).fit(X, y)
    for a, b in zip(copies, (X.data, X.indices, X.indptr, y), strict=True):
        np.testing.assert_array_equal(a, b)


def test_partial_fit_over_chunks_equals_fit_on_everything():
    """Issue 15: chunks added one by one choose exactly the terms fit chooses on the whole corpus,
    with classes given once (a chunk may miss a class), for 1-D labels and for an indicator."""
    X, y = random_corpus(n_docs=300, n_terms=50, n_classes=4, seed=9)
    y = np.where(np.arange(300) < 100, np.minimum(y, 2), y)  # the first chunk has no class 3
    whole = textsel.TermSelector("bns", k=12).fit(X, y)
    chunked = textsel.TermSelector("bns", k=12)
    for start in range(0, 300, 100):
        chunked.partial_fit(X[start : start + 100], y[start : start + 100], classes=np.arange(4))
    np.testing.assert_array_equal(chunked.ranking_, whole.ranking_)
    assert chunked.stats_ == whole.stats_
    unnamed = textsel.TermSelector("bns", k=12)  # no classes: the chunks' own labels, aligned by label
    for start in range(0, 300, 100):
        unnamed.partial_fit(X[start : start + 100], y[start : start + 100])
    np.testing.assert_array_equal(unnamed.ranking_, whole.ranking_)
    Y = np.eye(4, dtype=int)[y]
    by_indicator = textsel.TermSelector("ig", k=7)
    for start in range(0, 300, 150):
        by_indicator.partial_fit(X[start : start + 150], Y[start : start + 150])
    np.testing.assert_array_equal(by_indicator.ranking_, textsel.TermSelector("ig", k=7).fit(X, Y).ranking_)


def test_partial_fit_checks_what_chunks_must_share():
    X, y = random_corpus(n_docs=60, n_terms=20, seed=10)
    sel = textsel.TermSelector(k=3).partial_fit(X, y, classes=np.unique(y))
    with pytest.raises(ValueError, match="20 features"):
        sel.partial_fit(X[:, :10], y)
    with pytest.raises(ValueError, match="labelled like the earlier chunks"):
        sel.partial_fit(X, np.eye(3, dtype=int)[y])
    with pytest.raises(ValueError, match="not in classes"):
        sel.partial_fit(X, y + 10)


def test_a_failing_partial_fit_leaves_the_selector_as_it_was():
    """A call that raises after counting its chunk (a bad k) must not have added the chunk: the
    retry counts it once, and the result equals fit on the chunks stacked."""
    X, y = random_corpus(n_docs=80, n_terms=30, seed=4)
    first, second = (X[:40], y[:40]), (X[40:], y[40:])
    selector = textsel.TermSelector("bns", k=5).partial_fit(*first)
    before = selector.stats_
    selector.set_params(k="ten")
    with pytest.raises(TypeError, match="k must be"):
        selector.partial_fit(*second)
    assert selector.stats_ is before
    selector.set_params(k=5).partial_fit(*second)
    np.testing.assert_array_equal(selector.stats_.class_df, textsel.term_stats(X, y).class_df)
    np.testing.assert_array_equal(selector.ranking_, textsel.TermSelector("bns", k=5).fit(X, y).ranking_)


def test_chunks_labelled_with_strings_then_numbers_are_refused():
    X, y = random_corpus(n_docs=60, n_terms=20)
    selector = textsel.TermSelector("bns", k=5).partial_fit(X[:30], np.array(["a", "b", "c"])[y[:30]])
    with pytest.raises(ValueError, match="Mix of label input types"):
        selector.partial_fit(X[30:], y[30:])
    with pytest.raises(ValueError, match="Mix of label input types"):
        textsel.term_stats(X[:30], y[:30].astype(str)) + textsel.term_stats(X[30:], y[30:])


def test_partial_fit_refuses_a_dask_array_before_computing_it():
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    X, y = random_corpus(n_docs=40, n_terms=20)
    computed = []
    block = dask.delayed(lambda: computed.append(1) or X)()
    blocks = da.from_delayed(block, shape=X.shape, dtype=X.dtype, meta=X[:0])
    with pytest.raises(TypeError, match=r"partial_fit takes in-memory chunks.*fit\(X, y\)"):
        textsel.TermSelector("bns", k=5).partial_fit(blocks, y)
    assert not computed


def _absence_corpus():
    """'common' is in every document but class 0's: its absence marks class 0, and BNS scores it
    highest for class 0 (tpr 0 against fpr 1); 'mark0'... 'mark2' are each in their class only."""
    docs, y = [], []
    for c in range(3):
        for i in range(20):
            docs.append(f"mark{c} filler{i % 7}" + ("" if c == 0 else " common"))
            y.append(c)
    X = CountVectorizer(binary=True).fit(docs)
    return X.transform(docs), np.array(y), X.get_feature_names_out()


def test_term_directions_name_the_class_and_whether_presence_or_absence_marks_it():
    from textsel.selection import present_in_class, term_directions

    X, y, names = _absence_corpus()
    selector = textsel.TermSelector("bns", k="all").fit(X, y)
    classes, present = term_directions(selector)
    by_term = {names[c]: (k, p) for c, k, p in zip(selector.ranking_, classes, present, strict=True)}
    assert by_term["common"] == (0, False)  # absent from class 0's documents
    assert by_term["mark1"] == (1, True) and by_term["mark2"] == (2, True)
    # present_in_class against the rates computed by hand
    B = (X > 0).toarray()
    for c in range(3):
        tpr = B[y == c].mean(axis=0)
        fpr = B[y != c].mean(axis=0)
        np.testing.assert_array_equal(present_in_class(selector.stats_)[c], tpr > fpr)


def test_positive_only_keeps_terms_whose_presence_marks_a_class():
    from textsel.selection import present_in_class

    X, y, names = _absence_corpus()
    selector = textsel.TermSelector("bns", k=3, positive_only=True).fit(X, y)
    assert sorted(names[selector.ranking_]) == ["mark0", "mark1", "mark2"]
    mask = present_in_class(selector.stats_)
    assert (selector.score_table_[~mask] == 0).all() and (selector.score_table_[mask] > 0).all()
    assert "common" in names[textsel.TermSelector("bns", k=3).fit(X, y).ranking_]


def test_select_writes_each_terms_class_and_direction(tmp_path, capsys):
    from textsel.cli import main

    X, y, names = _absence_corpus()
    docs = [" ".join(names[X[i].indices]) for i in range(X.shape[0])]
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(f'{{"text": "{d}", "label": "c{c}"}}\n' for d, c in zip(docs, y, strict=True)))
    assert main(["select", str(path), "--k", "all", "--format", "json"]) == 0
    records = {r["term"]: r for r in __import__("json").loads(capsys.readouterr().out)}
    assert (records["common"]["class"], records["common"]["direction"]) == ("c0", "absent")
    assert (records["mark2"]["class"], records["mark2"]["direction"]) == ("c2", "present")
    assert main(["select", str(path), "--k", "all", "--positive-only"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split("\t")[:6] == ["rank", "column", "term", "class", "direction", "score"]
    assert all(line.split("\t")[4] == "present" for line in out[1:4])


@pytest.mark.parametrize("cls, bad", [(textsel.TermSelector, {"alpha": 2.0}),
                                      (textsel.ScalableTermSelector, {"gamma": -1.0})])  # fmt: skip
def test_a_failing_refit_keeps_the_previous_model(cls, bad):
    """The parameter error surfaces after the statistics are counted; the selector keeps what the
    last successful fit gave, every attribute of it."""
    X, y = random_corpus(n_docs=80, n_terms=30, seed=5)
    selector = cls(k=5).fit(X, y)
    before = dict(vars(selector))
    selector.set_params(**bad)
    with pytest.raises(ValueError):
        selector.fit(X[:40], y[:40])
    after = vars(selector)
    assert set(after) == set(before) - set(bad) | set(bad)
    assert all(after[key] is before[key] for key in before if key not in bad)


def _reference_top_k(scores, k):
    """The k best by (-score, index): a full lexicographic sort."""
    return np.lexsort((np.arange(scores.size), -scores))[:k]


def _reference_round_robin(table, k):
    """Round-robin over each class's complete ranking, one term per class in turn."""
    n_classes, n_terms = table.shape
    ranked = [_reference_top_k(table[c], n_terms) for c in range(n_classes)]
    cursor, taken, out = [0] * n_classes, np.zeros(n_terms, bool), []
    while len(out) < k:
        for c in range(n_classes):
            while taken[ranked[c][cursor[c]]]:
                cursor[c] += 1
            out.append(int(ranked[c][cursor[c]]))
            taken[out[-1]] = True
            if len(out) == k:
                break
    return np.array(out)


@pytest.mark.parametrize("kind", ["tie-heavy", "tie-free", "one value", "mostly zero", "long row"])
def test_top_k_equals_a_full_sort_on_tied_and_untied_rows(kind):
    """top_k finds the k-th value from a sampled threshold and sorts only what lies above it; the
    result must be a full sort's, ties by lower index, for every k."""
    rng = np.random.default_rng(7)
    n = 130_000 if kind == "long row" else 20_000
    scores = {
        "tie-heavy": rng.integers(0, 50, n).astype(float),
        "tie-free": rng.random(n),
        "one value": np.ones(n),
        "mostly zero": np.where(rng.random(n) < 0.99, 0.0, rng.random(n)),
        "long row": rng.integers(0, 2974, n) / 100.0,  # like a BNS row of 20 Newsgroups
    }[kind]
    for k in (1, 2, 7, 100, 1000, 4999, n // 2, n - 1, n):
        np.testing.assert_array_equal(top_k(scores, k), _reference_top_k(scores, k), err_msg=f"k={k}")


@pytest.mark.parametrize("seed", range(12))
def test_round_robin_equals_round_robin_over_complete_rankings(seed):
    """Each class's ranking starts short and grows when other classes take its terms; the
    selection must equal round-robin over complete rankings, for k from 1 to every term."""
    rng = np.random.default_rng(seed)
    n_classes, n_terms = int(rng.integers(2, 12)), int(rng.integers(5, 2000))
    table = [rng.integers(0, 4, (n_classes, n_terms)).astype(float), rng.random((n_classes, n_terms)),
             np.tile(rng.integers(0, 20, n_terms).astype(float), (n_classes, 1))][seed % 3]  # fmt: skip
    stats = textsel.term_stats(np.eye(n_classes * 2), np.arange(n_classes * 2) % n_classes)  # multi-class
    for k in sorted({1, 2, n_terms // 3, n_terms // 2, n_terms - 1, n_terms}):
        got = rank_terms(table, stats, k, "round_robin") if n_classes > 2 else None
        if got is not None:
            np.testing.assert_array_equal(got, _reference_round_robin(table, k), err_msg=f"k={k}")


def test_term_directions_checks_its_columns_and_present_in_class_its_stats():
    from textsel.selection import present_in_class, term_directions

    X, y, _ = _absence_corpus()
    selector = textsel.TermSelector("bns", k=3).fit(X, y)
    with pytest.raises(ValueError, match=r"columns must be in \[0, "):
        term_directions(selector, [0, X.shape[1]])
    with pytest.raises(TypeError, match="columns must be a 1-D array of integer"):
        term_directions(selector, [0.5])
    with pytest.raises(TypeError, match="stats must be a TermStats"):
        present_in_class(X)
    classes, present = term_directions(selector, [0, 1])
    assert classes.shape == present.shape == (2,)


def test_round_robin_kernel_reaches_ties_and_the_rest_past_a_wrong_guess():
    """The merge takes a row's head, then its terms equal to the guess in index order, then the
    rest ranked; a guess above every score (an empty head) or with NaN in the row must still give
    round-robin over complete rankings (NaN last, as a full lexicographic sort puts it)."""
    from textsel._ext.ranking import round_robin

    rng = np.random.default_rng(3)
    table = rng.integers(0, 6, (3, 300)).astype(float)
    table[1, rng.integers(0, 300, 40)] = np.nan
    table[2, :5] = [np.inf, -np.inf, np.inf, -np.inf, np.nan]
    for guesses in ([np.inf] * 3, [2.0, 4.0, 0.0], [np.nan, 5.0, -np.inf]):
        guesses = np.array(guesses)
        heads = [np.flatnonzero(table[c] > guesses[c]) for c in range(3)]
        for k in (0, 1, 7, 150, 299, 300):
            expected = _reference_round_robin(table, k)
            np.testing.assert_array_equal(round_robin(table, heads, guesses, k), expected)
    nan_row = np.where(rng.random(20_000) < 0.3, np.nan, rng.integers(0, 9, 20_000).astype(float))
    for k in (1, 5000, 19_999):
        np.testing.assert_array_equal(top_k(nan_row, k), _reference_top_k(nan_row, k))


def test_round_robin_kernel_refuses_what_it_cannot_merge():
    """Wrong head counts, out-of-range head terms and k out of range are errors, not reads
    outside the table."""
    from textsel._ext.ranking import round_robin

    table = np.zeros((2, 4))
    guesses = np.zeros(2)
    empty = np.empty(0, dtype=np.int64)
    with pytest.raises(ValueError, match="one head and one guess per row"):
        round_robin(table, [empty], guesses, 1)
    with pytest.raises(ValueError, match=r"heads must hold terms in \[0, 4\), got 4"):
        round_robin(table, [np.array([4]), empty], guesses, 1)
    with pytest.raises(ValueError, match="increasing order, got 1 after 2"):
        round_robin(table, [np.array([2, 1]), empty], guesses, 1)
    with pytest.raises(ValueError, match="increasing order, got 3 after 3"):
        round_robin(table, [empty, np.array([3, 3])], guesses, 1)
    with pytest.raises(ValueError, match=r"k must be in \[0, 4\], got 5"):
        round_robin(table, [empty, empty], guesses, 5)
    with pytest.raises(ValueError, match=r"k must be in \[0, 0\], got 1"):
        round_robin(np.zeros((0, 4)), [], np.zeros(0), 1)


def test_round_robin_kernel_ranks_heads_by_value_with_ties_by_index():
    """The heads are ranked by a radix sort on the scores' bits: negative, subnormal, huge and
    infinite scores must come in value order, -0.0 and 0.0 must tie (broken by index, as a
    comparison sort has them), and duplicated values keep index order."""
    from textsel._ext.ranking import round_robin

    rng = np.random.default_rng(8)
    values = np.array([0.0, -0.0, 5e-324, -5e-324, 1e308, -1e308, np.inf, -np.inf, 1.5, -1.5, 2.0**-1000])
    table = rng.choice(values, (2, 3000))
    table[1] = rng.normal(size=3000).round(1)  # tie-heavy, negative and positive
    guesses = np.array([-np.inf, -np.inf])
    heads = [np.flatnonzero(table[c] > guesses[c]) for c in range(2)]
    for k in (1, 10, 1000, 2999, 3000):
        np.testing.assert_array_equal(round_robin(table, heads, guesses, k), _reference_round_robin(table, k))


@pytest.mark.parametrize("kind", ["tie-heavy", "tie-free"])
def test_round_robin_on_long_rows_uses_sampled_guesses_and_equals_complete_rankings(kind):
    """Rows longer than twice the sample guess each class's threshold from a strided sample;
    with classes competing for the same terms the heads run out and the merge continues through
    the ties and the rest: still round-robin over complete rankings."""
    rng = np.random.default_rng(11)
    base = rng.integers(0, 300, 20_000) / 10.0 if kind == "tie-heavy" else rng.random(20_000)
    table = np.vstack([base, base[::-1], rng.permutation(base), base])  # classes 0 and 3 collide
    stats = textsel.term_stats(np.eye(8), np.arange(8) % 4)
    for k in (1, 100, 5000, 19_999, 20_000):
        expected = _reference_round_robin(table, k)
        np.testing.assert_array_equal(rank_terms(table, stats, k, "round_robin"), expected)


def test_round_robin_scores_are_the_class_maximum_when_asked_for_and_survive_pickling():
    """Round-robin does not need the per-term maximum, so it is computed on first access: it must
    equal the table's maximum, be absent before fitting, follow a refit, and pickle either way."""
    import pickle

    rng = np.random.default_rng(5)
    X = sp.csr_matrix(rng.poisson(0.3, (60, 40)).astype(float))
    y = np.arange(60) % 3
    selector = textsel.TermSelector("bns", k=5)
    assert not hasattr(selector, "scores_")
    selector.fit(X, y)
    clone = pickle.loads(pickle.dumps(selector))  # pickled before scores_ was asked for
    np.testing.assert_array_equal(selector.scores_, selector.score_table_.max(axis=0))
    np.testing.assert_array_equal(clone.scores_, selector.scores_)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(selector)).scores_, selector.scores_)
    first = selector.scores_
    selector.fit(X[:, ::-1], y)
    np.testing.assert_array_equal(selector.scores_, first[::-1])
    selector.scores_ = np.zeros(40)
    assert not selector.scores_.any()


@pytest.mark.parametrize("seed", range(8))
def test_round_robin_scored_row_by_row_equals_ranking_the_whole_table(seed):
    """The default fit scores one class row at a time and keeps only its head, falling back to
    the whole table when a head runs out: for every metric, with and without positive_only, for
    k from one term to all of them (small k: heads suffice; large k: the fallback), the selection
    must be rank_terms over score()'s table, and score_table_ / scores_ (computed when asked for)
    must be score()'s table and its maximum."""
    from textsel._ranking import _SAMPLE
    from textsel.selection import present_in_class

    rng = np.random.default_rng(seed)
    n_classes = int(rng.integers(3, 9))
    n_terms = int(rng.integers(200, 8000) if seed % 2 else rng.integers(9000, 20000))
    X = sp.random(400, n_terms, density=0.01, random_state=seed, format="csr")
    y = rng.integers(0, n_classes, 400)
    y[:n_classes] = np.arange(n_classes)
    stats = textsel.term_stats(X, y)
    metric = [m for m in textsel.METRICS if m != "rand"][seed % 11]
    paths = set()
    for positive_only in (False, True):
        table = textsel.score(stats, metric)
        if positive_only:
            table[~present_in_class(stats)] = 0.0
        for k in (1, 7, n_terms // 50 + 1, n_terms // 3, n_terms):
            selector = textsel.TermSelector(metric, k=k, positive_only=positive_only).fit(X, y)
            paths.add("table" if "score_table_" in selector.__dict__ else "rows")
            expected = rank_terms(table, stats, k, "round_robin")
            np.testing.assert_array_equal(selector.ranking_, expected, err_msg=f"{metric} k={k}")
            np.testing.assert_array_equal(selector.score_table_, table)
            np.testing.assert_array_equal(selector.scores_, table.max(axis=0))
    # a row shorter than twice the sample is its own head (no threshold guessed): the heads never
    # run out; longer rows need the table for k = every term
    assert paths == ({"rows"} if n_terms < 2 * _SAMPLE else {"rows", "table"})


def test_the_table_computed_later_is_the_fits_even_after_set_params_or_pickling():
    """score_table_ is computed on first access from the statistics and parameters of the fit:
    changing the parameters afterwards, or pickling before the access, must not change it."""
    import pickle

    rng = np.random.default_rng(9)
    X = sp.csr_matrix(rng.poisson(0.3, (90, 300)).astype(float))
    y = np.arange(90) % 3
    selector = textsel.TermSelector("bns", k=10, alpha=0.3).fit(X, y)
    expected = textsel.score(textsel.term_stats(X, y), "bns", alpha=0.3)
    restored = pickle.loads(pickle.dumps(selector))
    selector.set_params(metric="ig", alpha=0.9)
    np.testing.assert_array_equal(selector.score_table_, expected)
    np.testing.assert_array_equal(restored.score_table_, expected)
    assert not hasattr(textsel.TermSelector(), "score_table_")


def test_round_robin_from_heads_alone_says_when_it_needs_the_rows():
    """Without the table the merge takes each class's head only: when the heads suffice it must
    give round_robin's terms; when a head runs out it returns None instead of guessing; mismatched
    heads, scores and guesses are errors."""
    from textsel._ext.ranking import round_robin, round_robin_heads

    rng = np.random.default_rng(4)
    table = rng.integers(0, 30, (3, 500)).astype(float)
    guesses = np.array([20.0, 25.0, 10.0])
    heads = [np.flatnonzero(table[c] > guesses[c]) for c in range(3)]
    scores = [table[c, h] for c, h in enumerate(heads)]
    enough = 3 * min(h.size for h in heads) // 2
    for k in (0, 1, enough):
        np.testing.assert_array_equal(round_robin_heads(heads, scores, guesses, 500, k),
                                      round_robin(table, heads, guesses, k))  # fmt: skip
    assert round_robin_heads(heads, scores, guesses, 500, 500) is None
    with pytest.raises(ValueError, match="one score per term"):
        round_robin_heads(heads, [s[:-1] for s in scores], guesses, 500, 5)
    with pytest.raises(ValueError, match="one head, one score array and one guess"):
        round_robin_heads(heads[:2], scores, guesses, 500, 5)
    with pytest.raises(ValueError, match=r"heads must hold terms in \[0, 400\)"):
        round_robin_heads(heads, scores, guesses, 400, 5)
