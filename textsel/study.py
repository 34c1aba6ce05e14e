"""Forman's (2003) feature-selection study as one function, for the user's own corpora.

For each dataset and each class (one-vs-rest), ``trials`` runs of stratified ``folds``-fold
cross-validation; in each fold the term statistics of the training part are counted once, every
metric is scored from them, and for every k the top-k terms train a classifier that is tested on
the held-out part.  The representation is Forman's: Boolean presence, no length normalisation
(NOTES.md section 1).  One record per (dataset, class, metric, k), averaged over trials and folds.
"""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from ._ranked import distinct_rows, rank_columns, top_columns
from ._validation import as_csr, check_positive_int
from .metrics import METRICS, score
from .selection import top_k
from .svm import fit_binary
from .termstats import term_stats

__all__ = [
    "FORMAN_KS",
    "best_pairs",
    "forman",
    "macro_average",
    "masking_curves",
    "proximal_by_skew",
    "sampling_curves",
    "selection_curves",
    "skew_split",
    "to_dataframe",
    "tolerance_curve",
    "write_csv",
    "write_json",
]

FORMAN_KS = (10, 20, 50, 100, 200, 500, 1000, 2000)
MEASURES = ("accuracy", "precision", "recall", "f1")


def forman(datasets, metrics=METRICS, ks=FORMAN_KS, trials=5, folds=4, estimator=None, n_jobs=None,
           random_state=0, boolean=True, progress=False):  # fmt: skip
    """Run Forman's protocol and return one record per (dataset, class, metric, k).

    Parameters
    ----------
    datasets : mapping of str to (X, y)
        Document-term matrices (non-negative) and single-label class labels.
    metrics : sequence of str
        Names from :data:`textsel.METRICS`.
    ks : sequence of int
        Numbers of terms to select; those above a dataset's vocabulary are skipped.
    trials, folds : int
        Repetitions of stratified ``folds``-fold cross-validation per task.
    estimator : scikit-learn classifier, optional
        Cloned and fitted per (fold, metric, k).  By default a linear SVM (squared hinge,
        C = 1) by textsel's dual coordinate descent, warm-started across k from the previous
        k's multipliers.
    n_jobs : int, optional
        Tasks (dataset, class) run in parallel with joblib; the results do not depend on it.
    random_state : int
        Seeds the fold splits (per task and trial) and the rand metric.
    boolean : bool, default True
        Forman's representation: a stored nonzero becomes 1.  False keeps the values.
    progress : bool, default False
        Show a progress bar over the tasks (tqdm, from ``pip install "textsel[progress]"``; else a
        line per task on stderr).  Ctrl-C stops the run, workers included.

    Returns
    -------
    list of dict
        ``dataset``, ``class``, ``metric``, ``k``, ``positives`` (class size), ``skew``
        (negatives per positive), and the means over trials and folds of ``accuracy``,
        ``precision``, ``recall`` and ``f1`` (zero where no document is predicted positive).
    """
    bad = [m for m in metrics if m not in METRICS]
    if bad or not len(metrics):
        raise ValueError(f"metrics must be drawn from {METRICS}, got {list(metrics)!r}")
    ks = sorted({check_positive_int(k, "ks", 1) for k in ks})
    trials = check_positive_int(trials, "trials", 1)
    folds = check_positive_int(folds, "folds", 2)
    if not isinstance(random_state, (int, np.integer)):
        raise TypeError("random_state must be an integer (each task derives its own seeds from it)")
    jobs = []
    for d, (name, (X, y)) in enumerate(datasets.items()):
        X = as_csr(X, f"datasets[{name!r}] X")
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"datasets[{name!r}]: y must have one label per document")
        if boolean:
            if not X.has_canonical_format:
                # presence is a nonzero value: add up a column stored twice first (on a copy)
                X = X.copy()
                X.sum_duplicates()
            X = sp.csr_matrix(((X.data != 0).astype(np.float64), X.indices, X.indptr), shape=X.shape)
            X.eliminate_zeros()
        classes, counts = np.unique(y, return_counts=True)
        for c, (label, count) in enumerate(zip(classes, counts, strict=True)):
            if count < folds or X.shape[0] - count < folds:
                continue  # too few positives (or negatives) to stratify
            seed = np.random.SeedSequence([random_state, d, c]).generate_state(1)[0]
            jobs.append((name, label, X, (y == label).astype(np.int64), int(seed)))
    if not jobs:
        raise ValueError(
            f"datasets: no class has at least folds={folds} documents in it and {folds} outside it "
            "(one class only, or classes too small to stratify)"
        )
    results = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_run_task)(name, label, X, target, seed, metrics, ks, trials, folds, estimator)
        for name, label, X, target, seed in jobs
    )
    if progress:
        results = _with_progress(results, len(jobs))
    return [record for task in results for record in task]


