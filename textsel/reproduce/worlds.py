"""Worlds built from a row's own units: how often its design says "differs" with the claim's
quantity exactly at its margin, and how often "reproduces" with the claim true.

A row judged by Student's t or by a median's sign-test interval over few units (categories,
datasets) keeps its units (:class:`~textsel.reproduce.intervals.Units`).  Each world moves every
comparison's units so that their mean (median) sits where the world puts it (the deviations
kept: the data's own spread, skew and heavy tails), draws as many units (or clusters, each with
all its units) with replacement, remakes the family by the row's own method and judges it by the
row's own rule:

- a **null world** puts each comparison at its margin (the one nearer its estimate, where it has
  two): a fair row says "differs" in about 2.5% of them, one tail of its interval;
- a **claim world** puts each comparison at the paper's size beyond its margin (an equivalence at
  the paper's size from 0, at 0 where the paper gives none; a claim bounded on both sides at the
  middle of its band): the share that reproduces is the row's power.

A family bootstrapped over many units (the test documents, within each split where they are
several splits', or the terms: :func:`~textsel.reproduce.intervals.band` given its ``remake``,
or :func:`~textsel.reproduce.intervals.bootstrap` its ``of_means``) is remade the bootstrap's
way, its statistics not being means one could move: each world draws the units with
replacement, makes the family again from them by its own method
(:data:`~textsel.reproduce.intervals.WORLD_RESAMPLES` resamples) and shifts each interval by
where the world puts the quantity less the page's estimate, which the world's units scatter
about as the page's scatter about the truth (a double bootstrap).  These worlds are
:data:`RESAMPLED_WORLDS`: each costs a bootstrap.  Other rows judged by the one-interval
:func:`~textsel.reproduce.intervals.bootstrap` are not remade here;
:mod:`textsel.reproduce.power` reads their power from their intervals.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses

import numpy as np

from .intervals import clustered_t_family, current_seed, median_family, seeded_as, simultaneous
from .verdicts import DIFFERS, REPRODUCES

__all__ = [
    "ALLOWED",
    "QUICK_WORLDS",
    "RESAMPLED_WORLDS",
    "WORLDS",
    "rates",
    "remade",
    "too_often",
    "worlds_for",
]

#: worlds a row is remade in: a share's standard error is at most 1.6 points (0.8 at 7%, so that
#: a row near :data:`ALLOWED` is told from it; 400 worlds put rows of 6.2% and 6.7% at 7.8% and 7.5%)
WORLDS = 1000
#: worlds a quick run's page remakes a row in (a smoke run: its shares are rough)
QUICK_WORLDS = 100
#: worlds a family bootstrapped over the test documents is remade in (each remakes its bootstrap):
#: a share's standard error at 7% is 1.3 points
RESAMPLED_WORLDS = 400
#: the share of null worlds in which a row's design may say "differs" (its interval's one tail
#: is 2.5%)
ALLOWED = 0.07

#: whether a row judged now may be remade in worlds (:func:`remade`)
_REMADE = contextvars.ContextVar("textsel_reproduce_remade", default=True)


@contextlib.contextmanager
def remade(on: bool):
    """Rows judged inside may (``on``) or may not be remade in worlds from their units to choose
    their design (:func:`too_often`): off for a report that is itself one of many worlds (a
    calibration), where worlds inside each world would cost a thousand times the page."""
    token = _REMADE.set(on)
    try:
        yield
    finally:
        _REMADE.reset(token)


def _margins(test) -> list[float]:
    return [-test.threshold, test.threshold] if test.side == 0 else [test.threshold]


def _same(units) -> list[int]:
    """Each column's first twin: a family may judge one quantity twice (a band: above its lower
    end, below its upper), and a world moves the twins together."""
    values = units.values
    return [
        next(k for k in range(j + 1) if np.array_equal(values[:, k], values[:, j]))
        for j in range(values.shape[1])
    ]


def _targets(units, tests, size):
    """Where the null and the claim worlds put each column of ``units`` that ``tests`` judge:
    ({column: null value}, {column: claim value} or None where the claim world is not defined)."""
    twin = _same(units)
    null, claim = {}, {}
    for j in sorted({twin[t.interval.column] for t in tests}):  # each its null, with or without a claim
        mine = [t for t in tests if twin[t.interval.column] == j]
        estimate = float((np.median if units.method == "median" else np.mean)(units.values[:, j]))
        null[j] = min((m for t in mine for m in _margins(t)), key=lambda m: abs(m - estimate))
        sides = {t.side for t in mine}
        if claim is None:
            continue
        if sides == {0}:
            claim[j] = 0.0 if size is None else size
        elif sides == {1, -1}:  # a band: its middle
            low = max(t.threshold for t in mine if t.side > 0)
            claim[j] = (low + min(t.threshold for t in mine if t.side < 0)) / 2
        elif size is not None and 0 not in sides:
            side = sides.pop()
            claim[j] = (max if side > 0 else min)(t.threshold for t in mine) + side * size
        else:  # no claim world; the null world still places the columns after this one
            claim = None
    return ({k: null[j] for k, j in enumerate(twin) if j in null},
            None if claim is None else {k: claim[j] for k, j in enumerate(twin) if j in claim})  # fmt: skip


def _judge(test, comparison) -> str:
    """The row's own rule on one remade comparison: "reproduces" on its interval, "differs" on
    its simultaneous one where it is one of a family judged together."""
    i = comparison.interval
    wrong = comparison.simultaneous if test.joint else i
    if test.side == 0:
        if -test.threshold <= i.low and i.high <= test.threshold:
            return REPRODUCES
        return DIFFERS if wrong.low > test.threshold or wrong.high < -test.threshold else ""
    if (i.low > test.threshold) if test.side > 0 else (i.high < test.threshold):
        return REPRODUCES
    return (
        DIFFERS if ((wrong.high < test.threshold) if test.side > 0 else (wrong.low > test.threshold)) else ""
    )


def _resampled(units, placed, rng, drawn):
    """A family bootstrapped over many units, made again from a resample of them and each interval
    shifted by where the world puts its quantity (``placed``) less the page's estimate.  Families
    over the same units take the world's one resample of them, and the same resamples inside it,
    as the page's take the same (``drawn``: the world's, by :attr:`Units.sample`)."""
    key = (units.sample or id(units), units.n_units, units.strata)
    if key not in drawn:
        strata = units.strata or (units.n_units,)  # each stratum drawn within itself
        starts = np.cumsum((0,) + strata)[:-1]
        rows = np.concatenate([start + rng.integers(0, size, size=size)
                               for start, size in zip(starts, strata, strict=True)])  # fmt: skip
        drawn[key] = (rows, int(rng.integers(2**32)))
    rows, seed = drawn[key]
    with simultaneous(units.cells), seeded_as(seed):
        family = units.remake(rows)

    def moved(interval, d):
        return dataclasses.replace(interval, estimate=interval.estimate + d, low=interval.low + d,
                                   high=interval.high + d)  # fmt: skip

    shifts = [placed.get(j, units.values[0, j]) - units.values[0, j] for j in range(len(family))]
    return [
        dataclasses.replace(c, interval=moved(c.interval, d), simultaneous=moved(c.simultaneous, d))
        for c, d in zip(family, shifts, strict=True)
    ]


def _world(groups, placed, rng) -> tuple[bool, bool]:
    """One world: (whether the row says "differs", whether it says "reproduces")."""
    words, samples = [], {}  # the world's resample of each set of units, by its name
    for units, tests in groups:
        if units.method == "resampled":
            family = _resampled(units, placed[id(units)], rng, samples)
            words += [_judge(t, family[t.interval.column]) for t in tests]
            continue
        centre = np.median if units.method == "median" else np.mean
        values = units.values - centre(units.values, axis=0)
        for j, value in placed[id(units)].items():
            values[:, j] += value
        if units.clusters is None:
            chosen = rng.integers(0, len(values), size=len(values))
            drawn, ids = values[chosen], None
        else:
            G = int(units.clusters.max()) + 1
            members = [np.flatnonzero(units.clusters == g) for g in range(G)]
            picks = rng.integers(0, G, size=G)
            drawn = np.concatenate([values[members[g]] for g in picks])
            ids = np.concatenate([np.full(len(members[g]), k) for k, g in enumerate(picks)])
        with simultaneous(units.cells):
            if units.method == "median":
                family = median_family(drawn, list(units.labels), units.over)
            else:
                family = clustered_t_family(drawn, ids, list(units.labels), units.over)
        if family is None:
            return False, False
        words += [_judge(t, family[t.interval.column]) for t in tests]
    return DIFFERS in words, all(w == REPRODUCES for w in words)


def worlds_for(tests, worlds=WORLDS) -> int:
    """How many worlds the row of ``tests`` is remade in: ``worlds``, or :data:`RESAMPLED_WORLDS`
    where fewer and one of its families is bootstrapped over many units."""
    kept = (getattr(getattr(t, "interval", None), "units", None) for t in tests)
    resampled = any(units is not None and units.method == "resampled" for units in kept)
    return min(worlds, RESAMPLED_WORLDS) if resampled else worlds


def rates(tests, size=None, worlds=WORLDS) -> tuple[float | None, float | None]:
    """(the share of null worlds in which the row says "differs", the share of claim worlds in
    which it reproduces), remade from the units of the row's ``tests`` at the paper's ``size``
    in :func:`worlds_for` worlds; None where the row's intervals did not keep their units (or,
    for the second, where the paper gives no size for a one-sided claim)."""
    tests = list(tests)
    if not tests or any(t.interval.units is None for t in tests):
        return None, None
    worlds = worlds_for(tests, worlds)
    groups = {}
    for t in tests:
        groups.setdefault(id(t.interval.units), (t.interval.units, []))[1].append(t)
    groups = list(groups.values())
    targets = {id(u): _targets(u, ts, size) for u, ts in groups}
    rng = np.random.default_rng(current_seed())
    null = {key: n for key, (n, _) in targets.items()}
    false = sum(_world(groups, null, rng)[0] for _ in range(worlds)) / worlds
    if any(claim is None for _, claim in targets.values()):
        return false, None
    claim = {key: c for key, (_, c) in targets.items()}
    return false, sum(_world(groups, claim, rng)[1] for _ in range(worlds)) / worlds


def too_often(tests, worlds=WORLDS) -> float | None:
    """The share of null worlds from their units in which the row of ``tests`` says "differs",
    where it lies beyond :data:`ALLOWED` by more than the worlds' own noise (the share's
    one-sided 95% Wilson bound above it); None where it does not, where the row kept no units, or
    inside ``remade(False)``."""
    from scipy.stats import norm

    if not _REMADE.get():
        return None
    tests = list(tests)
    false, _ = rates(tests, worlds=worlds)
    if false is None:
        return None
    worlds = worlds_for(tests, worlds)
    z = norm.isf(0.05)
    centre = (false + z * z / (2 * worlds)) / (1 + z * z / worlds)
    half = z * np.sqrt(false * (1 - false) / worlds + z * z / (4 * worlds**2)) / (1 + z * z / worlds)
    return false if centre - half > ALLOWED else None
