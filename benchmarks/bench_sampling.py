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
   scipy.sparse.linalg.svds at equal k (100 and 400), and the Hellinger distance between their
   probabilities, for three seeds (``--only-c`` runs this part alone).

    python benchmarks/bench_sampling.py [--data-home ../shared/data] [--samples 5] [--plots docs/figures]
"""

from __future__ import annotations

import time

from corpora import argument_parser, benchmark_corpora
from scipy.sparse.linalg import svds

from textsel import study
from textsel.sampling import feature_probabilities, hellinger

BUDGETS = (250, 500, 1000, 2000, 4000, 8000)
KS = (500, 1000, 2000, 4000, 8000, 16000)


def part_a(news, samples):
    """Relative micro-F1 table of textsel.study.sampling_curves; returns {method: [(kept, rel)]}."""
    records = study.sampling_curves(
        news.X, news.y, news.X_test, news.y_test, BUDGETS,
        strategies=(("ss", 20), ("ss", 100), ("ws", None), ("us", None)), baselines=("dfreq", "ig"),
        samples=samples,
    )  # fmt: skip
    methods = list(dict.fromkeys(r["method"] for r in records))
    print(
        f"A. 20 Newsgroups RLSC, alpha = {records[0]['alpha']} (tuned on all terms): relative micro-F1 (kept)"
    )
    print(f"   {'r':>6} " + "".join(f"{m:>18}" for m in methods))
    for r in BUDGETS:
        row = {x["method"]: x for x in records if x["budget"] == r}
        cells = [f"{row[m]['relative_f1']:.3f} ({row[m]['kept']:.0f})" for m in methods]
        print(f"   {r:>6} " + "".join(f"{c:>18}" for c in cells))
    return {m: [(x["kept"], x["relative_f1"]) for x in records if x["method"] == m] for m in methods}


def part_b(corpus):
    """Micro-F1 (AVL) table of textsel.study.selection_curves; returns {method: [(k, f1)]}."""
    records = study.selection_curves(corpus.X, corpus.y, corpus.X_test, corpus.y_test, KS)
    print(f"B. {corpus.name}: linear SVM micro-F1 (AVL of the selected set)")
    print(f"   {'k':>6} {'STS':>18} {'chi2':>18} {'BNS':>18}   lambda")
    for k in sorted({r["k"] for r in records}):
        row = {x["method"]: x for x in records if x["k"] == k}
        cells = "".join(
            f"{row[m]['micro_f1']:.4f} ({row[m]['avl']:.1f})".rjust(18) for m in ("sts", "chi2", "bns")
        )
        print(f"   {k:>6} {cells}   {row['sts']['lambda']:.3f}")
    return {m: [(x["k"], x["micro_f1"]) for x in records if x["method"] == m] for m in ("sts", "chi2", "bns")}


def part_c(news, seeds=3, warm_up=True):
    """Whole public calls: feature_probabilities("ss", k) with its default accuracy (tol = 0.75)
    against svds at the same k, for several seeds; after a warm-up call, or (``warm_up=False``,
    a fresh process) textsel's very first call first."""
    X = news.X
    print("C. 20 Newsgroups: subspace probabilities, randomized range finder against scipy svds")
    if warm_up:
        feature_probabilities(X, "ss", 10, method="randomized", random_state=0)  # imports, pools
    else:
        for k in (100, 400):
            start = time.perf_counter()
            ours = feature_probabilities(X, "ss", k, method="randomized", random_state=0)
            t_ours = time.perf_counter() - start
            start = time.perf_counter()
            _, _, vt = svds(X, k=k, random_state=0)
            t_svds = time.perf_counter() - start
            distance = hellinger(ours, (vt**2).sum(axis=0) / k)
            print(f"   k = {k:>3}, first calls of the process: textsel {t_ours:6.2f} s, "
                  f"svds {t_svds:6.2f} s, "
                  f"ratio {t_svds / t_ours:5.1f}x, Hellinger distance {distance:.4f}")  # fmt: skip
        return
    for k in (100, 400):
        start = time.perf_counter()
        _, _, vt = svds(X, k=k, random_state=0)
        t_svds = time.perf_counter() - start
        ref = (vt**2).sum(axis=0) / k
        for seed in range(seeds):
            start = time.perf_counter()
            ours = feature_probabilities(X, "ss", k, method="randomized", random_state=seed)
            t_ours = time.perf_counter() - start
            distance = hellinger(ours, ref)
            print(f"   k = {k:>3}, seed {seed}: textsel {t_ours:6.2f} s, svds {t_svds:6.2f} s, "
                  f"ratio {t_svds / t_ours:5.1f}x, Hellinger distance {distance:.4f}")  # fmt: skip


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
    parser.add_argument("--only-c", action="store_true", help="only part C (the range finder against svds)")
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="part C's first calls of this process, no warm-up (run it in several processes)",
    )
    args = parser.parse_args()
    reuters, news = list(benchmark_corpora(args.data_home))
    part_c(news, warm_up=not args.fresh)
    if args.only_c:
        return
    curves_a = part_a(news, args.samples)
    curves_b = {"20 Newsgroups": part_b(news), "Reuters-21578": part_b(reuters)}
    if args.plots:
        plot(curves_a, curves_b, args.plots)


if __name__ == "__main__":
    main()
