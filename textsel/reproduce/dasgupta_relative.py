"""Dasgupta et al.'s relative F1 (each method's F1 over its split's all-terms F1, averaged over
the splits: the paper's RelMIF) with paired intervals over the test documents and the sampling
draws: every document's true and false positives and false negatives are kept, so that a resample
needs no refitting, and a sampling strategy's draws are resampled with them.
"""

from __future__ import annotations

import numpy as np

from .documents import f1_draws
from .intervals import RESAMPLES, band, current_seed
from .verdicts import cell

__all__ = ["MEASURES", "Relative", "draw_mean", "relative"]

MEASURES = {"relative_f1": "micro-F1", "relative_macro_f1": "macro-F1"}


def _test_documents(splits) -> str:
    sizes = sorted({split[2].shape[0] for split in splits})
    each = " to ".join(f"{n:,}" for n in (sizes[0], sizes[-1])) if len(sizes) > 1 else f"{sizes[0]:,}"
    return f"{each} test documents" + (f" x {len(splits)} splits" if len(splits) > 1 else "")


class Relative:
    """Relative micro- and macro-F1 of every (method, number of terms) of a corpus, averaged over its
    splits (the paper's RelMIF), with paired bootstrap draws over the test documents."""

    def __init__(self, keys, estimate, draws, over):
        self.keys, self.estimate, self.draws, self.over = keys, estimate, draws, over
        self.budgets = sorted({b for _, b in keys})
        self.methods = sorted({m for m, _ in keys})

    def column(self, method, budget):
        return self.keys.index((method, budget))

    def comparisons(self, measure, statistics, labels):
        """The family of ``statistics``, which maps relative F1 of shape (..., keys) to (...,
        members), with its intervals over the documents and the draws."""
        return band(
            statistics(self.estimate[measure][None, :])[0], statistics(self.draws[measure]), labels, self.over
        )

    def judge(self, measure, statistics, labels, sides):
        """The cell "every statistic on its side" (:meth:`comparisons`)."""
        return cell(self.comparisons(measure, statistics, labels), sides)

    def at(self, measure, method, budget) -> float:
        return float(self.estimate[measure][self.column(method, budget)])


def shared_keys(per_split) -> list:
    """The (method, budget) every split has, the all-terms record left out."""
    return [key for key in per_split[0] if key[0] != "all" and all(key in records for records in per_split)]


def relative(per_split, splits) -> Relative:
    """The :class:`Relative` of a corpus from its splits' records (each with its draws' counts).

    A sampling strategy's quantity is its mean over the draws (the paper's "aggregated performances
    over five different samples"), so its interval holds the draws' spread as well as the test
    documents': each resample takes the documents with replacement and, apart for every method, as
    many of its draws with replacement, their deviations from the draws' mean scaled by
    sqrt(S / (S - 1)) so that S draws carry their whole variance (a bootstrap of S values gives
    (S - 1) / S of it)."""
    keys = shared_keys(per_split)
    rng = np.random.default_rng([current_seed(), len(per_split), 17])  # apart from the documents'
    estimate = {m: 0.0 for m in MEASURES}
    draws = {m: 0.0 for m in MEASURES}
    for index, records in enumerate(per_split):
        base = next(r for key, r in records.items() if key[0] == "all")
        matrices, spans = [], []
        for key in keys:
            spans.append(slice(len(matrices), len(matrices) + len(records[key]["draw_counts"])))
            matrices.extend(records[key]["draw_counts"])
        point, resampled = f1_draws(matrices + [base["counts"]], index)
        picks = [rng.integers(0, s.stop - s.start, size=(RESAMPLES, s.stop - s.start)) for s in spans]
        for m, f1 in zip(MEASURES, ("micro", "macro"), strict=True):  # relative to the split's own
            p, r = point[f1], resampled[f1]  # all-terms fit, averaged over the splits
            mean = np.array([p[s].mean() for s in spans])
            drawn = np.stack([draw_mean(r[:, s], pick) for s, pick in zip(spans, picks, strict=True)], axis=1)
            estimate[m] = estimate[m] + mean / p[-1] / len(per_split)
            draws[m] = draws[m] + drawn / r[:, -1:] / len(per_split)
    return Relative(keys, estimate, draws, _test_documents(splits))


def draw_mean(values, picks):
    """The mean of each resample's drawn draws: ``values`` (resamples x S) each draw's statistic on
    the resample's documents, ``picks`` (resamples x S) the draws taken; the deviations from each
    resample's mean over the S draws are scaled by sqrt(S / (S - 1)), so that the mean of S drawn
    with replacement varies as the mean of S new draws would."""
    S = values.shape[1]
    if S == 1:
        return values[:, 0]
    centre = values.mean(axis=1, keepdims=True)
    scaled = centre + np.sqrt(S / (S - 1)) * (values - centre)
    return np.take_along_axis(scaled, picks, axis=1).mean(axis=1)