def _with_progress(results, total):
    """Yield ``results`` while reporting how many of ``total`` tasks are done."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        for done, result in enumerate(results, 1):
            print(f"textsel.study: {done}/{total} tasks", file=sys.stderr, flush=True)
            yield result
        return
    yield from tqdm(results, total=total, desc="tasks", unit="task")


def _run_task(name, label, X, target, seed, metrics, ks, trials, folds, estimator):
    n_terms = X.shape[1]
    usable = [k for k in ks if k <= n_terms]
    sums = {(m, k): np.zeros(4) for m in metrics for k in usable}
    runs = 0
    for trial in range(trials):
        splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=(seed + trial) % 2**32)
        for train, test in splitter.split(np.zeros(len(target)), target):
            runs += 1
            X_train, X_test = X[train], X[test]
            y_train, y_test = target[train], target[test]
            stats = term_stats(X_train, y_train, classes=[0, 1])
            train_columns = X_train.tocsc()  # ranked by every metric: converted once
            signs = np.where(y_train == 1, 1.0, -1.0)
            for metric in metrics:
                scores = score(stats, metric, random_state=(seed + runs) % 2**32)[1]
                order = top_k(scores, usable[-1]) if usable else np.empty(0, dtype=np.intp)
                train_ranked = rank_columns(train_columns, order)
                test_ranked = rank_columns(X_test, order) if estimator is not None else None
                alpha = np.zeros(len(signs))  # per document, carried across k as a warm start
                dedup = True  # groups of identical documents only split as k grows
                for k in usable:
                    train_k = top_columns(train_ranked, k)
                    if estimator is None:
                        fit, dedup = _fit_distinct(train_k, signs, seed, alpha, dedup)
                        w = np.zeros(n_terms)  # scores the test fold without slicing it
                        w[order[:k]] = fit.w
                        predicted = (X_test @ w + fit.b > 0).astype(np.int64)
                    else:
                        model = clone(estimator).fit(train_k, y_train)
                        predicted = np.asarray(model.predict(top_columns(test_ranked, k))).astype(np.int64)
                    sums[(metric, k)] += _measures(y_test, predicted)
    positives = int(target.sum())
    return [
        {
            "dataset": name,
            "class": _plain(label),
            "metric": metric,
            "k": k,
            "positives": positives,
            "skew": (len(target) - positives) / positives,
            **dict(zip(MEASURES, (sums[(metric, k)] / runs).tolist(), strict=True)),
        }  # fmt: skip
        for metric in metrics
        for k in usable
    ]


def _fit_distinct(X, signs, seed, alpha, dedup, **fit_params):
    """The study's SVM (squared hinge, C = 1) on the distinct documents of ``X`` weighted by
    their copies: the same optimum (identical documents share their group's multiplier equally
    there), on a fraction of the rows at small k.  Warm-starts from, and updates, the
    per-document multipliers ``alpha``.  Returns the fit and whether grouping still paid."""
    groups = distinct_rows(X, signs > 0) if dedup else None
    if groups is None:
        fit = fit_binary(X, signs, C_pos=1.0, C_neg=1.0, seed=seed, alpha0=alpha, **fit_params)
        alpha[:] = fit.alpha
        return fit, False
    first, inverse, counts = groups
    start = np.bincount(inverse, alpha, minlength=first.size)
    fit = fit_binary(X[first], signs[first], C_pos=1.0, C_neg=1.0, seed=seed, alpha0=start,
                     sample_weight=counts, **fit_params)  # fmt: skip
    alpha[:] = (fit.alpha / counts)[inverse]
    return fit, True


def _measures(truth, predicted):
    tp = int(((truth == 1) & (predicted == 1)).sum())
    fp = int(((truth == 0) & (predicted == 1)).sum())
    fn = int(((truth == 1) & (predicted == 0)).sum())
    accuracy = (len(truth) - fp - fn) / len(truth)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return np.array([accuracy, precision, recall, f1])


def _plain(label):
    return label.item() if isinstance(label, np.generic) else label


def _order(value):
    """Sort key: numbers by value (k = 20 before 1000), everything else by its text after them."""
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, str(value))


def macro_average(records, by=("metric", "k")):
    """Average the measures over tasks (datasets and classes), one row per ``by`` group."""
    groups = {}
    for r in records:
        groups.setdefault(tuple(r[key] for key in by), []).append(r)
    rows = []
    for key, members in sorted(groups.items(), key=lambda item: tuple(map(_order, item[0]))):
        row = dict(zip(by, key, strict=True))
        row["tasks"] = len(members)
        for measure in MEASURES:
            row[measure] = float(np.mean([m[measure] for m in members]))
        rows.append(row)
    return rows


def _micro_f1(model, X, y, X_test, y_test):
    from sklearn.metrics import f1_score

    return float(f1_score(y_test, model.fit(X, y).predict(X_test), average="micro"))


SAMPLING_STRATEGIES = (("ss", 20), ("ws", None), ("us", None))
RIDGE_ALPHAS = (0.1, 0.3, 1.0, 3.0, 10.0)


def sampling_curves(X, y, X_test, y_test, budgets, strategies=SAMPLING_STRATEGIES, baselines=("dfreq", "ig"),
                    samples=5, alphas=RIDGE_ALPHAS, random_state=0):  # fmt: skip
    """Dasgupta et al.'s experiment: RLSC micro-F1 relative to all features as r grows.

    alpha (their lambda) is tuned on all features for the best micro-F1 on the test data, as in
    the paper.  Each sampling strategy (name, k) is averaged over ``samples`` draws; the
    ``baselines`` are deterministic top-r rankings by a Forman metric (max over classes).
    Returns records ``method``, ``budget``, ``kept`` (mean terms kept), ``relative_f1``.
    """
    from .proximal import RLSClassifier
    from .sampling import feature_probabilities, sample_features

    full = {a: _micro_f1(RLSClassifier(alpha=a), X, y, X_test, y_test) for a in alphas}
    alpha = max(full, key=full.get)
    base = full[alpha]
    rng = np.random.RandomState(random_state)
    records = []
    stats = term_stats(X, y)
    for strategy, k in strategies:
        p = feature_probabilities(X, strategy, k, random_state=rng)
        label = f"{strategy} k={k}" if k else strategy
        for r in budgets:
            rel, kept = [], []
            for _ in range(samples):
                cols, scales = sample_features(p, r, rng)
                scaled = sp.diags(scales)
                f1 = _micro_f1(
                    RLSClassifier(alpha=alpha), X[:, cols] @ scaled, y, X_test[:, cols] @ scaled, y_test
                )
                rel.append(f1 / base)
                kept.append(cols.size)
            records.append({"method": label, "budget": r, "kept": float(np.mean(kept)),
                            "relative_f1": float(np.mean(rel)), "alpha": alpha})  # fmt: skip
    for metric in baselines:
        order = np.argsort(-score(stats, metric).max(axis=0), kind="stable")
        for r in budgets:
            cols = order[:r]
            f1 = _micro_f1(RLSClassifier(alpha=alpha), X[:, cols], y, X_test[:, cols], y_test)
            records.append({"method": metric, "budget": r, "kept": float(len(cols)), "relative_f1": f1 / base,
                            "alpha": alpha})  # fmt: skip
    return records


def selection_curves(X, y, X_test, y_test, ks, estimator=None):
    """Li & Sun's comparison: micro-F1 of a classifier on the top-k terms of STS, chi2 and BNS
    (max over classes), with the average vector length of each selected set.

    Returns records ``method``, ``k``, ``micro_f1``, ``avl``, and ``lambda`` for STS.
    """
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    from .scalable import ScalableTermSelector
    from .selection import TermSelector

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

    from .proximal import ProximalSVC, WeightedProximalSVC

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
    from .masking import evaluate_subsets
    from .svm import DualLinearSVC

    Y, Y_test = np.asarray(Y), np.asarray(Y_test)
    estimator = DualLinearSVC(random_state=0) if estimator is None else estimator
    records = []
    for c in range(Y.shape[1]) if classes is None else classes:
        model = clone(estimator).fit(X, Y[:, c])
        for record in evaluate_subsets(model, X, Y[:, c], X_test, Y_test[:, c], sizes, norm=norm):
            records.append({"class": c, **record})
    return records


def _best_per_task(records, measure):
    """{task: {metric: best value over k}} with task = (dataset, class)."""
    best = {}
    for r in records:
        task = (r["dataset"], r["class"])
        slot = best.setdefault(task, {})
        slot[r["metric"]] = max(slot.get(r["metric"], -math.inf), r[measure])
    return best


def tolerance_curve(records, measure="f1", tolerances=(0.0, 0.01, 0.02, 0.05, 0.1, 0.2)):
    """Forman's "best within x% tolerance" analysis.

    For each task, each metric's best ``measure`` over k is compared with the best any metric
    reached; a metric succeeds on the task when it is within the tolerance (relative).  Returns
    one row per (metric, tolerance) with the share of tasks it succeeds on.
    """
    best = _best_per_task(records, measure)
    metrics = sorted({m for per_task in best.values() for m in per_task})
    rows = []
    for metric in metrics:
        for tol in tolerances:
            hits = [per_task.get(metric, -math.inf) >= (1 - tol) * max(per_task.values())
                    for per_task in best.values()]  # fmt: skip
            rows.append({"metric": metric, "tolerance": tol, "share": float(np.mean(hits))})
    return rows


def best_pairs(records, measure="f1", tolerance=0.05):
    """Forman's residual pair analysis: which two metrics together most often come within
    ``tolerance`` of the best, taking the better of the two per task.  Rows sorted best first."""
    best = _best_per_task(records, measure)
    metrics = sorted({m for per_task in best.values() for m in per_task})
    rows = []
    for i, a in enumerate(metrics):
        for b in metrics[i + 1 :]:
            hits = [
                max(per_task.get(a, -math.inf), per_task.get(b, -math.inf))
                >= (1 - tolerance) * max(per_task.values())
                for per_task in best.values()
            ]
            rows.append({"pair": (a, b), "share": float(np.mean(hits))})
    return sorted(rows, key=lambda r: (-r["share"], r["pair"]))


def skew_split(records, threshold=67.0, by=("metric", "k")):
    """Macro-averages for high-skew tasks (more than ``threshold`` negatives per positive; Forman's
    90th percentile was 1:67) and for the rest, one row per group and ``by`` value."""
    rows = []
    for group, members in (("high", [r for r in records if r["skew"] > threshold]),
                           ("low", [r for r in records if r["skew"] <= threshold])):  # fmt: skip
        for row in macro_average(members, by) if members else []:
            rows.append({"skew": group, **row})
    return rows


def write_csv(records, path):
    """Write records (dicts sharing keys) as CSV with a header row."""
    records = list(records)
    if not records:
        raise ValueError("no records to write")
    with Path(path).open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(records[0]))
        writer.writeheader()
        writer.writerows(records)


def write_json(records, path):
    """Write records as a JSON array (NaN as null)."""

    def clean(value):
        return None if isinstance(value, float) and math.isnan(value) else value

    with Path(path).open("w") as fh:
        json.dump([{k: clean(v) for k, v in r.items()} for r in records], fh, indent=1)


def to_dataframe(records):
    """The records as a pandas DataFrame (pandas is optional)."""
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("to_dataframe needs pandas: pip install pandas") from exc
    return pd.DataFrame.from_records(list(records))
