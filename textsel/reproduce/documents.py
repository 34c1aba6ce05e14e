"""Micro- and macro-F1 from per-document counts, and their bootstrap over the test documents.

Each test document's true positives, false positives and false negatives per class
(:func:`textsel.study.experiments.document_counts`) sum to any resample's F1, so a bootstrap over
the documents needs no refitting, and every method resampled with the same documents is paired.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .intervals import BATCH, RESAMPLES, WORLD_RESAMPLES, band, current_seed

__all__ = ["Counted", "class_f1", "f1_band", "f1_draws", "f1_from_sums"]


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


class Counted:
    """The count matrices (documents x 3 c) of one test set, held as a resample's F1 reads them:
    for macro-F1 each class's counts, side by side and sparse; for micro-F1 alone each matrix's
    true positives, false positives and false negatives summed over the classes (three numbers a
    document), whose sums for all resamples are one product of dense matrices.  Both in single
    precision where that is exact: counts and resample weights are whole numbers, and so is every
    sum, which single precision holds exactly below 2**24 (the same bits as in double precision);
    in double precision where a sum could reach beyond."""

    def __init__(self, counts, measures=("micro", "macro")):
        self.n, self.measures = counts[0].shape[0], tuple(measures)
        self.matrices, self.width = len(counts), counts[0].shape[1]
        if "macro" in self.measures:
            held = sp.hstack(counts, format="csr")
        else:
            c = self.width // 3
            parts = sp.csr_matrix(
                (np.ones(3 * c), (np.arange(3 * c), np.repeat(np.arange(3), c))), shape=(3 * c, 3)
            )
            held = np.column_stack([(sp.csr_matrix(m) @ parts).toarray() for m in counts])
        # a resample's weights add up to n, so no sum exceeds n times the largest entry: single
        # precision holds every such whole number exactly below 2**24, double precision beyond
        entries = held.data if sp.issparse(held) else held
        largest = float(np.abs(entries).max()) if entries.size else 0.0
        whole = bool(np.all(entries == np.round(entries)))
        self.dtype = np.float32 if whole and self.n * largest < 2**24 else np.float64
        self.held = held.astype(self.dtype)

    def take(self, rows, matrices=None) -> Counted:
        """The same matrices on the documents at ``rows`` (a resample of them); ``matrices``, where
        given, the matrices at those positions instead (a resample of a method's draws)."""
        held = self.held[rows]
        if matrices is not None:
            step = self.width if "macro" in self.measures else 3
            held = held[:, (np.asarray(matrices)[:, None] * step + np.arange(step)).ravel()]
        taken = object.__new__(Counted)
        count = self.matrices if matrices is None else len(matrices)
        taken.__dict__.update(self.__dict__, n=len(rows), held=held, matrices=count)
        return taken

    def scores(self, weights) -> dict:
        """{measure: (resamples, matrices)} of documents weighted ``weights`` (resamples x documents)."""
        n_weights = weights.shape[0]
        if "macro" in self.measures:
            weights = weights.astype(self.dtype)
            sums = np.asarray((self.held.T @ weights.T).T, dtype=np.float64)
            sums = sums.reshape(n_weights, self.matrices, self.width)
            micro, macro = f1_from_sums(sums)
            return {key: f1 for key, f1 in (("micro", micro), ("macro", macro)) if key in self.measures}
        sums = (weights.astype(self.dtype) @ self.held).astype(np.float64).reshape(n_weights, -1, 3)
        tp, fp, fn = sums[..., 0], sums[..., 1], sums[..., 2]
        return {"micro": 2 * tp / np.maximum(2 * tp + fp + fn, 1e-300)}

    def draws(self, split_index=0, n_resamples=RESAMPLES):
        """:func:`f1_draws` of these matrices."""
        rng = np.random.default_rng(current_seed() * 1_000_003 + split_index)  # apart for every split
        estimate, draws = self.scores(np.ones((1, self.n))), []
        for start in range(0, n_resamples, BATCH):
            size = min(BATCH, n_resamples - start)
            rows = rng.integers(0, self.n, size=(size, self.n)) + self.n * np.arange(size)[:, None]
            draws.append(
                self.scores(np.bincount(rows.ravel(), minlength=size * self.n).reshape(size, self.n))
            )
        resampled = {key: np.vstack([d[key] for d in draws]) for key in estimate}
        return {key: value[0] for key, value in estimate.items()}, resampled


def f1_draws(counts, split_index=0, n_resamples=RESAMPLES, measures=("micro", "macro")):
    """Micro- and macro-F1 of each count matrix (documents x 3 c) of one test set, on the whole set
    and on ``n_resamples`` bootstrap resamples of its documents (the same resamples for every
    matrix: paired).  Returns (estimate, draws), each {measure: ...} of shape (matrices,) and
    (n_resamples, matrices), for the ``measures`` asked (micro-F1 alone is much quicker:
    :class:`Counted`)."""
    return Counted(counts, measures).draws(split_index, n_resamples)


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
