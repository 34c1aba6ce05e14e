"""One plain score function per metric, for ``sklearn.feature_selection.SelectKBest``.

``SelectKBest(textsel.bns, k=500)`` ranks terms by BNS; for more than two
classes the one-vs-rest scores are combined by their maximum (or, with
``functools.partial(textsel.bns, multiclass="mean")``, the prior-weighted mean).
"""

from __future__ import annotations

from .metrics import METRICS, score
from .selection import combine_scores
from .termstats import term_stats

__all__ = list(METRICS)


def _make(metric: str):
    def score_func(X, y, *, multiclass="max", **params):
        stats = term_stats(X, y)
        return combine_scores(score(stats, metric, **params), stats, multiclass)

    score_func.__name__ = score_func.__qualname__ = metric
    score_func.__doc__ = f"""Score every term of ``X`` by {metric!r} against ``y``.

    Parameters
    ----------
    X : {{sparse matrix, array-like}} of shape (n_docs, n_terms)
        Non-negative document-term matrix (presence is what counts).
    y : array-like of shape (n_docs,) or (n_docs, n_classes)
        Labels, or a multi-label indicator matrix.
    multiclass : {{"max", "mean"}}, default "max"
        How the one-vs-rest scores of more than two classes are combined.
    **params
        Metric parameters of :func:`textsel.score`.

    Returns
    -------
    ndarray of float64, shape (n_terms,)
        Higher is better; for a binary task, the positive class's scores.
    """
    return score_func


for _metric in METRICS:
    globals()[_metric] = _make(_metric)
del _metric
