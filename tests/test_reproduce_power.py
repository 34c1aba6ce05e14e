"""A reproduction row's power: how often its design would say "reproduces" were the claim true by a
given size, checked against the verdict functions themselves run on simulated units."""

import numpy as np
import pytest

from textsel.reproduce import intervals, verdicts, worlds
from textsel.reproduce import report as report_module
from textsel.reproduce.intervals import Interval, t_interval
from textsel.reproduce.power import chance, design, detectable, power
from textsel.reproduce.report import Report
from textsel.reproduce.verdicts import Bound, at_least, at_most, equivalent

#: simulated worlds per check: the Monte Carlo share's standard error is at most 0.5 / sqrt(N)
WORLDS = 4000
#: the Monte Carlo share and the formula agree within this: over 4 standard errors at WORLDS
AGREE = 0.035


def _simulated_t_power(n, size, sd, rng, cells):
    """The share of worlds in which ``at_least(t_interval(units), 0)`` reproduces, the units
    normal with mean ``size``, the interval one of ``cells``: the real verdict path, run."""
    found = 0
    with intervals.simultaneous(cells):
        for _ in range(WORLDS):
            units = size + sd * rng.standard_normal(n)
            found += at_least(t_interval(units, f"{n} units"), 0.0)[0] == verdicts.REPRODUCES
    return found / WORLDS


@pytest.mark.parametrize("n, size, cells", [(5, 0.6, 1), (10, 0.5, 1), (30, 0.25, 1), (10, 0.9, 4)])
def test_a_t_rows_power_is_the_share_of_simulated_worlds_that_reproduce(n, size, cells):
    """The power read back from one interval of the design (its half-width at the true standard
    error, its degrees of freedom and coverage) is the share of worlds in which the row's own
    verdict path says "reproduces", a row's cell among 4 (each at 98.75%) included; and the
    verdict path's intervals carry the coverage and degrees of freedom the power reads."""
    from scipy.stats import t as student

    rng = np.random.default_rng(n + cells)
    sd = 1.0
    se = sd / np.sqrt(n)
    coverage = 1 - 0.05 / cells
    c = student.isf((1 - coverage) / 2, n - 1)
    shaped = Interval(size, size - c * se, size + c * se, f"{n} units", level=coverage, df=n - 1)
    formula = chance(Bound(shaped, +1, 0.0), size)
    simulated = _simulated_t_power(n, size, sd, rng, cells)
    assert abs(formula - simulated) < AGREE, (formula, simulated)
    with intervals.simultaneous(cells):
        made = t_interval(size + sd * rng.standard_normal(n), f"{n} units")
    assert made.level == pytest.approx(coverage) and made.df == pytest.approx(n - 1)


def test_a_bootstrap_rows_power_and_an_equivalences_are_the_simulated_shares():
    """For an interval with a normal quantile (a bootstrap over many units) the estimate scatters
    normally: the one-sided power and the equivalence's chance at its centre, against worlds."""
    rng = np.random.default_rng(3)
    se, size, margin = 0.01, 0.025, 0.03
    z = 1.959963984540054
    shaped = Interval(size, size - z * se, size + z * se, "3000 documents")
    estimates = size + se * rng.standard_normal(WORLDS)
    above = np.mean(estimates - z * se > 0)
    assert abs(chance(Bound(shaped, +1, 0.0), size) - above) < AGREE
    centred = Interval(0.0, -z * se, z * se, "3000 documents")
    estimates = se * rng.standard_normal(WORLDS)
    inside = np.mean([
        equivalent(Interval(e, e - z * se, e + z * se, "3000 documents"), margin)[0] == verdicts.REPRODUCES
        for e in estimates
    ])  # fmt: skip
    assert abs(chance(Bound(centred, 0, margin), 0.0) - inside) < AGREE
    # an equivalence whose interval is wider than its margin can never reproduce
    assert chance(Bound(Interval(0.0, -0.05, 0.05, "x"), 0, 0.03), 0.0) == 0.0


def test_a_rows_tests_reproduce_together_and_the_detectable_size_is_where_half_do():
    """A row reproduces only when every test does; the size :func:`detectable` returns is where the
    row's chance is one half, and 80% lies further out."""
    se = 0.01
    z = 1.959963984540054
    tests = [Bound(Interval(0.0, -z * se * w, z * se * w, "x"), +1, 0.0) for w in (1.0, 2.0)]
    assert power(tests, 0.05) == pytest.approx(chance(tests[0], 0.05) * chance(tests[1], 0.05))
    half, usual = detectable(tests, 0.5), detectable(tests, 0.8)
    assert usual > half > z
    one = [chance(t, half * se * w) for t, w in zip(tests, (1.0, 2.0), strict=True)]
    assert np.prod(one) == pytest.approx(0.5, abs=1e-6)
    # no size makes an over-wide equivalence reproduce
    assert detectable([Bound(Interval(0.0, -0.05, 0.05, "x"), 0, 0.03), tests[0]]) is None


