"""Dasgupta et al.'s relative F1 (each method's F1 over its split's all-terms F1, averaged over
the splits: the paper's RelMIF) with paired intervals over the test documents and the sampling
draws: every document's true and false positives and false negatives are kept, so that a resample
needs no refitting, and a sampling strategy's draws are resampled with them.
"""

from __future__ import annotations

import hashlib

import numpy as np

from .documents import Counted
from .intervals import RESAMPLES, WORLD_RESAMPLES, band, current_seed
from .verdicts import cell

__all__ = ["MEASURES", "Relative", "draw_mean", "relative"]

MEASURES = {"relative_f1": "micro-F1", "relative_macro_f1": "macro-F1"}
#: the F1 each measure is relative in (:func:`~textsel.reproduce.documents.f1_draws`' names)
_F1 = {"relative_f1": "micro", "relative_macro_f1": "macro"}


def _test_documents(splits) -> str:
    sizes = sorted({split[2].shape[0] for split in splits})
    each = " to ".join(f"{n:,}" for n in (sizes[0], sizes[-1])) if len(sizes) > 1 else f"{sizes[0]:,}"
    return f"{each} test documents" + (f" x {len(splits)} splits" if len(splits) > 1 else "")


class Relative:
    """Relative micro- and macro-F1 of every (method, number of terms) of a corpus, averaged over its
    splits (the paper's RelMIF), with paired bootstrap draws over the test documents; ``again(rows,
    measure)``, where given, makes it again for a world (:mod:`textsel.reproduce.worlds`) from the
    documents at ``rows``, drawn within each split (``strata``: the splits' test documents)."""

    def __init__(self, keys, estimate, draws, over, again=None, strata=()):
        self.keys, self.estimate, self.draws, self.over = keys, estimate, draws, over
        self.budgets = sorted({b for _, b in keys})
        self.methods = sorted({m for m, _ in keys})
        self._again, self.strata = again, tuple(strata)
        # a world's relative F1, kept for the other rows judged in the same world: a page's rows
        # draw their worlds from one seed, so that the k-th world of each is the same
        self._worlds = {}

    def column(self, method, budget):
        return self.keys.index((method, budget))

    def comparisons(self, measure, statistics, labels):
        """The family of ``statistics``, which maps relative F1 of shape (..., keys) to (...,
        members), with its intervals over the documents and the draws."""

        def remake(rows):
            key = (current_seed(), hashlib.blake2b(np.ascontiguousarray(rows)).digest(), measure)
            if key not in self._worlds:
                self._worlds[key] = self._again(rows, measure)
            return self._worlds[key].comparisons(measure, statistics, labels)

        estimate = statistics(self.estimate[measure][None, :])[0]
        return band(estimate, statistics(self.draws[measure]), labels, self.over, n_units=sum(self.strata),
                    remake=remake if self._again else None, strata=self.strata)  # fmt: skip

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
    matrices, spans = [], []
    for records in per_split:
        base = next(r for key, r in records.items() if key[0] == "all")
        held, cut = [], []
        for key in keys:
            cut.append(slice(len(held), len(held) + len(records[key]["draw_counts"])))
            held.extend(records[key]["draw_counts"])
        matrices.append(held + [base["counts"]])
        spans.append(cut)
    strata = [m[0].shape[0] for m in matrices]
    starts = np.cumsum([0] + strata)
    counted = {}

    def made(measures, rows=None, n_resamples=RESAMPLES):
        if measures not in counted:  # micro-F1 alone is held apart: it is much quicker (Counted)
            counted[measures] = [Counted(m, [_F1[x] for x in measures]) for m in matrices]
        rng = np.random.default_rng([current_seed(), len(per_split), 17])  # apart from the documents'
        world = np.random.default_rng([current_seed(), len(per_split), 29])
        estimate = {m: 0.0 for m in measures}
        draws = {m: 0.0 for m in measures}
        for index, (documents, cut) in enumerate(zip(counted[measures], spans, strict=True)):
            if rows is not None:  # a world: its documents, and each method's draws drawn again
                chosen = [s.start + world.integers(0, s.stop - s.start, s.stop - s.start) for s in cut]
                documents = documents.take(rows[starts[index] : starts[index + 1]] - starts[index],
                                           np.concatenate(chosen + [[cut[-1].stop]]))  # fmt: skip
            point, resampled = documents.draws(index, n_resamples)
            picks = [rng.integers(0, s.stop - s.start, size=(n_resamples, s.stop - s.start)) for s in cut]
            for m in measures:  # relative to the split's own all-terms fit, averaged over the splits
                p, r = point[_F1[m]], resampled[_F1[m]]
                mean = np.array([p[s].mean() for s in cut])
                drawn = [draw_mean(r[:, s], pick) for s, pick in zip(cut, picks, strict=True)]
                drawn = np.stack(drawn, axis=1)
                estimate[m] = estimate[m] + mean / p[-1] / len(per_split)
                draws[m] = draws[m] + drawn / r[:, -1:] / len(per_split)
        return estimate, draws

    def again(rows, measure):
        return Relative(keys, *made((measure,), rows, WORLD_RESAMPLES), over)

    over = _test_documents(splits)
    return Relative(keys, *made(tuple(MEASURES)), over, again=again, strata=strata)


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
