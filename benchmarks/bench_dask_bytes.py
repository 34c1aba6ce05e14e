"""Bytes through the client per LSQR iteration, and the client's peak memory, against the number
of workers and of documents: the distributed solve keeps u, b and the row weights on the workers,
so both should be flat.

A synthetic corpus with the shape of 20 Newsgroups' rows (each document's distinct terms
log-normal in number, median 60 as in 20 Newsgroups' tf-idf rows, drawn from a Zipf law over the
vocabulary, values 1 + log of a count) of ``--docs`` documents, in ``--blocks`` row blocks built
on the workers (the client never holds the matrix); each
configuration in a fresh process on a LocalCluster of W worker processes, one thread each.  The
solve is ``textsel.lsqr`` on a :class:`~textsel.distributed.BlockMatrix` with K = ``--rhs``
right-hand sides (random signs, built on the client: an m x K array) and ``--iterations``
iterations; time on a 2-core machine with 8 workers means nothing, bytes do.

Reported per configuration: the bytes the client sent and received per iteration (the vectors:
v out, the reduced A'D u back; ``BlockMatrix.traffic``), the bytes sent once to set the solve up
(b, each block's rows straight to its worker), 2 x 8 n K for comparison, and the client's peak
resident memory (VmHWM) over the whole run.

    python benchmarks/bench_dask_bytes.py [--workers 2,4,8] [--docs 100000] [--terms 2000] [--rhs 20]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import numpy as np


def peak_rss_mb() -> float:
    with open("/proc/self/status") as status:
        line = next(x for x in status if x.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def _block(seed, n_docs, n_terms):
    """One row block of the synthetic corpus, made on the worker (the client never holds it)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    lengths = np.minimum(np.maximum(rng.lognormal(np.log(60), 0.6, n_docs).astype(np.int64), 1), n_terms)
    rows = np.repeat(np.arange(n_docs), lengths)
    zipf = 1.0 / np.arange(1, n_terms + 1) ** 1.1
    cols = rng.choice(n_terms, size=rows.size, p=zipf / zipf.sum())
    X = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_docs, n_terms))
    X.sum_duplicates()
    X.data = 1.0 + np.log(X.data)
    return X


def child(args) -> dict:
    import dask
    import dask.array as da
    import scipy.sparse as sp
    from distributed import Client, LocalCluster

    import textsel
    from textsel.distributed import BlockMatrix

    with (
        LocalCluster(
            n_workers=args.run, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        sizes = [args.docs // args.blocks + (i < args.docs % args.blocks) for i in range(args.blocks)]
        parts = [dask.delayed(_block)(i, n, args.terms) for i, n in enumerate(sizes)]
        meta = sp.csr_matrix((0, args.terms))
        dX = da.concatenate(
            [
                da.from_delayed(p, shape=(n, args.terms), dtype=np.float64, meta=meta)
                for p, n in zip(parts, sizes, strict=True)
            ]
        )
        A = BlockMatrix(dX, client)
        B = np.sign(np.random.default_rng(0).standard_normal((A.shape[0], args.rhs)))
        result = textsel.lsqr(A, B, atol=0, btol=0, iter_lim=args.iterations)
        iterations = int(result.itn.max())
        return dict(
            workers=args.run, docs=A.shape[0], terms=A.shape[1], rhs=args.rhs, iterations=iterations,
            sent_per_iteration=A.traffic["sent"] / iterations,
            received_per_iteration=A.traffic["received"] / iterations,
            setup_bytes=A.traffic["setup"], bound=2 * 8 * A.shape[1] * args.rhs,
            client_mb=peak_rss_mb(),
        )  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="2,4,8")
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--terms", type=int, default=2_000)
    parser.add_argument("--rhs", type=int, default=20)
    parser.add_argument("--blocks", type=int, default=16)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--run", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        print("RESULT " + json.dumps(child(args)))
        return
    print("workers  documents  iterations  sent/iter  received/iter  2x8nK      setup (once)  client peak")
    for w in args.workers.split(","):
        options = ["--docs", args.docs, "--terms", args.terms, "--rhs", args.rhs, "--blocks", args.blocks,
                   "--iterations", args.iterations]  # fmt: skip
        cmd = [sys.executable, __file__, "--run", w, *map(str, options)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
        if done.returncode or not line:
            sys.exit(f"W={w} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
        r = json.loads(line[0][7:])
        print(f"{r['workers']:>7}  {r['docs']:>9,}  {r['iterations']:>10}  {r['sent_per_iteration']:>9,.0f}  "
              f"{r['received_per_iteration']:>13,.0f}  {r['bound']:>9,}  {r['setup_bytes']:>12,}  "
              f"{r['client_mb']:>8.0f} MB")  # fmt: skip


if __name__ == "__main__":
    main()