def test_the_page_gives_each_judged_row_its_power_and_says_when_it_is_under_half():
    """A judged row carries its design: the paper's size where the paper gives one (the chance at
    it, and "finds the claim N% of the time" in a within-noise verdict under one half), the
    detectable size where it gives none, nothing on a row too few to judge."""
    claims = {"tolerance": ("Fig. 9a", "words"), "acc2": ("Fig. 4", "words"), "t_test": ("Fig. 4", "words")}
    report = Report(key="forman", title="t", citation="c", corpus="x", claims=claims)
    weak = t_interval(np.array([0.3, -0.4, 0.25, 0.1, -0.3, 0.2]), "6 datasets")
    report.judge("tolerance", "m", "o", [("BNS - IG", weak, at_least(weak, 0.0))])
    row = report.rows[0]
    assert row.word == verdicts.WITHIN_NOISE and row.power is not None and row.power < 0.5
    assert f"this design finds the claim {row.power:.0%} of the time" in row.verdict
    assert row.design.startswith(f"{row.power:.0%} at the paper's +0.25")
    report.judge("acc2", "m", "o", [("Acc2 - Acc", weak, at_least(weak, 0.0))])
    assert report.rows[1].power is None and report.rows[1].design.startswith("no size given; 50% at ")
    assert "finds the claim" not in report.rows[1].verdict
    report.judge("t_test", "m", "o", [verdicts.too_few("x", 3, "datasets")])
    assert report.rows[2].design == "" and report.rows[2].power is None
    assert "| power |" in report.markdown() and report_module.POWER_NOTE in report.markdown()


def test_design_reads_the_sizes_the_paper_gives():
    """With a size, the power; an equivalence-only row without one is taken at a difference of 0."""
    z = 1.959963984540054
    t = Bound(Interval(0.01, 0.01 - z * 0.01, 0.01 + z * 0.01, "x"), +1, 0.0)
    p, text = design([t], 0.03, " points")
    assert p == pytest.approx(chance(t, 0.03)) and text == f"{p:.0%} at the paper's +0.03 points"
    e = Bound(Interval(0.0, -0.01, 0.01, "x"), 0, 0.03)
    p, text = design([e])
    assert p == pytest.approx(chance(e, 0.0)) and text == f"{p:.0%} at a difference of 0"


def test_verdicts_keep_their_tests_and_unpack_as_before():
    """The verdict functions still give ``(word, reason)``; the tests ride along, through
    :func:`combine` and pickling."""
    import pickle

    i = Interval(0.1, 0.05, 0.15, "x")
    word, reason = judged = at_least(i, 0.0)
    assert word == verdicts.REPRODUCES and judged.tests == (Bound(i, +1, 0.0),)
    both = verdicts.combine([("a", i, judged), ("b", i, equivalent(i, 0.2))])
    assert [t.side for t in both.tests] == [1, 0]
    again = pickle.loads(pickle.dumps(both))
    assert tuple(again) == tuple(both) and again.tests == both.tests


def test_worlds_from_the_units_catch_a_mean_one_unit_decides_and_the_median_holds():
    """Ten categories of which one lies far from the rest (Kolcz's masking AUC differences have
    this shape): remade from them with the mean at 0, a t-interval says "differs" whenever a
    resample misses the far one (about (9/10)^10 = 35% of worlds); the median's sign-test interval,
    remade with the median at 0, stays near its one tail.  Normal units keep the t-interval fair."""
    from textsel.reproduce.intervals import median_interval
    from textsel.reproduce.worlds import rates

    skewed = np.array([1.6, -0.4, 0.5, 15.1, 0.1, 0.6, -1.8, -0.3, 1.6, 0.1]) * 1e-4
    t_row = at_least(t_interval(skewed, "10 categories"), 0.0)
    false, _ = rates(t_row.tests, worlds=400)
    assert false > 0.25, false
    median_row = at_least(median_interval(skewed, "10 categories"), 0.0)
    false, _ = rates(median_row.tests, worlds=400)
    assert false <= 0.07, false
    normal = np.random.default_rng(5).standard_normal(30)
    false, found = rates(at_least(t_interval(normal, "30 units"), 0.0).tests, size=0.5, worlds=400)
    assert false <= 0.07, false
    # the claim world's share and the formula's power agree on normal units
    shaped = t_interval(normal, "30 units")
    assert abs(found - chance(Bound(shaped, +1, 0.0), 0.5)) < 0.1, found


