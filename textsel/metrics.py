"""Forman's (2003) twelve filter metrics, scored one-vs-rest for every class.

Notation per (class, term) cell, with Boolean presence counts: ``tp`` the
documents of the class containing the term, ``fp`` the other documents
containing it, ``pos``/``neg`` the class and rest sizes, ``tpr = tp/pos``,
``fpr = fp/neg``.

========  ==========================================================
name      score
========  ==========================================================
acc       tp - fp
acc2      abs(tpr - fpr)
bns       abs(F^-1(tpr) - F^-1(fpr)), rates clipped to [0.0005, 0.9995]
chi2      chi-squared statistic of the full 2x2 table (no continuity correction)
dfreq     tp + fp
f1        2 tp / (pos + tp + fp)
ig        e(pos, neg) - [P(word) e(tp, fp) + (1 - P(word)) e(fn, tn)]
oddn      tpr (1 - fpr)
odds      tpr (1 - fpr) / ((1 - tpr) fpr), zero counts in the denominator taken as 1
pow       (1 - fpr)^k - (1 - tpr)^k, k = ``pow_k`` (5)
pr        tpr / fpr, fpr = 0 replaced by 1e-8
rand      uniform random, seeded by ``random_state``
========  ==========================================================

Beside them, :func:`document_counts`: a classifier's hits and misses per test document and
class, the counts the study and the reproductions resample their F1 from.
"""

from __future__ import annotations

import threading

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from ._checks import check_real, plain
from ._ext import pool, scoring
from ._ext.ccore import STATUS, Interrupt, check_status
from ._labels import label_positions, label_repr
from ._parallel import effective_n_jobs, run_blocks, split_blocks, split_groups
from .names import METRICS
from .termstats import TermStats

__all__ = ["METRICS", "SYMMETRIC", "INVERTIBLE", "score"]


#: Metrics that score a negatively correlated term like its mirror image already.
SYMMETRIC = frozenset({"acc2", "bns", "chi2", "ig"})
#: Metrics that devalue negative features unless inverted first (Forman's Table 1 note).
INVERTIBLE = frozenset({"acc", "f1", "oddn", "odds", "pow", "pr"})

# Codes of the Cython kernel's enum (textsel/_ext/scoring.pyx).
_CODES = {
    "acc": 0, "acc2": 1, "bns": 2, "chi2": 3, "dfreq": 4, "f1": 5,
    "ig": 6, "oddn": 7, "odds": 8, "pow": 9, "pr": 10,
}  # fmt: skip

BNS_CLIP = 0.0005
PR_FLOOR = 1e-8


def score(
    stats: TermStats,
    metric: str = "bns",
    *,
    negative_features: bool = True,
    alpha: float = 0.5,
    pow_k: float = 5.0,
    random_state=None,
    n_jobs=None,
) -> np.ndarray:
    """Score every term for every class (one-vs-rest) with one of :data:`METRICS`.

    Parameters
    ----------
    stats : TermStats
        Output of :func:`textsel.term_stats`.
    metric : str
        One of :data:`METRICS`.
    negative_features : bool, default True
        Invert negatively correlated terms (tpr < fpr) before scoring with the
        asymmetric metrics (acc, f1, oddn, odds, pow, pr): ``tpr' = 1 - tpr``,
        ``fpr' = 1 - fpr`` without swapping the classes, as in Forman's study.
        Ignored by the symmetric metrics and by dfreq and rand.
    alpha : float in [0, 1], default 0.5
        BNS weight of positive (tpr > fpr) against negative features, as in
        Forman's lesion study.  Scores are multiplied by ``2 alpha`` and
        ``2 (1 - alpha)`` so that 0.5 gives plain BNS; the ranking is the
        paper's (alpha, 1 - alpha) weighting.
    pow_k : float, default 5
        Exponent of the pow metric.
    random_state : int, RandomState or None
        Seed of the rand metric.
    n_jobs : int, default=None
        The number of threads, over blocks of classes.  ``None`` or ``-1`` means every core this process
        may use, within the limits of threadpoolctl's ``threadpool_limits`` and ``OMP_NUM_THREADS`` (as
        for scikit-learn's OpenMP estimators, not joblib's ``None`` = 1; see "Threads: n_jobs" in the
        scaling page). The result does not depend on it.

    Returns
    -------
    ndarray of float64, shape (n_classes, n_terms)
        Higher is better.  A 2x2 table with a zero margin (term in every or in
        no document) scores 0 under chi2.

    Raises
    ------
    ValueError
        For an unknown metric, out-of-range parameters, or a class with no
        documents or with every document (one-vs-rest is then undefined).
    """
    alpha, pow_k = _checked(stats, metric, alpha, pow_k)
    n_jobs = effective_n_jobs(n_jobs)
    out = pool.empty((stats.n_classes, stats.n_terms), dtype=np.float64)
    if metric == "rand":
        out[...] = check_random_state(random_state).random_sample(out.shape)
        return out
    interrupt = Interrupt()  # Ctrl-C stops every thread's table within a few milliseconds
    if metric == "bns":

        def kernel(rows):
            # equal sizes next to each other: they share their inverse-normal grids
            order = rows[np.argsort(stats.class_sizes[rows], kind="stable")]
            return scoring.bns_table(
                stats.class_df, stats.df, stats.class_sizes, order, stats.n_docs,
                BNS_CLIP, 2.0 * alpha, 2.0 * (1.0 - alpha), *scoring.bns_scratch(stats.n_docs), out,
                interrupt,
            )  # fmt: skip

        # a class costs a sweep over its terms and an inverse normal per tp grid point
        blocks = [(g,) for g in split_groups(stats.n_terms + 20 * (stats.class_sizes + 1), n_jobs)]
    else:
        invert = bool(negative_features) and metric in INVERTIBLE

        def kernel(start, stop):
            return scoring.score_table(
                _CODES[metric], stats.class_df[start:stop], stats.df, stats.class_sizes[start:stop],
                stats.n_docs, invert, pow_k, PR_FLOOR, out[start:stop], interrupt,
            )  # fmt: skip

        blocks = split_blocks(np.full(stats.n_classes, stats.n_terms), n_jobs)

    for status in run_blocks(kernel, blocks, interrupt):
        _check(status, interrupt)
    return out


