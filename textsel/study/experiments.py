"""The other papers' experiments on the user's own corpora, as records a study writes out.

Dasgupta et al.'s sampling curves (:func:`sampling_curves`), Li & Sun's selection curves
(:func:`selection_curves`), Zhuang et al.'s least-squares classifiers by class skew
(:func:`proximal_by_skew`) and Kolcz & Chowdhury's masking curves (:func:`masking_curves`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from ..metrics import document_counts, score
from ..termstats import term_stats

__all__ = ["document_counts", "masking_curves", "proximal_by_skew", "sampling_curves", "selection_curves"]


def _micro_f1(model, X, y, X_test, y_test):
    return _f1s(model, X, y, X_test, y_test)[0]


def _f1s(model, X, y, X_test, y_test, counts=False, at_zero=False):
    """Micro- and macro-averaged F1 of ``model`` trained on (X, y), on the test documents; with
    ``counts``, also each test document's :func:`document_counts`.  With ``at_zero`` (indicator
    ``y`` only), a class is predicted where its score is >= 0, and the micro-F1 of the model's own
    rule (> 0) follows the counts."""
    from sklearn.metrics import f1_score

    model.fit(X, y)
    predicted = model.predict(X_test)
    strict = float(f1_score(y_test, predicted, average="micro"))
    if at_zero:
        if np.ndim(y) != 2:
            raise ValueError("positive_at_zero needs y as a 0/1 indicator matrix (one column per class)")
        predicted = (np.asarray(model.decision_function(X_test)) >= 0).astype(np.int64)
    scores = (float(f1_score(y_test, predicted, average="micro")),
              float(f1_score(y_test, predicted, average="macro", zero_division=0)))  # fmt: skip
    out = (*scores, document_counts(y_test, predicted, model.classes_)) if counts else scores
    return (*out, strict) if at_zero else out


SAMPLING_STRATEGIES = (("ss", 20), ("ws", None), ("us", None))
RIDGE_ALPHAS = (0.1, 0.3, 1.0, 3.0, 10.0)


def sampling_curves(X, y, X_test, y_test, budgets, strategies=SAMPLING_STRATEGIES, baselines=("dfreq", "ig"),
                    samples=5, alphas=RIDGE_ALPHAS, random_state=0, matched=False, counts=False,
                    positive_at_zero=False):  # fmt: skip
    """Dasgupta et al.'s experiment: RLSC micro- and macro-F1 relative to all features as r grows.

    alpha (their lambda) is tuned on all features for the best micro-F1 on the test data, as in
    the paper.  Each sampling strategy (name, k) is averaged over ``samples`` draws; the
    ``baselines`` are deterministic top-r rankings by a Forman metric (max over classes).
    Returns records ``method``, ``budget``, ``kept`` (mean terms kept), ``relative_f1`` (micro)
    and ``relative_macro_f1``, each relative to all features at the same alpha, ``alpha`` and
    ``r`` (the sample size a sampling strategy drew with).

    A sampling strategy keeps fewer terms than its sample size r (a term of probability above 1/r
    is kept for sure and counts once).  With ``matched``, each budget is a number of terms: a
    sampling strategy draws with the r that keeps that many in expectation
    (:func:`textsel.sampling.rate_for`), so that every method is compared at equal numbers of
    terms, as the paper's figures plot them ("the expected number of features chosen").  For the
    paper's one-vs-all decisions (a class where its f >= 0) on a single-label corpus, pass ``y``
    and ``y_test`` as indicator matrices (``sklearn.preprocessing.label_binarize``).

    With ``counts``, each record also holds ``counts``, the test documents' :func:`document_counts`
    (the mean over the draws), ``draw_counts``, each draw's (a list), and a first record of method
    ``"all"`` holds the all-terms model's: a bootstrap over the test documents, and over the draws,
    then needs no refitting.

    With ``positive_at_zero`` (indicator ``y``), a document is positive for a class where its score
    f >= 0, the paper's rule ("If f >= 0, then q is labeled 'positive'", Sec. 2): a test document
    holding none of the kept terms scores exactly 0 (RLSC has no intercept) and is then positive
    for every class, where the classifier's own rule (f > 0) makes it negative.  The records then
    also hold ``relative_f1_strict``, the micro-F1 by the f > 0 rule, relative to all terms by it.
    """
    from ..linear_model import RLSClassifier
    from ..sampling import feature_probabilities, rate_for, sample_features

    full = {a: _f1s(RLSClassifier(alpha=a), X, y, X_test, y_test, counts, positive_at_zero) for a in alphas}
    alpha = max(full, key=lambda a: full[a][0])
    base = np.array(full[alpha][:2])
    base_strict = full[alpha][-1]
    rng = np.random.RandomState(random_state)
    records = []
    stats = term_stats(X, y)

    def record(method, budget, kept, f1s, r):
        relative = np.mean([f[:2] for f in f1s], axis=0) / base  # the draws' mean, relative to all features
        records.append({"method": method, "budget": budget, "kept": float(np.mean(kept)),
                        "relative_f1": float(relative[0]), "relative_macro_f1": float(relative[1]),
                        "alpha": alpha, "r": float(r)})  # fmt: skip
        if counts:
            records[-1]["counts"] = sum(f[2] for f in f1s) / len(f1s)
            records[-1]["draw_counts"] = [f[2] for f in f1s]
        if positive_at_zero:
            records[-1]["relative_f1_strict"] = float(np.mean([f[-1] for f in f1s]) / base_strict)

    if counts:
        record("all", X.shape[1], [X.shape[1]], [full[alpha]], X.shape[1])

    for strategy, k in strategies:
        p = feature_probabilities(X, strategy, k, random_state=rng)
        label = f"{strategy} k={k}" if k else strategy
        for budget in budgets:
            r = rate_for(p, min(budget, np.count_nonzero(p))) if matched else budget
            f1s, kept = [], []
            for _ in range(samples):
                cols, scales = sample_features(p, r, rng)
                scaled = sp.diags(scales)
                f1s.append(_f1s(RLSClassifier(alpha=alpha), X[:, cols] @ scaled, y, X_test[:, cols] @ scaled,
                                y_test, counts, positive_at_zero))  # fmt: skip
                kept.append(cols.size)
            record(label, budget, kept, f1s, r)
    for metric in baselines:
        order = np.argsort(-score(stats, metric).max(axis=0), kind="stable")
        for r in budgets:
            cols = order[:r]
            f1s = _f1s(
                RLSClassifier(alpha=alpha), X[:, cols], y, X_test[:, cols], y_test, counts, positive_at_zero
            )
            record(metric, r, [len(cols)], [f1s], r)
    return records


def selection_curves(X, y, X_test, y_test, ks, estimator=None):
    """Li & Sun's comparison: micro-F1 of a classifier on the top-k terms of STS, chi2 and BNS
    (max over classes), with the average vector length of each selected set.

    Returns records ``method``, ``k``, ``micro_f1``, ``avl``, and ``lambda`` for STS.
    """
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    from ..scalable import ScalableTermSelector
    from ..selection import TermSelector

    if estimator is None:
        estimator = OneVsRestClassifier(LinearSVC()) if np.ndim(y) == 2 else LinearSVC()
    stats = term_stats(X, y)
    records = []
    for k in ks:
        if k > X.shape[1]:
            continue
        selectors = {"sts": ScalableTermSelector(k=k), "chi2": TermSelector("chi2", k=k, multiclass="max"),
                     "bns": TermSelector("bns", k=k, multiclass="max")}  # fmt: skip
        for method, selector in selectors.items():
            cols = np.flatnonzero(selector.fit(X, y).get_support())
            record = {"method": method, "k": k,
                      "micro_f1": _micro_f1(clone(estimator), X[:, cols], y, X_test[:, cols], y_test),
                      "avl": float(stats.df[cols].sum() / stats.n_docs)}  # fmt: skip
            if method == "sts":
                record["lambda"] = selector.lambda_
            records.append(record)
    return records


def proximal_by_skew(X, Y, X_test, Y_test, models=None):
    """Zhuang et al.'s comparison per class: F1 of WPSVM, PSVM and a linear SVM against class skew.

    ``Y``/``Y_test`` are documents x classes indicator matrices (multi-label, one-vs-rest).
    Returns records ``class``, ``skew`` (training negatives per positive), ``model``, ``f1``.
    """
    from sklearn.metrics import f1_score
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    from ..linear_model import ProximalSVC, WeightedProximalSVC

    if models is None:
        models = {"WeightedProximalSVC": WeightedProximalSVC(), "ProximalSVC": ProximalSVC(),
                  "LinearSVC": OneVsRestClassifier(LinearSVC())}  # fmt: skip
    Y, Y_test = np.asarray(Y), np.asarray(Y_test)
    positives = Y.sum(axis=0)
    skew = (Y.shape[0] - positives) / np.maximum(positives, 1)
    records = []
    for name, model in models.items():
        predicted = np.asarray(clone(model).fit(X, Y).predict(X_test))
        for c in range(Y.shape[1]):
            f1 = f1_score(Y_test[:, c], predicted[:, c], zero_division=0)
            records.append({"class": c, "skew": float(skew[c]), "model": name, "f1": float(f1)})
    return records


def masking_curves(X, Y, X_test, Y_test, sizes, classes=None, estimator=None, norm="l2"):
    """Kolcz & Chowdhury's experiment on several binary tasks: exact re-training, masking and the
    SV set over feature-subset sizes (:func:`textsel.masking.evaluate_subsets` per task).

    ``Y``/``Y_test`` are documents x classes indicator matrices; ``classes`` picks the columns
    (default all).  Returns the records of every task, with its ``class`` added.
    """
    from ..masking import evaluate_subsets
    from ..svm import DualLinearSVC

    Y, Y_test = np.asarray(Y), np.asarray(Y_test)
    estimator = DualLinearSVC(random_state=0) if estimator is None else estimator
    records = []
    for c in range(Y.shape[1]) if classes is None else classes:
        model = clone(estimator).fit(X, Y[:, c])
        for record in evaluate_subsets(model, X, Y[:, c], X_test, Y_test[:, c], sizes, norm=norm):
            records.append({"class": c, **record})
    return records