def test_worlds_move_a_bands_twin_columns_together():
    """A band judged as "above -m" on one copy of a column and "below +m" on its twin (as the
    Zhuang rows judge "no big differences") is one quantity: its null world puts it at one margin,
    so the row says "differs" in about one tail of worlds, not two; the claim world puts it at the
    band's middle."""
    from textsel.reproduce.intervals import clustered_t_family
    from textsel.reproduce.worlds import rates

    units = np.random.default_rng(7).standard_normal(40) * 0.02
    family = clustered_t_family(np.column_stack([units, units]), None, ["a", "a"], "40 categories")
    row = verdicts.cell(family, [(1, -0.05), (-1, 0.05)])
    false, found = rates(row[2].tests, worlds=400)
    assert false <= 0.07 and found > 0.9, (false, found)


def test_the_page_shows_how_often_a_row_says_differs_in_worlds_from_its_own_units():
    """Nine tight units and one far above them: the t-interval lies wholly below 0 ("differs"),
    and the page says beside it that in worlds remade from these units with the mean at 0 the
    design says "differs" whenever a resample misses the far one: far more than its one tail."""
    import re

    rng = np.random.default_rng(11)
    values = np.append(-2 + 0.05 * rng.standard_normal(9), 3.0)
    interval = t_interval(values, "10 categories")
    report = Report(key="kolcz", title="t", citation="c", corpus="x", claims={"mask_auc": ("w", "c")})
    report.judge("mask_auc", "m", "o", [("cell", interval, at_least(interval, 0.0))])
    row = report.rows[0]
    assert row.word == verdicts.DIFFERS
    rate = float(re.search(r"false “differs” ([0-9.]+)%", row.design).group(1))
    assert rate > 25, row.design


def test_the_cluster_robust_error_and_its_degrees_of_freedom_match_their_matrix_definitions():
    """CR2 (each cluster's residuals scaled by (I - H_gg)^(-1/2), H the hat matrix of the mean) and
    Bell and McCaffrey's degrees of freedom ((tr M)^2 / tr(M^2) for the variance's quadratic form),
    computed here from the matrices, against the closed forms the intervals use; equal clusters
    give G - 1, units alone the one-sample t-interval."""
    from scipy.linalg import sqrtm
    from scipy.stats import t as student
    from scipy.stats import ttest_1samp

    from textsel.reproduce.intervals import _bell_mccaffrey, clustered_t_family

    rng = np.random.default_rng(2)
    sizes = np.array([17, 6, 6, 10, 10, 13, 25, 9, 8, 20])
    ids = np.repeat(np.arange(len(sizes)), sizes)
    n = ids.size
    values = rng.standard_normal(n) + 0.3 * rng.standard_normal(len(sizes))[ids]
    e = values - values.mean()
    meat, P, W = 0.0, np.eye(n) - 1.0 / n, np.zeros((n, n))
    for g, size in enumerate(sizes):
        A = np.real(sqrtm(np.linalg.inv(np.eye(size) - np.full((size, size), 1.0 / n))))
        meat += (np.ones(size) @ A @ e[ids == g]) ** 2
        u = (ids == g).astype(float)
        W += np.outer(u, u) / (1 - size / n)
    M = P @ W @ P
    df = np.trace(M) ** 2 / np.trace(M @ M)
    assert _bell_mccaffrey(sizes) == pytest.approx(df, rel=1e-10)
    comparison = clustered_t_family(values, ids, ["m"], "124 tasks")[0].interval
    half = student.isf(0.025, df) * np.sqrt(meat) / n
    assert comparison.high - comparison.estimate == pytest.approx(half, rel=1e-9)
    assert _bell_mccaffrey([7] * 8) == pytest.approx(7.0) and _bell_mccaffrey([1] * 12) == pytest.approx(11.0)
    alone = clustered_t_family(values[:12], None, ["m"], "12 units")[0].interval
    reference = ttest_1samp(values[:12], 0.0).confidence_interval()
    assert (alone.low, alone.high) == pytest.approx((reference.low, reference.high), rel=1e-12)


def test_a_point_interval_does_not_hide_the_detectable_size_of_the_others():
    """A comparison whose units are all alike has a point for an interval: any size beyond its
    threshold clears it, so the row's detectable size is the other comparisons' (before, a point
    read as never clearing made the row's size "none")."""
    point = Bound(Interval(0.0, 0.0, 0.0, "x"), -1, 0.0)
    z = 1.959963984540054
    other = Bound(Interval(0.0, -z * 0.01, z * 0.01, "x"), +1, 0.0)
    assert detectable([point, other]) == pytest.approx(detectable([other]))
    wider = Bound(Interval(0.0, -z * 0.02, z * 0.02, "x"), +1, 0.0)
    _, text = design([point, other, wider])
    k = detectable([point, other, wider])
    assert text.startswith(f"no size given; 50% at {k:.1f} SE each ({k * 0.01:.2g} to {k * 0.02:.2g})"), text


