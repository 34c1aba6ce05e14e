"""How often a row's design finds its claim: its power.

A row says "reproduces" when every interval it judges lies on the claim's side of its margin.
Were the claim true by a given size, how often would that happen?  Each interval's standard
error is read back from its own half-width on the claim's side (its coverage and quantile: a
Student's t interval's degrees of freedom, a bootstrap's normal quantile), and the row's
estimates are taken to scatter about the true values with those errors:

- a one-sided test ("above t") with the quantity at t + size reproduces when its interval's lower
  end clears t: for a t interval the non-central t's tail (the one-sample t-test's power), for a
  bootstrap the normal one;
- an equivalence ("within +-m of 0") with the quantity at the size (0, the claim at its best,
  where the paper gives none) reproduces when both ends stay inside +-m.

A row reproduces only when all its tests do.  Its tests share units (one leader's values in each
comparison, one corpus's documents in each cell) and move together, which makes all of them
clearing together at least as likely as the product of their chances: the product is a floor.

Where the paper gives no size, :func:`detectable` gives the size at which the design finds the
claim half the time, each test's size being the same number of its own standard errors.
"""

from __future__ import annotations

import math

import numpy as np

from .verdicts import WITHIN_NOISE, Bound

__all__ = ["HALF", "chance", "design", "detectable", "folded", "judged_design", "power"]

#: powers reported as the sizes a design detects: half the time, and the conventional 80%
HALF, USUAL = 0.5, 0.8


def _critical(interval) -> float:
    from scipy.stats import norm, t

    tail = (1 - interval.level) / 2
    return float(norm.isf(tail) if math.isinf(interval.df) else t.isf(tail, interval.df))


def _errors(test: Bound) -> tuple[float, float]:
    """The standard errors the interval's lower and upper halves imply."""
    i, c = test.interval, _critical(test.interval)
    return (i.estimate - i.low) / c, (i.high - i.estimate) / c


def chance(test: Bound, size: float) -> float:
    """The chance that ``test`` reproduces when its quantity sits ``size`` beyond its threshold on
    the claim's side (an equivalence: at ``size`` from 0)."""
    from scipy.stats import nct, norm

    i, c = test.interval, _critical(test.interval)
    below, above = _errors(test)
    if test.side == 0:  # inside [-m + c se_low, m - c se_high]
        low, high = -test.threshold + c * below, test.threshold - c * above
        if high < low:
            return 0.0
        se = (below + above) / 2
        if se == 0:
            return float(low <= size <= high)
        return float(norm.cdf((high - size) / se) - norm.cdf((low - size) / se))
    se = below if test.side > 0 else above
    if se == 0:  # every unit alike: the interval is a point
        return float(size > 0)
    if math.isinf(i.df):
        return float(norm.sf(c - size / se))
    return float(nct.sf(c, i.df, size / se))


def power(tests, size: float | None = None) -> float:
    """The chance (a floor, see the module) that every one of ``tests`` reproduces, each quantity
    ``size`` beyond its threshold on the claim's side (an equivalence at ``size`` from 0, at 0
    where ``size`` is None)."""
    return float(np.prod([chance(t, (0.0 if size is None else size)) for t in tests]))


def _in_errors(tests, k: float) -> float:
    """The chance every test reproduces with each one-sided quantity ``k`` of its own standard
    errors beyond its threshold (equivalences at 0)."""
    chances = []
    for t in tests:
        below, above = _errors(t)
        error = below if t.side > 0 else above
        if t.side != 0 and error == 0:  # a point (every unit alike): any size beyond clears it
            chances.append(1.0 if k > 0 else 0.0)
        else:
            chances.append(chance(t, 0.0 if t.side == 0 else k * error))
    return float(np.prod(chances))


def detectable(tests, target: float = HALF) -> float | None:
    """The number of standard errors each one-sided test's quantity must sit beyond its threshold
    for the row to reproduce with chance ``target``; None where no size does (an equivalence
    whose margin its interval cannot fit)."""
    low, high = 0.0, 1.0
    while _in_errors(tests, high) < target:
        high *= 2
        if high > 1e3:
            return None
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if _in_errors(tests, mid) < target else (low, mid)
    return high