def row_scorer(stats: TermStats, metric: str = "bns", *, negative_features=True, alpha=0.5, pow_k=5.0):
    """A function ``fill(c, row)`` writing class ``c``'s row of :func:`score` (the same values,
    cell for cell) into the float64 array ``row``, for a caller that uses each row and drops it,
    so that the (classes x terms) table is never built.  The parameters are :func:`score`'s,
    checked here once; "rand" draws its table whole and has no row scorer."""
    alpha, pow_k = _checked(stats, metric, alpha, pow_k)
    if metric == "rand":
        raise ValueError("the rand metric draws its table whole; use score()")
    first = np.zeros(1, dtype=np.int64)
    invert = bool(negative_features) and metric in INVERTIBLE
    local = threading.local()  # BNS's scratch, one per thread, returned NaN-clean by each call

    def fill(c: int, row: np.ndarray) -> None:
        if metric == "bns":
            if not hasattr(local, "scratch"):
                local.scratch = scoring.bns_scratch(stats.n_docs)
            status = scoring.bns_table(
                stats.class_df[c : c + 1], stats.df, stats.class_sizes[c : c + 1], first, stats.n_docs,
                BNS_CLIP, 2.0 * alpha, 2.0 * (1.0 - alpha), *local.scratch, row[None, :],
            )  # fmt: skip
        else:
            status = scoring.score_table(
                _CODES[metric], stats.class_df[c : c + 1], stats.df, stats.class_sizes[c : c + 1],
                stats.n_docs, invert, pow_k, PR_FLOOR, row[None, :],
            )  # fmt: skip
        _check(status)

    return fill


def _check(status: int, interrupt=None) -> None:
    """Raise for a scoring kernel's status; its one fault of the data is an inconsistent count."""
    check_status(status, "score", interrupt, detail=_INCONSISTENT if status == STATUS["TS_ERR_ARG"] else None)


_INCONSISTENT = (
    "stats holds inconsistent counts (some class_df exceeds df or its class size, "
    "or df exceeds n_docs); build TermStats with textsel.term_stats"
)


def _checked(stats, metric, alpha, pow_k) -> tuple[float, float]:
    """Refuse what no metric can score; returns alpha and pow_k as floats."""
    if not isinstance(stats, TermStats):
        raise TypeError(f"stats must be a TermStats (from textsel.term_stats), got {type(stats)!r}")
    if not isinstance(metric, str) or metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {plain(metric)!r}")
    alpha = check_real(alpha, "alpha", 0.0, 1.0)
    pow_k = check_real(pow_k, "pow_k", 0.0, None)
    _check_class_sizes(stats)
    return alpha, pow_k


def _check_class_sizes(stats: TermStats) -> None:
    sizes = stats.class_sizes
    empty = np.flatnonzero(sizes == 0)
    if empty.size:
        raise ValueError(
            f"y has no documents of class {label_repr(stats.classes[empty[0]])}; "
            "one-vs-rest scores need every class to be non-empty"
        )
    full = np.flatnonzero(sizes == stats.n_docs)
    if full.size:
        raise ValueError(
            f"every document of y is in class {label_repr(stats.classes[full[0]])} (1 class present); "
            "one-vs-rest scores need documents outside each class"
        )


def document_counts(y_true, y_pred, classes):
    """Each document's true positives, false positives and false negatives per class, as a sparse
    (documents x 3 classes) matrix [tp | fp | fn]: summed over any set of documents, they give
    that set's micro- and macro-F1, so that a bootstrap over the documents needs no refitting.

    Labels are class labels (one per document, ``classes`` their order) or 0/1 indicator matrices.
    """

    def indicator(y, name):
        if sp.issparse(y) or np.ndim(y) == 2:
            matrix = sp.csr_matrix(y, dtype=np.float64)
            if not np.isin(matrix.data, (0.0, 1.0)).all():
                raise ValueError(f"{name} must be class labels or a 0/1 indicator matrix")
            return matrix
        if np.ndim(y) != 1:
            raise ValueError(
                f"{name} must be class labels or a 0/1 indicator matrix, got {np.ndim(y)} dimensions"
            )
        if classes is None:
            raise TypeError(f"classes must list the classes' order when {name} holds class labels")
        # a label outside the classes (a model's classes_) is refused, naming the argument: it
        # would count as a document of no class, its errors silently lost
        order = np.argsort(np.asarray(classes), kind="stable")
        if np.unique(np.asarray(classes)).size != order.size:
            raise ValueError("classes must not repeat a class")
        columns = order[label_positions(np.asarray(y), np.asarray(classes)[order], name)]
        ones = np.ones(columns.size)
        return sp.csr_matrix((ones, (np.arange(columns.size), columns)), shape=(columns.size, order.size))

    truth, guess = indicator(y_true, "y_true"), indicator(y_pred, "y_pred")
    if truth.shape != guess.shape:
        raise ValueError(f"y_true and y_pred must describe the same documents and classes, got shapes "
                         f"{truth.shape} and {guess.shape}")  # fmt: skip
    hit = truth.multiply(guess)
    return sp.hstack([hit, guess - hit, truth - hit], format="csr")
