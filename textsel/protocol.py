"""Forman's (2003) feature-selection study as one function, for the user's own corpora.

For each dataset and each class (one-vs-rest), ``trials`` runs of stratified ``folds``-fold
cross-validation; in each fold the term statistics of the training part are counted once, every
metric is scored from them, and for every k the top-k terms train a classifier that is tested on
the held-out part.  The representation is Forman's: Boolean presence, no length normalisation
(his Sec. 3).  One record per (dataset, class, metric, k), averaged over trials and folds.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from ._checks import as_csr, check_positive_int, plain
from ._ext.ccore import nested_svm_csc
from ._parallel import check_n_jobs
from ._ranked import rank_columns, top_columns
from .metrics import METRICS, score
from .names import FORMAN_KS
from .progress import Progress
from .selection import top_k
from .svm import fit_binary
from .termstats import term_stats

__all__ = ["FORMAN_KS", "MEASURES", "forman"]

MEASURES = ("accuracy", "precision", "recall", "f1")


def forman(datasets, metrics=METRICS, ks=FORMAN_KS, trials=5, folds=4, estimator=None, n_jobs=None,
           random_state=0, boolean=True, progress=False, per_trial=False):  # fmt: skip
    """Run Forman's protocol and return one record per (dataset, class, metric, k).

    Parameters
    ----------
    datasets : mapping of str to (X, y)
        Document-term matrices (non-negative) and single-label class labels.
    metrics : sequence of str
        Names from :data:`textsel.METRICS`.
    ks : sequence of int, or "all"
        Numbers of terms to select; those above a dataset's vocabulary are skipped.  ``"all"``
        adds Forman's baseline: one record per task with ``metric`` and ``k`` both ``"all"``,
        the classifier trained on every term (the same for every metric, so fitted once a fold).
    trials, folds : int
        Repetitions of stratified ``folds``-fold cross-validation per task.
    estimator : scikit-learn classifier, optional
        Cloned and fitted per (fold, metric, k).  By default a linear SVM (squared hinge,
        C = 1, the bias regularized as liblinear does, tolerance 1e-4), every k of a fold and
        metric in one compiled call: Newton's method on the primal up to 63 terms, textsel's
        dual coordinate descent above, each fit warm-started from the previous k's and stopped
        as soon as its duality gap proves every held-out prediction is the exact optimum's.
    n_jobs : int, optional
        Tasks (dataset, class) run in parallel with joblib; the results do not depend on it.
        None is joblib's default (one process unless a ``joblib.parallel_config`` says otherwise),
        -1 every core; a count above the cores this process may use is capped at them, and 0 or
        another negative value is refused.
    random_state : int
        Seeds the fold splits (per task and trial) and the rand metric.
    boolean : bool, default True
        Forman's representation: a stored nonzero becomes 1.  False keeps the values.
    progress : bool or {"bar", "lines"}, default False
        Report on stderr how far the run is: True or "bar" a bar over the tasks (tqdm, from
        ``python -m pip install tqdm``; else a line at each tenth), "lines" a line when it
        starts and at each tenth of the tasks (for a log).  Ctrl-C stops the run, workers
        included.
    per_trial : bool, default False
        One record per trial (with its number, ``trial``, from 0), the measures averaged over
        that trial's folds only.  Forman's "average maximum" takes the best k within each trial
        before averaging the trials, so :func:`tolerance_curve` and :func:`best_pairs` need these;
        :func:`average_trials` turns them into the default records.

    Returns
    -------
    list of dict
        ``dataset``, ``class``, ``metric``, ``k``, ``positives`` (class size), ``skew``
        (negatives per positive), and the means over trials and folds of ``accuracy``,
        ``precision``, ``recall`` and ``f1`` (zero where no document is predicted positive).
    """
    bad = [m for m in metrics if m not in METRICS]
    if bad or not len(metrics):
        raise ValueError(f"metrics must be drawn from {METRICS}, got {[plain(m) for m in metrics]!r}")
    every_term = any(isinstance(k, str) and k == "all" for k in ks)
    ks = sorted({check_positive_int(k, "ks", 1) for k in ks if not (isinstance(k, str) and k == "all")})
    trials = check_positive_int(trials, "trials", 1)
    folds = check_positive_int(folds, "folds", 2)
    n_jobs = check_n_jobs(n_jobs)
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
        delayed(_run_task)(
            name, label, X, target, seed, metrics, ks, trials, folds, estimator, per_trial, every_term
        )
        for name, label, X, target, seed in jobs
    )
    report = Progress("textsel study", progress)
    n_sets = len(datasets)
    report.stage(f"Forman's protocol: {len(jobs)} tasks of {n_sets} dataset{'s' * (n_sets != 1)}, {trials} "
                 f"trial{'s' * (trials != 1)} of {folds}-fold cross-validation")  # fmt: skip
    return [record for task in report.over(results, len(jobs), "task") for record in task]


def _run_task(name, label, X, target, seed, metrics, ks, trials, folds, estimator, per_trial=False,
              every_term=False):  # fmt: skip
    n_terms = X.shape[1]
    usable = [k for k in ks if k <= n_terms]
    cells = [(m, k) for m in metrics for k in usable] + ([("all", "all")] if every_term else [])
    sums = {(t, *cell): np.zeros(4) for t in range(trials) for cell in cells}
    runs = 0
    for trial in range(trials):
        splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=(seed + trial) % 2**32)
        for train, test in splitter.split(np.zeros(len(target)), target):
            runs += 1
            X_train, X_test = X[train], X[test]
            y_train, y_test = target[train], target[test]
            stats = term_stats(X_train, y_train, classes=[0, 1])
            # ranked by every metric: converted once
            train_columns, test_columns = X_train.tocsc(), X_test.tocsc()
            signs = np.where(y_train == 1, 1.0, -1.0)
            test_signs = np.where(y_test == 1, 1.0, -1.0)
            if every_term:
                if estimator is None:
                    fit = fit_binary(X_train, signs, C_pos=1.0, C_neg=1.0, seed=seed)
                    predicted = (X_test @ fit.w + fit.b > 0).astype(np.int64)
                else:
                    model = clone(estimator).fit(X_train, y_train)
                    predicted = np.asarray(model.predict(X_test)).astype(np.int64)
                sums[(trial, "all", "all")] += _measures(y_test, predicted)
            for metric in metrics:
                scores = score(stats, metric, random_state=(seed + runs) % 2**32)[1]
                if not usable:
                    continue
                order = top_k(scores, usable[-1]).astype(np.int64)
                if estimator is None:
                    # every k in one compiled call, each fit warm-started from the previous k's
                    confusion, _, _, _ = nested_svm_csc(
                        train_columns.data, train_columns.indices, train_columns.indptr, signs,
                        test_columns.data, test_columns.indices, test_columns.indptr, test_signs,
                        order, np.asarray(usable, dtype=np.int64), "squared_hinge", 1.0, 1.0, 1e-4, 1000,
                        True, 1.0, seed)  # fmt: skip
                    for k, (tp, fp, fn) in zip(usable, confusion.tolist(), strict=True):
                        sums[(trial, metric, k)] += _counted_measures(tp, fp, fn, len(y_test))
                    continue
                train_ranked = rank_columns(train_columns, order)
                test_ranked = rank_columns(test_columns, order)
                for k in usable:
                    model = clone(estimator).fit(top_columns(train_ranked, k), y_train)
                    predicted = np.asarray(model.predict(top_columns(test_ranked, k))).astype(np.int64)
                    sums[(trial, metric, k)] += _measures(y_test, predicted)
    positives = int(target.sum())
    task = {"dataset": name, "class": plain(label)}
    skew = (len(target) - positives) / positives
    if per_trial:
        return [
            {**task, "trial": trial, "metric": metric, "k": k, "positives": positives, "skew": skew,
             **dict(zip(MEASURES, (sums[(trial, metric, k)] / folds).tolist(), strict=True))}
            for trial in range(trials) for metric, k in cells
        ]  # fmt: skip
    means = {cell: sum(sums[(t, *cell)] for t in range(trials)) / runs for cell in cells}
    return [
        {**task, "metric": metric, "k": k, "positives": positives, "skew": skew,
         **dict(zip(MEASURES, means[(metric, k)].tolist(), strict=True))}
        for metric, k in cells
    ]  # fmt: skip


def _measures(truth, predicted):
    tp = int(((truth == 1) & (predicted == 1)).sum())
    fp = int(((truth == 0) & (predicted == 1)).sum())
    fn = int(((truth == 1) & (predicted == 0)).sum())
    return _counted_measures(tp, fp, fn, len(truth))


def _counted_measures(tp, fp, fn, n):
    """Accuracy, precision, recall and F1 of ``n`` predictions from their confusion counts."""
    accuracy = (n - fp - fn) / n
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return np.array([accuracy, precision, recall, f1])
