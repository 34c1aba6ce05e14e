"""How a (classes x terms) score table becomes a ranking of terms: the top k of one score row,
the classes' scores combined, and Forman's round-robin over the classes (from the table, or row by
row without it).  Public as ``textsel.selection.*``."""

from __future__ import annotations

import numpy as np

from ._checks import plain
from ._ext import ranking
from ._parallel import effective_n_jobs, run_blocks, split_groups
from .termstats import TermStats


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` highest scores, best first, ties broken by lower index.

    Score rows are tie-heavy (BNS takes a few thousand distinct values over a hundred thousand
    terms), and numpy's partition and sorts slow down on ties.  So only the terms above a
    threshold guessed from a strided sample are sorted, by a radix sort that ties do not slow
    (:mod:`textsel._ext.ranking`); the terms equal to it follow in index order, which is already
    the tie order.
    """
    scores = np.asarray(scores)
    if k >= scores.shape[0]:
        return np.argsort(-scores, kind="stable")
    return _ranked_rows(scores[None, :], k, k, 1)


def _ranked_rows(table: np.ndarray, k: int, size: int, n_jobs: int) -> np.ndarray:
    """Round-robin over the rows' rankings (one row: its ranking), ``k`` terms; each row's head
    is guessed to hold about ``size`` terms."""
    table = np.ascontiguousarray(table, dtype=np.float64)
    guesses = _guesses(table, size)

    def heads(rows):  # each row's terms above its guess, in index order (the merge ranks them)
        return [np.flatnonzero(table[r] > guesses[r]) for r in rows]

    return ranking.round_robin(table, _per_row(heads, *table.shape, n_jobs), guesses, k)


def _per_row(work, n_rows: int, n_terms: int, n_jobs: int) -> list:
    """``work(rows)`` (one result per row of ``rows``) run over the rows split across
    ``n_jobs`` threads; the results in row order."""
    groups = split_groups(np.full(n_rows, n_terms), n_jobs)
    out = [None] * n_rows
    for rows, results in zip(groups, run_blocks(work, [(g,) for g in groups]), strict=True):
        for r, result in zip(rows, results, strict=True):
            out[r] = result
    return out


def _head_size(k: int, n_classes: int, n_terms: int) -> int:
    """Terms a class's head should hold for round-robin to take k: each class takes about
    k / n_classes, and its head holds about twice that."""
    return min(n_terms, k, 2 * -(-k // n_classes) + 16)


def _guesses(table: np.ndarray, size: int) -> np.ndarray:
    """Per row, a score about ``2 * size`` terms exceed (from a strided sample of the row)."""
    n_rows, n = table.shape
    step = max(1, n // _SAMPLE)
    if step == 1:
        return np.full(n_rows, -np.inf)  # a short row is sorted whole
    # sorted, not partitioned: a partition slows down on a tie-heavy row, a sort does not
    sample = np.sort(table[:, ::step], axis=1)
    share = min(1.0, 2.0 * size / n + 8.0 / sample.shape[1])
    position = max(0, int((1.0 - share) * sample.shape[1]) - 1)
    return np.ascontiguousarray(sample[:, position])


#: entries of a score row read to guess where its top k begin
_SAMPLE = 4096


def present_in_class(stats: TermStats) -> np.ndarray:
    """(classes x terms) Boolean: the term occurs in a larger share of the class's documents
    than of the other documents (tpr > fpr), so its presence indicates the class; compared in
    integers (tp * neg > fp * pos), without rounding."""
    if not isinstance(stats, TermStats):
        raise TypeError(f"stats must be a TermStats (from textsel.term_stats), got {type(stats).__name__}")
    return _present(stats.class_df, stats.df, stats.class_sizes, stats.n_docs)


def _present(class_df, df, class_sizes, n_docs) -> np.ndarray:
    pos = class_sizes[:, None]
    return class_df * (n_docs - pos) > (df[None, :] - class_df) * pos


def _positive_row(stats: TermStats) -> int | None:
    """Row of the positive class for a plain binary task, else None."""
    if not stats.multilabel and stats.n_classes == 2:
        return 1
    return None


def combine_scores(table: np.ndarray, stats: TermStats, how: str = "max") -> np.ndarray:
    """Collapse a (classes x terms) score table to one score per term.

    For a binary task (two classes, not multi-label) the row of the positive
    class (the second of ``stats.classes``, scikit-learn's convention) is
    returned as is.  Otherwise ``how`` is ``"max"`` over classes or
    ``"mean"``, the mean weighted by the class priors.
    """
    row = _positive_row(stats)
    if row is not None:
        return table[row].copy()
    if how == "max":
        return table.max(axis=0)
    if how == "mean":
        priors = stats.class_sizes / stats.class_sizes.sum()
        return priors @ table
    raise ValueError(f"how must be 'max' or 'mean', got {plain(how)!r}")


def rank_terms(table: np.ndarray, stats: TermStats, k: int, multiclass: str, n_jobs=None) -> np.ndarray:
    """Indices of the ``k`` selected terms in the order they were chosen.

    ``multiclass="round_robin"`` (Forman 2004) lets each class in turn take its
    best term not yet taken, so no class with many strong terms crowds out
    the others; ``"max"`` and ``"mean"`` rank the combined scores.  ``n_jobs`` finds the
    classes' best terms in parallel; the result does not depend on it.
    """
    if multiclass != "round_robin" or _positive_row(stats) is not None:
        how = "max" if multiclass == "round_robin" else multiclass
        return top_k(combine_scores(table, stats, how), k)
    return _ranked_rows(table, k, _head_size(k, *table.shape), effective_n_jobs(n_jobs))


def _round_robin_by_rows(fill, stats: TermStats, k: int, positive_only: bool, n_jobs) -> np.ndarray | None:
    """rank_terms' round-robin without the (classes x terms) table: each class's row is scored
    into a buffer that stays in cache (``fill``, :func:`textsel.metrics.row_scorer`), its head
    taken and the row dropped.  Returns None when the merge would need a class's whole row (its
    head used up), so that the caller ranks the table instead: the same terms either way."""
    n_classes, n_terms = stats.class_df.shape
    size = _head_size(k, n_classes, n_terms)

    def heads(rows):
        row, found = np.empty(n_terms), []
        for c in rows:
            fill(c, row)
            if positive_only:
                one = slice(c, c + 1)
                row[~_present(stats.class_df[one], stats.df, stats.class_sizes[one], stats.n_docs)[0]] = 0.0
            guess = _guesses(row[None, :], size)[0]
            head = np.flatnonzero(row > guess)
            found.append((guess, head, row[head]))
        return found

    found = _per_row(heads, n_classes, n_terms, effective_n_jobs(n_jobs))
    guesses = np.array([g for g, _, _ in found])
    return ranking.round_robin_heads([h for _, h, _ in found], [v for _, _, v in found], guesses, n_terms, k)