def test_a_family_of_medians_holds_where_one_dataset_decides_the_means():
    """Eight comparisons over ten datasets, each with one dataset far from the rest (Forman's
    comparison rows have this shape): judged by the means' Student's t family, remade from its
    own units with every mean at its margin, the row says "differs" far beyond its one tail; the
    medians' sign-test family stays within 7%.  Each interval is the order statistics the
    binomial gives: ten units hold a median between the 2nd and 9th at 97.9% (each alone) and
    between the extremes at 99.8% (eight together, Bonferroni)."""
    from textsel.reproduce.intervals import clustered_t_family, median_family
    from textsel.reproduce.worlds import rates

    rng = np.random.default_rng(3)
    values = rng.normal(0, 0.002, size=(10, 8))
    values[rng.integers(0, 10, size=8), np.arange(8)] += 0.03  # one far dataset per comparison
    sides = [(1, 0.0)] * 8
    labels = [str(j) for j in range(8)]
    means = verdicts.cell(clustered_t_family(values, None, labels, "10 datasets"), sides)
    medians = verdicts.cell(median_family(values, labels, "10 datasets"), sides)
    false_means, _ = rates(means[2].tests, worlds=400)
    false_medians, _ = rates(medians[2].tests, worlds=400)
    assert false_means > 0.15 and false_medians <= 0.07, (false_means, false_medians)
    ordered = np.sort(values, axis=0)
    family = median_family(values, labels, "10 datasets")
    for j, comparison in enumerate(family):
        assert comparison.interval.estimate == np.median(values[:, j])
        assert (comparison.interval.low, comparison.interval.high) == (ordered[1, j], ordered[8, j])
        assert (comparison.simultaneous.low, comparison.simultaneous.high) == (ordered[0, j], ordered[9, j])
    assert median_family(values[:4], labels, "4 datasets") is None


def test_forman_judges_the_median_dataset_where_one_dataset_carries_the_means():
    """Forman's comparisons over ten datasets of tasks: where one dataset lies far from the rest in
    every comparison, the means' t family says "differs" in the worlds from its datasets beyond
    the 7% a design may (and beyond the worlds' noise), so the row is judged on the median
    dataset, says why, and its own worlds stay within 7%; datasets spread alike keep the means."""
    from textsel.reproduce.forman_compare import differences
    from textsel.reproduce.worlds import rates

    rng = np.random.default_rng(11)
    clusters = np.repeat(np.arange(10), 6)  # ten datasets of six tasks
    base = rng.normal(0, 0.002, size=(10, 4))
    skewed = base.copy()
    skewed[4] += 0.05  # one dataset carries every comparison
    for per_dataset, median in ((skewed, True), (base + 0.0005, False)):
        columns = [per_dataset[clusters, j] + rng.normal(0, 1e-4, size=60) for j in range(4)]
        label, interval, judged = differences(columns, list("abcd"), "60 tasks", clusters=list(clusters))
        assert ("median dataset" in judged[1]) is median, judged[1]
        assert ("sign-test" in interval.how) is median, interval.how
        assert interval.over.startswith("10 datasets" if median else "60 tasks"), interval.over
        false, _ = rates(judged.tests, worlds=400)
        assert false <= 0.07, (median, false)
    with worlds.remade(False):  # a calibration's world judges on the means without worlds inside
        columns = [skewed[clusters, j] for j in range(4)]
        _, interval, judged = differences(columns, list("abcd"), "60 tasks", clusters=list(clusters))
        assert "median" not in judged[1] and "t-interval" in interval.how


def test_a_design_is_said_to_say_differs_too_often_only_beyond_the_worlds_noise(monkeypatch):
    """``too_often`` names a share of null worlds only where its one-sided 95% Wilson bound lies
    above 7%: at 1000 worlds 8.3% (bound 6.98%) is within noise, 8.4% (bound 7.07%) beyond it."""
    for share, fires in ((0.083, False), (0.084, True), (0.5, True), (0.02, False)):
        monkeypatch.setattr(worlds, "rates", lambda tests, worlds=1000, share=share: (share, None))
        assert (worlds.too_often(["a test"], worlds=1000) is not None) is fires, share
    monkeypatch.setattr(worlds, "rates", lambda tests, worlds=1000: (None, None))
    assert worlds.too_often(["a test"]) is None


