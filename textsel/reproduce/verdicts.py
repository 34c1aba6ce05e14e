"""Three-way verdicts judged against the noise.

A quantitative claim is judged on an interval for the quantity it is about (a bootstrap over
the paper's unit: tasks, categories or test documents): it **reproduces** when the whole interval
lies on the claim's side of its margin, **differs** when the whole interval lies on the other
side, and is **within noise** when the interval reaches both.  So a reseeded run can move a row
into or out of "within noise", but not from "reproduces" to "differs".

Where the units are few, or nested in a few clusters (tasks that are classes of one dataset), a
mean's interval is Student's t over the clusters (:func:`clustered_t_family`), the family's
simultaneous intervals corrected for its number of comparisons (Bonferroni); below
:data:`MIN_UNITS` independent units a row is **too few to judge**.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from dataclasses import dataclass

import numpy as np

__all__ = ["DIFFERS", "MIN_UNITS", "NOT_TESTED", "REPRODUCES", "TOO_FEW", "WITHIN_NOISE", "Comparison",
           "Interval", "at_least", "at_margins", "at_most", "band", "bootstrap", "cell", "clustered_t_family",
           "cells_now", "combine", "current_seed", "equivalent", "every", "family", "grouped", "level",
           "not_tested", "seeded", "simultaneous", "t_interval", "too_few"]  # fmt: skip

REPRODUCES, DIFFERS, WITHIN_NOISE = "reproduces", "differs", "within noise"
TOO_FEW = "too few to judge"
#: a row this run could not test at all (no unit in the group it is about: a quick run's few categories)
NOT_TESTED = "not tested"
#: the fewest independent units (clusters) a row is judged on: with fewer, Student's t with
#: fewer than 4 degrees of freedom gives intervals no claim could leave, and a verdict would
#: say more than the data can
MIN_UNITS = 5
#: the fewest clusters a statistic other than a mean (a best over k, a ratio) is bootstrapped
#: over: a bootstrap over fewer clusters understates its spread
MIN_CLUSTERS_BOOTSTRAP = 20
#: the interval's coverage, and the bootstrap's resamples
LEVEL, RESAMPLES = 0.95, 1999
#: resamples drawn at once: bounds the bootstrap's memory (resamples x units) on large test sets
BATCH = 200

#: the seed of the resamples: the run's (:func:`seeded`), 0 outside a run, so that a page is
#: reproducible and another seed redraws every resample
_SEED = contextvars.ContextVar("textsel_reproduce_seed", default=0)


#: how many cells the row being judged has (:func:`simultaneous`): a row that differs where any of
#: its cells does tests each cell, so each interval holds at 1 - (1 - LEVEL) / cells (Bonferroni)
_CELLS = contextvars.ContextVar("textsel_reproduce_cells", default=1)


@contextlib.contextmanager
def simultaneous(cells: int):
    """Intervals made in this block hold together over a row's ``cells`` (corpora, sizes, parts of
    the claim): each at ``1 - (1 - LEVEL) / cells``, so that a row whose claim is true in every
    cell says "differs" in at most about (1 - LEVEL) / 2 of worlds, however many cells it has."""
    token = _CELLS.set(max(1, int(cells)))
    try:
        yield
    finally:
        _CELLS.reset(token)


def cells_now() -> int:
    """The number of cells of the row being judged (1 outside :func:`simultaneous`)."""
    return _CELLS.get()


def level() -> float:
    """The coverage of an interval made now: LEVEL, or more inside :func:`simultaneous`."""
    return 1 - (1 - LEVEL) / _CELLS.get()


def _over_cells(kind: str) -> str:
    """How an interval was made, naming the row's cells where there are several."""
    cells = _CELLS.get()
    if cells == 1:
        return "" if kind == "bootstrap" else f"{LEVEL:.0%} {kind}"
    return f"{LEVEL:.0%} {kind} (each of {cells} cells at {level():.2%}, Bonferroni)"


