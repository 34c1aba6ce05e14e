"""Forman's protocol by textsel.study.forman against the same protocol written the straightforward way.

The straightforward way: per task, trial and fold, the metric formulas evaluated with numpy on
X_bin' Y counts, top-k column slicing with scipy, and a scikit-learn LinearSVC (C = 1, squared
hinge, tol = 1e-4) per fit.  Both on Forman's ARFF sets from the data home, Boolean features,
the same folds; prints the seconds, the fits, the milliseconds per fit and the ratio.

    python benchmarks/bench_study.py [--data-home ../shared/data] [--trials 1] [--datasets tr11]
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from corpora import argument_parser
from scipy.special import ndtri
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import LinearSVC

import textsel
from textsel.datasets import load_arff

KS = (10, 20, 50, 100, 200, 500, 1000, 2000)


def straightforward(X, y, trials, folds, ks, random_state=0):
    """The protocol as one would first write it, for BNS (like-for-like with the run below)."""
    fits = 0
    for c, label in enumerate(np.unique(y)):
        target = (y == label).astype(int)
        if target.sum() < folds:
            continue
        seed = int(np.random.SeedSequence([random_state, 0, c]).generate_state(1)[0])
        for trial in range(trials):
            splitter = StratifiedKFold(folds, shuffle=True, random_state=(seed + trial) % 2**32)
            for train, test in splitter.split(np.zeros(len(target)), target):
                Xtr, Xte, ytr = X[train], X[test], target[train]
                tp = np.asarray(Xtr[ytr == 1].sum(axis=0)).ravel()
                fp = np.asarray(Xtr[ytr == 0].sum(axis=0)).ravel()
                pos, neg = (ytr == 1).sum(), (ytr == 0).sum()
                tpr = np.clip(tp / pos, 0.0005, 0.9995)
                fpr = np.clip(fp / neg, 0.0005, 0.9995)
                for scores in (np.abs(ndtri(tpr) - ndtri(fpr)),):
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
    parser.add_argument(
        "--datasets", default="tr11", help="comma-separated ARFF names (oh0, oh5, tr11, tr12, wap)"
    )
    args = parser.parse_args()
    for name in args.datasets.split(","):
        b = load_arff(Path(args.data_home) / "forman-arff" / f"{name}.wc.arff.gz")
        X = sp.csr_matrix((np.ones_like(b.X.data), b.X.indices, b.X.indptr), shape=b.X.shape)
        start = time.perf_counter()
        fits_ref = straightforward(X, b.y, args.trials, 4, KS)
        t_ref = time.perf_counter() - start
        for n_jobs in (1, 2):
            start = time.perf_counter()
            records = textsel.study.forman(
                {name: (b.X, b.y)}, metrics=("bns",), trials=args.trials, n_jobs=n_jobs
            )
            t_ours = time.perf_counter() - start
            fits = len(records) * args.trials * 4
            ref = f"straightforward {t_ref:.2f} s ({fits_ref} fits, {t_ref / fits_ref * 1e3:.2f} ms/fit)"
            ours = f"textsel n_jobs={n_jobs} {t_ours:.2f} s ({fits} fits, {t_ours / fits * 1e3:.2f} ms/fit)"
            head = f"{name}, BNS only, {args.trials} trial(s) x 4 folds"
            print(f"{head}: {ref}; {ours}; ratio {t_ref / t_ours:.1f}x")


if __name__ == "__main__":
    main()
