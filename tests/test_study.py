"""Forman's protocol: records against a hand-written loop, determinism, writers."""

import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import LinearSVC

import textsel
from textsel.protocol import MEASURES
from textsel.selection import top_k
from textsel.study import forman, macro_average, write_csv, write_json


def corpus(seed, n=120, d=60, n_classes=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = (rng.random((n, d)) < 0.08).astype(float) * rng.integers(1, 4, (n, d))
    X[np.arange(n), y] += 2  # class c leans on term c
    return sp.csr_matrix(X), y


@pytest.fixture(scope="module")
def datasets():
    return {"a": corpus(0), "b": corpus(1, n_classes=2)}


def test_records_cover_every_task_metric_and_k(datasets):
    records = forman(datasets, metrics=("bns", "ig"), ks=(5, 20, 1000), trials=1, folds=2)
    # 3 classes + 2 classes, 2 metrics, k = 1000 skipped (60 terms)
    assert len(records) == (3 + 2) * 2 * 2
    for r in records:
        assert 0 <= r["f1"] <= 1 and 0 <= r["accuracy"] <= 1
        assert r["skew"] == pytest.approx((120 - r["positives"]) / r["positives"])


def test_matches_a_hand_written_loop_with_a_user_estimator(datasets):
    """With a scikit-learn estimator the protocol is selection on the training fold, fit, test."""
    X, y = datasets["a"]
    records = forman({"a": (X, y)}, metrics=("chi2",), ks=(10,), trials=2, folds=2, estimator=LinearSVC(),
                     random_state=3)  # fmt: skip
    record = next(r for r in records if r["class"] == 1)
    Xb = X.copy()
    Xb.data[:] = 1.0
    target = (y == 1).astype(int)
    seed = int(np.random.SeedSequence([3, 0, 1]).generate_state(1)[0])
    f1s = []
    for trial in range(2):
        for train, test in StratifiedKFold(2, shuffle=True, random_state=seed + trial).split(Xb, target):
            stats = textsel.term_stats(Xb[train], target[train], classes=[0, 1])
            cols = top_k(textsel.score(stats, "chi2")[1], 10)
            pred = LinearSVC().fit(Xb[train][:, cols], target[train]).predict(Xb[test][:, cols])
            tp = ((pred == 1) & (target[test] == 1)).sum()
            f1s.append(2 * tp / (pred.sum() + target[test].sum()))
    assert record["f1"] == pytest.approx(np.mean(f1s))


def test_same_seed_same_results_whatever_the_workers(datasets):
    one = forman(datasets, metrics=("bns",), ks=(5, 10), trials=2, folds=2, n_jobs=1)
    two = forman(datasets, metrics=("bns",), ks=(5, 10), trials=2, folds=2, n_jobs=2)
    assert one == two


def test_macro_average_and_writers(datasets, tmp_path):
    records = forman(datasets, metrics=("bns", "dfreq"), ks=(5,), trials=1, folds=2)
    rows = macro_average(records)
    assert {(r["metric"], r["k"]) for r in rows} == {("bns", 5), ("dfreq", 5)}
    bns = [r for r in records if r["metric"] == "bns"]
    assert rows[0]["f1"] == pytest.approx(np.mean([r["f1"] for r in bns]))
    write_csv(records, tmp_path / "r.csv")
    assert (tmp_path / "r.csv").read_text().splitlines()[0].startswith("dataset,class,metric,k")
    write_json(records, tmp_path / "r.json")
    assert len(json.loads((tmp_path / "r.json").read_text())) == len(records)


def test_bad_input(datasets):
    with pytest.raises(ValueError, match="metrics must be drawn from"):
        forman(datasets, metrics=("mi",))
    with pytest.raises(ValueError, match="folds must be"):
        forman(datasets, folds=1)
    with pytest.raises(ValueError, match="one label per document"):
        forman({"x": (datasets["a"][0], np.zeros(3))})


def _records(table):
    """Records from {(dataset, class, metric): [f1 at k=1, f1 at k=2]} with skew 10."""
    return [{"dataset": d, "class": c, "metric": m, "k": k + 1, "skew": 10.0 if c != "rare" else 100.0,
             "positives": 5, "accuracy": 0.9, "precision": 0.5, "recall": 0.5, "f1": f1}
            for (d, c, m), values in table.items() for k, f1 in enumerate(values)]  # fmt: skip


def test_tolerance_curve_and_pairs_by_hand():
    from textsel.study import best_pairs, skew_split, tolerance_curve

    records = _records({
        ("d", "x", "bns"): [0.5, 0.8], ("d", "x", "ig"): [0.78, 0.6], ("d", "x", "chi2"): [0.4, 0.5],
        ("d", "rare", "bns"): [0.3, 0.2], ("d", "rare", "ig"): [0.2, 0.2], ("d", "rare", "chi2"): [0.31, 0.1],
    })  # fmt: skip
    rows = {
        (r["metric"], r["tolerance"]): r["share"] for r in tolerance_curve(records, tolerances=(0.0, 0.05))
    }
    # task x: best 0.8 (bns); task rare: best 0.31 (chi2)
    assert rows[("bns", 0.0)] == 0.5 and rows[("bns", 0.05)] == 1.0  # 0.3 >= 0.95 * 0.31
    assert rows[("ig", 0.0)] == 0.0 and rows[("ig", 0.05)] == 0.5  # 0.78 >= 0.76
    assert rows[("chi2", 0.0)] == 0.5
    pairs = best_pairs(records, tolerance=0.0)
    assert pairs[0] == {"pair": ("bns", "chi2"), "share": 1.0}
    split = skew_split(records, threshold=50)
    assert {r["skew"] for r in split} == {"high", "low"}
    high_bns_k1 = next(r for r in split if r["skew"] == "high" and r["metric"] == "bns" and r["k"] == 1)
    assert high_bns_k1["f1"] == 0.3 and high_bns_k1["tasks"] == 1


def test_residual_curve_counts_the_backups_rescues_by_hand():
    """Forman's Fig. 10b: on four hand-built tasks IG is within 5% of the best F1 on one (x); BNS
    rescues two of the other three (y, z) and Chi two others (z, w), and the pair shares add IG's
    own success.  With IG best everywhere the residual is undefined (NaN), not 0."""
    import math

    from textsel.study import residual_curve

    records = _records({
        ("d", "x", "ig"): [0.8, 0.1], ("d", "x", "bns"): [0.5, 0.5], ("d", "x", "chi2"): [0.79, 0.1],
        ("d", "y", "ig"): [0.5, 0.1], ("d", "y", "bns"): [0.9, 0.1], ("d", "y", "chi2"): [0.6, 0.1],
        ("d", "z", "ig"): [0.5, 0.1], ("d", "z", "bns"): [0.88, 0.1], ("d", "z", "chi2"): [0.9, 0.1],
        ("e", "w", "ig"): [0.1, 0.1], ("e", "w", "bns"): [0.2, 0.1], ("e", "w", "chi2"): [0.4, 0.1],
    })  # fmt: skip
    rows = {(r["metric"], r["tolerance"]): r for r in residual_curve(records, "ig", "f1", (0.05,))}
    assert rows[("bns", 0.05)]["residual"] == pytest.approx(2 / 3)  # y (best) and z (0.88 >= 0.855)
    assert rows[("bns", 0.05)]["share"] == pytest.approx(3 / 4)
    assert (rows[("bns", 0.05)]["rescued"], rows[("bns", 0.05)]["failures"]) == (2, 3)
    assert rows[("chi2", 0.05)]["residual"] == pytest.approx(2 / 3)  # z and w; not y (0.6 < 0.855)
    assert rows[("chi2", 0.05)]["share"] == pytest.approx(3 / 4)
    only_ig = _records({("d", "x", "ig"): [0.9, 0.1], ("d", "x", "bns"): [0.5, 0.1]})
    (row,) = residual_curve(only_ig, "ig", "f1", (0.01,))
    assert math.isnan(row["residual"]) and row["share"] == 1.0
    with pytest.raises(
        ValueError, match=r"lead must be one of the records' metrics \['bns', 'ig'\], got 'chi2'"
    ):
        residual_curve(only_ig, "chi2", "f1")
    with pytest.raises(ValueError, match="measure must be one of"):
        residual_curve(only_ig, "ig", "auc")


def test_progress_reports_every_task(datasets, capsys):
    records = forman(datasets, metrics=("bns",), ks=(5,), trials=1, folds=2, progress=True)
    err = capsys.readouterr().err
    assert len(records) == 5
    # tqdm draws a bar; without it, a line at each tenth of the tasks
    assert "5/5" in err or "textsel study: 5 of 5 tasks" in err


def _split(seed, n=200, d=80, n_classes=3):
    X, y = corpus(seed, n=n, d=d, n_classes=n_classes)
    return X[: n // 2], y[: n // 2], X[n // 2 :], y[n // 2 :]


def test_sampling_curves_records_and_full_budget():
    from textsel.study import sampling_curves

    X, y, Xt, yt = _split(10)
    records = sampling_curves(X, y, Xt, yt, budgets=(10, 80), strategies=(("ss", 5), ("ws", None)), samples=2)
    assert {r["method"] for r in records} == {"ss k=5", "ws", "dfreq", "ig"}
    # keeping all 80 terms by a ranking is the full model: relative F1 exactly 1
    full = [r for r in records if r["method"] == "ig" and r["budget"] == 80]
    assert full and all(r["relative_f1"] == pytest.approx(1.0) for r in full)


def test_selection_curves_report_avl_and_lambda():
    from textsel.study import selection_curves

    X, y, Xt, yt = _split(11)
    records = selection_curves(X, y, Xt, yt, ks=(10, 40, 1000))
    expected = {(m, k) for m in ("sts", "chi2", "bns") for k in (10, 40)}
    assert {(r["method"], r["k"]) for r in records} == expected
    stats = textsel.term_stats(X, y)
    assert all(0 < r["avl"] <= stats.df.sum() / stats.n_docs for r in records)
    assert all("lambda" in r for r in records if r["method"] == "sts")


def test_proximal_by_skew():
    from textsel.study import proximal_by_skew

    X, y, Xt, yt = _split(12, n_classes=4)
    Y, Yt = np.eye(4, dtype=int)[y], np.eye(4, dtype=int)[yt]
    records = proximal_by_skew(X, Y, Xt, Yt)
    assert len(records) == 3 * 4
    counts = Y.sum(axis=0)
    for r in records:
        assert r["skew"] == pytest.approx((len(Y) - counts[r["class"]]) / counts[r["class"]])
        assert 0 <= r["f1"] <= 1


def test_masking_curves_per_class():
    from sklearn.preprocessing import normalize

    from textsel.study import masking_curves

    X, y, Xt, yt = _split(13, n=240)
    Y, Yt = np.eye(3, dtype=int)[y], np.eye(3, dtype=int)[yt]
    with pytest.raises(ValueError, match="rows are not unit length"):  # norm="l2" on raw counts
        masking_curves(X, Y, Xt, Yt, sizes=[1.0], classes=[0])
    records = masking_curves(normalize(X), Y, normalize(Xt), Yt, sizes=[0.25, 1.0], classes=[0, 2])
    assert {r["class"] for r in records} == {0, 2}
    assert len(records) == 2 * 2 * 3  # classes x sizes x methods


@pytest.mark.parametrize("boolean", [True, False])
def test_nested_fits_match_liblinear_fit_per_k(boolean):
    """The study's compiled loop over k (rows ranked once, repeated documents grouped, Newton on
    the primal for few terms, coordinate descent above, each fit warm-started from the last)
    gives, at a tight tolerance, the held-out confusion counts of scikit-learn's LinearSVC
    (liblinear, the same problem) trained from scratch on each top-k column subset, with and
    without the early stop on proven predictions; at a looser tolerance, every fit that stopped
    early has those exact counts, sooner than the stopping test alone."""
    from textsel._ext.ccore import nested_svm_csc

    rng = np.random.default_rng(11)
    X = (rng.random((500, 120)) < 0.12).astype(float)
    y = (X[:, :4].sum(axis=1) + rng.random(500) > 1.6).astype(int)
    if not boolean:
        X *= rng.integers(1, 5, X.shape)
    train, test = np.arange(350), np.arange(350, 500)
    order = rng.permutation(120)[:100].astype(np.int64)
    order[:4] = [2, 0, 3, 1]  # the informative terms first, as a metric would rank them
    ks = np.array([3, 8, 30, 63, 64, 100], dtype=np.int64)  # around the Newton/CD switch
    Xtr, Xte = sp.csc_matrix(X[train]), sp.csc_matrix(X[test])
    signs, test_signs = np.where(y[train] == 1, 1.0, -1.0), np.where(y[test] == 1, 1.0, -1.0)
    expected = []
    for k in ks:
        cols = order[:k]
        model = LinearSVC(C=1.0, tol=1e-10, max_iter=1_000_000, dual=True).fit(X[train][:, cols], y[train])
        predicted = model.decision_function(X[test][:, cols]) > 0
        truth = y[test] == 1
        expected.append([(predicted & truth).sum(), (predicted & ~truth).sum(), (~predicted & truth).sum()])
    for max_share in (0.0, 0.7):  # without and with grouping
        for certify in (False, True):  # stopping test alone, or also the early stop
            confusion, n_iter, converged, certified = nested_svm_csc(
                Xtr.data, Xtr.indices, Xtr.indptr, signs, Xte.data, Xte.indices, Xte.indptr, test_signs,
                order, ks, "squared_hinge", 1.0, 1.0, 1e-10, 100_000, True, 1.0, 0, max_share=max_share,
                certify=certify,
            )  # fmt: skip
            np.testing.assert_array_equal(confusion, expected)
            assert (converged ^ certified).all() and (n_iter >= 1).all()
            assert certified.any() == certify
    assert np.asarray(expected)[:, 0].min() > 0  # every k finds some positives
    # at a looser tolerance, a fit stopped early on proven predictions has the exact counts, in
    # fewer passes than the stopping test alone takes
    runs = [nested_svm_csc(
        Xtr.data, Xtr.indices, Xtr.indptr, signs, Xte.data, Xte.indices, Xte.indptr, test_signs,
        order, ks, "squared_hinge", 1.0, 1.0, 1e-6, 1000, True, 1.0, 0, certify=certify,
    ) for certify in (False, True)]  # fmt: skip
    (_, plain_iter, _, _), (confusion, n_iter, _, certified) = runs
    assert certified.any()
    np.testing.assert_array_equal(confusion[certified], np.asarray(expected)[certified])
    assert (n_iter[certified] < plain_iter[certified]).all()
    with pytest.raises(ValueError, match="same features"):
        nested_svm_csc(Xtr.data, Xtr.indices, Xtr.indptr, signs, Xte.data, Xte.indices,
                       Xte.indptr[:-1], test_signs, order, ks, "squared_hinge", 1.0, 1.0, 1e-4, 1000,
                       True, 1.0, 0)  # fmt: skip
    with pytest.raises(ValueError, match="must not be empty"):
        nested_svm_csc(Xtr.data, Xtr.indices, Xtr.indptr, signs[:0], Xte.data, Xte.indices,
                       Xte.indptr, test_signs, order, ks, "squared_hinge", 1.0, 1.0, 1e-4, 1000,
                       True, 1.0, 0)  # fmt: skip


def test_primal_newton_reaches_the_optimum_of_coordinate_descent():
    """Newton on the primal (the study's solver for few terms) and dual coordinate descent at a
    tight tolerance reach the same objective, on repeated documents weighted by their copies
    (the grouped problems), and the multipliers give back the weights."""
    from textsel._ext.ccore import dcd_svm_csr

    rng = np.random.default_rng(3)
    X = sp.csr_matrix((rng.random((300, 20)) < 0.2).astype(float))
    signs = np.where(X[:, 0].toarray().ravel() + rng.random(300) > 0.9, 1.0, -1.0)
    weights = rng.integers(1, 30, 300).astype(float)
    args = (X.data, X.indices, X.indptr, 20, signs, "squared_hinge", 1.0, 2.0)

    def objective(w):
        margins = np.maximum(0.0, 1 - signs * (X @ w[:-1] + w[-1]))
        return 0.5 * w @ w + (weights * np.where(signs > 0, 1.0, 2.0) * margins**2).sum()

    w_cd, *_ = dcd_svm_csr(*args, 1e-12, 1_000_000, True, 1.0, True, 0, None, weights)
    w, alpha, n_iter, converged = dcd_svm_csr(*args, 1e-4, 1000, True, 1.0, True, 0, None, weights,
                                              primal=True)  # fmt: skip
    assert converged and n_iter < 20
    assert objective(w) == pytest.approx(objective(w_cd), rel=1e-10)
    np.testing.assert_allclose(sp.hstack([X, np.ones((300, 1))]).T @ (signs * alpha), w, atol=1e-9)
    with pytest.raises(ValueError):
        dcd_svm_csr(X.data, X.indices, X.indptr, 20, signs, "hinge", 1.0, 1.0, 1e-4, 1000, True, 1.0, True, 0,
                    primal=True)  # fmt: skip


def test_boolean_features_count_presence_of_the_summed_values():
    """Boolean features are presence: a stored zero is absent and a column stored twice is present
    once, as in the canonical matrix."""
    X, y = corpus(4)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    zero_rows = np.arange(0, X.shape[0], 3)
    zero_cols = (zero_rows * 7 + 1) % X.shape[1]
    keep = X[zero_rows, zero_cols].A1 == 0  # explicit zeros only where nothing is stored
    data = np.concatenate([X.data / 2, X.data / 2, np.zeros(keep.sum())])
    cols = np.concatenate([X.indices, X.indices, zero_cols[keep]])
    all_rows = np.concatenate([rows, rows, zero_rows[keep]])
    order = np.argsort(all_rows, kind="stable")
    indptr = np.r_[0, np.cumsum(np.bincount(all_rows, minlength=X.shape[0]))]
    messy = sp.csr_matrix((data[order], cols[order], indptr), shape=X.shape)
    assert not messy.has_canonical_format and (messy.data == 0).any()
    kwargs = dict(metrics=("bns",), ks=(5, 20), trials=1, folds=2, random_state=3)
    want = forman({"a": (X, y)}, **kwargs)
    got = forman({"a": (messy, y)}, **kwargs)
    assert [(r["class"], r["k"], r["f1"]) for r in got] == [(r["class"], r["k"], r["f1"]) for r in want]


def test_a_single_class_dataset_is_a_clear_error():
    X = sp.random(20, 10, density=0.3, format="csr", random_state=0)
    with pytest.raises(ValueError, match="datasets: no class"):
        forman({"one": (X, np.zeros(20, int))}, ks=(2,), trials=1)


def test_tolerance_takes_the_best_k_within_each_trial_then_averages_as_forman_does():
    """Forman's "average maximum": the maximum over k inside each trial, then the mean over
    trials.  Built so the two orders disagree: metric a peaks at a different k in each trial
    (per-trial maxima 0.9, 0.9: average maximum 0.9; trial means 0.7, 0.7: maximum 0.7), metric b
    is flat at 0.8.  Forman's order makes a the best and b 11% behind; the other order the reverse."""
    from textsel.study import FORMAN_TOLERANCES, average_trials, tolerance_curve

    f1 = {("a", 0): [0.9, 0.5], ("a", 1): [0.5, 0.9], ("b", 0): [0.8, 0.8], ("b", 1): [0.8, 0.8]}
    records = [{"dataset": "d", "class": "x", "trial": t, "metric": m, "k": k, "positives": 5, "skew": 9.0,
                "accuracy": 0.9, "precision": 0.5, "recall": 0.5, "f1": value}
               for (m, t), values in f1.items() for k, value in zip((10, 20), values, strict=True)
               ]  # fmt: skip
    assert FORMAN_TOLERANCES == (0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1)
    forman_order = {(r["metric"], r["tolerance"]): r["share"] for r in tolerance_curve(records)}
    assert forman_order[("a", 0.01)] == 1.0 and forman_order[("b", 0.01)] == 0.0
    assert forman_order[("b", 0.1)] == 0.0  # 0.8 < 0.9 * 0.9
    averaged = average_trials(records)
    assert len(averaged) == 4 and all("trial" not in r for r in averaged)
    assert {(r["metric"], r["k"]): r["f1"] for r in averaged} == pytest.approx(
        {("a", 10): 0.7, ("a", 20): 0.7, ("b", 10): 0.8, ("b", 20): 0.8}
    )
    means_first = {(r["metric"], r["tolerance"]): r["share"] for r in tolerance_curve(averaged)}
    assert means_first[("a", 0.01)] == 0.0 and means_first[("b", 0.01)] == 1.0


def test_per_trial_records_average_to_the_default_records(datasets):
    """forman(per_trial=True) gives one record per trial, each the mean over that trial's folds;
    averaged over trials they are the default records."""
    from textsel.study import average_trials

    kwargs = {"metrics": ("bns", "ig"), "ks": (5, 10), "trials": 2, "n_jobs": 1}
    default = textsel.study.forman(datasets, **kwargs)
    per_trial = textsel.study.forman(datasets, per_trial=True, **kwargs)
    assert len(per_trial) == 2 * len(default) and {r["trial"] for r in per_trial} == {0, 1}
    averaged = average_trials(per_trial)
    assert [{k: v for k, v in r.items() if k not in MEASURES} for r in averaged] == [
        {k: v for k, v in r.items() if k not in MEASURES} for r in default
    ]
    for got, want in zip(averaged, default, strict=True):
        assert [got[m] for m in MEASURES] == pytest.approx([want[m] for m in MEASURES], abs=1e-12)


def test_all_terms_baseline_is_one_record_per_task_equal_to_an_svm_on_every_term(datasets):
    """ks may hold "all": one record per task (metric and k "all"), the SVM trained on every
    term of each training fold, scored like the others; a LinearSVC on the same folds and Boolean
    features gives the same F1 (same problem, same tolerance)."""
    from textsel.study import tolerance_curve

    records = forman(datasets, metrics=("bns",), ks=(5, "all"), trials=1, folds=2)
    baseline = [r for r in records if r["k"] == "all"]
    assert len(baseline) == 5 and all(r["metric"] == "all" for r in baseline)
    with_svc = forman(datasets, metrics=("bns",), ks=("all",), trials=1, folds=2, estimator=LinearSVC(C=1.0))
    expected = [r["f1"] for r in baseline]
    assert [r["f1"] for r in with_svc if r["k"] == "all"] == pytest.approx(expected, abs=0.02)
    assert {r["metric"] for r in tolerance_curve(records)} == {"bns"}  # the baseline is no metric


def test_sampling_curves_matched_compare_every_method_at_equal_numbers_of_terms():
    """With matched budgets, a sampling strategy draws with the r that keeps the budget's number of
    terms in expectation: its mean kept count is near the budget (not below it, as with r = budget
    when some probabilities exceed 1/r), and its r is at least the budget."""
    from textsel.study import sampling_curves

    X, y, Xt, yt = _split(12, n=300)
    plain = sampling_curves(X, y, Xt, yt, budgets=(40,), strategies=(("ss", 3),), baselines=(), samples=20)
    matched = sampling_curves(X, y, Xt, yt, budgets=(40,), strategies=(("ss", 3),), baselines=(), samples=20,
                              matched=True)  # fmt: skip
    assert plain[0]["r"] == 40 and plain[0]["kept"] < 40  # the unmatched draw keeps fewer than r
    assert matched[0]["r"] > 40 and abs(matched[0]["kept"] - 40) < 4  # 20 draws of a Poisson-binomial count


def test_document_counts_sum_to_sklearns_micro_and_macro_f1():
    """Summed over any subset of the documents, the per-document [tp | fp | fn] counts give
    scikit-learn's micro- and macro-F1 of that subset, for class labels and indicator matrices;
    and sampling_curves(counts=True) records them, the all-terms model's first."""
    from sklearn.metrics import f1_score

    from textsel.study import sampling_curves
    from textsel.study.experiments import document_counts

    rng = np.random.default_rng(3)
    classes = np.array(["a", "b", "c", "d"])
    truth, guess = rng.choice(classes, 200), rng.choice(classes, 200)
    indicator_truth, indicator_guess = rng.random((200, 5)) < 0.3, rng.random((200, 5)) < 0.3
    for y, p, names in (
        (truth, guess, classes),
        (indicator_truth.astype(int), indicator_guess.astype(int), None),
    ):
        counts = document_counts(y, p, names)
        for subset in (np.arange(200), rng.choice(200, 200), np.arange(50)):
            tp, fp, fn = np.split(np.asarray(counts[subset].sum(axis=0)).ravel(), 3)
            micro = 2 * tp.sum() / (2 * tp.sum() + fp.sum() + fn.sum())
            per_class = np.divide(
                2 * tp, 2 * tp + fp + fn, out=np.zeros_like(tp), where=(2 * tp + fp + fn) > 0
            )
            assert micro == pytest.approx(f1_score(y[subset], p[subset], average="micro"))
            assert per_class.mean() == pytest.approx(
                f1_score(y[subset], p[subset], average="macro", zero_division=0)
            )
    X, y, Xt, yt = _split(13)
    records = sampling_curves(X, y, Xt, yt, budgets=(20,), strategies=(("ws", None),), samples=2, counts=True)
    assert records[0]["method"] == "all" and all(r["counts"].shape == (Xt.shape[0], 9) for r in records)
    tp, fp, fn = np.split(np.asarray(records[0]["counts"].sum(axis=0)).ravel(), 3)
    assert records[0]["relative_f1"] == 1.0 and tp.sum() + fn.sum() == Xt.shape[0]


def test_document_counts_names_labels_it_cannot_read():
    from textsel.study.experiments import document_counts

    with pytest.raises(ValueError, match="y_true and y_pred"):
        document_counts(np.eye(3), np.eye(4)[:3], None)
    with pytest.raises(ValueError, match="y_pred must be .* 0/1"):
        document_counts(np.eye(3), 2 * np.eye(3), None)
    with pytest.raises(TypeError, match="classes"):
        document_counts(np.array([0, 1, 2]), np.array([0, 1, 1]), None)
