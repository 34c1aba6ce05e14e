"""DualLinearSVC against scikit-learn's LinearSVC (liblinear, dual) on binary text tasks.

Each of Reuters-21578's ten largest categories, and each of 20 Newsgroups' groups, against the
rest, on the benchmark tf-idf matrices.  Both solvers: C = 1, squared hinge, tol = 1e-4,
max_iter = 1000, intercept as a constant feature (regularized); same run, best of --repeat.
Prints the total training time of each, the ratio, and the relative gap of the primal objectives.

Then model masking (Kolcz & Chowdhury 2007) on the same tasks: 20 subset sizes (fractions of the
features with nonzero weight, geometric from 0.5% to 100%), exact re-training against the mask
and SV-set curves: time of each, and the mean absolute test-AUC difference from exact re-training.

    python benchmarks/bench_svm.py [--data-home ../shared/data] [--repeat 3] [--plots docs/figures]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from corpora import argument_parser, benchmark_corpora, best_of
from sklearn.svm import LinearSVC

import textsel
from textsel.masking import evaluate_subsets


def primal(coef, intercept, X, signs, C=1.0):
    margins = np.maximum(0.0, 1 - signs * (X @ coef + intercept))
    return 0.5 * (coef @ coef + intercept**2) + C * (margins**2).sum()


def main():
    parser = argument_parser(__doc__.splitlines()[0], repeat=3)
    parser.add_argument("--plots", metavar="DIR", help="also draw the masking curves (needs matplotlib)")
    args = parser.parse_args()
    for corpus in benchmark_corpora(args.data_home):
        sizes = corpus.Y.sum(axis=0)
        n_tasks = 10 if corpus.name.startswith("Reuters") else len(sizes)
        tasks = np.argsort(-sizes, kind="stable")[:n_tasks]
        total = {"DualLinearSVC": 0.0, "LinearSVC": 0.0}
        gaps = []
        for k in tasks:
            y = corpus.Y[:, k].astype(int)
            signs = 2.0 * y - 1
            t_ours, ours = best_of(
                lambda y=y, X=corpus.X: textsel.DualLinearSVC(random_state=0, n_threads=1).fit(X, y),
                args.repeat,
            )
            t_ref, ref = best_of(
                lambda y=y, X=corpus.X: LinearSVC(dual=True, random_state=0).fit(X, y), args.repeat
            )
            total["DualLinearSVC"] += t_ours
            total["LinearSVC"] += t_ref
            p_ours = primal(ours.coef_[0], ours.intercept_[0], corpus.X, signs)
            p_ref = primal(ref.coef_[0], ref.intercept_[0], corpus.X, signs)
            gaps.append((p_ours - p_ref) / p_ref)
        print(f"{corpus.name}: {len(tasks)} binary tasks")
        print(f"  DualLinearSVC : {total['DualLinearSVC']:.3f} s   LinearSVC : {total['LinearSVC']:.3f} s   "
              f"ratio (ours / LinearSVC) : {total['DualLinearSVC'] / total['LinearSVC']:.2f}")  # fmt: skip
        print(f"  primal objective, (ours - LinearSVC) / LinearSVC: mean {np.mean(gaps):+.2e}, "
              f"max |gap| {np.max(np.abs(gaps)):.2e}")  # fmt: skip
        records = bench_masking(corpus, tasks)
        if args.plots:
            from textsel.plots import plot_masking_curves

            slug = corpus.name.replace("-21578", "").replace(" ", "").lower()
            plot_masking_curves(records, Path(args.plots) / f"masking_{slug}.png",
                                title=f"{corpus.name}: {len(tasks)} binary tasks")  # fmt: skip


def bench_masking(corpus, tasks):
    fractions = np.geomspace(0.005, 1.0, 20)
    seconds = {"exact": 0.0, "mask": 0.0, "svset": 0.0}
    auc_gap = {"mask": [], "svset": []}
    pooled = []
    for k in tasks:
        y = corpus.Y[:, k].astype(int)
        y_test = (corpus.y_test[:, k] if corpus.y_test.ndim == 2 else corpus.y_test == k).astype(int)
        model = textsel.DualLinearSVC(random_state=0, n_threads=1).fit(corpus.X, y)
        records = evaluate_subsets(model, corpus.X, y, corpus.X_test, y_test, fractions)
        pooled += records
        exact = {r["size"]: r["auc"] for r in records if r["method"] == "exact"}
        for r in records:
            seconds[r["method"]] += r["seconds"]
            if r["method"] != "exact":
                auc_gap[r["method"]].append(abs(r["auc"] - exact[r["size"]]))
    print(f"  masking, 20 sizes x {len(tasks)} tasks: exact {seconds['exact']:.2f} s, "
          f"mask {seconds['mask']:.3f} s ({seconds['exact'] / seconds['mask']:.0f}x faster), "
          f"svset {seconds['svset']:.3f} s ({seconds['exact'] / seconds['svset']:.0f}x faster)")  # fmt: skip
    gaps = ", ".join(f"{m} {np.mean(auc_gap[m]):.4f}" for m in ("mask", "svset"))
    print(f"  mean |AUC - exact AUC|: {gaps}")
    return pooled


if __name__ == "__main__":
    main()
