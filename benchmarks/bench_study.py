"""Forman's protocol by textsel.study.forman against the same protocol written the straightforward way.

Each setting runs in a fresh process: one thread (``n_jobs=1``, ``OMP_NUM_THREADS=1``) and two
(``n_jobs=2``, two threads allowed); the straightforward version is timed in the same process,
on the same data, before textsel.

The straightforward way: per task, trial and fold, the class's document frequencies counted
with scipy, each metric's formula evaluated with numpy (tests/reference.py, the formulas the
metric tests check against), top-k column slicing with scipy, and a scikit-learn LinearSVC
(C = 1, squared hinge, tol = 1e-4) per fit.  Both on Forman's ARFF sets from the data home,
Boolean features, the same folds; prints the seconds, the fits, the milliseconds per fit and the
ratio, per dataset and over all of them.

    python benchmarks/bench_study.py [--data-home ../shared/data] [--trials 1]
        [--datasets oh0,oh5,tr11,tr12,wap] [--metrics all|bns,ig,...] [--n-jobs 1,2]
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from corpora import argument_parser
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import LinearSVC

import textsel
from textsel.datasets import load_arff

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import reference  # noqa: E402  (the numpy formulas of Forman's metrics)

KS = (10, 20, 50, 100, 200, 500, 1000, 2000)


def straightforward(X, y, metrics, trials, folds, ks, random_state=0):
    """The protocol as one would first write it: one process, scipy slicing, LinearSVC per fit."""
    fits = 0
    for c, label in enumerate(np.unique(y)):
        target = (y == label).astype(int)
        if target.sum() < folds or len(target) - target.sum() < folds:
            continue
        seed = int(np.random.SeedSequence([random_state, 0, c]).generate_state(1)[0])
        rng = np.random.default_rng(seed)
        for trial in range(trials):
            splitter = StratifiedKFold(folds, shuffle=True, random_state=(seed + trial) % 2**32)
            for train, test in splitter.split(np.zeros(len(target)), target):
                Xtr, Xte, ytr = X[train], X[test], target[train]
                tp = np.asarray(Xtr[ytr == 1].sum(axis=0)).ravel()
                fp = np.asarray(Xtr[ytr == 0].sum(axis=0)).ravel()
                pos, neg = (ytr == 1).sum(), (ytr == 0).sum()
                for metric in metrics:
                    if metric == "rand":
                        scores = rng.random(X.shape[1])
                    else:
                        scores = reference.metric(metric, tp, fp, pos, neg)
                    order = np.argsort(-scores, kind="stable")
                    for k in ks:
                        if k > X.shape[1]:
                            continue
                        cols = order[:k]
                        LinearSVC(dual=True).fit(Xtr[:, cols], ytr).predict(Xte[:, cols])
                        fits += 1
    return fits


def main():
    parser = argument_parser(__doc__.splitlines()[0], repeat=1)
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--datasets", default="oh0,oh5,tr11,tr12,wap", help="comma-separated ARFF names")
    parser.add_argument("--metrics", default="all", help="'all' or comma-separated metric names")
    parser.add_argument("--n-jobs", default="1,2", help="comma-separated worker counts, one process each")
    parser.add_argument("--child", action="store_true", help="(internal) time in this process")
    args = parser.parse_args()
    if not args.child:
        for n_jobs in args.n_jobs.split(","):
            env = {**os.environ, "OMP_NUM_THREADS": n_jobs, "TEXTSEL_NUM_THREADS": n_jobs,
                   "OPENBLAS_NUM_THREADS": n_jobs}  # fmt: skip
            print(f"fresh process, {n_jobs} worker(s), {n_jobs} thread(s):", flush=True)
            subprocess.run([sys.executable, *sys.argv, "--child", "--n-jobs", n_jobs], env=env, check=True)
        return
    # liblinear stops at max_iter = 1000 on some Boolean fits, as DualLinearSVC does: same budget
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    metrics = textsel.METRICS if args.metrics == "all" else tuple(args.metrics.split(","))
    jobs = [int(j) for j in args.n_jobs.split(",")]
    data = {}
    for name in args.datasets.split(","):
        b = load_arff(Path(args.data_home) / "forman-arff" / f"{name}.wc.arff.gz")
        data[name] = b.data, b.target
    label = f"{len(metrics)} metric(s), {len(KS)} k, {args.trials} trial(s) x 4 folds"
    totals = {"ref": [0.0, 0]} | {j: [0.0, 0] for j in jobs}
    for name, (X, y) in data.items():
        Xb = sp.csr_matrix((np.ones_like(X.data), X.indices, X.indptr), shape=X.shape)
        start = time.perf_counter()
        fits_ref = straightforward(Xb, y, metrics, args.trials, 4, KS)
        t_ref = time.perf_counter() - start
        totals["ref"][0] += t_ref
        totals["ref"][1] += fits_ref
        for n_jobs in jobs:
            start = time.perf_counter()
            records = textsel.study.forman({name: (X, y)}, metrics=metrics, trials=args.trials, n_jobs=n_jobs)
            t_ours = time.perf_counter() - start
            fits = len(records) * args.trials * 4
            totals[n_jobs][0] += t_ours
            totals[n_jobs][1] += fits
            print(f"{name}, {label}: {_compare(t_ref, fits_ref, t_ours, fits, n_jobs)}", flush=True)
    if len(data) > 1:
        t_ref, fits_ref = totals["ref"]
        for n_jobs in jobs:
            t_ours, fits = totals[n_jobs]
            print(f"all {len(data)} datasets, {label}: {_compare(t_ref, fits_ref, t_ours, fits, n_jobs)}")


def _compare(t_ref, fits_ref, t_ours, fits, n_jobs):
    def timing(who, seconds, n):
        return f"{who} {seconds:.2f} s ({n} fits, {seconds / n * 1e3:.2f} ms/fit)"

    ours = timing(f"textsel n_jobs={n_jobs}", t_ours, fits)
    return f"{timing('straightforward', t_ref, fits_ref)}; {ours}; ratio {t_ref / t_ours:.1f}x"


if __name__ == "__main__":
    main()