def _opposite(a, b) -> bool:
    """Whether ``a`` and ``b`` bound one quantity from both sides of 0 ("above -m", "below +m")."""
    return a.interval == b.interval and b.side == -a.side != 0 and b.threshold == -a.threshold


def folded(tests) -> list:
    """``tests`` with each band on one quantity ("above -m" and "below +m" of equal intervals, as a
    family judges a two-sided claim) made one equivalence within +-m."""
    tests, out, used = list(tests), [], set()
    for a, first in enumerate(tests):
        if a in used:
            continue
        twin = next(
            (b for b in range(a + 1, len(tests)) if b not in used and _opposite(first, tests[b])), None
        )
        if twin is None:
            out.append(first)
        else:
            used.add(twin)
            out.append(Bound(first.interval, 0, abs(first.threshold), first.joint))
    return out


def design(tests, size=None, unit: str = "", simulated=None) -> tuple[float | None, str]:
    """The row's power and what the page says of it.

    With the paper's ``size`` (its words in ``unit``), the chance the design finds the claim at
    it.  Without one, an equivalence-only row's chance at the claim's best (a difference of 0);
    any other row gives the sizes it finds half the time and 80% of the time (a single
    comparison's in its own units; several comparisons' in standard errors, SE, each, with the
    range that makes in their units), with no power: the paper gives none to judge by.
    """
    tests = folded(tests)
    if not tests:
        return None, ""
    one_sided = [t for t in tests if t.side != 0]
    if size is not None or not one_sided:
        p = power(tests, size) if simulated is None else simulated
        return (
            p,
            f"{p:.0%} at the paper's {size:+g}{unit}"
            if size is not None
            else f"{p:.0%} at a difference of 0",
        )
    sizes = [k for k in (detectable(tests, target) for target in (HALF, USUAL)) if k is not None]
    if not sizes:
        return None, "none at any size: the intervals are wider than the margin"
    if len(one_sided) == 1:
        below, above = _errors(one_sided[0])
        error = below if one_sided[0].side > 0 else above
        said = [f"{k * error:.2g}" for k in sizes]
    else:

        def said_at(k):
            spread = [k * e for e in (_errors(t)[0 if t.side > 0 else 1] for t in one_sided) if e > 0] or [
                0.0
            ]
            return f"{k:.1f} SE each ({min(spread):.2g} to {max(spread):.2g})"

        said = [said_at(k) for k in sizes]
    return None, "no size given; 50% at " + said[0] + (f", 80% at {said[1]}" if len(said) > 1 else "")


def judged_design(
    tests, word: str, size=None, unit: str = "", n_worlds=None
) -> tuple[str, str, float | None]:
    """What a judged row says of its design: ``(what to add to its verdict's reason, the page's
    power column, its power)``.  Its false "differs" comes from worlds remade from its units
    (:mod:`textsel.reproduce.worlds`), where it kept them: a stress test, shown beside the verdict
    (on ten units the rate itself moves from 2% to 18% between samples drawn alike), that decides
    only how Forman's mean differences are judged (on the median dataset where the means' rate is
    beyond 7%: :func:`textsel.reproduce.forman_compare.differences`).  A within-noise row whose
    power is under one half says how often its design finds the claim.  ``n_worlds``: how many
    worlds (:data:`textsel.reproduce.worlds.WORLDS` when None; a quick run's page takes fewer)."""
    from . import worlds

    tests = list(tests)
    n_worlds = worlds.WORLDS if n_worlds is None else n_worlds
    false, found = worlds.rates(tests, size, worlds=n_worlds)
    power, text = design(tests, size, unit, simulated=found)
    count = worlds.worlds_for(tests, n_worlds)
    of = f" ({count} worlds)" if count != worlds.WORLDS else ""
    said = [] if false is None else [f"false “differs” {false:.1%}{of}"]
    weak = power is not None and power < HALF and word == WITHIN_NOISE
    more = f"; this design finds the claim {power:.0%} of the time" if weak else ""
    return more, "; ".join([text] + said), power
