"""``textsel reproduce``: every claim gets a row, every "differs" a measured reason, and the page
its table, sections and figures; Forman's claims are checked against the study's own records."""

import math
import re

import numpy as np
import pytest
import scipy.sparse as sp

from textsel.cli import main
from textsel.reproduce import PAPERS, Report, reproduce, verdict
from textsel.reproduce.claims import FORMAN
from textsel.reproduce.forman_tables import macro_table, paired_ttest, ranked_at

#: the words a row's verdict starts with
VERDICTS = ("reproduces", "differs", "within noise", "too few to judge", "not tested")


def _corpus(seed, n_classes=4, n=160, d=1200):
    """Word counts where class c leans on its own block of words (and skews differ by class)."""
    rng = np.random.default_rng(seed)
    y = rng.choice(n_classes, n, p=np.linspace(2, 1, n_classes) / np.linspace(2, 1, n_classes).sum())
    X = (rng.random((n, d)) < 0.02).astype(float)
    for c in range(n_classes):
        X[np.ix_(y == c, np.arange(c * 40, c * 40 + 40))] += rng.random(((y == c).sum(), 40)) < 0.3
    return sp.csr_matrix(X), y.astype(str)


@pytest.fixture(scope="module")
def forman_report(tmp_path_factory):
    pytest.importorskip("matplotlib")
    from textsel.reproduce import forman

    out = tmp_path_factory.mktemp("reproductions")
    datasets = {"one": _corpus(0), "two": _corpus(1, n_classes=3)}
    return forman.run(out=out, quick=True, n_jobs=1, datasets=datasets), out


def test_every_forman_claim_has_one_row_with_a_verdict_an_interval_and_a_reason(forman_report):
    report, _ = forman_report
    assert [row.claim for row in report.rows] == [text for _, text in FORMAN.values()]
    for row in report.rows:
        assert row.word in VERDICTS and len(row.verdict) > len(row.word) + 5
        assert row.ours and row.measure and row.interval


def test_the_page_holds_the_command_the_table_and_its_figures(forman_report):
    report, out = forman_report
    page = (out / "forman.md").read_text()
    assert "textsel reproduce forman --data-home DATA --quick" in page
    assert page.count(' | Sec. "Empirical Results", Fig. 4 |') == 7 and "## Macro-F1 against k" in page
    assert page.count(".**  The paper: ") == len(report.rows)  # a note under the table for each row
    for name, _ in report.figures:
        assert (out / "forman" / name).is_file() and f"(forman/{name})" in page
    held = sum(row.word == "reproduces" for row in report.rows)
    assert f"Of {len(report.rows)} claims, {held} reproduce" in page


def test_macro_tables_and_the_paired_test_agree_with_numpy():
    """The helpers the verdicts read: macro-averages over tasks of trial means, ranking by value,
    and a paired t-test over (task, trial) pairs, against numpy and scipy directly."""
    from scipy.stats import ttest_rel

    rng = np.random.default_rng(2)
    records = [
        {"dataset": "d", "class": c, "trial": t, "metric": m, "k": 10, "positives": 5, "skew": 3.0,
         "accuracy": 0.9, "precision": 0.5, "recall": 0.5, "f1": float(rng.random())}
        for c in range(6) for t in range(3) for m in ("bns", "ig")
    ]  # fmt: skip
    table = macro_table(records)
    for m in ("bns", "ig"):
        expected = np.mean([np.mean([r["f1"] for r in records if r["metric"] == m and r["class"] == c])
                            for c in range(6)])  # fmt: skip
        assert table[(m, 10)] == pytest.approx(expected)
    assert ranked_at(table, 10)[0][0] == max(table.values())
    t, p, n, diff = paired_ttest(records, "bns", "ig", 10)
    x = [r["f1"] for r in records if r["metric"] == "bns"]
    y = [r["f1"] for r in records if r["metric"] == "ig"]
    reference = ttest_rel(x, y)
    assert n == 18 and t == pytest.approx(reference.statistic) and p == pytest.approx(reference.pvalue)
    assert diff == pytest.approx(np.mean(np.subtract(x, y)))


def test_verdicts_and_unknown_papers():
    assert verdict(True, "x") == "reproduces" and verdict(False, "by 3 points") == "differs: by 3 points"
    with pytest.raises(ValueError, match="paper must be one of"):
        reproduce("nobody")
    assert set(PAPERS) == {"forman", "li-sun", "dasgupta", "kolcz", "zhuang"}
    report = Report("k", "T", "C", "corpus")
    report.add("Fig. 1", "claim", "measure", "ours", False, "why")
    assert "| Fig. 1 | claim | measure | ours | differs: why |" in report.markdown()