def current_seed() -> int:
    """The seed of the reproduction running (0 outside one)."""
    return _SEED.get()


def seeded(run):
    """A paper's ``run(..., seed=N)`` with every resample drawn in it seeded by N (its splits,
    folds, samples and SVMs take ``seed`` themselves): one seed moves every random choice."""

    @functools.wraps(run)
    def wrapper(*args, seed=0, **kwargs):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
            raise ValueError(f"seed must be an integer in [0, 2**32), got {seed!r}")
        token = _SEED.set(int(seed))
        try:
            return run(*args, seed=int(seed), **kwargs)
        finally:
            _SEED.reset(token)

    return wrapper


@dataclass(frozen=True)
class Interval:
    """An estimate with its two-sided interval, and what the interval is over."""

    estimate: float
    low: float
    high: float
    over: str  # e.g. "10 tasks": what the bootstrap resampled
    how: str = ""  # how the interval was made, when not the percentile bootstrap at LEVEL

    def __str__(self) -> str:
        return f"{self.estimate:.3g} [{self.low:.3g}, {self.high:.3g}]"


def bootstrap(values, over: str, statistic=np.mean, n_resamples=RESAMPLES, vectorized=False) -> Interval:
    """The ``statistic`` of ``values`` with its percentile bootstrap interval, resampling the
    rows: one row per unit (task, category, document), for a paired comparison the per-unit
    differences; a row may hold several numbers (a category's values at each subset size) that
    ``statistic`` reduces with the other rows to one number.

    A single row, or rows that are all equal, give a zero-width interval: nothing varies.  With
    ``vectorized``, ``statistic`` reduces the rows of a batch of resamples at once: it takes an
    array of shape (..., rows, columns) and returns shape (...), which is much faster than one call
    per resample.
    """
    from scipy.stats import bootstrap as scipy_bootstrap

    values = np.asarray(values, dtype=np.float64)
    if values.ndim not in (1, 2) or values.shape[0] == 0 or not np.all(np.isfinite(values)):
        raise ValueError("values must be a non-empty 1-D or 2-D array of finite numbers")
    estimate = float(statistic(values))
    if values.shape[0] == 1 or np.all(values == values[0]):
        return Interval(estimate, estimate, estimate, over)
    options = dict(confidence_level=level(), n_resamples=n_resamples, method="percentile", batch=BATCH,
                   random_state=np.random.default_rng(current_seed()))  # fmt: skip
    if values.ndim == 1 and statistic is np.mean:  # the common case, vectorized by scipy
        result = scipy_bootstrap((values,), np.mean, vectorized=True, **options)
    elif vectorized:  # resample the units, a batch of resamples at a time
        result = scipy_bootstrap(
            (np.arange(values.shape[0]),),
            lambda rows, axis=-1: statistic(values[rows]),
            vectorized=True,
            **options,
        )
    else:  # resample the units; the statistic reads their rows
        result = scipy_bootstrap(
            (np.arange(values.shape[0]),), lambda rows: statistic(values[rows]), vectorized=False, **options
        )
    low, high = result.confidence_interval
    return Interval(estimate, float(low), float(high), over, how=_over_cells("bootstrap"))


def at_least(interval: Interval, threshold: float) -> tuple[str, str]:
    """The claim "the quantity is above ``threshold``": the verdict and its measured reason."""
    if interval.low > threshold:
        return REPRODUCES, f"the whole interval is above {threshold:g}"
    if interval.high < threshold:
        return DIFFERS, f"the whole interval is below {threshold:g}"
    return WITHIN_NOISE, f"the interval reaches both sides of {threshold:g}"


def at_most(interval: Interval, threshold: float) -> tuple[str, str]:
    """The claim "the quantity is below ``threshold``": the verdict and its measured reason."""
    if interval.high < threshold:
        return REPRODUCES, f"the whole interval is below {threshold:g}"
    if interval.low > threshold:
        return DIFFERS, f"the whole interval is above {threshold:g}"
    return WITHIN_NOISE, f"the interval reaches both sides of {threshold:g}"