def _document_band(values, scale=1.0, twins=1):
    """A family of ``twins`` copies of the mean of per-document ``values``, bootstrapped over the
    documents by :func:`band`, kept with its ``remake``; ``scale`` shrinks the remade draws'
    spread about their estimate (1: the page's own design)."""
    n = len(values)

    def made(rows, resamples):
        v = values[rows]
        draws = v[np.random.default_rng(intervals.current_seed()).integers(0, n, (resamples, n))].mean(axis=1)
        return np.full(twins, v.mean()), np.repeat(draws[:, None], twins, axis=1)

    def remake(rows):
        e, d = made(rows, intervals.WORLD_RESAMPLES)
        return intervals.band(e, e + (d - e) * scale, ["gap"] * twins, f"{n} documents")

    e, d = made(np.arange(n), intervals.RESAMPLES)
    return intervals.band(e, d, ["gap"] * twins, f"{n} documents", remake=remake, n_units=n)


def test_a_band_over_the_documents_is_remade_from_them_and_a_narrow_design_is_caught():
    """A band bootstrapped over 300 skewed per-document values keeps its remake: worlds draw the
    documents again, bootstrap the family again and move each interval to the margin; the page's
    own design says "differs" near its one tail, and reproduces in most worlds with the mean at
    the claim's size.  A design whose intervals are a third as wide as its spread says "differs"
    in far more worlds: the check can fail.  A band judged above -m on one copy and below +m on
    its twin is one quantity, put at one margin."""
    values = np.random.default_rng(3).exponential(1.0, 300) - 1.0
    row = verdicts.cell(_document_band(values), [(1, 0.0)])
    assert worlds.worlds_for(row[2].tests) == worlds.RESAMPLED_WORLDS
    false, found = worlds.rates(row[2].tests, size=0.25, worlds=200)
    assert false <= 0.07 and found > 0.8, (false, found)
    narrow = verdicts.cell(_document_band(values, scale=1 / 3), [(1, 0.0)])
    false, _ = worlds.rates(narrow[2].tests, worlds=200)
    assert false > 0.15, false
    twin = verdicts.cell(_document_band(values * 0.1, twins=2), [(1, -0.05), (-1, 0.05)])
    false, found = worlds.rates(twin[2].tests, worlds=200)
    assert false <= 0.07 and found > 0.5, (false, found)


def test_the_page_says_how_many_worlds_a_document_row_was_remade_in():
    """A row judged on a band over the documents shows its false "differs" with the count of
    its worlds, fewer than the page's thousand (each world remakes its bootstrap)."""
    values = np.random.default_rng(4).standard_normal(200) * 0.1 + 0.5
    comparisons = _document_band(values)
    report = Report(key="zhuang", title="t", citation="c", corpus="x", claims={"micro_close": ("w", "c")})
    report.judge("micro_close", "m", "o", [verdicts.cell(comparisons, [(1, 0.0)])])
    assert f"({worlds.RESAMPLED_WORLDS} worlds)" in report.rows[0].design, report.rows[0].design


def test_a_bootstrap_of_a_statistic_of_means_is_remade_and_its_cells_share_the_documents():
    """A percentile bootstrap over 400 skewed per-document values whose statistic is a function
    of the column means (the worst of three columns less a fourth; Li & Sun's rows take the best)
    keeps its remake: the page's design says "differs" near its one tail in worlds from the
    documents.  Two cells over the same documents take the same resample in each world, so a row
    of two identical cells says "differs" exactly as often as one of them; cells over other
    documents are drawn apart and add their tails.  A remake that is not the statistic of the
    means is refused."""
    rng = np.random.default_rng(8)
    values = rng.exponential(1.0, (400, 4)) + np.array([0.0, 0.05, 0.1, 0.0])

    def statistic(v):
        return v[..., :-1].mean(axis=-2).min(axis=-1) - v[..., -1].mean(axis=-1)

    def of_means(m):
        return m[..., :-1].min(axis=-1) - m[..., -1]

    def cell(over):
        interval = intervals.bootstrap(values, over, statistic=statistic, vectorized=True, of_means=of_means)
        assert interval.units.method == "resampled" and interval.units.sample == over
        return at_least(interval, 0.0).tests

    alone = cell("400 documents")
    false, _ = worlds.rates(alone, worlds=200)
    assert false <= 0.07, false
    assert worlds.rates(alone + cell("400 documents"), worlds=200)[0] == false
    assert worlds.rates(alone + cell("400 other documents"), worlds=200)[0] > false + 0.03
    with pytest.raises(ValueError, match="of_means"):
        intervals.bootstrap(values, "400 documents", statistic=statistic, vectorized=True,
                            of_means=lambda m: m[..., 0])  # fmt: skip


