"""The in-memory WeightedProximalSVC fit on one thread against more, at K = 1 and K = 20.

20 Newsgroups (bydate training split, TfidfVectorizer(sublinear_tf=True, min_df=2), rows in a
fixed random order) replicated ``--replicas`` times (16: 181,024 documents, 27.4M nonzeros).
K = 20 is the 20-class fit; K = 1 is one newsgroup (the first) against the rest, one
right-hand side.  Each (K, threads) configuration runs in a fresh process (textsel's thread
pool is per process), the configurations interleaved over ``--rounds``; each process times the
whole public call ``WeightedProximalSVC(n_jobs=t).fit(X, y)`` ``--repeat`` times and keeps
the best.  Printed per K and thread count: the best fit, the LSQR iterations, and the speed-up
over the first thread count (>1: faster), with its range over the rounds.

    python benchmarks/bench_threads.py [--data-home ../shared/data] [--replicas 16] [--rounds 3]
        [--threads 1,2] [--ks 1,20]
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_dask import base_corpus  # noqa: E402
from corpora import argument_parser  # noqa: E402


def child(args):
    """One configuration in this process: the best of ``--repeat`` fits, as JSON on stdout."""
    from textsel import WeightedProximalSVC

    base, y0 = base_corpus(args.data_home)
    X = sp.vstack([base] * args.replicas, format="csr")
    y = np.tile(y0, args.replicas)
    if args.ks[0] == 1:
        y = (y == 0).astype(int)
    times = []
    for _ in range(args.repeat):
        model = WeightedProximalSVC(n_jobs=args.threads[0])
        start = time.perf_counter()
        model.fit(X, y)
        times.append(time.perf_counter() - start)
    print(
        json.dumps(
            {"best": min(times), "itn": int(np.max(model.n_iter_)), "docs": X.shape[0], "nnz": int(X.nnz)}
        )
    )


def _counts(text):
    return [int(t) for t in text.split(",")]


def main():
    parser = argument_parser(__doc__.splitlines()[0], repeat=2)
    parser.add_argument("--replicas", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=_counts, default=[1, 2], help="thread counts, comma-separated")
    parser.add_argument("--ks", type=_counts, default=[1, 20], help="K values (1 or 20), comma-separated")
    parser.add_argument("--child", action="store_true", help="(internal) run one configuration")
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    results = {}
    for _ in range(args.rounds):
        for k in args.ks:
            for threads in args.threads:
                command = [
                    sys.executable, __file__, "--child", "--data-home", args.data_home,
                    "--replicas", str(args.replicas), "--repeat", str(args.repeat),
                    "--ks", str(k), "--threads", str(threads),
                ]  # fmt: skip
                out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
                results.setdefault((k, threads), []).append(json.loads(out.splitlines()[-1]))
    first = next(iter(results.values()))[0]
    print(
        f"20 Newsgroups tf-idf x {args.replicas}: {first['docs']} documents, {first['nnz'] / 1e6:.1f}M "
        f"nonzeros; WeightedProximalSVC(n_jobs=t).fit, best of {args.repeat} per process, "
        f"{args.rounds} rounds; speed-up = 1 thread / t threads (range over rounds)"
    )
    header = ["K", "threads", "fit", "iters", "speed-up", "range"]
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, (3, 8, 10, 6, 9, 14), strict=True)))
    for k in args.ks:
        one = [r["best"] for r in results[(k, args.threads[0])]]
        for threads in args.threads:
            these = [r["best"] for r in results[(k, threads)]]
            ratios = [a / b for a, b in zip(one, these, strict=True)]
            print(
                f"{k:>3} {threads:>8} {min(these):>9.2f}s {results[(k, threads)][0]['itn']:>6} "
                f"{min(one) / min(these):>8.2f}x {min(ratios):>6.2f}-{max(ratios):.2f}x"
            )


if __name__ == "__main__":
    main()
