"""Spearman's rank correlation of term scores, bootstrapped over the terms.

A resample of the terms ranks every term again (ties at their average rank, as
:func:`scipy.stats.spearmanr`), which a bootstrap over tens of thousands of terms pays in every
resample, and a world from the terms (:mod:`textsel.reproduce.worlds`) in every resample of every
world.  Terms with the same scores are interchangeable: a resample is how often it draws each
group of them (a multinomial over the groups), and its ranks are the running counts of the groups
in each score's order, with no sort.  Li & Sun's 56,436 terms fall in 9,975 such groups.
"""

from __future__ import annotations

import numpy as np

from .intervals import BATCH, RESAMPLES, WORLD_RESAMPLES, Comparison, band, current_seed

__all__ = ["spearman_band"]


def spearman_band(base, others, labels) -> list[Comparison]:
    """Spearman's rho of each column of ``others`` (terms x members) with ``base`` (terms), with
    the :func:`~textsel.reproduce.intervals.band` of a bootstrap over the terms (the members
    paired: one resample of the terms for all), kept with the way to make it again from a
    resample of the terms (for :mod:`textsel.reproduce.worlds`)."""
    values = np.column_stack([np.asarray(base, dtype=np.float64), np.asarray(others, dtype=np.float64)])
    if values.shape[1] != len(labels) + 1 or not np.all(np.isfinite(values)):
        raise ValueError("others must be finite, one column per label, and base one score per term")
    groups, inverse, sizes = np.unique(values, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    n = values.shape[0]
    over = f"{n:,} terms"

    def made(weights, n_resamples):
        """rho of the terms drawn ``weights`` times each group, and of resamples of them (the
        groups never drawn left out: a world's resample of the terms lacks a third of them)."""
        drawn = np.flatnonzero(weights)
        rho, weights = _Rho(groups[drawn]), weights[drawn]
        rng = np.random.default_rng(current_seed())
        draws = [
            rho(rng.multinomial(n, weights / n, size=min(BATCH, n_resamples - start)))
            for start in range(0, n_resamples, BATCH)
        ]
        return rho(weights[None, :])[0], np.vstack(draws)

    def remake(rows):
        return band(*made(np.bincount(inverse[rows], minlength=len(groups)), WORLD_RESAMPLES), labels, over)

    return band(*made(sizes, RESAMPLES), labels, over, remake=remake, n_units=n)


#: group weights a pass of :class:`_Rho` holds at once
_CHUNK = 1 << 17


class _Ranking:
    """One score's order over the groups, with its ties (groups of equal score share a rank)."""

    def __init__(self, scores):
        self.order = np.argsort(scores, kind="stable")
        ordered = scores[self.order]
        new = np.concatenate([[True], ordered[1:] != ordered[:-1]])
        block = np.cumsum(new) - 1  # each sorted group's block of equal scores
        starts = np.flatnonzero(new)
        ends = np.append(starts[1:], len(scores)) - 1
        sizes = ends - starts + 1
        # the few groups that tie with another: each takes its block's average rank
        self.tied = np.flatnonzero(sizes[block] > 1)
        self.tied_end, self.tied_start = ends[block[self.tied]], starts[block[self.tied]]

    def ranks(self, weights, mid):
        """The groups' weights (resamples x groups) in this score's order, each one's average rank
        in its resample less ``mid`` (the resamples' mean rank), and each resample's weighted sum
        of their squares."""
        held = weights[:, self.order]
        centred = np.cumsum(held, axis=1)  # the running count: the last rank of each group
        if len(self.tied):
            before = np.where(self.tied_start > 0, centred[:, self.tied_start - 1], 0.0)
            tied = before + (centred[:, self.tied_end] - before + 1) / 2 - mid
        centred -= held / 2
        centred += 0.5 - mid
        if len(self.tied):
            centred[:, self.tied] = tied
        return held, centred, np.einsum("ij,ij,ij->i", held, centred, centred)


class _Rho:
    """Spearman's rho of columns 1.. of ``groups`` with column 0 in resamples given as how often
    each group (row) is drawn: Pearson's r of the average ranks, each group weighted by its
    draws; 0 where a ranking does not vary in a resample (no monotone relation to measure)."""

    def __init__(self, groups):
        self.base = _Ranking(groups[:, 0])
        self.members = [_Ranking(column) for column in groups[:, 1:].T]

    def __call__(self, weights) -> np.ndarray:
        weights = np.asarray(weights, dtype=np.float64)
        # a few resamples at a time: temporaries that stay in cache, and out of fresh pages
        step = max(1, _CHUNK // weights.shape[1])
        return np.vstack([self._chunk(weights[s : s + step]) for s in range(0, weights.shape[0], step)])

    def _chunk(self, weights) -> np.ndarray:
        mid = (weights.sum(axis=1, keepdims=True) + 1) / 2
        held, centred, base_spread = self.base.ranks(weights, mid)
        base = np.empty_like(centred)  # each group's weight times its base rank, in group order
        base[:, self.base.order] = held * centred
        out = np.empty((weights.shape[0], len(self.members)))
        for j, member in enumerate(self.members):
            _, ranks, spread = member.ranks(weights, mid)
            scale = np.sqrt(spread * base_spread)
            together = np.einsum("ij,ij->i", ranks, base[:, member.order])
            out[:, j] = np.divide(together, scale, out=np.zeros_like(scale), where=scale > 0)
        return out
