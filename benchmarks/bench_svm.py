"""DualLinearSVC against scikit-learn's LinearSVC (liblinear, dual) on binary text tasks.

Each of Reuters-21578's ten largest categories, and each of 20 Newsgroups' groups, against the
rest, on the benchmark tf-idf matrices.  Both solvers: C = 1, squared hinge, tol = 1e-4,
max_iter = 1000, intercept as a constant feature (regularized); same run, best of --repeat.
Prints the total training time of each, the ratio, and the relative gap of the primal objectives.

Then model masking (Kolcz & Chowdhury 2007) on the same tasks, with Boolean unit-length rows as in
the paper and C = 1: 20 subset sizes (fractions of the features with nonzero weight, geometric
from 0.5% to 100%).  Timed as a user times it, wall clock around whole ``evaluate_subsets``
calls from the same fitted model: exact re-training alone against mask and svset together.
Also the paper's own fidelity measure (its Table 1): per task the best AUC and the best F1 over
the sizes, averaged over tasks, exact against mask and against SV-set with one-sided paired
t-tests; and the mean absolute AUC difference from exact over all sizes.

    python benchmarks/bench_svm.py [--data-home ../shared/data] [--repeat 3] [--plots docs/figures]
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from corpora import argument_parser, benchmark_corpora, best_of
from scipy.stats import ttest_rel
from sklearn.svm import LinearSVC

import textsel
from textsel.masking import evaluate_subsets


def primal(coef, intercept, X, signs, C=1.0):
    margins = np.maximum(0.0, 1 - signs * (X @ coef + intercept))
    return 0.5 * (coef @ coef + intercept**2) + C * (margins**2).sum()


def main():
    parser = argument_parser(__doc__.splitlines()[0], repeat=3)
    parser.add_argument("--plots", metavar="DIR", help="also draw the masking curves (needs matplotlib)")
    parser.add_argument("--masking-only", action="store_true", help="skip the LinearSVC comparison")
    args = parser.parse_args()
    boolean = {c.name: c for c in benchmark_corpora(args.data_home, boolean=True)}
    for corpus in benchmark_corpora(args.data_home):
        sizes = corpus.Y.sum(axis=0)
        n_tasks = 10 if corpus.name.startswith("Reuters") else len(sizes)
        tasks = np.argsort(-sizes, kind="stable")[:n_tasks]
        print(f"{corpus.name}: {len(tasks)} binary tasks")
        if not args.masking_only:
            compare_svms(corpus, tasks, args.repeat)
        records = bench_masking(boolean[corpus.name], tasks)
        if args.plots:
            from textsel.plots import plot_masking_curves

            slug = corpus.name.replace("-21578", "").replace(" ", "").lower()
            plot_masking_curves(records, Path(args.plots) / f"masking_{slug}.png",
                                title=f"{corpus.name}: {len(tasks)} binary tasks")  # fmt: skip


def compare_svms(corpus, tasks, repeat):
    """DualLinearSVC against LinearSVC on each task: total training time and primal gaps."""
    total = {"DualLinearSVC": 0.0, "LinearSVC": 0.0}
    gaps = []
    for k in tasks:
        y = corpus.Y[:, k].astype(int)
        signs = 2.0 * y - 1
        t_ours, ours = best_of(
            lambda y=y, X=corpus.X: textsel.DualLinearSVC(random_state=0, n_jobs=1).fit(X, y),
            repeat,
        )
        t_ref, ref = best_of(lambda y=y, X=corpus.X: LinearSVC(dual=True, random_state=0).fit(X, y), repeat)
        total["DualLinearSVC"] += t_ours
        total["LinearSVC"] += t_ref
        p_ours = primal(ours.coef_[0], ours.intercept_[0], corpus.X, signs)
        p_ref = primal(ref.coef_[0], ref.intercept_[0], corpus.X, signs)
        gaps.append((p_ours - p_ref) / p_ref)
    print(f"  DualLinearSVC : {total['DualLinearSVC']:.3f} s   LinearSVC : {total['LinearSVC']:.3f} s   "
          f"ratio (ours / LinearSVC) : {total['DualLinearSVC'] / total['LinearSVC']:.2f}")  # fmt: skip
    print(f"  primal objective, (ours - LinearSVC) / LinearSVC: mean {np.mean(gaps):+.2e}, "
          f"max |gap| {np.max(np.abs(gaps)):.2e}")  # fmt: skip


def bench_masking(corpus, tasks):
    fractions = np.geomspace(0.005, 1.0, 20)
    wall = {"exact": 0.0, "mask+svset": 0.0}
    shares = {"exact": 0.0, "mask": 0.0, "svset": 0.0}
    best = {"exact": [], "mask": [], "svset": []}
    auc_gap = {"mask": [], "svset": []}
    pooled = []
    for k in tasks:
        y = corpus.Y[:, k].astype(int)
        y_test = (corpus.y_test[:, k] if corpus.y_test.ndim == 2 else corpus.y_test == k).astype(int)
        model = textsel.DualLinearSVC(random_state=0, n_jobs=1).fit(corpus.X, y)
        records = []
        for key, methods in (("exact", ("exact",)), ("mask+svset", ("mask", "svset"))):
            start = time.perf_counter()
            records += evaluate_subsets(model, corpus.X, y, corpus.X_test, y_test, fractions, methods=methods)
            wall[key] += time.perf_counter() - start
        pooled += records
        exact = {r["size"]: r["auc"] for r in records if r["method"] == "exact"}
        for method in best:
            mine = [r for r in records if r["method"] == method]
            best[method].append((max(r["auc"] for r in mine), max(r["best_f1"] for r in mine)))
        for r in records:
            shares[r["method"]] += r["seconds"]
            if r["method"] != "exact":
                auc_gap[r["method"]].append(abs(r["auc"] - exact[r["size"]]))
    print(f"  masking, Boolean unit-length rows, 20 sizes x {len(tasks)} tasks, whole calls: "
          f"exact {wall['exact']:.2f} s, mask+svset {wall['mask+svset']:.3f} s: "
          f"{wall['exact'] / wall['mask+svset']:.1f}x faster")  # fmt: skip
    print(f"    records' seconds (shares of those calls): exact {shares['exact']:.2f} s, "
          f"mask {shares['mask']:.3f} s, svset {shares['svset']:.3f} s")  # fmt: skip
    exact_best = np.array(best["exact"])
    for i, measure in enumerate(("best AUC", "best F1")):
        row = f"    {measure} over sizes, mean of tasks: exact {exact_best[:, i].mean():.4f}"
        for method in ("mask", "svset"):
            mine = np.array(best[method])[:, i]
            p = ttest_rel(exact_best[:, i], mine, alternative="greater").pvalue
            row += f", {method} {mine.mean():.4f} (p = {p:.3g})"
        print(row)
    gaps = ", ".join(f"{m} {np.mean(auc_gap[m]):.4f}" for m in ("mask", "svset"))
    print(f"    mean |AUC - exact AUC| over all sizes: {gaps}")
    return pooled


if __name__ == "__main__":
    main()