def equivalent(interval: Interval, margin: float) -> tuple[str, str]:
    """The claim "the quantity (a difference) is zero, to within ``margin``"."""
    if -margin <= interval.low and interval.high <= margin:
        return REPRODUCES, f"the whole interval is within +-{margin:g}"
    if interval.low > margin or interval.high < -margin:
        return DIFFERS, f"the whole interval is beyond +-{margin:g}"
    return WITHIN_NOISE, f"the interval reaches beyond +-{margin:g} but not wholly"


def combine(cells) -> tuple[str, str]:
    """One verdict for a claim judged on several cells (corpora, or the parts of a two-part
    claim), each ``(label, interval, (verdict, reason))``: it reproduces where every cell does,
    differs where some cell differs, is not tested where no cell differs and some cell could not be
    tested, too few to judge where some cell has too few units, and is within noise otherwise; the
    reason names the cells that decided it."""
    cells = list(cells)
    words = [judged[0] for _, _, judged in cells]
    if DIFFERS in words:
        word = DIFFERS
    elif NOT_TESTED in words:
        word = NOT_TESTED
    elif TOO_FEW in words:
        word = TOO_FEW
    else:
        word = REPRODUCES if all(w == REPRODUCES for w in words) else WITHIN_NOISE
    deciding = [(label, judged[1]) for label, _, judged in cells if judged[0] == word]
    return word, grouped(deciding)


def grouped(pairs) -> str:
    """``(label, reason)`` pairs as one text, each reason said once after the labels that share
    it, in the order first given: "Reuters-21578, 20 Newsgroups: 3 categories, ..."."""
    labels = {}
    for label, reason in pairs:
        labels.setdefault(reason, []).append(label)
    return "; ".join(f"{', '.join(names)}: {reason}" for reason, names in labels.items())


@dataclass(frozen=True)
class Comparison:
    """One of a family of comparisons: its label, its interval, and its simultaneous interval (the
    family's intervals hold together at LEVEL)."""

    label: str
    interval: Interval
    simultaneous: Interval


def too_few(label: str, units: int, what: str = "units", needed: int = MIN_UNITS, estimate=float("nan")):
    """The cell ``(label, interval, (verdict, reason))`` of a claim with fewer than ``needed``
    independent ``what``: not judged, its ``estimate`` (the quantity measured on the few units,
    where there is one) kept for the page."""
    return (
        label,
        Interval(float(estimate), -np.inf, np.inf, f"{units} {what}", how="none"),
        (TOO_FEW, f"{units} {what}, fewer than the {needed} a verdict needs"),
    )


def not_tested(label: str, why: str):
    """The cell ``(label, interval, (verdict, reason))`` of a claim this run has nothing to test
    on (``why``: e.g. "no category in the band")."""
    return label, Interval(float("nan"), -np.inf, np.inf, "nothing", how="none"), (NOT_TESTED, why)


