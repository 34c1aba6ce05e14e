"""Batched LSQR and the proximal SVM family against scipy and scikit-learn, same run, same data.

1. One-vs-rest least squares for every class at once (the proximal SVM problem: intercept,
   damp = sqrt(v)) by textsel.lsqr, against a loop of scipy.sparse.linalg.lsqr over the classes
   on the explicitly built [X, 1] (built once, outside the timing), same tolerances.
2. WeightedProximalSVC, ProximalSVC and LinearSVC (one-vs-rest; plain, and with
   class_weight="balanced"), WPSVM with the other reading
   of the paper's weights (delta+ = 1 + (N-/N+ - 1)/2), and the two proximal models with SCut
   thresholds (threshold="scut", 5-fold, fbr=0.3): training time, micro- and macro-F1 on the
   test split.
3. Zhuang et al.'s analysis by class skew (Reuters-21578, multi-label):
   textsel.study.proximal_by_skew, the mean per-class F1 of each model in groups of classes by
   training negatives per positive.

Matrices: TfidfVectorizer(sublinear_tf=True, min_df=2) fitted on the training split of
Reuters-21578 ModApte (90 categories, multi-label) and 20 Newsgroups bydate (20 classes).

    python benchmarks/bench_linear.py [--data-home ../shared/data] [--repeat 3]
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from corpora import argument_parser, benchmark_corpora, best_of
from scipy.sparse.linalg import lsqr as scipy_lsqr
from sklearn.metrics import f1_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import LinearSVC

import textsel


def bench_lsqr(name, X, T, repeat):
    v = 2.0 * np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel()).mean()
    damp = np.sqrt(v)
    tol = dict(atol=1e-6, btol=1e-6)
    A = sp.hstack([X, np.ones((X.shape[0], 1))]).tocsr()
    t_ours, ours = best_of(lambda: textsel.lsqr(X, T, damp=damp, fit_intercept=True, **tol), repeat)
    t_scipy, ref = best_of(
        lambda: [scipy_lsqr(A, T[:, k], damp=damp, **tol) for k in range(T.shape[1])], repeat
    )
    same_itn = sum(int(ours.itn[k] == r[2]) for k, r in enumerate(ref))
    rel = max(np.abs(ours.x[:, k] - r[0]).max() / np.abs(r[0]).max() for k, r in enumerate(ref))
    print(f"{name}: {T.shape[1]} right-hand sides, {X.shape[0]} x {X.shape[1] + 1}, v = {v:.3f}")
    print(f"  textsel.lsqr batched : {t_ours * 1e3:9.1f} ms  (iterations {ours.itn.min()}-{ours.itn.max()})")
    print(f"  scipy lsqr loop      : {t_scipy * 1e3:9.1f} ms")
    print(f"  ratio                : {t_scipy / t_ours:9.1f}x")
    print(f"  same iteration count for {same_itn}/{T.shape[1]}, max relative difference of x {rel:.1e}")


def bench_classifiers(name, X, y, Xt, yt, repeat):
    multilabel = y.ndim == 2
    Y = y if multilabel else (y[:, None] == np.unique(y)[None, :])
    n_pos = Y.sum(axis=0)
    # the other reading of the paper's garbled weight estimate (see textsel.proximal.proximal_weights)
    linear_delta = 1 + ((len(y) - n_pos) / n_pos - 1) / 2
    balanced = LinearSVC(class_weight="balanced")  # the baseline a practitioner reaches for on skew
    models = {
        "WeightedProximalSVC": textsel.WeightedProximalSVC(),
        "WPSVM, delta+ linear": textsel.WeightedProximalSVC(delta=linear_delta),
        "ProximalSVC": textsel.ProximalSVC(),
        "LinearSVC (one-vs-rest)": OneVsRestClassifier(LinearSVC()) if multilabel else LinearSVC(),
        "LinearSVC balanced": OneVsRestClassifier(balanced) if multilabel else balanced,
        "WeightedProximalSVC+SCut": textsel.WeightedProximalSVC(threshold="scut"),
        "ProximalSVC+SCut": textsel.ProximalSVC(threshold="scut"),
    }
    print(f"{name}: train {X.shape[0]}, test {Xt.shape[0]}")
    print(f"  {'model':<26}{'train s':>9}{'micro-F1':>10}{'macro-F1':>10}")
    times = {}
    for label, model in models.items():
        seconds, fitted = best_of(lambda m=model: m.fit(X, y), repeat)
        pred = fitted.predict(Xt)
        micro = f1_score(yt, pred, average="micro", zero_division=0)
        macro = f1_score(yt, pred, average="macro", zero_division=0)
        times[label] = seconds
        print(f"  {label:<26}{seconds:>9.3f}{micro:>10.4f}{macro:>10.4f}")
    ratio = times["LinearSVC (one-vs-rest)"] / times["WeightedProximalSVC"]
    print(f"  WPSVM trains {ratio:.1f}x faster than LinearSVC")


def main():
    args = argument_parser(__doc__.splitlines()[0], repeat=3).parse_args()
    for corpus in benchmark_corpora(args.data_home):
        bench_lsqr(corpus.name, corpus.X, 2 * corpus.Y - 1, args.repeat)
        bench_classifiers(corpus.name, corpus.X, corpus.y, corpus.X_test, corpus.y_test, args.repeat)
        if corpus.y.ndim == 2:
            bench_by_skew(corpus.name, corpus.X, corpus.Y, corpus.X_test, corpus.y_test)


def bench_by_skew(name, X, Y, X_test, Y_test, edges=(0, 30, 100, 300, np.inf)):
    """Mean per-class F1 of WPSVM, PSVM and LinearSVC in groups of classes by skew."""
    records = textsel.study.proximal_by_skew(X, Y, X_test, np.asarray(Y_test))
    models = list(dict.fromkeys(r["model"] for r in records))
    print(f"{name}: mean per-class F1 by training skew (negatives per positive)")
    print(f"  {'skew':<14}{'classes':>8}" + "".join(f"{m:>22}" for m in models))
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        group = [r for r in records if lo <= r["skew"] < hi]
        if not group:
            continue
        n_classes = len({r["class"] for r in group})
        means = [np.mean([r["f1"] for r in group if r["model"] == m]) for m in models]
        print(f"  {f'{lo:g}-{hi:g}':<14}{n_classes:>8}" + "".join(f"{v:>22.3f}" for v in means))


if __name__ == "__main__":
    main()