def test_a_null_world_puts_every_column_at_its_margin_where_the_paper_gives_no_size():
    """Two comparisons of one band, each judged "above -0.005" with no size from the paper (so
    no claim world), both far below it: every null world must put both at the margin.  It once
    stopped at the first column that had no claim world, leaving the second at its own estimate,
    and the row said "differs" in nearly every world (Dasgupta et al.'s lambda row: 99.8%)."""
    rng = np.random.default_rng(12)
    values = np.column_stack([rng.normal(-0.03, 0.05, 500), rng.normal(-0.04, 0.05, 500)])
    n = len(values)

    def made(rows, resamples):
        v = values[rows]
        picks = np.random.default_rng(intervals.current_seed()).integers(0, n, (resamples, n))
        return v.mean(axis=0), v[picks].mean(axis=1)

    def remake(rows):
        return intervals.band(*made(rows, intervals.WORLD_RESAMPLES), ["micro", "macro"], f"{n} documents")

    family = intervals.band(*made(np.arange(n), intervals.RESAMPLES), ["micro", "macro"], f"{n} documents",
                            remake=remake, n_units=n)  # fmt: skip
    row = verdicts.cell(family, [(1, -0.005)] * 2)
    assert row[2][0] == verdicts.DIFFERS
    false, found = worlds.rates(row[2].tests, worlds=200)
    assert false <= 0.07 and found is None, false


def test_a_best_of_many_judged_by_the_basic_bootstrap_keeps_its_null_worlds():
    """The best of thirty equal scores less another (Li & Sun's formula row: F1 at the best AVL
    target, chosen again in each resample, less F1 at the formula's) runs high in every
    resample: its percentile interval sits too high, and judged "below +0.05" it says "differs"
    in about a fifth of the worlds from its 400 documents with the gap at 0.05.  The basic
    bootstrap (the percentiles reflected about the estimate) stays within 7%, and its ends are
    the percentile ones reflected."""
    values = np.random.default_rng(3).binomial(1, 0.8, (400, 31)).astype(float)

    def statistic(v):
        return v[..., :-1].mean(axis=-2).max(axis=-1) - v[..., -1].mean(axis=-1)

    def of_means(m):
        return m[..., :-1].max(axis=-1) - m[..., -1]

    made = {method: intervals.bootstrap(values, "400 documents", statistic=statistic, vectorized=True,
                                        of_means=of_means, method=method)
            for method in ("percentile", "basic")}  # fmt: skip
    p, b = made["percentile"], made["basic"]
    assert b.low == pytest.approx(2 * b.estimate - p.high) and b.high == pytest.approx(2 * b.estimate - p.low)
    assert worlds.rates(at_most(p, 0.05).tests, worlds=200)[0] > 0.15
    assert worlds.rates(at_most(b, 0.05).tests, worlds=200)[0] <= 0.07
    with pytest.raises(ValueError, match="method"):
        intervals.bootstrap(values, "400 documents", statistic=statistic, vectorized=True, method="bca")


def _tied_scores(n, rng):
    """Scores of ``n`` terms with many ties (small integers, as document counts give), a base and
    two members correlated with it by different amounts."""
    base = rng.integers(0, 40, n).astype(float)
    return base, np.column_stack([np.round(base + rng.normal(0, s, n)) for s in (4.0, 12.0)])


def test_spearman_over_resampled_terms_is_scipys_on_the_terms_drawn():
    """The Spearman band over terms ranks a resample from how often it draws each group of equal
    scores, with no sort: its estimate, and a world's remade estimate on a resample of the terms,
    equal scipy's spearmanr of the scores themselves (ties at their average rank), and its
    interval covers what a bootstrap calling spearmanr on each resample gives."""
    from scipy.stats import spearmanr

    from textsel.reproduce.term_ranks import spearman_band

    rng = np.random.default_rng(21)
    base, others = _tied_scores(600, rng)
    family = spearman_band(base, others, ["near", "far"])
    for j, comparison in enumerate(family):
        assert comparison.interval.estimate == pytest.approx(spearmanr(others[:, j], base)[0], abs=1e-12)
    rows = rng.integers(0, len(base), len(base))
    remade = family[0].interval.units.remake(rows)
    for j, comparison in enumerate(remade):
        assert comparison.interval.estimate == pytest.approx(
            spearmanr(others[rows, j], base[rows])[0], abs=1e-12
        )
    brute = [spearmanr(others[r, 1], base[r])[0] for r in rng.integers(0, len(base), (1000, len(base)))]
    low, high = np.quantile(brute, [0.025, 0.975])
    far = family[1].interval
    assert far.low == pytest.approx(low, abs=0.015) and far.high == pytest.approx(high, abs=0.015)