def test_reproduce_without_the_sets_names_the_folder(tmp_path, capsys):
    assert main(["reproduce", "forman", "--data-home", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "none of Forman's sets in" in err and "forman-arff" in err and "forman-cluto" in err
    assert "Traceback" not in err


@pytest.mark.slow
def test_reproduce_forman_quick_on_the_real_sets(data_home, tmp_path, capsys):
    """The command as a reader runs it (one trial): a page with every claim."""
    pytest.importorskip("matplotlib")
    if not (data_home / "forman-arff").is_dir() and not (data_home / "forman-cluto").is_dir():
        pytest.skip("none of Forman's sets in the data home")
    code = main(["reproduce", "forman", "--data-home", str(data_home), "--out", str(tmp_path), "--quick",
                 "--n-jobs", "2"])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "within noise" in out and f"; wrote {tmp_path}/forman.md" in out
    page = (tmp_path / "forman.md").read_text()
    rows = re.findall(r"^\| \d+ \| ", page, flags=re.M)
    assert len(rows) == page.count(".**  The paper: ") == len(FORMAN)  # a row and a note each
    _assert_no_nan(page)


def _indicator_corpus(seed, n=240, d=300, n_classes=3):
    """Boolean unit-length rows where class c leans on its own block of words; train/test halves."""
    from sklearn.preprocessing import normalize

    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = (rng.random((n, d)) < 0.03).astype(float)
    for c in range(n_classes):
        X[np.ix_(y == c, np.arange(c * 30, c * 30 + 30))] += rng.random(((y == c).sum(), 30)) < 0.25
    X = normalize(sp.csr_matrix((X > 0).astype(float)))
    Y = (y[:, None] == np.arange(n_classes)).astype(np.int64)
    return X[: n // 2], Y[: n // 2], X[n // 2 :], Y[n // 2 :]


def test_every_kolcz_claim_has_a_row_and_table_1_matches_the_records(tmp_path):
    """Kolcz & Chowdhury on two small corpora, both losses: one row per claim, each verdict with
    its reason, Table 1's means equal to the best-over-sizes of evaluate_subsets' own records; a
    mean over six categories gets Student's t interval (the masking row's median its sign-test
    interval), three categories are too few to judge."""
    pytest.importorskip("matplotlib")
    from textsel.reproduce import kolcz
    from textsel.reproduce.claims import KOLCZ

    corpora = {"first": _indicator_corpus(0, n=480, n_classes=6), "second": _indicator_corpus(1)}
    report = kolcz.run(out=tmp_path, quick=True, corpora=corpora)
    assert [row.claim for row in report.rows] == [text for _, text in KOLCZ.values()]
    for row in report.rows:
        assert row.word in VERDICTS and len(row.verdict) > len(row.word) + 5
        if not row.timed:
            method = "sign-test interval of the median" if "median" in row.measure else "95% t-interval"
            assert all(part in row.interval for part in (method, "over 6 categories", "first"))
            assert "not judged (3 categories, fewer than the 5" in row.interval
    page = (tmp_path / "kolcz.md").read_text()
    assert "| interval | verdict |" in page and "What differs from the paper's setup" in page
    assert page.count("\n| first, ") == 2 and page.count("\n| second, ") == 2  # Table 1: both losses
    for name, _ in report.figures:
        assert (tmp_path / "kolcz" / name).is_file()


def test_reproduce_kolcz_quick_on_the_real_corpora(data_home, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["reproduce", "kolcz", "--data-home", str(data_home), "--out", str(tmp_path), "--quick"]) == 0
    captured = capsys.readouterr()
    assert "kolcz: " in captured.out
    # off a terminal, each stage on a line of stderr without --progress
    assert "textsel reproduce kolcz: Reuters-21578, hinge loss: 3 one-vs-rest tasks" in captured.err
    _assert_no_nan((tmp_path / "kolcz.md").read_text())


#: "nan" as a word: a number a page failed to compute (its "+nan" mean of three categories was one)
NAN = re.compile(r"(?<![A-Za-z])nan(?![A-Za-z])", re.I)


def _assert_no_nan(page: str) -> None:
    found = [line for line in page.splitlines() if NAN.search(line)]
    assert not found, f"nan on the page: {found[0][:300]}"


@pytest.mark.slow
@pytest.mark.parametrize("paper", ["dasgupta", "li-sun", "zhuang"])
def test_every_quick_page_on_the_real_corpora_reads_without_nan(data_home, tmp_path, paper):
    """Each paper's page as ``textsel reproduce PAPER --quick`` writes it: every claim a row, and
    no number a reader meets is nan (Forman's and Kolcz's pages: their own tests)."""
    pytest.importorskip("matplotlib")
    assert main(["reproduce", paper, "--data-home", str(data_home), "--out", str(tmp_path), "--quick"]) == 0
    _assert_no_nan((tmp_path / f"{paper}.md").read_text())


def test_every_zhuang_claim_has_a_row_and_table_2_counts_agree_with_sklearn(tmp_path):
    """Zhuang et al. on a small multi-label corpus: one row per claim with its verdict, and the
    micro/macro F1 the rows read equal scikit-learn's f1_score on the same predictions."""
    pytest.importorskip("matplotlib")
    from sklearn.metrics import f1_score

    from textsel.reproduce import zhuang
    from textsel.reproduce.claims import ZHUANG

    X, Y, X_test, Y_test = _indicator_corpus(3, n=400, d=300, n_classes=6)
    Y[:3, 5] = 1  # one rare class
    rng = np.random.default_rng(4)
    scaling = (X, rng.integers(0, 20, X.shape[0]))
    corpora = {"topics": (X, Y, X_test, Y_test), "scaling": scaling}
    report = zhuang.run(out=tmp_path, quick=True, corpora=corpora)
    assert [row.claim for row in report.rows] == [text for _, text in ZHUANG.values()]
    for row in report.rows:
        assert row.word in VERDICTS and row.interval
    from textsel.linear_model import WeightedProximalSVC

    predicted = WeightedProximalSVC().fit(X, Y).predict(X_test)
    from textsel.reproduce.documents import class_f1
    from textsel.study.experiments import document_counts

    tp, fp, fn = zhuang._counts(document_counts(np.asarray(Y_test) > 0, predicted > 0, None))
    assert 2 * tp.sum() / (2 * tp.sum() + fp.sum() + fn.sum()) == pytest.approx(
        f1_score(Y_test, predicted, average="micro")
    )
    macro = class_f1(tp, fp, fn).mean()
    assert macro == pytest.approx(f1_score(Y_test, predicted, average="macro", zero_division=0))
    assert (tmp_path / "zhuang.md").is_file() and (tmp_path / "zhuang" / "f1_by_frequency.png").is_file()


def test_every_li_sun_claim_has_a_row_and_the_spearman_row_matches_scipy(tmp_path):
    """Li & Sun on a small corpus: one row per claim with its verdict, and the Spearman
    correlations the last row reports equal scipy's on zeta and chi2 computed independently."""
    pytest.importorskip("matplotlib")
    from scipy.stats import spearmanr

    import textsel
    from textsel.reproduce import li_sun
    from textsel.reproduce.claims import LI_SUN
    from textsel.scalable import probability_ratio, zeta

    X, Y, X_test, Y_test = _indicator_corpus(5, n=600, d=5000, n_classes=4)
    y, y_test = Y.argmax(axis=1), Y_test.argmax(axis=1)
    report = li_sun.run(out=tmp_path, quick=True, corpus=(X, y, X_test, y_test))
    assert [row.claim for row in report.rows] == [text for _, text in LI_SUN.values()]
    for row in report.rows:
        assert row.word in VERDICTS and "over" in row.interval
        # the formula row: basic; the Spearman row: its three lambdas' band over the terms
        assert re.search(r"95% (basic |simultaneous )?bootstrap", row.interval), row.interval
    stats = textsel.term_stats(X, y)
    keep = stats.df >= 2
    chi2 = textsel.score(stats, "chi2").max(axis=0)[keep]
    z = zeta(np.log(probability_ratio(stats))[keep], np.log(stats.df[keep]), 0.5)
    assert f"lambda 0.5: {spearmanr(z, chi2)[0]:.4f}" in report.rows[-1].ours
    shown = re.match(r"λ (0\.\d): ([0-9.]+) ", report.rows[-1].interval)  # from the terms' ranks by group
    z = zeta(np.log(probability_ratio(stats))[keep], np.log(stats.df[keep]), float(shown.group(1)))
    assert shown.group(2) == f"{spearmanr(z, chi2)[0]:.3g}", report.rows[-1].interval
    assert (tmp_path / "li-sun.md").is_file() and (tmp_path / "li-sun" / "f1_vs_k.png").is_file()


def test_every_dasgupta_claim_has_a_row_and_the_lambda_row_matches_a_direct_fit(tmp_path):
    """Dasgupta et al. on two small corpora: one row per claim with its verdict; the lambda row's
    best micro-F1 equals RLSC fitted directly at that lambda one-vs-all (each class where f >= 0,
    the paper's rule), scored by scikit-learn."""
    pytest.importorskip("matplotlib")
    from sklearn.metrics import f1_score

    from textsel.linear_model import RLSClassifier
    from textsel.reproduce import dasgupta
    from textsel.reproduce.claims import DASGUPTA

    X, Y, X_test, Y_test = _indicator_corpus(6, n=600, d=6000, n_classes=4)
    y, y_test = Y.argmax(axis=1), Y_test.argmax(axis=1)
    corpora = {"first": (X, y, X_test, y_test), "second": (X, Y, X_test, Y_test)}
    report = dasgupta.run(out=tmp_path, quick=True, corpora=corpora)
    assert [row.claim for row in report.rows] == [text for _, text in DASGUPTA.values()]
    for row in report.rows:
        assert row.word in VERDICTS and row.interval
    micro = {lam: f1_score(Y_test, RLSClassifier(alpha=lam).fit(X, Y).decision_function(X_test) >= 0,
                           average="micro") for lam in dasgupta.LAMBDAS}  # fmt: skip
    best = max(micro, key=micro.get)
    assert f"micro {micro[best]:.4f} at lambda {best:g}" in report.rows[0].ours
    assert (tmp_path / "dasgupta.md").is_file()


@pytest.mark.slow
def test_dasgupta_averages_relative_curves_over_splits_and_reports_reuters_macro_f1(tmp_path):
    """The paper averages relative F1 over five 20 Newsgroups splits, each relative to its own best
    all-terms fit: with two splits given, every curve point must be the mean of the two splits'
    own sampling_curves; the Reuters stand-in's relative macro-F1 gets its own table and its
    Fig. 5c row, and keeping every term by a ranking is relative macro-F1 1 exactly."""
    pytest.importorskip("matplotlib")
    from textsel.reproduce import dasgupta
    from textsel.study import sampling_curves

    splits = []
    for seed in (21, 22):
        X, Y, X_test, Y_test = _indicator_corpus(seed, n=400, d=2500, n_classes=3)
        splits.append((X, Y.argmax(axis=1), X_test, Y_test.argmax(axis=1)))
    X, Y, X_test, Y_test = _indicator_corpus(23, n=400, d=2500, n_classes=4)
    report = dasgupta.run(
        out=tmp_path, quick=True, corpora={"news": splits, "reuters": (X, Y, X_test, Y_test)}
    )
    strategies = (("ss", 150), ("ss", 20), ("ws", None), ("us", None))
    by_split = []
    for split in splits:
        records = sampling_curves(
            *dasgupta._one_vs_all(*split),
            [500, 2000],
            strategies=strategies,
            samples=2,
            alphas=dasgupta.LAMBDAS,
            matched=True,
            positive_at_zero=True,
        )
        by_split.append({(r["method"], r["budget"]): r for r in records})
    table = dict(report.sections)["Relative micro-F1 on news (Dasgupta et al.'s Fig. 5)"]
    for (method, budget), first in by_split[0].items():
        mean = (first["relative_f1"] + by_split[1][(method, budget)]["relative_f1"]) / 2
        row = next(line for line in table.splitlines() if line.startswith(f"| {method} |"))
        assert f"{mean:.3f}" in row.split(" | ")[[500, 2000].index(budget) + 1]
    macro = dict(report.sections)["Relative macro-F1 on reuters (Dasgupta et al.'s Fig. 5)"]
    assert "| ig |" in macro and any(row.where.endswith("Fig. 5b and 5c") for row in report.rows)
    full = sampling_curves(X, Y, X_test, Y_test, [2500], strategies=(), samples=1, alphas=(1.0,))
    assert all(r["relative_macro_f1"] == pytest.approx(1.0) for r in full)
    assert "2 random splits of 200 training and 200 test documents" in report.corpus


def test_a_failed_run_leaves_the_previous_page_and_figures(forman_report, monkeypatch):
    """``reproduce`` draws the figures and writes the page into a staging folder private to the
    run (textsel._lab.output) and moves them into place only when the run finishes: a run on other
    data that fails half-way (in its last experiment, its figures already drawn) changes nothing
    and leaves no staging folder or lock behind."""
    from textsel.reproduce import forman, reproduce

    _, out = forman_report
    page = (out / "forman.md").read_text()
    figures = {p.name: p.read_bytes() for p in (out / "forman").iterdir()}
    before = sorted(p.name for p in out.iterdir())

    def fail(*args, **kwargs):
        raise RuntimeError("stopped half-way")

    run = forman.run
    monkeypatch.setattr(forman, "run", lambda **kwargs: run(**kwargs, datasets={"one": _corpus(2)}))
    monkeypatch.setattr(forman, "_negative_shares", fail)
    with pytest.raises(RuntimeError, match="stopped half-way"):
        reproduce("forman", out=out, quick=True, n_jobs=1)
    assert (out / "forman.md").read_text() == page
    assert {p.name: p.read_bytes() for p in (out / "forman").iterdir()} == figures
    assert sorted(p.name for p in out.iterdir()) == before


# -- Forman: each row's criterion can fail


def _forman_records(effect, tasks=40, high=16, trials=2, seed=0, datasets=24):
    """Per-trial records of a Forman study on ``tasks`` tasks from ``datasets`` datasets (task t in
    dataset t mod ``datasets``; the first ``high`` above 1:67 skew):
    every metric scores a task's base value plus ``effect(measure, metric, k, high, z)`` (z a
    standard normal drawn per task) plus a little noise, the SVM on all terms (metric and k
    "all") its base value."""
    from textsel.metrics import METRICS
    from textsel.names import FORMAN_KS
    from textsel.protocol import MEASURES

    rng = np.random.default_rng(seed)
    records = []
    for task in range(tasks):
        is_high, z, base = task < high, rng.standard_normal(), 0.6 + 0.05 * rng.standard_normal()
        for trial in range(trials):
            for metric, ks in [*((m, FORMAN_KS) for m in METRICS), ("all", ("all",))]:
                for k in ks:
                    record = {"dataset": f"d{task % datasets}", "class": task, "trial": trial,
                              "metric": metric, "k": k, "positives": 5,
                              "skew": 100.0 if is_high else 5.0}  # fmt: skip
                    for measure in MEASURES:
                        shift = 0.0 if metric == "all" else effect(measure, metric, k, is_high, z)
                        record[measure] = base + shift + 0.002 * rng.standard_normal()
                    records.append(record)
    return records


def _forman_verdict(key, effect=None, datasets=24, **data):
    from textsel.reproduce import forman_judge
    from textsel.reproduce.forman_tables import task_table

    report = Report(key="forman", title="", citation="", corpus="", claims=FORMAN)
    records = _forman_records(effect or (lambda *_: 0.0), datasets=datasets)
    forman_judge.judge(report, task_table(records), keys=[key], **data)
    (row,) = report.rows
    assert row.claim == FORMAN[key][1]
    return row.word


def _lifts(**lifts):
    """An effect: ``lifts[measure]`` is a list of (metric, amount, where(k, high, z))."""

    def effect(measure, metric, k, high, z):
        return sum(amount for m, amount, where in lifts.get(measure, ()) if m == metric and where(k, high, z))

    return effect


def _always(*_):
    return True


_PARTNERS = {"precision": "odds", "recall": "f1", "f1": "ig", "accuracy": "oddn"}
_OTHERS = ("acc", "acc2", "dfreq", "f1", "odds", "oddn", "pow", "pr")  # neither BNS, IG, Chi nor Rand


def _pairs_effect(partners):
    """BNS best on the high-skew tasks, the partner on the rest: only the pair covers every task."""
    return _lifts(**{measure: [("bns", 0.1, lambda k, h, z: h), (partner, 0.1, lambda k, h, z: not h)]
                     for measure, partner in partners.items()})  # fmt: skip


#: per claim: an effect under which it holds, and one under which it is false
FORMAN_CASES = {
    "wide_margin": (
        _lifts(f1=[("bns", 0.05, _always)]),
        _lifts(f1=[("acc2", 0.05, lambda k, h, z: k == 500)]),
    ),
    "all_terms": (
        _lifts(
            f1=[("bns", 0.05, _always), ("ig", 0.05, _always)]
            + [(m, -0.05, _always) for m in (*_OTHERS, "chi2", "rand")]
        ),
        _lifts(f1=[("bns", 0.05, _always), ("ig", 0.05, _always), ("chi2", 0.05, _always)]),
    ),
    "t_test": (_lifts(f1=[("bns", 0.05, _always)]), _lifts(f1=[("ig", 0.05, _always)])),
    "small_k": (_lifts(f1=[("ig", 0.05, _always)]), _lifts(f1=[("bns", 0.05, lambda k, h, z: k <= 50)])),
    "acc2": (_lifts(f1=[("acc2", 0.05, _always)]), _lifts(f1=[("acc", 0.05, _always)])),
    "ig_chi": (_lifts(f1=[("ig", 0.05, _always)]), _lifts(f1=[("chi2", 0.05, lambda k, h, z: k == 200)])),
    "dfreq": (_lifts(f1=[("dfreq", -0.5, lambda k, h, z: k == 10)]), _lifts()),  # not poor at 10
    "accuracy": (
        _lifts(accuracy=[("ig", 0.05, lambda k, h, z: k <= 100), ("bns", 0.05, lambda k, h, z: k > 100)]),
        _lifts(accuracy=[("chi2", 0.05, _always)]),
    ),
    "recall": (_lifts(recall=[("bns", 0.05, _always)]), _lifts(recall=[("f1", 0.05, _always)])),
    "precision": (
        _lifts(precision=[("ig", 0.05, _always), ("chi2", 0.05, _always)]),
        _lifts(precision=[("odds", 0.1, _always)]),
    ),
    "precision_small": (
        _lifts(precision=[("ig", 0.05, _always)]),
        _lifts(precision=[("bns", 0.05, lambda k, h, z: k == 200)]),
    ),
    "skew_spread": (  # F1 spread ten times wider above the median skew, or the reverse
        lambda measure, metric, k, high, z: (0.2 if high else 0.02) * z if measure == "f1" else 0.0,
        lambda measure, metric, k, high, z: (0.02 if high else 0.2) * z if measure == "f1" else 0.0,
    ),
    "low_f1": (
        _lifts(
            f1=[
                ("bns", 0.05, lambda k, h, z: not h and k >= 50),
                ("ig", 0.03, lambda k, h, z: not h and k <= 20),
            ]
        ),
        _lifts(f1=[("oddn", 0.1, lambda k, h, z: not h)]),
    ),
    "high_f1": (_lifts(f1=[("bns", 0.1, lambda k, h, z: h)]), _lifts(f1=[("ig", 0.1, lambda k, h, z: h)])),
    "low_precision": (
        _lifts(precision=[("ig", 0.05, lambda k, h, z: not h)]),
        _lifts(precision=[("acc2", 0.05, lambda k, h, z: not h)]),
    ),
    "high_precision": (
        _lifts(precision=[("bns", 0.05, lambda k, h, z: h)]),
        _lifts(precision=[("ig", 0.05, lambda k, h, z: h)]),
    ),
    "tolerance": (_lifts(f1=[("bns", 0.05, _always)]), _lifts(f1=[("ig", 0.05, _always)])),
    "goals": (
        _lifts(
            **{m: [("bns", 0.05, _always)] for m in ("accuracy", "f1", "recall")},
            precision=[("ig", 0.05, _always)],
        ),
        _lifts(
            **{m: [("bns", 0.05, _always)] for m in ("accuracy", "f1")},
            recall=[("f1", 0.05, _always)],
            precision=[("ig", 0.05, _always)],
        ),
    ),
    "precision_tolerance": (
        _lifts(precision=[("ig", 0.2, _always)]),
        _lifts(precision=[("oddn", 0.2, _always)]),
    ),
    "residual": (  # IG fails on the high-skew tasks; BNS rescues them all, the others half, Chi and Rand none
        _lifts(
            precision=[("ig", 0.1, lambda k, h, z: not h), ("bns", 0.1, lambda k, h, z: h)]
            + [(m, 0.1, lambda k, h, z: h and z > 0) for m in _OTHERS]
        ),
        _lifts(
            precision=[
                ("ig", 0.1, lambda k, h, z: not h),
                ("bns", 0.1, lambda k, h, z: h),
                ("chi2", 0.1, lambda k, h, z: h),
            ]
        ),
    ),
    "pairs": (_pairs_effect(_PARTNERS), _pairs_effect({**_PARTNERS, "recall": "chi2"})),
}


@pytest.mark.parametrize("key", list(FORMAN_CASES))
def test_each_forman_row_reproduces_where_its_claim_holds_and_differs_where_false(key):
    holds, false = FORMAN_CASES[key]
    assert _forman_verdict(key, holds) == "reproduces"
    assert _forman_verdict(key, false) == "differs"


def test_forman_t_test_row_judges_the_datasets_not_the_task_trials():
    """BNS well ahead of IG at 100 features on 3 of 24 datasets' tasks and a little behind on
    the rest: over the 80 task-trials the paper's paired t-test finds BNS's mean lead significant
    (p < 0.01), but over the datasets, the units every row here counts, the lead is noise."""
    from scipy.stats import ttest_rel

    def effect(measure, metric, k, high, z):
        return 0.0  # replaced per dataset below

    records = _forman_records(effect)
    for r in records:
        if r["metric"] == "bns" and r["k"] == 100:
            r["f1"] += 0.3 if r["dataset"] in ("d0", "d1", "d2") else -0.01
    from textsel.reproduce import forman_judge
    from textsel.reproduce.forman_tables import task_table

    tasks = task_table(records)
    a, b = tasks.trials[("f1", "bns", 100)].ravel(), tasks.trials[("f1", "ig", 100)].ravel()
    assert (a - b).mean() > 0 and ttest_rel(a, b, alternative="greater").pvalue < 0.01
    report = Report(key="forman", title="", citation="", corpus="", claims=FORMAN)
    forman_judge.judge(report, tasks, keys=["t_test"])
    (row,) = report.rows
    assert row.word == "within noise" and "in 24 clusters" in row.interval
    assert "the paper's test over task-trials: t = " in row.ours


def test_forman_low_precision_row_judges_the_mean_over_k_as_its_sentence_names_no_k():
    """IG ahead of every metric on average over k under low skew, while Acc2 leads at 10 features
    alone: "IG performs best" names no number of features, so the row reproduces (judged at each
    k, as before, Acc2's lead at 10 would have made it differ)."""
    effect = _lifts(
        precision=[("ig", 0.05, lambda k, h, z: not h), ("acc2", 0.1, lambda k, h, z: not h and k == 10)]
    )
    assert _forman_verdict("low_precision", effect) == "reproduces"


def test_forman_rows_on_equal_metrics_are_within_noise():
    """Every metric alike but for noise: no "leads" claim can reproduce or differ; they tie."""
    for key in (
        "wide_margin",
        "small_k",
        "acc2",
        "ig_chi",
        "recall",
        "precision",
        "high_f1",
        "tolerance",
        "pairs",
    ):
        assert _forman_verdict(key) == "within noise", key


def test_forman_high_skew_rows_on_fewer_than_five_datasets_are_too_few_to_judge():
    """The high-skew rows judge the tasks' datasets, not the tasks: 16 high-skew tasks from 4
    datasets are 4 units, too few for a verdict even where BNS leads by 0.1 everywhere; from 8
    datasets the same lead reproduces.  A best over k (the low-skew F1 row) bootstraps the
    datasets and needs 20 of them: on 8 it is too few to judge."""
    lead = FORMAN_CASES["high_f1"][0]
    assert _forman_verdict("high_f1", lead, datasets=4) == "too few to judge"
    precision_lead = FORMAN_CASES["high_precision"][0]
    assert _forman_verdict("high_precision", precision_lead, datasets=4) == "too few to judge"
    assert _forman_verdict("high_f1", lead, datasets=8) == "reproduces"
    assert _forman_verdict("low_f1", FORMAN_CASES["low_f1"][0], datasets=8) == "too few to judge"


def test_forman_cutoff_and_negative_rows_can_fail():
    rng = np.random.default_rng(0)

    def cutoffs(f1_drop, recall_rise):
        base = {m: 0.7 + 0.05 * rng.standard_normal(30) for m in ("f1", "precision", "recall")}
        return {1: base, 10: {**base, "recall": base["recall"] + recall_rise},
                25: {m: v - f1_drop for m, v in base.items()}}  # fmt: skip

    assert _forman_verdict("cutoff", cutoffs=cutoffs(0.05, 0.05)) == "reproduces"
    assert _forman_verdict("cutoff", cutoffs=cutoffs(-0.05, 0.05)) == "differs"  # F1 rises with the cutoff
    assert _forman_verdict("cutoff", cutoffs=cutoffs(0.05, -0.05)) == "differs"  # recall falls by 10

    def negative(leader):
        shares = {m: 0.3 + 0.02 * rng.standard_normal(30) for m in ("bns", "ig", "chi2", "dfreq", "odds")}
        shares[leader] += 0.4
        return shares

    assert _forman_verdict("negative", negative=negative("bns")) == "reproduces"
    assert _forman_verdict("negative", negative=negative("dfreq")) == "differs"
    # the 30 tasks from 3 datasets: 3 independent units, too few for a verdict however wide the lead
    three = [f"d{i % 3}" for i in range(30)]
    verdict = _forman_verdict("negative", negative=negative("bns"), negative_datasets=three)
    assert verdict == "too few to judge"


def test_forman_task_table_agrees_with_the_study_tolerance_analysis():
    """The per-task "average maximum" and within-tolerance shares the rows judge equal
    study.tolerance_curve's, computed from the records by a separate route."""
    from textsel import study
    from textsel.reproduce.forman_tables import task_table

    records = _forman_records(
        lambda measure, metric, k, high, z: 0.01 * z * (metric == "bns") + 0.001 * k / 2000
    )
    tasks = task_table(records)
    for measure, tolerance in (("f1", 0.01), ("precision", 0.05), ("accuracy", 0.001)):
        within = tasks.within(measure, tolerance)
        for row in study.tolerance_curve(records, measure, (tolerance,)):
            assert within[row["metric"]].mean() == pytest.approx(row["share"]), (measure, row)
    assert tasks.at("f1", "all", "all").shape == (40,) and tasks.ks == [10, 20, 50, 100, 200, 500, 1000, 2000]


# -- Kolcz & Chowdhury: each row's criterion can fail


def _kolcz_results(*, svset_gap=0.0, mask_gap=0.01, cosine=0.95, small_cosine=0.8, overlap=0.85,
                   containment=0.9, cost=(10.0, 1.0), categories=8, seed=0):  # fmt: skip
    """Records of evaluate_subsets' shape for two corpora (hinge and squared hinge), made to hold
    or break each claim: SV set ``svset_gap`` below exact in best AUC and F1, masking ``mask_gap``
    below; agreement measures at the sizes >= 20% and below; seconds of exact and the rest."""
    rng = np.random.default_rng(seed)
    fractions = [0.005, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0]
    results = {}
    for name in ("A", "B"):
        for loss in ("hinge", "squared_hinge"):
            tasks = []
            for _ in range(categories):
                base = 0.95 + 0.01 * rng.standard_normal()
                records = []
                for f in fractions:
                    sized = f >= 0.2
                    for method, gap in (("exact", 0.0), ("mask", mask_gap), ("svset", svset_gap)):
                        noise = 0.0005 * rng.standard_normal()
                        records.append({
                            "fraction": f, "method": method, "auc": base - gap + noise,
                            "best_f1": base - 0.1 - gap + noise,
                            "cosine": 1.0 if f == 1.0 else (cosine if sized else small_cosine) + noise,
                            "sv_overlap": 1.0 if f == 1.0 else (overlap if sized else 0.4) + noise,
                            "sv_containment": 1.0 if f == 1.0 else containment + noise,
                            "seconds": (cost[0] if method == "exact" else cost[1] / 2) / len(fractions),
                        })  # fmt: skip
                tasks.append(records)
            results[(name, loss)] = tasks
    return results


def _kolcz_verdicts(results):
    from textsel.reproduce import kolcz
    from textsel.reproduce.claims import KOLCZ

    report = Report(key="kolcz", title="", citation="", corpus="", claims=KOLCZ)
    kolcz._table1(report, results)
    kolcz._judge_curves(report, results)
    kolcz._judge_cost(report, results)
    keys = list(KOLCZ)
    return {keys[[r.claim for r in report.rows].index(text)]: row.word
            for row in report.rows for text in [row.claim]}  # fmt: skip


def test_kolcz_rows_reproduce_where_their_claims_hold():
    verdicts = _kolcz_verdicts(_kolcz_results())
    assert set(verdicts.values()) == {"reproduces"}, verdicts


@pytest.mark.parametrize(
    "broken, key",
    [
        (dict(svset_gap=0.02), "svset_auc"),  # the SV set clearly below exact: not equivalent
        (dict(mask_gap=-0.01), "mask_auc"),  # masking above exact
        (dict(cosine=0.6), "cosine"),  # not high at sizable fractions
        (dict(small_cosine=0.99), "cosine"),  # no drop at the small sizes
        (dict(overlap=0.3), "overlap"),
        (dict(containment=0.5), "containment"),
        (dict(cost=(1.0, 1.0)), "cost"),  # the approximations as slow as re-training
    ],
)
def test_each_kolcz_row_differs_where_its_claim_is_false(broken, key):
    verdicts = _kolcz_verdicts(_kolcz_results(**broken))
    assert verdicts[key] == "differs", verdicts


def test_a_kolcz_claim_inside_the_noise_is_within_noise():
    """Categories whose SV-set gap straddles the margin: the interval reaches both sides."""
    results = _kolcz_results()
    rng = np.random.default_rng(5)
    for tasks in results.values():
        for records in tasks:
            shift = rng.choice([-0.03, 0.03])
            for r in records:
                if r["method"] == "svset":
                    r["auc"] += shift
    assert _kolcz_verdicts(results)["svset_auc"] == "within noise"


def test_three_way_verdicts_against_intervals_by_hand():
    from textsel.reproduce.intervals import Interval, bootstrap
    from textsel.reproduce.verdicts import at_least, at_most, combine, equivalent

    def iv(lo, hi):
        return Interval((lo + hi) / 2, lo, hi, "x")

    assert at_least(iv(0.1, 0.3), 0)[0] == "reproduces" and at_least(iv(-0.3, -0.1), 0)[0] == "differs"
    assert at_least(iv(-0.1, 0.1), 0)[0] == "within noise" and at_most(iv(-0.3, -0.1), 0)[0] == "reproduces"
    assert at_most(iv(0.1, 0.2), 0)[0] == "differs" and at_most(iv(-0.1, 0.1), 0)[0] == "within noise"
    assert equivalent(iv(-0.01, 0.01), 0.02)[0] == "reproduces"
    assert equivalent(iv(0.03, 0.05), 0.02)[0] == "differs"
    assert equivalent(iv(0.01, 0.03), 0.02)[0] == "within noise"
    ok, bad, noisy = ("reproduces", "r"), ("differs", "d"), ("within noise", "n")
    # a reason shared by several cells is said once, after their labels
    assert combine([("a", None, ok), ("b", None, ok)]) == ("reproduces", "a, b: r")
    assert combine([("a", None, ok), ("b", None, ("reproduces", "s"))]) == ("reproduces", "a: r; b: s")
    assert combine([("a", None, ok), ("b", None, bad), ("c", None, noisy)]) == ("differs", "b: d")
    assert combine([("a", None, ok), ("c", None, noisy)]) == ("within noise", "c: n")
    # the bootstrap: scipy's percentile interval of the mean over the rows; constant rows: no width
    values = np.random.default_rng(0).normal(1.0, 0.1, 40)
    interval = bootstrap(values, "40 tasks")
    assert interval.estimate == pytest.approx(values.mean()) and interval.low < values.mean() < interval.high
    assert interval.high - interval.low == pytest.approx(2 * 1.96 * values.std() / np.sqrt(40), rel=0.2)
    assert bootstrap([2.0, 2.0, 2.0], "3").low == 2.0 == bootstrap([2.0, 2.0, 2.0], "3").high
    table = np.array([[1.0, 0.5], [1.0, 0.7], [1.0, 0.6]])  # rows are units: statistic over columns
    assert bootstrap(table, "3", statistic=lambda t: t.mean(axis=0).min()).estimate == pytest.approx(0.6)
    with pytest.raises(ValueError, match="finite"):
        bootstrap([1.0, np.nan], "2")


# -- Li & Sun: each row's criterion can fail


def _li_sun_grid(*, sts_gain=0.02, formula_gap=0.001, side_drop=0.0, avl_slope=1.0, lam_slope=0.1,
                 gamma_shift=0.0, rho=1.0, chi2_avl=1.5, docs=2000, seed=0):  # fmt: skip
    """A grid of per-document correctness made to hold or break each claim: STS at AVL* right on
    ``sts_gain`` more of the documents than chi2 at every k, the formula's AVL° on
    ``formula_gap`` fewer than AVL*, the sensitivity's sides on ``side_drop`` fewer; AVL* growing
    as k ** ``avl_slope`` scaled to give gamma 0.085 (+ ``gamma_shift``), lambda* linear in
    log k with ``lam_slope``, zeta and chi2 ranked alike (``rho`` = 1) or not, chi2's sets
    ``chi2_avl`` times as long as STS's at AVL*."""
    rng = np.random.default_rng(seed)
    ks = [500, 1000, 2000, 4000, 8000, 16000]
    factors = (0.65, 1.0, 1.6)
    avl_all = 80.0

    def shifted(correct, delta):
        """``correct`` with ``delta`` of the documents flipped to right (delta > 0) or wrong."""
        out = correct.copy()
        pool = np.flatnonzero(out == (0.0 if delta > 0 else 1.0))
        out[rng.choice(pool, round(abs(delta) * docs), replace=False)] = 1.0 if delta > 0 else 0.0
        return out

    chi2 = np.column_stack([(rng.random(docs) < 0.8).astype(float) for _ in ks])
    sts = np.empty((docs, len(ks), len(factors)))
    avl = np.empty((len(ks), len(factors)))
    lam = np.empty((len(ks), len(factors)))
    for j, k in enumerate(ks):
        target = math.exp((0.085 + gamma_shift) * math.log(avl_all) * math.log(k) * avl_slope)
        sts[:, j, 2] = shifted(chi2[:, j], sts_gain)  # AVL*, the last target
        sts[:, j, 1] = shifted(sts[:, j, 2], -formula_gap)  # the formula's
        sts[:, j, 0] = shifted(sts[:, j, 2], -0.03)
        avl[j] = target * np.array([0.7, 0.8, 1.0])
        lam[j] = 0.2 + lam_slope * math.log(k) + np.array([0.02, 0.01, 0.0])
    terms = rng.random(2000)
    other = terms if rho == 1.0 else rng.random(2000)
    return {
        "ks": ks, "factors": factors, "avl_all": avl_all, "chi2": chi2, "sts": sts, "avl": avl, "lam": lam,
        "chi2_avl": chi2_avl * avl[:, 2],
        "sensitivity": {"k": 4000, "avl": avl[3, 2], "correct": sts[:, 3, 2], "chi2": 0.8,
                        "sides": [(a, shifted(sts[:, 3, 2], -side_drop) if side_drop else sts[:, 3, 2])
                                  for a in (0.917 * avl[3, 2], 1.083 * avl[3, 2])]},
        "spearman": [(lam_, terms, other) for lam_ in (0.1, 0.3, 0.5, 0.7, 0.9)],
    }  # fmt: skip


def _li_sun_verdicts(grid):
    from textsel.reproduce import li_sun
    from textsel.reproduce.claims import LI_SUN

    report = Report(key="li-sun", title="", citation="", corpus="", claims=LI_SUN)
    li_sun._judge(report, grid)
    keys = {text: key for key, (_, text) in LI_SUN.items()}
    return {keys[row.claim]: row.word for row in report.rows}


def test_li_sun_rows_reproduce_where_their_claims_hold():
    verdicts = _li_sun_verdicts(_li_sun_grid())
    assert set(verdicts.values()) == {"reproduces"} and len(verdicts) == 7, verdicts


@pytest.mark.slow
def test_li_sun_fig8_asks_no_significance_of_a_gain_the_paper_calls_not_quite_significant():
    """STS and chi2 equally right at every k, their AVLs as the paper has them: the paper's "F1
    improvements ... not quite significant" holds, so the row reproduces; STS a point behind at
    every k is a loss, and it differs."""
    assert _li_sun_verdicts(_li_sun_grid(sts_gain=0.0))["fig8"] == "reproduces"
    assert _li_sun_verdicts(_li_sun_grid(sts_gain=-0.02))["fig8"] == "differs"


@pytest.mark.slow
@pytest.mark.parametrize(
    "broken, key",
    [
        (dict(sts_gain=-0.05), "fig8"),  # chi2 ahead at every k
        (dict(chi2_avl=0.5), "fig8"),  # chi2's sets shorter than STS's
        (dict(formula_gap=0.05), "formula"),  # the formula's AVL five points below AVL*
        (dict(side_drop=0.06), "sensitivity"),  # a small change of AVL costs six points
        (dict(avl_slope=0.0), "avl_k"),  # AVL* flat in k: no relation
        (dict(lam_slope=0.0), "lambda_k"),
        (dict(gamma_shift=0.05), "gamma"),  # gamma 0.135
        (dict(rho=0.0), "spearman"),  # unrelated rankings
    ],
)
def test_each_li_sun_row_differs_where_its_claim_is_false(broken, key):
    verdicts = _li_sun_verdicts(_li_sun_grid(**broken))
    assert verdicts[key] == "differs", verdicts


# -- every quote is the paper's words


def _papers_folder():
    """A folder of the five papers' text: ``TEXTSEL_PAPERS``, else ``papers/`` beside the data home
    or the checkout's parent (as this project's CI lays them out)."""
    import os
    from pathlib import Path

    given, data = os.environ.get("TEXTSEL_PAPERS"), os.environ.get("TEXTSEL_DATA")
    candidates = [Path(given) if given else None, Path(data).parent / "papers" if data else None,
                  Path(__file__).resolve().parents[2] / "shared" / "papers"]  # fmt: skip
    for folder in candidates:
        if folder is not None and folder.is_dir():
            return folder
    pytest.skip(
        "the papers' text is not here (it cannot ship with textsel): to check that the reproductions "
        "quote the papers word for word, set TEXTSEL_PAPERS to a folder holding their text files"
    )


#: LaTeX in a paper's text and the symbol it prints (longest first)
LATEX = [
    ("\\chi^{2}", "χ2"), ("\\chi^2", "χ2"), ("^{\\circ}", "°"), ("^{*}", "*"), ("^*", "*"), ("F_{1}", "F1"),
    ("\\lambda", "λ"), ("\\zeta", "ζ"), ("\\gamma", "γ"), ("\\circ", "°"), ("\\log", "log"), ("t_i", "ti"),
    ("F_1", "F1"), ("χ^2", "χ2"), ("$", ""),
]  # fmt: skip


@pytest.mark.parametrize(
    "claims, paper",
    [
        ("FORMAN", "forman2003-feature-selection-metrics-bns.txt"),
        ("KOLCZ", "kolcz-chowdhury2007-svm-model-masking.txt"),
        ("LI_SUN", "li-sun2007-scalable-term-selection.txt"),
        ("DASGUPTA", "dasgupta2007-srls-subspace-sampling.txt"),
        ("ZHUANG", "zhuang2006-weighted-proximal-svm.txt"),
    ],
)
def test_each_quoted_passage_is_the_papers_text_verbatim(claims, paper):
    """Every passage a claim puts in double quotes (its parts between "...") occurs in the paper's
    text, up to white space: a row quotes the paper, not a paraphrase."""
    import re

    from textsel.reproduce import claims as entered

    def squeeze(text):  # white space, as the extractions space their punctuation
        text = re.sub(r"\s+", " ", text)
        return re.sub(r"\( ", "(", re.sub(r"\s+([,.;:)%])", r"\1", text)).strip()

    text = (_papers_folder() / paper).read_text(encoding="utf-8")
    for latex, printed in LATEX:  # Li & Sun's text writes its symbols in LaTeX
        text = text.replace(latex, printed)
    text = squeeze(re.sub(r"\*([A-Za-z' ]+)\*", r"\1", text))  # and emphasis in asterisks
    quoted = 0
    for key, (_, claim) in getattr(entered, claims).items():
        for passage in re.findall(r'"([^"]+)"', claim):
            for part in (squeeze(p) for p in passage.split("...")):
                if part.strip(" ()"):
                    assert part in text, (key, part)
                    quoted += 1
    assert quoted >= len(getattr(entered, claims))


# -- Dasgupta et al.: each row's criterion can fail

_DASGUPTA_METHODS = ("dfreq", "ig", "ss k=1500", "ss k=100", "us", "ws")
_DASGUPTA_BUDGETS = (250, 500, 1000, 2000, 5000, 10000)


def _dasgupta_relative(value, noise=0.004, seed=0, macro=None):
    """A Relative whose (method, terms) has relative F1 ``value(method, terms)`` (macro-F1
    ``macro(method, terms)`` where given, else alike), its bootstrap draws that value plus
    independent noise."""
    from textsel.reproduce.dasgupta_relative import Relative
    from textsel.reproduce.intervals import RESAMPLES

    rng = np.random.default_rng(seed)
    keys = [(m, b) for m in _DASGUPTA_METHODS for b in _DASGUPTA_BUDGETS]
    point = {name: np.array([f(m, b) for m, b in keys])
             for name, f in (("relative_f1", value), ("relative_macro_f1", macro or value))}  # fmt: skip
    return Relative(keys, point,
                    {m: p + noise * rng.standard_normal((RESAMPLES, len(keys))) for m, p in point.items()},
                    "1,000 test documents")  # fmt: skip


def _dasgupta_verdicts(rel):
    from textsel.reproduce import dasgupta
    from textsel.reproduce.claims import DASGUPTA

    report = Report(key="dasgupta", title="", citation="", corpus="", claims=DASGUPTA)
    labels = ["ss k=1500", "ss k=100", "ws", "us"]
    dasgupta._newsgroups_claims(report, rel, labels)
    dasgupta._reuters_claims(report, rel, labels)
    keys = {text: key for key, (_, text) in DASGUPTA.items()}
    return {keys[row.claim]: row.word for row in report.rows}


def _paper_world(m, b):
    """Relative F1 as the paper reports it: IG on top; SS k=100 the best unsupervised up to 500
    terms; SS k=1500 the best unsupervised from 1,000, 0.01 over WS and DF, far over US; about 0.9
    at 5,000; DF above both SS on average; IG above 1 somewhere."""
    small = b <= 500
    base = {
        "ig": 0.95,
        "ss k=1500": 0.85 if small else 0.90,
        "ss k=100": 0.88 if small else 0.87,
        "ws": 0.84 if small else 0.89,
        "dfreq": 0.83 if small else 0.89,
        "us": 0.60 if small else 0.75,
    }[m]
    if m in ("ig", "ss k=1500") and b == 5000:
        return 0.90 + (0.06 if m == "ig" else 0.0)
    return base + (0.08 if m == "ig" and b == 10000 else 0.0)


def test_dasgupta_rows_reproduce_in_the_papers_world_and_differ_where_each_claim_is_false():
    def world(changes):
        return lambda m, b: changes.get((m, b), changes.get(m, _paper_world(m, b)))

    holds = _dasgupta_verdicts(_dasgupta_relative(_paper_world))
    assert holds["ig_dominates"] == holds["ss100"] == holds["ss1500"] == "reproduces", holds
    assert holds["reuters_gain"] == "reproduces", holds  # IG 1.03 at 10,000 terms
    assert _dasgupta_verdicts(_dasgupta_relative(world({("ig", 5000): 0.9})))["ninety"] == "reproduces"
    # DF is not above both SS in the paper's world as drawn here (0.83 at the small sizes): Reuters' rows
    # get their own world
    reuters = world({"dfreq": 0.93})
    assert _dasgupta_verdicts(_dasgupta_relative(reuters))["reuters_ig"] == "reproduces"
    # the weaker readings: a rival level with IG at 10,000 terms, or SS k=100 above k=1500 (the same
    # strategy), decides nothing
    assert (
        _dasgupta_verdicts(_dasgupta_relative(world({("ws", 10000): 0.951})))["ig_dominates"] == "reproduces"
    )
    assert _dasgupta_verdicts(_dasgupta_relative(world({"ss k=100": 0.94})))["ss1500"] == "reproduces"
    macro_only = _dasgupta_relative(reuters, macro=world({"dfreq": 0.93, "ss k=100": 1.2}))
    assert _dasgupta_verdicts(macro_only)["reuters_ig"] == "differs"  # Fig. 5c's half fails alone
    breaks = {
        "ninety": world({("ig", 5000): 0.99}),  # IG keeps 99%: not "about 90%"
        "ig_dominates": world({("ws", 250): 1.0}),
        "ss100": world({("ws", 500): 0.95}),
        "ss1500": world({"ws": 0.80, "dfreq": 0.80}),  # far more than marginally better than WS and DF
        "reuters_gain": lambda m, b: 0.9,  # nothing reaches all terms
        "reuters_ig": world({"ss k=100": 1.2}),
    }
    for key, broken in breaks.items():
        assert _dasgupta_verdicts(_dasgupta_relative(broken))[key] == "differs", key


def test_dasgupta_ss1500_row_shows_its_verdict_at_the_neighbouring_margins():
    """ "Marginally better" has no number: the row judges 0.03 and shows the verdict at 0.015 and
    0.06.  Planted: SS k=1500 0.04 over WS and DF (beyond noise) differs at 0.03 and 0.015 and
    reproduces at 0.06, and the row's measure says so."""
    from textsel.reproduce import dasgupta
    from textsel.reproduce.claims import DASGUPTA

    def world(m, b):
        if m in ("ws", "dfreq") and b >= 1000:
            return _paper_world("ss k=1500", b) - 0.04
        return _paper_world(m, b)

    report = Report(key="dasgupta", title="", citation="", corpus="", claims=DASGUPTA)
    dasgupta._newsgroups_claims(
        report, _dasgupta_relative(world, noise=0.002), ["ss k=1500", "ss k=100", "ws", "us"]
    )
    row = next(r for r in report.rows if r.claim == DASGUPTA["ss1500"][1])
    assert row.word == "differs", row.verdict
    assert "at 0.015: differs; at 0.06: reproduces" in row.measure, row.measure


def test_dasgupta_lambda_and_hellinger_rows_can_fail():
    from textsel.reproduce import dasgupta
    from textsel.reproduce.claims import DASGUPTA
    from textsel.study.experiments import document_counts

    rng = np.random.default_rng(1)
    truth = np.eye(4, dtype=int)[rng.integers(0, 4, 1500)]

    def verdict(judge, *args):
        report = Report(key="dasgupta", title="", citation="", corpus="", claims=DASGUPTA)
        judge(report, *args)
        return report.rows[0].word

    def counts(error_at):
        out = []
        for lam in dasgupta.LAMBDAS:
            wrong = rng.random(truth.shape[0]) < error_at(lam)
            guess = truth.copy()
            guess[wrong] = np.roll(truth[wrong], 1, axis=1)
            out.append(document_counts(truth, guess, None))
        return out

    assert verdict(dasgupta._judge_lambda, counts(lambda lam: 0.05 if lam == 0.4 else 0.2)) == "reproduces"
    assert verdict(dasgupta._judge_lambda, counts(lambda lam: 0.3 if lam == 0.4 else 0.1)) == "differs"
    tied = counts(lambda lam: 0.1)[:1] * len(dasgupta.LAMBDAS)  # every lambda the same decisions
    assert verdict(dasgupta._judge_lambda, tied) == "reproduces"  # a tie at the top can reproduce
    ks = (10, 20, 40, 100)
    falling = np.array([[0.5, 0.4, 0.3, 0.2]]) + 0.01 * rng.standard_normal((5, 4))
    assert verdict(dasgupta._judge_hellinger, falling, ks) == "reproduces"
    assert verdict(dasgupta._judge_hellinger, falling[:, ::-1], ks) == "differs"
    assert verdict(dasgupta._judge_hellinger, falling[:4], ks) == "too few to judge"  # four training parts


# -- Zhuang et al.: SVM.2's leave-one-out estimate, and each row's criterion can fail


def test_xi_alpha_flags_every_exact_leave_one_out_error():
    """Joachims' bound: a document the SVM trained without it misclassifies satisfies
    2 alpha R^2 + xi >= 1 in the SVM trained with it.  Checked by refitting without each document
    (the exact leave-one-out), so the estimate SVM.2 ranks j by never misses an error."""
    from textsel.reproduce.zhuang import xi_alpha_f1
    from textsel.svm import DualLinearSVC

    X, Y, _, _ = _indicator_corpus(9, n=160, d=200, n_classes=2)
    y = Y[:, 0]
    for j in (1.0, 5.0):
        model = DualLinearSVC(loss="hinge", C=1.0, class_weight={1: j}, tol=1e-8, max_iter=10000).fit(X, y)
        signs = np.where(y > 0, 1.0, -1.0)
        slack = np.maximum(0.0, 1.0 - signs * model.decision_function(X))
        flagged = 2.0 * model.alpha_[0] * 1.0 + slack >= 1.0 - 1e-9
        for i in range(X.shape[0]):
            keep = np.arange(X.shape[0]) != i
            without = DualLinearSVC(loss="hinge", C=1.0, class_weight={1: j}, tol=1e-8, max_iter=10000)
            wrong = signs[i] * without.fit(X[keep], y[keep]).decision_function(X[i])[0] <= 0
            assert not wrong or flagged[i], (j, i)
        positives, missed, false = (
            int(y.sum()),
            int((flagged & (y > 0)).sum()),
            int((flagged & (y == 0)).sum()),
        )
        assert xi_alpha_f1(model, X, y) == pytest.approx(
            2 * (positives - missed) / (2 * positives - missed + false)
        )


def _zhuang_counts(f1_by_method, categories=60, seed=0):
    """Per-category (tp, fp, fn) whose F1 is ``f1_by_method[m](category)`` (rounded to whole counts:
    20 test positives per category), for the macro-F1 rows."""
    from textsel.reproduce.zhuang import METHODS

    counts = {}
    for m in METHODS:
        f1 = np.array([f1_by_method.get(m, lambda c: 0.6)(c) for c in range(categories)])
        tp = np.round(20 * np.clip(f1, 0, 1)).astype(int)  # precision = recall = f1
        counts[m] = (tp, 20 - tp, 20 - tp)
    return counts


def _zhuang_band_verdicts(counts, shares):
    from textsel.reproduce import zhuang
    from textsel.reproduce.claims import ZHUANG

    report = Report(key="zhuang", title="", citation="", corpus="", claims=ZHUANG)
    bands = {"extreme": shares < zhuang.EXTREME, "balanced": shares >= zhuang.BALANCED}
    bands["unbalanced"] = ~bands["extreme"] & ~bands["balanced"]
    zhuang._by_band(report, counts, bands, shares * 10000, shares, None)
    keys = {text: key for key, (_, text) in ZHUANG.items()}
    return {keys[row.claim]: row.word for row in report.rows}, report


def test_zhuang_band_rows_reproduce_where_their_claims_hold_and_differ_where_false():
    rng = np.random.default_rng(0)
    shares = np.repeat([0.0005, 0.005, 0.05], 20)  # 20 categories in each band
    band = {0.0005: "extreme", 0.005: "unbalanced", 0.05: "balanced"}

    def world(**by_band):  # {method: {band: f1}}, with a little per-category noise
        noise = 0.05 * rng.standard_normal(60)
        return {
            m: (lambda c, v=values: v.get(band[shares[c]], 0.6) + noise[c]) for m, values in by_band.items()
        }

    paper = world(**{"PSVM": {"extreme": 0.1, "unbalanced": 0.2, "balanced": 0.8},
                     "SVM light": {"extreme": 0.2, "unbalanced": 0.4, "balanced": 0.8},
                     "WPSVM": {"extreme": 0.4, "unbalanced": 0.6, "balanced": 0.8},
                     "SVM.2": {"extreme": 0.4, "unbalanced": 0.55, "balanced": 0.8},
                     "SVM.1": {"extreme": 0.6, "unbalanced": 0.65, "balanced": 0.8}})  # fmt: skip
    holds, report = _zhuang_band_verdicts(_zhuang_counts(paper), shares)
    assert set(holds.values()) == {"reproduces"}
    # the band's start is a reading: the row gives the verdict from each neighbouring start too
    assert (
        "from 2%: reproduces (20 categories), from 5%: reproduces (20 categories), from 10%: not tested "
        "(0 categories)" in report.rows[0].measure
    )
    false = {
        "balanced": world(**{"PSVM": {"balanced": 0.4}}),  # a big difference among balanced categories
        "unbalanced": world(**{"WPSVM": {"unbalanced": 0.9}}),  # WPSVM far above both SVM.1 and SVM.2
        "extreme": world(**{"WPSVM": {"extreme": 0.9}}),  # WPSVM beats SVM.1 where the paper says SVM.1 wins
        "psvm_falls": world(
            **{
                "PSVM": {"balanced": 0.6, "unbalanced": 0.6},
                "SVM light": {"balanced": 0.9, "unbalanced": 0.2},
            }
        ),  # fmt: skip
    }
    for key, broken in false.items():
        assert _zhuang_band_verdicts(_zhuang_counts(broken), shares)[0][key] == "differs", key


def test_zhuang_scaling_rows_reproduce_and_differ():
    from textsel.reproduce import zhuang_scaling
    from textsel.reproduce.claims import ZHUANG

    def verdicts(light, unbalanced, per_iteration, memory):
        results = {}
        for name, slow in (("balanced", 1.0), ("unbalanced", unbalanced)):
            for n, size in ((1000, 1.0), (16000, 16.0)):
                wpsvm = [(size * slow * (1 + 0.01 * r), 100 * size, 10) for r in range(3)]
                if size > 1:
                    wpsvm = [(t * per_iteration, mb, k) for t, mb, k in wpsvm]
                svm = [(t * light, mb + memory, 0) for t, mb, _ in wpsvm]
                results[(name, n)] = {"WPSVM": np.array(wpsvm), "LinearSVC": np.array(svm)}
        report = Report(key="zhuang", title="", citation="", corpus="", claims=ZHUANG)
        zhuang_scaling._judge_scaling(report, results, ["balanced", "unbalanced"], 3)
        return {key: row.word for key, row in zip(("time", "linear", "memory"), report.rows, strict=True)}

    assert set(verdicts(light=10.0, unbalanced=1.0, per_iteration=1.0, memory=50).values()) == {"reproduces"}
    assert verdicts(light=1.2, unbalanced=1.0, per_iteration=1.0, memory=50)["time"] == "differs"
    assert verdicts(light=10.0, unbalanced=3.0, per_iteration=1.0, memory=50)["time"] == "differs"
    assert verdicts(light=10.0, unbalanced=1.0, per_iteration=2.0, memory=50)["linear"] == "differs"
    assert verdicts(light=10.0, unbalanced=1.0, per_iteration=1.0, memory=-50)["memory"] == "differs"


def test_zhuang_table_2_rows_reproduce_and_differ():
    """Predictions that miss a method's share of each category's positives (and about as many
    false positives; a method of fewer errors makes a subset of another's): the paper's order
    holds, or PSVM is put on top, or WPSVM falls well behind SVM.2."""
    from textsel.reproduce import zhuang
    from textsel.reproduce.claims import ZHUANG
    from textsel.study.experiments import document_counts

    rng = np.random.default_rng(2)
    truth = rng.random((3000, 40)) < 0.1

    miss, alarm = rng.random(truth.shape), rng.random(truth.shape)  # shared: the methods' errors nest

    def verdicts(errors):
        predicted = {}
        for m, error in errors.items():
            guess = truth.copy()
            guess[truth & (miss < error)] = False  # misses
            guess[~truth & (alarm < error / 9)] = True  # about as many false alarms
            predicted[m] = guess
        documents = {m: document_counts(truth, predicted[m], None) for m in zhuang.METHODS}
        counts = {m: zhuang._counts(documents[m]) for m in zhuang.METHODS}
        report = Report(key="zhuang", title="", citation="", corpus="", claims=ZHUANG)
        zhuang._table2(report, counts, documents, truth)
        return {key: row.word for key, row in zip(("macro_order", "micro_close"), report.rows, strict=True)}

    paper = {"PSVM": 0.4, "SVM light": 0.2, "WPSVM": 0.12, "SVM.2": 0.12, "SVM.1": 0.115}
    assert verdicts(paper) == {"macro_order": "reproduces", "micro_close": "reproduces"}
    assert verdicts({**paper, "PSVM": 0.01})["macro_order"] == "differs"
    assert verdicts({**paper, "WPSVM": 0.25})["micro_close"] == "differs"  # not comparable to SVM.2
    # within 0.01 of SVM.2 but far behind SVM.1, the other validated SVM: not "comparable"
    assert verdicts({**paper, "SVM.1": 0.05})["micro_close"] == "differs"


def _small_run(paper, seed):
    """A paper's quick run on small synthetic corpora (no page), at ``seed``."""
    from textsel.reproduce import dasgupta, forman, kolcz, li_sun, zhuang

    if paper == "forman":
        return forman.run(quick=True, n_jobs=1, datasets={"one": _corpus(0), "two": _corpus(1, n_classes=3)},
                          figures=False, seed=seed)  # fmt: skip
    if paper == "kolcz":
        corpora = {"first": _indicator_corpus(0), "second": _indicator_corpus(1)}
        return kolcz.run(quick=True, corpora=corpora, figures=False, seed=seed)
    X, Y, X_test, Y_test = _indicator_corpus(5, n=600, d=5000, n_classes=4)
    y, y_test = Y.argmax(axis=1), Y_test.argmax(axis=1)
    if paper == "li-sun":
        return li_sun.run(quick=True, corpus=(X, y, X_test, y_test), figures=False, seed=seed)
    if paper == "dasgupta":
        corpora = {"first": (X, y, X_test, y_test), "second": (X, Y, X_test, Y_test)}
        return dasgupta.run(quick=True, corpora=corpora, figures=False, seed=seed)
    X, Y, X_test, Y_test = _indicator_corpus(3, n=400, d=300, n_classes=6)
    Y[:3, 5] = 1
    scaling = (X, np.random.default_rng(4).integers(0, 20, X.shape[0]))
    return zhuang.run(quick=True, corpora={"topics": (X, Y, X_test, Y_test), "scaling": scaling},
                      figures=False, seed=seed)  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_another_seed_redraws_the_intervals_and_moves_no_row_between_reproduces_and_differs(paper):
    """Every paper's run at seed 0 and at seed 7: the seed reaches the intervals' resamples (some
    row's interval moves) and the page's command; no row goes from "reproduces" to "differs" or
    back (a reseeded run may move a row into or out of "within noise" only); the same seed twice
    gives the same rows.  Timed rows (seconds or memory measured here) move with the machine's
    load, not the seed, and are left out."""
    first, again, other = _small_run(paper, 0), _small_run(paper, 0), _small_run(paper, 7)

    def judged(report):
        return [(r.where, r.verdict, r.interval, r.ours) for r in report.rows if not r.timed]

    assert judged(again) == judged(first)
    assert "--seed" not in first.command and other.command.endswith("--seed 7")
    if paper == "forman":  # two datasets, too few for any interval: the seed reaches the folds' numbers
        assert any(a[3] != b[3] for a, b in zip(judged(first), judged(other), strict=True))
    elif paper != "kolcz":  # Kolcz's rows are t-intervals over its largest categories: nothing drawn
        assert any(a[2] != b[2] for a, b in zip(judged(first), judged(other), strict=True))
    outer = {"reproduces", "differs"}
    moved = [(a.where, a.word, b.word) for a, b in zip(first.rows, other.rows, strict=True)
             if not a.timed and {a.word, b.word} == outer]  # fmt: skip
    assert moved == []


def test_a_seed_out_of_range_is_refused_naming_it():
    from textsel.reproduce import kolcz

    for bad in (-1, 2**32, 1.5, True):
        with pytest.raises(ValueError, match="seed"):
            kolcz.run(quick=True, corpora={"first": _indicator_corpus(0)}, figures=False, seed=bad)
    with pytest.raises(SystemExit) as exit_:  # refused as the options are read (argparse: exit 2)
        main(["reproduce", "kolcz", "--seed", "-1", "--out", "unused"])
    assert exit_.value.code == 2


def test_the_run_seed_reaches_every_resample():
    """Inside a run seeded N, the bootstrap, a family's resamples and the F1 draws over test
    documents are drawn from N: the same N gives the same intervals, another N other ones; outside
    a run they are drawn from 0, the published pages' seed."""
    from textsel.reproduce import intervals
    from textsel.reproduce.documents import f1_draws

    values = np.random.default_rng(1).normal(size=40)
    counts = [sp.csr_matrix(np.random.default_rng(2).integers(0, 2, (60, 6)))]

    @intervals.seeded
    def run(seed=0):
        family = intervals.family(lambda rows: values[rows].mean(axis=-1)[:, None], 40, ["m"], "units")
        return intervals.bootstrap(values, "units"), family[0].simultaneous, f1_draws(counts)[1]["micro"]

    def same(a, b):
        return a[:2] == b[:2] and np.array_equal(a[2], b[2])

    assert same(run(seed=3), run(seed=3)) and same(run(), run(seed=0))
    a, b = run(seed=3), run(seed=4)
    assert a[0] != b[0] and a[1] != b[1] and not np.array_equal(a[2], b[2])  # each moved
    assert intervals.bootstrap(values, "units") == run(seed=0)[0] and intervals.current_seed() == 0


def test_the_cutoff_row_selects_one_number_of_features_and_names_identical_runs():
    """Fig. 11 at cutoffs 1, 2 and 5 on a set whose words all occur twice or more: every cutoff
    selects the same k (the smallest vocabulary a cutoff leaves, under 1000 here), cutoffs 1 and 2
    keep the same words and are one run, named as such in the row and the section."""
    from textsel.reproduce import forman
    from textsel.reproduce.forman_judge import judge
    from textsel.reproduce.forman_tables import task_table

    X, y = _corpus(0)
    occurrences = np.asarray(X.sum(axis=0)).ravel()
    X = X[:, occurrences >= 2]
    occurrences = occurrences[occurrences >= 2]
    per_task, rows, k = forman._cutoff({"one": (X, y)}, (1, 2, 5), trials=1, n_jobs=1, seed=0)
    assert k == min(1000, int((occurrences >= 5).sum())) < 1000
    assert [r["k"] for r in rows] == [k, k, k] and [r["same_as"] for r in rows] == [1, 1, 5]
    assert per_task[2] is per_task[1] and per_task[5] is not per_task[1]
    report = Report(key="forman", title="", citation="", corpus="", claims=FORMAN)
    tasks = task_table(forman.study.forman({"one": (X, y)}, ks=(10,), trials=1, n_jobs=1))
    judge(report, tasks, cutoffs=per_task, keys=["cutoff"], cutoff_k=k)
    assert f"BNS at {k} features at every cutoff" in report.rows[0].measure
    assert report.rows[0].ours.startswith("1 = 2 (one run): ")
    forman._cutoff_section(report, rows, None)
    assert "Cutoffs 1 and 2 keep the same words on every set" in report.sections[-1][1]


@pytest.mark.slow
def test_in_worlds_where_every_metric_is_equal_no_comparison_row_says_differs_often(monkeypatch):
    """200 worlds in which every metric is equally good, 40 tasks from 8 datasets that move their
    tasks' values together (textsel.reproduce.calibration): each of Forman's comparison rows says
    "differs" in at most 7% of them (the goal; a fair one-sided error is about 2.5%).  Judged as
    if each task were independent (each its own dataset), the same worlds make some row say
    "differs" far more often: the test can fail."""
    from textsel.reproduce import calibration, forman_compare, forman_judge, forman_tolerance

    keys = ("high_f1", "high_precision", "wide_margin", "low_f1", "low_precision", "small_k", "acc2",
            "ig_chi", "t_test", "recall", "precision")  # fmt: skip
    rates = calibration.false_differs(keys, worlds=200, datasets=8)
    assert max(rate for rate, _, _ in rates.values()) <= 0.07, rates

    def one_each(tasks):
        return [str(name) for name in tasks.names]

    for module in (forman_compare, forman_judge, forman_tolerance):
        monkeypatch.setattr(module, "datasets", one_each, raising=False)
    naive = calibration.false_differs(keys, worlds=60, datasets=8)
    assert max(rate for rate, _, _ in naive.values()) > 0.15, naive


def _sampled_world(rng, n=2000, draws=5, spread=0.04, error=0.2):
    """One split's records: an all-terms model, a sampling strategy "us" of ``draws`` draws whose
    error rates scatter by ``spread`` around ``error``, and a ranking "ig" at exactly ``error``: the
    expected relative F1 of the two is equal, the claim "us above ig" exactly at its margin."""
    from textsel.study.experiments import document_counts

    truth = np.eye(2, dtype=int)[rng.integers(0, 2, n)]

    def model(rate):
        guess = truth.copy()
        wrong = rng.random(n) < rate
        guess[wrong] = guess[wrong][:, ::-1]
        return document_counts(truth, guess, None)

    base = model(0.1)
    return {
        ("all", 100): {"counts": base, "draw_counts": [base]},
        ("us", 50): {"draw_counts": [model(error + spread * rng.standard_normal()) for _ in range(draws)]},
        ("ig", 50): {"draw_counts": [model(error)]},
    }


@pytest.mark.slow
def test_dasgupta_intervals_hold_the_sampling_draws_spread(monkeypatch):
    """A sampling strategy's quantity is its mean over a few draws, so its interval must hold the
    draws' spread: in worlds where "us" and "ig" are equal in expectation, a row judged on us - ig
    says "differs" in at most 7% of 200 worlds; judged on the test documents alone (the draws
    taken as fixed, as before) it says so far more often (shown here, so the check can fail)."""
    from textsel.reproduce import dasgupta_relative

    def false_differs():
        rng = np.random.default_rng(5)
        found = 0
        for _ in range(200):
            rel = dasgupta_relative.relative([_sampled_world(rng)], [(None, None, np.empty((2000, 0)), None)])
            gap = [rel.column("us", 50)], [rel.column("ig", 50)]
            _, _, (word, _) = rel.judge("relative_f1", lambda r, gap=gap: r[..., gap[0]] - r[..., gap[1]],
                                        ["us - ig"], [(1, 0.0)])  # fmt: skip
            found += word == "differs"
        return found / 200

    assert false_differs() <= 0.07
    monkeypatch.setattr(dasgupta_relative, "draw_mean", lambda values, picks: values.mean(axis=1))
    assert false_differs() > 0.10


def test_draw_mean_resamples_the_draws_with_their_whole_variance():
    """With the documents fixed (every resample's values the same), the mean of S draws taken with
    replacement, deviations scaled by sqrt(S / (S - 1)), varies as a mean of S new draws: its
    variance over many resamples is the draws' sample variance / S."""
    from textsel.reproduce.dasgupta_relative import draw_mean

    rng = np.random.default_rng(0)
    S, B = 5, 200_000
    values = np.tile(rng.standard_normal(S), (B, 1))
    means = draw_mean(values, rng.integers(0, S, size=(B, S)))
    assert means.mean() == pytest.approx(values[0].mean(), abs=0.01)
    assert means.var() == pytest.approx(values[0].var(ddof=1) / S, rel=0.02)
    assert np.array_equal(draw_mean(values[:, :1], None), values[:, 0])  # one draw: nothing to resample


def test_forman_number_columns_keep_every_tie():
    """A row's "textsel" column lists the leaders by mean: a metric whose value prints as the last
    shown one's is listed too, so a tie is never cut at an arbitrary place in the order."""
    from textsel.reproduce.forman_compare import ranked

    values = {"bns": np.array([0.81]), "ig": np.array([0.7841]), "acc2": np.array([0.7839]),
              "chi2": np.array([0.7842]), "f1": np.array([0.5])}  # fmt: skip
    assert ranked(values, 2) == ["bns", "chi2", "ig", "acc2"]  # 0.784, 0.784 and 0.784 all shown
    assert ranked(values, 2, shown=lambda v: f"{v:.4f}") == ["bns", "chi2"]
    assert ranked(values, 10) == ["bns", "chi2", "ig", "acc2", "f1"]


def test_a_row_with_nothing_to_test_says_not_tested_and_a_quick_page_says_it_is_quick():
    """A cell with no unit to judge (a quick run's band without a category) makes the row "not
    tested", counted as such in the tally, its interval naming why; a quick run's page says it is
    a quick check, not the paper's test."""
    from textsel.reproduce.claims import ZHUANG
    from textsel.reproduce.intervals import Interval, simultaneous
    from textsel.reproduce.verdicts import not_tested

    report = Report(key="zhuang", title="t", citation="c", corpus="x", claims=ZHUANG, quick=True)
    fine = ("all", Interval(0.1, 0.05, 0.15, "9 categories"), ("reproduces", "above 0"))
    with simultaneous(2):
        report.judge(
            "extreme", "m", "o", [fine, not_tested("the extreme band", "no category in the band here")]
        )
    report.judge("balanced", "m", "o", [fine])
    assert [r.word for r in report.rows] == ["not tested", "reproduces"]
    assert "the extreme band: not tested (no category in the band here)" in report.rows[0].interval
    assert report.tally == "Of 2 claims, 1 reproduces, 0 differ, 0 are within noise and 1 is not tested"
    report.seconds = 1.0
    assert "**A quick run.**" in report.markdown()
    report.quick = False
    assert "A quick run" not in report.markdown()


def test_rows_judged_on_few_units_say_differs_at_most_seven_percent_at_their_margin(monkeypatch):
    """Every row judged on a few units (Kolcz's 10 categories, Zhuang's bands of 19 to 90, Dasgupta's
    5 training parts), made the way the row makes it at its number of units, comparisons and cells,
    in 200 worlds of skewed per-unit values whose every comparison sits exactly at its margin: each
    says "differs" in at most 7% of them.  The percentile bootstrap these rows used before (Zhuang's
    balanced band: 20 comparisons on 19 categories) says it in more, shown so that the check can fail."""
    from textsel.reproduce import calibration

    few = [key for key, (how, *_) in calibration.ROWS.items() if how in ("t", "welch")]
    assert {key[0] for key in few} == {"dasgupta", "kolcz", "zhuang"}
    rates = calibration.mechanism_rates(few, worlds=200)
    assert max(rate for rate, _ in rates.values()) <= 0.07, rates
    monkeypatch.setitem(calibration.ROWS, ("zhuang", "balanced"), ("bootstrap", 19, 20, 1))
    assert calibration.mechanism_rates([("zhuang", "balanced")], worlds=200)[("zhuang", "balanced")][0] > 0.07


def test_seed_moves_names_the_rows_another_seed_moves(tmp_path):
    """tools/seed_moves.py writes into the seed-0 page which rows another seed's page judges
    differently, replaces its own section when run again, and fails (status 1) where a row moves
    between reproduces and differs."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "seed_moves", __import__("pathlib").Path(__file__).parents[1] / "tools" / "seed_moves.py"
    )
    seed_moves = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(seed_moves)

    def page(seed, verdicts):
        table = "\n".join(
            f"| {i} | Sec. {i} | o | i | {v}: why | {seed + i}0% at 0 |" for i, v in enumerate(verdicts)
        )  # the power column after the verdict moves with the seed too: only the verdict counts
        command = "textsel reproduce x --data-home DATA" + (f" --seed {seed}" if seed else "")
        head = "| # | where | textsel | interval | verdict | power |\n|---|---|---|---|---|---|"
        notes = "\n\n".join(f"**{i}. Sec. {i}.** The paper: claim {i}." for i in range(len(verdicts)))
        return f"# T\n\n```\n{command}\n```\n\n{head}\n{table}\n\n## The rows\n\n{notes}\n\n## Figures\n"

    first, other = tmp_path / "p.md", tmp_path / "q.md"
    first.write_text(page(0, ["reproduces", "within noise", "differs"]))
    other.write_text(page(1, ["within noise", "within noise", "differs"]))
    assert seed_moves.main([first, other]) == 0
    text = first.read_text()
    assert (
        "Of 3 rows, 2 keep their verdict; these move:" in text
        and "- row 0 (Sec. 0): reproduces at seed 0, within noise there" in text
    )
    assert text.index("## The rows") < text.index("## At another seed") < text.index("## Figures")
    other.write_text(page(1, ["differs", "within noise", "differs"]))
    assert seed_moves.main([first, other]) == 1  # reproduces -> differs: flagged
    assert first.read_text().count("## At another seed") == 1


def test_a_page_cell_holds_numbers_and_its_note_says_the_rest():
    """A judged row's cells hold its numbers and interval; the paper's words, the measure, how
    the interval is made and why the verdict is what it is go to the row's note under the table;
    a row too few to judge says so once, with its count; a row judged in part names the cell it
    did not judge."""
    from textsel.reproduce.claims import ZHUANG
    from textsel.reproduce.intervals import Interval, simultaneous
    from textsel.reproduce.verdicts import too_few

    report = Report(key="zhuang", title="t", citation="c", corpus="x", claims=ZHUANG, designs=False)
    fine = ("all", Interval(0.1, 0.05, 0.15, "9 categories", how="95% t-interval"), ("reproduces", "above 0"))
    with simultaneous(2):
        report.judge("extreme", "the measure", "+0.1", [fine, too_few("the extreme band", 3, "categories")])
    report.judge("balanced", "the measure", "+0.2", [too_few("all", 3, "categories")])
    report.seconds = 1.0
    page = report.markdown()
    table = [line for line in page.splitlines() if re.match(r"\| \d+ \| ", line)]
    assert table[0] == (
        "| 1 | " + ZHUANG["extreme"][0] + " | +0.1 | all: 0.1 [0.05, 0.15]; the extreme band: "
        "not judged | too few to judge (3 categories, fewer than the 5 a verdict needs) | - |"
    )
    assert table[1].endswith("| - | too few to judge (3 categories, fewer than the 5 a verdict needs) | - |")
    note = page[page.index("**1. ") :].split("\n\n")[0]
    assert ZHUANG["extreme"][1] in note and "*Measured as:* the measure" in note
    said = "*Interval:* 95% t-interval over 9 categories.  *Verdict:* too few to judge: the extreme band: 3"
    assert said in note
    assert page.count("fewer than the 5 a verdict needs") == 4  # each row's verdict cell and its note
