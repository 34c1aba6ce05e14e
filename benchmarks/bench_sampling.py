"""Reproductions for Dasgupta et al. 2007 (feature sampling, SRLS) and Li & Sun 2007 (STS).

A. 20 Newsgroups, one-vs-all RLSC: micro-F1 relative to all features as the number of kept
   features grows, for subspace sampling (two ranks k), weight-based and uniform sampling
   (mean over --samples draws) and for the deterministic DF and IG top-r baselines (the
   paper's Fig. 5a).  lambda (alpha) is tuned on the full feature set for the best micro-F1 on
   the test split, as in the paper.
B. 20 Newsgroups and Reuters-21578: micro-F1 of a linear SVM (LinearSVC, C = 1) on the top-k
   terms of scalable term selection (STS), chi2 and BNS (max over classes), k from 500 to
   16000, and the average vector length of each selected set (the paper's Fig. 8).
C. Time of feature_probabilities("ss", k) (randomized range finder) against
   scipy.sparse.linalg.svds at equal k, and the Hellinger distance between their probabilities.

    python benchmarks/bench_sampling.py [--data-home ../shared/data] [--samples 5] [--plots docs/figures]
"""

from __future__ import annotations

import time

import numpy as np
from corpora import argument_parser, benchmark_corpora
from scipy.sparse.linalg import svds
from sklearn.metrics import f1_score
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import LinearSVC

import textsel
from textsel.sampling import feature_probabilities, hellinger, sample_features

BUDGETS = (250, 500, 1000, 2000, 4000, 8000)
KS = (500, 1000, 2000, 4000, 8000, 16000)


def micro_f1(model, X, y, X_test, y_test):
    return f1_score(y_test, model.fit(X, y).predict(X_test), average="micro")


def part_a(news, samples):
    X, y, Xt, yt = news.X, news.y, news.X_test, news.y_test
    alphas = (0.1, 0.3, 1.0, 3.0, 10.0)
    full = {a: micro_f1(textsel.RLSClassifier(alpha=a), X, y, Xt, yt) for a in alphas}
    alpha = max(full, key=full.get)
    base = full[alpha]
    print(f"A. 20 Newsgroups RLSC: alpha = {alpha} (tuned over {alphas}), micro-F1 with all "
          f"{X.shape[1]} terms {base:.4f}")  # fmt: skip
    probabilities = {}
    for label, strategy, k in (
        ("SS k=20", "ss", 20),
        ("SS k=100", "ss", 100),
        ("WS", "ws", None),
        ("US", "us", None),
    ):
        start = time.perf_counter()
        probabilities[label] = feature_probabilities(X, strategy, k, random_state=0)
        if strategy == "ss":
            print(f"   probabilities {label}: {time.perf_counter() - start:.1f} s")
    stats = textsel.term_stats(X, y)
    ranked = {"DF": np.argsort(-stats.df, kind="stable"),
              "IG": np.argsort(-textsel.score(stats, "ig").max(axis=0), kind="stable")}  # fmt: skip
    curves = {name: [] for name in (*probabilities, *ranked)}
    print(f"   {'r':>6} " + "".join(f"{name:>18}" for name in (*probabilities, *ranked)))
    print(
        f"   {'':>6} " + "".join(f"{'rel. F1 (kept)':>18}" for _ in range(len(probabilities) + len(ranked)))
    )
    for r in BUDGETS:
        cells = []
        for p in probabilities.values():
            rel, kept = [], []
            for seed in range(samples):
                cols, scales = sample_features(p, r, seed)
                Xs, Xts = X[:, cols].multiply(scales).tocsr(), Xt[:, cols].multiply(scales).tocsr()
                rel.append(micro_f1(textsel.RLSClassifier(alpha=alpha), Xs, y, Xts, yt) / base)
                kept.append(cols.size)
            cells.append(f"{np.mean(rel):.3f} ({np.mean(kept):.0f})")
            curves[list(probabilities)[len(cells) - 1]].append((np.mean(kept), np.mean(rel)))
        for order in ranked.values():
            cols = order[:r]
            f1 = micro_f1(textsel.RLSClassifier(alpha=alpha), X[:, cols], y, Xt[:, cols], yt)
            cells.append(f"{f1 / base:.3f} ({r})")
            curves[list(ranked)[len(cells) - len(probabilities) - 1]].append((r, f1 / base))
        print(f"   {r:>6} " + "".join(f"{c:>18}" for c in cells))
    for k in (20, 100):
        distance = hellinger(probabilities["WS"], probabilities[f"SS k={k}"])
        print(f"   Hellinger(WS, SS k={k}) = {distance:.3f}")
    return curves


