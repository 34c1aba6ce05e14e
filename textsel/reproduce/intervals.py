"""Intervals for the quantities the reproductions judge, and the run's seed and cells.

An interval is made over the paper's unit: a percentile bootstrap over test documents or tasks
(:func:`bootstrap`, :func:`family` with :func:`band`), Student's t over few units or over a few
clusters of them (:func:`clustered_t_family`, :func:`t_interval`), or the sign test's interval of
a median where one unit would decide a mean (:func:`median_family`, :func:`median_interval`).
Each keeps its coverage, and its units, so that :mod:`textsel.reproduce.power` and
:mod:`textsel.reproduce.worlds` can say how often its row's design finds the claim.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

__all__ = ["BATCH", "LEVEL", "MIN_CLUSTERS_BOOTSTRAP", "MIN_UNITS", "RESAMPLES", "WORLD_RESAMPLES",
           "Comparison", "Interval", "Units", "band", "bootstrap", "cells_now", "clustered_t_family",
           "current_seed", "family", "level", "median_family", "median_interval", "seeded", "seeded_as",
           "simultaneous", "t_interval"]  # fmt: skip

#: the fewest independent units (clusters) a row is judged on: with fewer, Student's t with
#: fewer than 4 degrees of freedom gives intervals no claim could leave, and a verdict would
#: say more than the data can
MIN_UNITS = 5
#: the fewest clusters a statistic other than a mean (a best over k, a ratio) is bootstrapped
#: over: a bootstrap over fewer clusters understates its spread
MIN_CLUSTERS_BOOTSTRAP = 20
#: the interval's coverage, and the bootstrap's resamples
LEVEL, RESAMPLES = 0.95, 1999
#: the resamples of a family made again inside each of its worlds (:class:`Units`' ``remake``):
#: fewer than the page's, so that a world costs what a page can spend on hundreds of them
WORLD_RESAMPLES = 499
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


@contextlib.contextmanager
def seeded_as(seed: int):
    """Resamples drawn in this block from ``seed`` (a world's own, apart from its page's)."""
    token = _SEED.set(int(seed))
    try:
        yield
    finally:
        _SEED.reset(token)


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


@dataclass(frozen=True, eq=False)
class Units:
    """The per-unit values a family of intervals was made from (units x comparisons), their
    clusters (None: each unit its own) and the row's cells then, so that
    :mod:`textsel.reproduce.worlds` can remake the family from resampled units."""

    values: np.ndarray
    clusters: np.ndarray | None
    labels: tuple
    over: str
    cells: int
    #: how the intervals were made: "t" (:func:`clustered_t_family`), "median"
    #: (:func:`median_family`) or "resampled" (:func:`band` over many units, which ``remake``
    #: makes again from a resample of them; ``values`` then holds the family's estimates, one row)
    method: str = "t"
    #: for "resampled": the units' count, and the family made from the units at given positions
    #: (an integer array, a resample) as :func:`band` made it
    n_units: int = 0
    remake: Callable | None = None
    #: the units' own name (``over``): the families of one row over the same units (the cells of a
    #: row judged on one corpus's test documents) are drawn from the same resample in a world
    sample: str = ""
    #: for "resampled": the sizes of the strata the units are drawn within (each split's test
    #: documents), in order; () for one
    strata: tuple = ()


@dataclass(frozen=True)
class Interval:
    """An estimate with its two-sided interval, and what the interval is over."""

    estimate: float
    low: float
    high: float
    over: str  # e.g. "10 tasks": what the bootstrap resampled
    how: str = ""  # how the interval was made, when not the percentile bootstrap at LEVEL
    #: its coverage, and the degrees of freedom of its quantile (inf: a normal or bootstrap
    #: quantile): what :mod:`textsel.reproduce.power` reads its standard error back from
    level: float = LEVEL
    df: float = float("inf")
    #: where a t-interval's units are kept: the family's :class:`Units` and this interval's column
    units: Units | None = field(default=None, compare=False, repr=False)
    column: int = field(default=0, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.estimate:.3g} [{self.low:.3g}, {self.high:.3g}]"


def bootstrap(values, over: str, statistic=np.mean, n_resamples=RESAMPLES, vectorized=False,
              of_means=None, method="percentile") -> Interval:  # fmt: skip
    """The ``statistic`` of ``values`` with its percentile bootstrap interval, resampling the
    rows: one row per unit (task, category, document), for a paired comparison the per-unit
    differences; a row may hold several numbers (a category's values at each subset size) that
    ``statistic`` reduces with the other rows to one number.

    A single row, or rows that are all equal, give a zero-width interval: nothing varies.  With
    ``vectorized``, ``statistic`` reduces the rows of a batch of resamples at once: it takes an
    array of shape (..., rows, columns) and returns shape (...), which is much faster than one call
    per resample.

    ``of_means``, where given, is the same statistic as a function of the rows' column means
    (shape (..., columns) to (...)): the interval then keeps the way to make it again from a
    resample of the rows (:class:`Units`, "resampled", drawn with the other intervals over
    ``over``), for :mod:`textsel.reproduce.worlds`.

    ``method="basic"`` reflects the percentiles about the estimate (2 estimate - the upper, 2
    estimate - the lower): for a statistic whose resamples run high (a best of many noisy
    scores, chosen again in each), whose percentile interval sits too high by twice that bias.
    """
    from scipy.stats import bootstrap as scipy_bootstrap

    values = np.asarray(values, dtype=np.float64)
    if values.ndim not in (1, 2) or values.shape[0] == 0 or not np.all(np.isfinite(values)):
        raise ValueError("values must be a non-empty 1-D or 2-D array of finite numbers")
    estimate = float(statistic(values))
    if values.shape[0] == 1 or np.all(values == values[0]):
        return Interval(estimate, estimate, estimate, over)
    if method not in ("percentile", "basic"):
        raise ValueError(f"method must be 'percentile' or 'basic', got {method!r}")
    options = dict(confidence_level=level(), n_resamples=n_resamples, method=method, batch=BATCH,
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
    how = _over_cells("bootstrap" if method == "percentile" else f"{method} bootstrap")
    kept = None
    if of_means is not None:
        if not np.isclose(float(of_means(values.mean(axis=0))), estimate, rtol=1e-9, atol=1e-12):
            raise ValueError("of_means must be the statistic as a function of the rows' column means")
        remake = functools.partial(_of_means, values, of_means, over, method)
        kept = Units(np.array([[estimate]]), None, ("",), over, _CELLS.get(), method="resampled",
                     n_units=values.shape[0], remake=remake, sample=over)  # fmt: skip
    return Interval(estimate, float(low), float(high), over, how=how, level=level(), units=kept)


def _of_means(values, of_means, over, method, rows) -> list:
    """:func:`bootstrap`'s interval (by its ``method``) made again from ``values[rows]`` (a
    world's resample of the rows), of a statistic of the rows' column means (``of_means``), with
    :data:`WORLD_RESAMPLES` resamples drawn as counts: a resample's column means are its counts'
    weighted means, one matrix product for all of them."""
    drawn = values[rows]
    draws = np.asarray(
        of_means(_resample_counts(current_seed(), len(rows)) @ drawn / len(rows)), dtype=np.float64
    )
    estimate = float(of_means(drawn.mean(axis=0)))
    tail = (1 - level()) / 2
    low, high = np.quantile(draws, [tail, 1 - tail])
    if method == "basic":
        low, high = 2 * estimate - high, 2 * estimate - low
    how = _over_cells("bootstrap" if method == "percentile" else f"{method} bootstrap")
    interval = Interval(estimate, float(low), float(high), over, how=how, level=level())
    return [Comparison("", interval, interval)]


@functools.lru_cache(maxsize=1)
def _resample_counts(seed: int, n: int) -> np.ndarray:
    """How often each of ``n`` units is drawn in each of :data:`WORLD_RESAMPLES` resamples from
    ``seed`` (resamples x units): kept for the next call, as a world's families over the same
    units take the same resamples."""
    picks = np.random.default_rng(seed).integers(0, n, size=(WORLD_RESAMPLES, n), dtype=np.int64)
    counts = np.empty((WORLD_RESAMPLES, n))
    for b in range(WORLD_RESAMPLES):
        counts[b] = np.bincount(picks[b], minlength=n)
    counts.flags.writeable = False
    return counts


@dataclass(frozen=True)
class Comparison:
    """One of a family of comparisons: its label, its interval, and its simultaneous interval (the
    family's intervals hold together at LEVEL)."""

    label: str
    interval: Interval
    simultaneous: Interval


def clustered_t_family(values, clusters, labels, over: str) -> list[Comparison] | None:
    """Intervals for the means of a family of per-unit columns ``values`` (units x comparisons)
    whose units are nested in ``clusters`` (one id per unit; None: each unit its own): the mean
    over the units, its cluster-robust standard error (CR2: the units' deviations summed within
    each cluster, each sum scaled by 1 / (1 - the cluster's share of the units)) and Student's t
    with Bell and McCaffrey's degrees of freedom (:func:`_bell_mccaffrey`: G - 1 for G equal
    clusters, fewer where the clusters are unequal, which a few clusters' t needs to keep its
    coverage);
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
    sizes = np.bincount(ids, minlength=G).astype(np.float64)
    # CR2: each cluster's summed deviation scaled by 1 / (1 - its share of the units), which makes
    # the variance unbiased where the units are independent, however unequal the clusters
    se = np.sqrt(((sums**2) / (1 - sizes / n)[:, None]).sum(axis=0)) / n
    df = float(G - 1) if clusters is None else _bell_mccaffrey(sizes)
    tail = (1 - level()) / 2
    one, joint = student.ppf(1 - tail, df), student.ppf(1 - tail / m, df)
    units = over if clusters is None else f"{over} in {G} clusters"
    how = _over_cells("t-interval")
    how_joint = f"{LEVEL:.0%} simultaneous t-interval (Bonferroni, {m} comparisons" + (
        f", each of {_CELLS.get()} cells at {level():.2%})" if _CELLS.get() > 1 else ")"
    )

    kept = Units(values, None if clusters is None else ids, tuple(labels), over, _CELLS.get())

    def interval(j, half, text, coverage):
        e = estimate[j]
        return Interval(float(e), float(e - half), float(e + half), units, how=text, level=coverage, df=df,
                        units=kept, column=j)  # fmt: skip

    return [
        Comparison(
            label,
            interval(j, one * se[j], how, level()),
            interval(j, joint * se[j], how_joint, 1 - 2 * tail / m),
        )  # fmt: skip
        for j, label in enumerate(labels)
    ]


def _bell_mccaffrey(sizes) -> float:
    """The degrees of freedom of a mean's CR2 variance over clusters of ``sizes`` units (Bell and
    McCaffrey's Satterthwaite approximation, the units independent and alike): (tr M)^2 / tr(M^2)
    for the quadratic form M the variance is of.  G - 1 for G equal clusters (and for units that
    are each their own); fewer where a few clusters hold most units, whose deviations then decide
    the variance alone."""
    sizes = np.asarray(sizes, dtype=np.float64)
    n = sizes.sum()
    weight = 1 / (1 - sizes / n)
    # M = P W P with P = I - J / n and W = sum_g weight_g 1_g 1_g': tr M = n, and tr(M^2) sums
    # weight_g weight_h (1_g' P 1_h)^2 with 1_g' P 1_h = n_g [g = h] - n_g n_h / n
    cross = np.diag(sizes) - np.outer(sizes, sizes) / n
    return float(n**2 / (np.outer(weight, weight) * cross**2).sum())


def t_interval(values, over: str) -> Interval | None:
    """The mean of ``values`` (one per independent unit) with its Student's t interval at LEVEL,
    which holds its coverage on a few units where a percentile bootstrap runs narrow; None under
    :data:`MIN_UNITS` units."""
    comparisons = clustered_t_family(values, None, ["mean"], over)
    return None if comparisons is None else comparisons[0].interval


def median_interval(values, over: str) -> Interval | None:
    """The median of ``values`` (one per independent unit) with its distribution-free interval
    at LEVEL (:func:`median_family` of one column); None under :data:`MIN_UNITS` units."""
    comparisons = median_family(np.asarray(values, dtype=np.float64)[:, None], ["median"], over)
    return None if comparisons is None else comparisons[0].interval


def _sign_test_rank(n: int, tail: float) -> tuple[int, float]:
    """The k whose order statistics [x_(k), x_(n-k+1)] of n units hold a median at 1 - 2 tail
    (the largest k with P(B <= k - 1) <= tail, B ~ Binomial(n, 1/2), at most the middle; 1, the
    extremes, where even they cannot), and the coverage they have."""
    from scipy.stats import binom

    below = binom.cdf(np.arange(n + 1), n, 0.5)  # P(B <= j)
    k = min(max(1, int(np.searchsorted(below, tail, side="right"))), (n + 1) // 2)
    return k, float(1 - 2 * below[k - 1])


def median_family(values, labels, over: str) -> list[Comparison] | None:
    """Intervals for the medians of a family of per-unit columns ``values`` (independent units x
    comparisons): each the order statistics the sign test puts around the median, which keep
    their coverage however skewed the units are (where one far unit decides a mean's t-interval,
    and a sample that misses it looks certain); each comparison's interval at LEVEL and its
    simultaneous one for the whole family (Bonferroni: 1 - LEVEL shared among the comparisons;
    on few units the extremes, whose coverage, short of it, the text says).  Each interval
    records the coverage it has.  None under :data:`MIN_UNITS` units."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    n, m = values.shape
    if n < MIN_UNITS:
        return None
    if not np.all(np.isfinite(values)):
        raise ValueError("values must be finite numbers")
    ordered = np.sort(values, axis=0)
    tail = (1 - level()) / 2
    (k, coverage), (k_joint, joint) = _sign_test_rank(n, tail), _sign_test_rank(n, tail / m)
    how = _over_cells(f"sign-test interval of the median ({coverage:.1%} exact)")
    how_joint = (
        f"simultaneous sign-test interval of the median ({joint:.1%} exact each; {1 - 2 * tail / m:.2%} "
        f"asked of each of {m} comparisons, Bonferroni)"
    )
    kept = Units(values, None, tuple(labels), over, _CELLS.get(), method="median")

    def interval(j, rank, text, held):
        low, high = ordered[rank - 1, j], ordered[n - rank, j]
        return Interval(float(np.median(values[:, j])), float(low), float(high), over, how=text, level=held,
                        units=kept, column=j)  # fmt: skip

    return [
        Comparison(label, interval(j, k, how, coverage), interval(j, k_joint, how_joint, joint))
        for j, label in enumerate(labels)
    ]


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


def band(estimate, draws, labels, over: str, remake=None, n_units: int = 0, strata=()) -> list[Comparison]:
    """Intervals for a family of statistics from their bootstrap ``draws`` (resamples x members):
    each member's percentile interval, and a simultaneous one, the estimate plus or minus c
    standard errors, c the LEVEL quantile of the largest studentized deviation over the family
    (the max-t band), so that a claim about *some* member ("a rival is ahead") is not decided by
    the chance that one of many intervals misses.

    ``remake(rows)``, where given, makes the family again (by this function) from the ``n_units``
    units at positions ``rows``, with :data:`WORLD_RESAMPLES` resamples: the intervals keep it
    (:class:`Units`, "resampled"), so that :mod:`textsel.reproduce.worlds` can judge the row in
    worlds drawn from its units; ``strata``, where the units were resampled within groups (the
    test documents of each of several splits), those groups' sizes, the units in their order."""
    estimate, draws = np.asarray(estimate, dtype=np.float64), np.asarray(draws, dtype=np.float64)
    if not (np.all(np.isfinite(draws)) and np.all(np.isfinite(estimate))):
        raise ValueError("the statistics must be finite on every resample")
    tail = (1 - level()) / 2
    low, high = np.quantile(draws, [tail, 1 - tail], axis=0)
    spread = draws.std(axis=0, ddof=1)
    varies = spread > 0
    deviation = np.abs(draws[:, varies] - estimate[varies]) / spread[varies]
    c = float(np.quantile(deviation.max(axis=1), level())) if varies.any() else 0.0
    kept = None
    if remake is not None:
        kept = Units(estimate[None, :].copy(), None, tuple(labels), over, _CELLS.get(), method="resampled",
                     n_units=int(n_units), remake=remake, sample=over, strata=tuple(strata))  # fmt: skip
    out = []
    for j, label in enumerate(labels):
        width = c * spread[j]
        point = float(estimate[j])
        marginal = Interval(point, float(min(low[j], point)), float(max(high[j], point)), over,
                            how=_over_cells("bootstrap"), level=level(), units=kept, column=j)  # fmt: skip
        joint = Interval(
            point,
            point - width,
            point + width,
            over,
            how=f"{LEVEL:.0%} simultaneous bootstrap of {len(labels)} comparisons"
            + (f", each of {_CELLS.get()} cells at {level():.2%}" if _CELLS.get() > 1 else ""),
            units=kept,
            column=j,
        )
        out.append(Comparison(label, marginal, joint))
    return out
