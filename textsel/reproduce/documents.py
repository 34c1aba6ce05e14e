"""Micro- and macro-F1 from per-document counts, and their bootstrap over the test documents.

Each test document's true positives, false positives and false negatives per class
(:func:`textsel.study.experiments.document_counts`) sum to any resample's F1, so a bootstrap over
the documents needs no refitting, and every method resampled with the same documents is paired.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .intervals import BATCH, RESAMPLES, current_seed

__all__ = ["class_f1", "f1_draws", "f1_from_sums"]


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


def f1_draws(counts, split_index=0):
    """Micro- and macro-F1 of each count matrix (documents x 3 c) of one test set, on the whole set
    and on RESAMPLES bootstrap resamples of its documents (the same resamples for every matrix:
    paired).  Returns (estimate, draws), each {"micro": ..., "macro": ...} of shape (matrices,) and
    (RESAMPLES, matrices)."""
    stacked = sp.hstack(counts, format="csc")
    n, width = stacked.shape[0], counts[0].shape[1]
    rng = np.random.default_rng(current_seed() * 1_000_003 + split_index)  # apart for every split

    def scores(weights):  # weights: (resamples, documents) -> micro, macro: (resamples, matrices)
        sums = np.asarray((stacked.T @ weights.T).T).reshape(weights.shape[0], len(counts), width)
        return f1_from_sums(sums)

    estimate = scores(np.ones((1, n)))
    draws = []
    for start in range(0, RESAMPLES, BATCH):
        rows = rng.integers(0, n, size=(min(BATCH, RESAMPLES - start), n))
        draws.append(scores(np.stack([np.bincount(r, minlength=n) for r in rows]).astype(np.float64)))
    keys = ("micro", "macro")
    return (
        {key: estimate[i][0] for i, key in enumerate(keys)},
        {key: np.vstack([d[i] for d in draws]) for i, key in enumerate(keys)},
    )
