"""Three-way verdicts judged against the noise.

A quantitative claim is judged on an interval for the quantity it is about (a bootstrap over
the paper's unit: tasks, categories or test documents): it **reproduces** when the whole interval
lies on the claim's side of its margin, **differs** when the whole interval lies on the other
side, and is **within noise** when the interval reaches both.  So a reseeded run can move a row
into or out of "within noise", but not from "reproduces" to "differs".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["DIFFERS", "REPRODUCES", "WITHIN_NOISE", "Interval", "at_least", "at_most", "bootstrap", "combine",
           "equivalent"]  # fmt: skip

REPRODUCES, DIFFERS, WITHIN_NOISE = "reproduces", "differs", "within noise"
#: the interval's coverage, and the bootstrap's resamples and seed (fixed: a page is reproducible)
LEVEL, RESAMPLES, SEED = 0.95, 1999, 0
#: resamples drawn at once: bounds the bootstrap's memory (resamples x units) on large test sets
BATCH = 200


@dataclass(frozen=True)
class Interval:
    """An estimate with its two-sided interval, and what the interval is over."""

    estimate: float
    low: float
    high: float
    over: str  # e.g. "10 tasks": what the bootstrap resampled

    def __str__(self) -> str:
        return f"{self.estimate:.3g} [{self.low:.3g}, {self.high:.3g}]"


def bootstrap(values, over: str, statistic=np.mean, n_resamples=RESAMPLES) -> Interval:
    """The ``statistic`` of ``values`` with its percentile bootstrap interval, resampling the
    rows: one row per unit (task, category, document), for a paired comparison the per-unit
    differences; a row may hold several numbers (a category's values at each subset size) that
    ``statistic`` reduces with the other rows to one number.

    A single row, or rows that are all equal, give a zero-width interval: nothing varies.
    """
    from scipy.stats import bootstrap as scipy_bootstrap

    values = np.asarray(values, dtype=np.float64)
    if values.ndim not in (1, 2) or values.shape[0] == 0 or not np.all(np.isfinite(values)):
        raise ValueError("values must be a non-empty 1-D or 2-D array of finite numbers")
    estimate = float(statistic(values))
    if values.shape[0] == 1 or np.all(values == values[0]):
        return Interval(estimate, estimate, estimate, over)
    options = dict(confidence_level=LEVEL, n_resamples=n_resamples, method="percentile", batch=BATCH,
                   random_state=np.random.default_rng(SEED))  # fmt: skip
    if values.ndim == 1 and statistic is np.mean:  # the common case, vectorized by scipy
        result = scipy_bootstrap((values,), np.mean, vectorized=True, **options)
    else:  # resample the units; the statistic reads their rows
        result = scipy_bootstrap(
            (np.arange(values.shape[0]),), lambda rows: statistic(values[rows]), vectorized=False, **options
        )
    low, high = result.confidence_interval
    return Interval(estimate, float(low), float(high), over)


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
    differs where some cell differs, and is within noise otherwise; the reason names the cells
    that decided it."""
    cells = list(cells)
    words = [judged[0] for _, _, judged in cells]
    word = (
        DIFFERS if DIFFERS in words else REPRODUCES if all(w == REPRODUCES for w in words) else WITHIN_NOISE
    )
    deciding = [(label, judged[1]) for label, _, judged in cells if judged[0] == word]
    return word, "; ".join(f"{label}: {reason}" for label, reason in deciding)