def clustered_t_family(values, clusters, labels, over: str) -> list[Comparison] | None:
    """Intervals for the means of a family of per-unit columns ``values`` (units x comparisons)
    whose units are nested in ``clusters`` (one id per unit; None: each unit its own): the mean
    over the units, its cluster-robust standard error (the units' deviations summed within each
    cluster, scaled by G / (G - 1) for G clusters) and Student's t with G - 1 degrees of freedom;
    each comparison's interval at LEVEL, and its simultaneous one at LEVEL for the whole family
    (Bonferroni: 1 - LEVEL shared among the comparisons).  With each unit its own cluster this is
    the one-sample t-interval.  None when there are fewer than :data:`MIN_UNITS` clusters."""
    from scipy.stats import t as student

    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    if values.shape[0] == 0 or not np.all(np.isfinite(values)):
        raise ValueError("values must be a non-empty array of finite numbers")
    n, m = values.shape
    ids = np.arange(n) if clusters is None else np.unique(np.asarray(clusters), return_inverse=True)[1]
    G = int(ids.max()) + 1
    if G < MIN_UNITS:
        return None
    estimate = values.mean(axis=0)
    sums = np.zeros((G, m))
    np.add.at(sums, ids, values - estimate)
    se = np.sqrt(G / (G - 1) * (sums**2).sum(axis=0)) / n
    tail = (1 - level()) / 2
    one, joint = student.ppf(1 - tail, G - 1), student.ppf(1 - tail / m, G - 1)
    units = over if clusters is None else f"{over} in {G} clusters"
    how = _over_cells("t-interval")
    how_joint = f"{LEVEL:.0%} simultaneous t-interval (Bonferroni, {m} comparisons" + (
        f", each of {_CELLS.get()} cells at {level():.2%})" if _CELLS.get() > 1 else ")"
    )

    def interval(e, half, text):
        return Interval(float(e), float(e - half), float(e + half), units, how=text)

    return [
        Comparison(label, interval(e, one * se_j, how), interval(e, joint * se_j, how_joint))
        for label, e, se_j in zip(labels, estimate, se, strict=True)
    ]


def t_interval(values, over: str) -> Interval | None:
    """The mean of ``values`` (one per independent unit) with its Student's t interval at LEVEL,
    which holds its coverage on a few units where a percentile bootstrap runs narrow; None under
    :data:`MIN_UNITS` units."""
    comparisons = clustered_t_family(values, None, ["mean"], over)
    return None if comparisons is None else comparisons[0].interval


def family(statistics, n_units: int, labels, over: str, n_resamples=RESAMPLES, clusters=None):
    """A family of statistics of the same units, bootstrapped together.

    ``statistics(rows)`` takes an integer array of shape (resamples, n_units), each row a resample
    of the units, and returns shape (resamples, len(labels)); :func:`band` gives each statistic
    its interval and its simultaneous interval.  With ``clusters`` (one id per unit) the clusters
    are resampled, each with all its units (one resample at a time: their sizes differ), and
    None is returned under :data:`MIN_CLUSTERS_BOOTSTRAP` clusters.
    """
    rng = np.random.default_rng(current_seed())
    estimate = np.asarray(statistics(np.arange(n_units)[None, :]), dtype=np.float64)[0]
    if clusters is not None:
        ids = np.unique(np.asarray(clusters), return_inverse=True)[1]
        members = [np.flatnonzero(ids == g) for g in range(int(ids.max()) + 1)]
        if len(members) < MIN_CLUSTERS_BOOTSTRAP:
            return None
        draws = [
            np.asarray(statistics(np.concatenate([members[g] for g in chosen])[None, :]), dtype=np.float64)[0]
            for chosen in rng.integers(0, len(members), size=(n_resamples, len(members)))
        ]
        return band(estimate, np.vstack(draws), labels, f"{over} in {len(members)} clusters")
    draws = []
    for start in range(0, n_resamples, BATCH):
        rows = rng.integers(0, n_units, size=(min(BATCH, n_resamples - start), n_units))
        draws.append(np.asarray(statistics(rows), dtype=np.float64))
    return band(estimate, np.vstack(draws), labels, over)