def part_b(corpus):
    X, y, Xt, yt = corpus.X, corpus.y, corpus.X_test, corpus.y_test
    svm = OneVsRestClassifier(LinearSVC()) if y.ndim == 2 else LinearSVC()
    stats = textsel.term_stats(X, y)
    print(f"B. {corpus.name}: linear SVM micro-F1 (AVL of the selected set); all {X.shape[1]} terms: "
          f"{micro_f1(svm, X, y, Xt, yt):.4f} (AVL {stats.df.sum() / stats.n_docs:.1f})")  # fmt: skip
    curves = {"STS": [], "chi2": [], "BNS": []}
    print(f"   {'k':>6} {'STS':>18} {'chi2':>18} {'BNS':>18}   lambda")
    for k in KS:
        if k > X.shape[1]:
            continue
        cells = []
        sts = textsel.ScalableTermSelector(k=k).fit(X, y)
        selectors = (sts, textsel.TermSelector("chi2", k=k, multiclass="max").fit(X, y),
                     textsel.TermSelector("bns", k=k, multiclass="max").fit(X, y))  # fmt: skip
        for sel in selectors:
            cols = np.flatnonzero(sel.get_support())
            f1 = micro_f1(svm, X[:, cols], y, Xt[:, cols], yt)
            cells.append(f"{f1:.4f} ({stats.df[cols].sum() / stats.n_docs:.1f})")
            curves[list(curves)[len(cells) - 1]].append((k, f1))
        print(f"   {k:>6} " + "".join(f"{c:>18}" for c in cells) + f"   {sts.lambda_:.3f}")
    return curves


def part_c(news):
    X = news.X
    print("C. 20 Newsgroups: subspace probabilities, randomized range finder against scipy svds")
    for k in (20, 100):
        start = time.perf_counter()
        ours = feature_probabilities(X, "ss", k, method="randomized", random_state=0)
        t_ours = time.perf_counter() - start
        start = time.perf_counter()
        _, _, vt = svds(X, k=k, random_state=0)
        t_svds = time.perf_counter() - start
        ref = (vt**2).sum(axis=0) / k
        print(f"   k = {k:>3}: textsel {t_ours:6.2f} s, svds {t_svds:6.2f} s, ratio {t_svds / t_ours:5.1f}x, "
              f"Hellinger distance {hellinger(ours, ref):.4f}")  # fmt: skip


def plot(curves_a, curves_b, directory):
    """Fig. 5a (relative micro-F1 against kept terms) and Fig. 8 (micro-F1 against k) as PNGs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    def log_axis(ax, ticks):
        # plain numbers at the measured points: log-axis minor labels collide at this width
        ax.set_xscale("log")
        ax.set_xticks(ticks)
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_formatter(NullFormatter())

    fig, ax = plt.subplots(figsize=(6, 4))
    for name, points in curves_a.items():
        x, y = zip(*points, strict=True)
        ax.plot(x, y, marker="o", label=name)
    ax.set(xlabel="terms kept", ylabel="micro-F1 relative to all terms",
           title="20 Newsgroups, RLSC: sampling against DF and IG")  # fmt: skip
    log_axis(ax, BUDGETS)
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(f"{directory}/sampling_relative_f1.png", dpi=110)
    fig, axes = plt.subplots(1, len(curves_b), figsize=(11, 4))
    for ax, (corpus, curves) in zip(axes, curves_b.items(), strict=True):
        for name, points in curves.items():
            x, y = zip(*points, strict=True)
            ax.plot(x, y, marker="o", label=name)
        ax.set(xlabel="terms selected (k)", ylabel="micro-F1 (linear SVM)", title=corpus)
        log_axis(ax, [k for k, _ in next(iter(curves.values()))])
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(f"{directory}/sts_micro_f1.png", dpi=110)


def main():
    parser = argument_parser(__doc__.splitlines()[0], repeat=1)
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--plots", default=None, help="folder for the PNG figures (needs matplotlib)")
    args = parser.parse_args()
    reuters, news = list(benchmark_corpora(args.data_home))
    part_c(news)
    curves_a = part_a(news, args.samples)
    curves_b = {"20 Newsgroups": part_b(news), "Reuters-21578": part_b(reuters)}
    if args.plots:
        plot(curves_a, curves_b, args.plots)


if __name__ == "__main__":
    main()
