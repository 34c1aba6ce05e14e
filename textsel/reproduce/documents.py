"""Micro- and macro-F1 from per-document counts, and their bootstrap over the test documents.

Each test document's true positives, false positives and false negatives per class
(:func:`textsel.study.experiments.document_counts`) sum to any resample's F1, so a bootstrap over
the documents needs no refitting, and every method resampled with the same documents is paired.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .intervals import BATCH, RESAMPLES, WORLD_RESAMPLES, band, current_seed

__all__ = ["class_f1", "f1_band", "f1_draws", "f1_from_sums"]


def class_f1(tp, fp, fn):
    """Each class's F1 from its counts (arrays of one shape); 0 where it has no document and no
    prediction, as scikit-learn's ``zero_division=0``."""
    tp, fp, fn = (np.asarray(c, dtype=np.float64) for c in (tp, fp, fn))
    denominator = 2 * tp + fp + fn
    return np.divide(2 * tp, denominator, out=np.zeros_like(tp), where=denominator > 0)


def f1_from_sums(sums):
    """Micro- and macro-F1 from summed [tp | fp | fn] counts: (..., 3 c) -> two arrays (...)."""
    tp, fp, fn = np.split(sums, 3, axis=-1)
    micro = 2 * tp.sum(axis=-1) / np.maximum((2 * tp + fp + fn).sum(axis=-1), 1e-300)
    return micro, class_f1(tp, fp, fn).mean(axis=-1)


def f1_draws(counts, split_index=0, n_resamples=RESAMPLES):
    """Micro- and macro-F1 of each count matrix (documents x 3 c) of one test set, on the whole set
    and on ``n_resamples`` bootstrap resamples of its documents (the same resamples for every
    matrix: paired).  Returns (estimate, draws), each {"micro": ..., "macro": ...} of shape
    (matrices,) and (n_resamples, matrices)."""
    stacked = sp.hstack(counts, format="csc")
    n, width = stacked.shape[0], counts[0].shape[1]
    rng = np.random.default_rng(current_seed() * 1_000_003 + split_index)  # apart for every split

    def scores(weights):  # weights: (resamples, documents) -> micro, macro: (resamples, matrices)
        sums = np.asarray((stacked.T @ weights.T).T).reshape(weights.shape[0], len(counts), width)
        return f1_from_sums(sums)

    estimate = scores(np.ones((1, n)))
    draws = []
    for start in range(0, n_resamples, BATCH):
        rows = rng.integers(0, n, size=(min(BATCH, n_resamples - start), n))
        draws.append(scores(np.stack([np.bincount(r, minlength=n) for r in rows]).astype(np.float64)))
    keys = ("micro", "macro")
    return (
        {key: estimate[i][0] for i, key in enumerate(keys)},
        {key: np.vstack([d[i] for d in draws]) for i, key in enumerate(keys)},
    )


def f1_band(counts, statistics, labels, drawn=None):
    """The :func:`~textsel.reproduce.intervals.band` of ``statistics`` of the count matrices' F1
    over their test documents, kept with the way to make it again from a resample of them (for
    :mod:`textsel.reproduce.worlds`): ``statistics`` maps {"micro": ..., "macro": ...} of shape
    (..., matrices) to (..., members); ``drawn``, :func:`f1_draws` of ``counts`` where the caller
    has it already."""
    n = counts[0].shape[0]
    over = f"{n:,} test documents"

    def made(estimate, draws):
        return statistics({key: value[None, :] for key, value in estimate.items()})[0], statistics(draws)

    def remake(rows):
        return band(*made(*f1_draws([c[rows] for c in counts], n_resamples=WORLD_RESAMPLES)), labels, over)

    return band(*made(*(drawn or f1_draws(counts))), labels, over, remake=remake, n_units=n)
