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

from dataclasses import dataclass

import numpy as np

from .intervals import MIN_UNITS, Comparison, Interval

__all__ = ["ABOVE", "BELOW", "DIFFERS", "NOT_TESTED", "REPRODUCES", "TOO_FEW", "WITHIN_NOISE", "Bound",
           "Judged", "at_least", "at_margins", "at_most", "cell", "combine", "equivalent", "every", "grouped",
           "not_tested", "too_few"]  # fmt: skip

REPRODUCES, DIFFERS, WITHIN_NOISE = "reproduces", "differs", "within noise"
TOO_FEW = "too few to judge"
#: a side of a claim's threshold (:func:`every`, :func:`cell`): the quantity above it, or below
ABOVE, BELOW = 1, -1
#: a row this run could not test at all (no unit in the group it is about: a quick run's few categories)
NOT_TESTED = "not tested"


@dataclass(frozen=True)
class Bound:
    """One interval set against its claim: ``side`` +1 "above ``threshold``", -1 "below it", 0
    "within +-``threshold`` of 0" (an equivalence)."""

    interval: Interval
    side: int
    threshold: float
    #: one of a family judged by :func:`every`: it differs by the family's simultaneous interval
    joint: bool = False


class Judged(tuple):
    """A verdict and its reason, ``(word, reason)``, that keeps the :class:`Bound` s it was reached
    by (``tests``), so that the row can say how often its design finds the claim
    (:mod:`textsel.reproduce.power`)."""

    def __new__(cls, word: str, reason: str, tests=()):
        self = super().__new__(cls, (word, reason))
        self.tests = tuple(tests)
        return self

    def __getnewargs__(self):
        return (*self, self.tests)


def at_least(interval: Interval, threshold: float) -> Judged:
    """The claim "the quantity is above ``threshold``": the verdict and its measured reason."""
    tests = [Bound(interval, +1, threshold)]
    if interval.low > threshold:
        return Judged(REPRODUCES, f"the whole interval is above {threshold:g}", tests)
    if interval.high < threshold:
        return Judged(DIFFERS, f"the whole interval is below {threshold:g}", tests)
    return Judged(WITHIN_NOISE, f"the interval reaches both sides of {threshold:g}", tests)


def at_most(interval: Interval, threshold: float) -> Judged:
    """The claim "the quantity is below ``threshold``": the verdict and its measured reason."""
    tests = [Bound(interval, -1, threshold)]
    if interval.high < threshold:
        return Judged(REPRODUCES, f"the whole interval is below {threshold:g}", tests)
    if interval.low > threshold:
        return Judged(DIFFERS, f"the whole interval is above {threshold:g}", tests)
    return Judged(WITHIN_NOISE, f"the interval reaches both sides of {threshold:g}", tests)


def equivalent(interval: Interval, margin: float) -> Judged:
    """The claim "the quantity (a difference) is zero, to within ``margin``"."""
    tests = [Bound(interval, 0, margin)]
    if -margin <= interval.low and interval.high <= margin:
        return Judged(REPRODUCES, f"the whole interval is within +-{margin:g}", tests)
    if interval.low > margin or interval.high < -margin:
        return Judged(DIFFERS, f"the whole interval is beyond +-{margin:g}", tests)
    return Judged(WITHIN_NOISE, f"the interval reaches beyond +-{margin:g} but not wholly", tests)


def combine(cells) -> Judged:
    """One verdict for a claim judged on several cells (corpora, or the parts of a two-part
    claim), each ``(label, interval, (verdict, reason))``: it reproduces where every cell does,
    differs where some cell differs, is not tested where no cell differs and some cell could not be
    tested, too few to judge where some cell has too few units, and is within noise otherwise; the
    reason names the cells that decided it; it keeps every cell's tests."""
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
    return Judged(
        word, grouped(deciding), [t for _, _, judged in cells for t in getattr(judged, "tests", ())]
    )


def grouped(pairs) -> str:
    """``(label, reason)`` pairs as one text, each reason said once after the labels that share
    it, in the order first given: "Reuters-21578, 20 Newsgroups: 3 categories, ..."."""
    labels = {}
    for label, reason in pairs:
        labels.setdefault(reason, []).append(label)
    return "; ".join(f"{', '.join(names)}: {reason}" for reason, names in labels.items())


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
    tests = [Bound(c.interval, sign, t, joint=True) for c, (sign, t) in zip(comparisons, sides, strict=True)]
    return shown.label, shown.simultaneous if word == DIFFERS else shown.interval, Judged(word, reason, tests)


def _some(names, shown=4) -> str:
    """The first ``shown`` names, and how many more."""
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")