@pytest.mark.slow
def test_a_spearman_row_over_terms_is_remade_from_them():
    """Judged "above the margin", the Spearman band over 1,000 tied terms says "differs" near its
    one tail in the worlds from its terms (each a resample of them, its bootstrap made again);
    a twin member takes the same resample in each world, so the row of both says "differs" as
    often as the one."""
    from textsel.reproduce.term_ranks import spearman_band

    base, others = _tied_scores(1000, np.random.default_rng(22))
    one = verdicts.cell(spearman_band(base, others[:, :1], ["near"]), [(verdicts.ABOVE, 0.999)])
    assert one[2][0] == verdicts.DIFFERS
    assert worlds.worlds_for(one[2].tests) == worlds.RESAMPLED_WORLDS
    false, _ = worlds.rates(one[2].tests, worlds=200)
    assert 0.0 < false <= 0.07, false
    twins = spearman_band(base, others[:, [0, 0]], ["near", "again"])
    both = verdicts.cell(twins, [(verdicts.ABOVE, 0.999)] * 2)
    assert worlds.rates(both[2].tests, worlds=200)[0] == false


def test_a_world_draws_stratified_units_within_each_stratum():
    """A family over the test documents of several splits (strata) is remade in each world from a
    resample drawn within each split, as its own bootstrap draws them: no split lends documents
    to another, and each keeps its size."""
    seen = []

    def remake(rows):
        seen.append(rows.copy())
        return intervals.band(np.zeros(1), np.random.default_rng(len(seen)).normal(0, 1, (50, 1)), ["x"], "d")

    family = intervals.band(np.zeros(1), np.random.default_rng(0).normal(0, 1, (50, 1)), ["x"], "8 documents",
                            remake=remake, n_units=8, strata=(3, 5))  # fmt: skip
    worlds.rates(at_least(family[0].interval, -5.0).tests, worlds=20)
    assert len(seen) == 20
    for rows in seen:
        assert len(rows) == 8 and set(rows[:3]) <= {0, 1, 2} and set(rows[3:]) <= {3, 4, 5, 6, 7}
    assert len({tuple(rows) for rows in seen}) > 1


def _relative_records(sizes, rng, alike=False):
    """Dasgupta-style records for splits of ``sizes`` test documents and two classes: all terms
    (right 90% of the time), IG at 100 terms (one draw, 85%) and US at 100 terms (three draws, 70%;
    ``alike``: one draw three times), each draw's per-document [tp | fp | fn] counts."""
    import scipy.sparse as sp

    def counts(truth, right):
        predicted = np.where(rng.random(len(truth)) < right, truth, 1 - truth)
        rows = np.arange(len(truth))
        hit = predicted == truth
        tp = sp.csr_matrix((hit * 1.0, (rows, truth)), shape=(len(truth), 2))
        fp = sp.csr_matrix((~hit * 1.0, (rows, predicted)), shape=(len(truth), 2))
        fn = sp.csr_matrix((~hit * 1.0, (rows, truth)), shape=(len(truth), 2))
        return sp.hstack([tp, fp, fn], format="csr")

    per_split = []
    for n in sizes:
        truth = rng.integers(0, 2, n)
        base = counts(truth, 0.9)
        us = [counts(truth, 0.7)] * 3 if alike else [counts(truth, 0.7) for _ in range(3)]
        per_split.append({("all", 500): {"counts": base, "draw_counts": [base]},
                          ("ig", 100): {"draw_counts": [counts(truth, 0.85)]},
                          ("us", 100): {"draw_counts": us}})  # fmt: skip
    return per_split


def test_relative_f1_is_remade_from_each_splits_documents_and_draws_and_judged_in_its_worlds():
    """Dasgupta et al.'s relative F1 over two splits keeps its remake: made again from documents
    drawn within each split, its estimate is relative() of the records cut to those documents,
    for micro- and macro-F1 alike (a method's draws all alike, so that drawing them again changes
    nothing); where they differ, a world draws them again too, so that the same documents give
    other estimates at other seeds.  A row judged on it at its margin says "differs" near its one
    tail in the worlds from its documents and draws."""
    import scipy.sparse as sp

    from textsel.reproduce.dasgupta_relative import relative

    sizes = (150, 220)
    splits = [(None, None, sp.csr_matrix((n, 1)), None) for n in sizes]
    per_split = _relative_records(sizes, np.random.default_rng(30), alike=True)
    rel = relative(per_split, splits)
    rng = np.random.default_rng(31)
    rows = [rng.integers(0, n, n) for n in sizes]
    cut = [{key: {"counts": r["counts"][picked]} if "counts" in r else {} for key, r in records.items()}
           for records, picked in zip(per_split, rows, strict=True)]  # fmt: skip
    for records, source, picked in zip(cut, per_split, rows, strict=True):
        for key, r in records.items():
            r["draw_counts"] = [m[picked] for m in source[key]["draw_counts"]]
    again = relative(cut, splits)
    flat = np.concatenate([rows[0], sizes[0] + rows[1]])
    for measure in ("relative_f1", "relative_macro_f1"):
        family = rel.comparisons(measure, lambda r: r[..., [0, 1]] - r[..., [1, 0]], ["a", "b"])
        remade = family[0].interval.units.remake(flat)
        assert [c.interval.estimate for c in remade] == pytest.approx(
            list(again.estimate[measure][[0, 1]] - again.estimate[measure][[1, 0]]), abs=1e-12
        )
    rel = relative(_relative_records(sizes, np.random.default_rng(30)), splits)
    gap = rel.comparisons("relative_f1", lambda r: r[..., [0]] - r[..., [1]], ["ig - us"])
    seen = set()
    for seed in range(5):
        with intervals.seeded_as(seed):
            seen.add(gap[0].interval.units.remake(flat)[0].interval.estimate)
    assert len(seen) > 1
    # the worlds' estimates spread as the page's bootstrap says (its draws' spread in it): from
    # the documents alone they spread a fifth less
    spread = np.std(rel.draws["relative_f1"][:, 0] - rel.draws["relative_f1"][:, 1])
    estimates = []
    for seed in range(200):
        first, second = (rng.integers(0, n, n) for n in sizes)
        picked = np.concatenate([first, sizes[0] + second])
        with intervals.seeded_as(seed):
            estimates.append(gap[0].interval.units.remake(picked)[0].interval.estimate)
    assert np.std(estimates) == pytest.approx(spread, rel=0.12), (np.std(estimates), spread)
    row = verdicts.cell(gap, [(verdicts.ABOVE, gap[0].interval.estimate + 0.02)])
    false, _ = worlds.rates(row[2].tests, worlds=200)
    assert false <= 0.07, false