def band(estimate, draws, labels, over: str) -> list[Comparison]:
    """Intervals for a family of statistics from their bootstrap ``draws`` (resamples x members):
    each member's percentile interval, and a simultaneous one, the estimate plus or minus c
    standard errors, c the LEVEL quantile of the largest studentized deviation over the family
    (the max-t band), so that a claim about *some* member ("a rival is ahead") is not decided by
    the chance that one of many intervals misses."""
    estimate, draws = np.asarray(estimate, dtype=np.float64), np.asarray(draws, dtype=np.float64)
    if not (np.all(np.isfinite(draws)) and np.all(np.isfinite(estimate))):
        raise ValueError("the statistics must be finite on every resample")
    tail = (1 - level()) / 2
    low, high = np.quantile(draws, [tail, 1 - tail], axis=0)
    spread = draws.std(axis=0, ddof=1)
    varies = spread > 0
    deviation = np.abs(draws[:, varies] - estimate[varies]) / spread[varies]
    c = float(np.quantile(deviation.max(axis=1), level())) if varies.any() else 0.0
    out = []
    for j, label in enumerate(labels):
        width = c * spread[j]
        point = float(estimate[j])
        marginal = Interval(point, float(min(low[j], point)), float(max(high[j], point)), over,
                            how=_over_cells("bootstrap"))  # fmt: skip
        joint = Interval(
            point,
            point - width,
            point + width,
            over,
            how=f"{LEVEL:.0%} simultaneous bootstrap of {len(labels)} comparisons"
            + (f", each of {_CELLS.get()} cells at {level():.2%}" if _CELLS.get() > 1 else ""),
        )
        out.append(Comparison(label, marginal, joint))
    return out


def every(comparisons: list[Comparison], sides, name=str) -> tuple[str, str, Comparison]:
    """The claim "every member of the family is on its side": ``sides`` gives each member's
    ``(+1, t)`` for "above t" or ``(-1, t)`` for "below t".  It reproduces when every member's
    interval is on its side (an intersection of claims needs no correction), differs when some
    member's *simultaneous* interval is wholly on the other side, and is within noise otherwise.
    Returns the verdict, its reason (naming members by ``name(label)``) and the comparison to
    show: the one furthest on the wrong side, or the nearest to its threshold."""

    def margin(c, sign, t, interval):  # > 0: the interval is wholly on the claim's side
        return (interval.low - t) if sign > 0 else (t - interval.high)

    def wrong(c, sign, t):  # > 0: the simultaneous interval is wholly on the other side
        return (t - c.simultaneous.high) if sign > 0 else (c.simultaneous.low - t)

    members = list(zip(comparisons, sides, strict=True))
    count = f"all {len(members)} comparisons" if len(members) > 1 else "the comparison"
    against = sorted((m for m in members if wrong(m[0], *m[1]) > 0), key=lambda m: -wrong(m[0], *m[1]))
    if against:
        more = [name(c.label) for c, _ in against[1:]]
        return (
            DIFFERS,
            "against the claim beyond noise" + (f"; so are {_some(more)}" if more else ""),
            against[0][0],
        )
    ordered = sorted(members, key=lambda m: margin(m[0], *m[1], m[0].interval))
    if margin(ordered[0][0], *ordered[0][1], ordered[0][0].interval) > 0:
        return REPRODUCES, f"{count} on the claim's side beyond noise", ordered[0][0]
    unsure = [c for c, (sign, t) in ordered if margin(c, sign, t, c.interval) <= 0]
    more = [name(c.label) for c in unsure[1:]]
    return (
        WITHIN_NOISE,
        "the interval reaches the claim's threshold" + (f"; so do {_some(more)}" if more else ""),
        unsure[0],
    )


def at_margins(comparisons: list[Comparison], sides, margins, unit="") -> str:
    """The verdicts of the same family at other margins than the one judged: ``sides(margin)``
    gives the family's sides at ``margin``.  For a reading that hangs on a threshold the paper does
    not give, so that the row shows how far the verdict leans on it."""
    return "; ".join(f"at {margin:g}{unit}: {every(comparisons, sides(margin))[0]}" for margin in margins)


def cell(comparisons: list[Comparison], sides, name=str) -> tuple[str, Interval, tuple[str, str]]:
    """A row's cell ``(label, interval, (verdict, reason))`` from a family judged by :func:`every`:
    the deciding comparison, with its simultaneous interval where that decided (*differs*)."""
    word, reason, shown = every(comparisons, sides, name)
    return shown.label, shown.simultaneous if word == DIFFERS else shown.interval, (word, reason)


def _some(names, shown=4) -> str:
    """The first ``shown`` names, and how many more."""
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")