def test_zhuangs_fall_row_is_remade_from_the_categories_of_each_band():
    """Zhuang et al.'s fall row (PSVM's fall from the balanced band to the unbalanced one less
    SVM light's: Welch's t over two bands of categories) keeps its units: a world draws the
    categories within each band and makes Welch's interval again, so that with right-skewed
    per-category values at the margin the row says "differs" near its one tail; made again from
    the bands as they are, the interval is the page's."""
    from textsel.reproduce import zhuang

    rng = np.random.default_rng(41)
    bands = {"balanced": np.r_[np.ones(19, bool), np.zeros(45, bool)],
             "unbalanced": np.r_[np.zeros(19, bool), np.ones(45, bool)]}  # fmt: skip
    f1 = {"PSVM": rng.gamma(4.0, 0.05, 64) + 0.5, "SVM light": np.full(64, 0.6)}
    label, interval, judged = zhuang._falls_cell(f1, bands)
    units = interval.units
    assert units.method == "resampled" and units.strata == (19, 45)
    same = units.remake(np.arange(64))[0].interval
    assert (same.low, same.high) == pytest.approx((interval.low, interval.high))
    false, _ = worlds.rates(judged.tests, worlds=400)
    assert false <= 0.07, false


def test_a_row_of_a_t_family_and_a_resampled_one_is_judged_in_worlds():
    """A row whose cells mix a family of Student's t over few units with one that draws its units
    again (a band over terms) is judged in worlds too: each world draws both (the world's sample
    of the resampled units once kept it under a name the t family's draw then took)."""
    from textsel.reproduce.term_ranks import spearman_band

    rng = np.random.default_rng(50)
    t_family = intervals.clustered_t_family(rng.normal(0.5, 1.0, (12, 1)), None, ["t"], "12 units")
    t_row = verdicts.cell(t_family, [(verdicts.ABOVE, 0.0)])
    base, others = _tied_scores(300, rng)
    band_row = verdicts.cell(spearman_band(base, others[:, :1], ["near"]), [(verdicts.ABOVE, 0.3)])
    false, _ = worlds.rates(t_row[2].tests + band_row[2].tests, worlds=20)
    assert 0.0 <= false <= 1.0


def test_f1_sums_stay_exact_where_single_precision_would_round():
    """Counts are summed in single precision only where every sum is a whole number below 2**24;
    a count of 2**24 + 1 (which single precision cannot hold) is summed in double precision, so
    micro- and macro-F1 are those of the exact sums."""
    import scipy.sparse as sp

    from textsel.reproduce.documents import class_f1, f1_draws

    big = 2.0**24 + 1
    dense = np.array([[big, 0, 1, 0, 0, 1], [1, 1, 0, 0, 1, 0], [0, 0, 1, 1, 0, 0]], dtype=np.float64)
    for measures in (("micro",), ("micro", "macro")):
        estimate, _ = f1_draws([sp.csr_matrix(dense)], n_resamples=10, measures=measures)
        tp, fp, fn = dense[:, :2].sum(axis=0), dense[:, 2:4].sum(axis=0), dense[:, 4:].sum(axis=0)
        assert estimate["micro"][0] == 2 * tp.sum() / (2 * tp + fp + fn).sum()
        if "macro" in measures:
            assert estimate["macro"][0] == class_f1(tp, fp, fn).mean()
