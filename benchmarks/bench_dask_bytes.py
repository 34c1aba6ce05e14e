"""Bytes through the client per LSQR iteration, and the client's peak memory, against the number
of workers and of documents: the distributed solve keeps u, b and the row weights on the workers,
so both should be flat.

A synthetic corpus with the shape of 20 Newsgroups' rows (each document's distinct terms
log-normal in number, median 60 as in 20 Newsgroups' tf-idf rows, drawn from a Zipf law over the
vocabulary, values 1 + log of a count) of ``--docs`` documents, in ``--blocks`` row blocks built
on the workers (the client never holds the matrix), with ``--rhs`` classes; each configuration in
a fresh process on a LocalCluster of W worker processes, one thread each (the scheduler runs in
the client's process, and its memory is counted with the client's).  Two calls, ``--call``:

- ``wpsvm`` (default): ``WeightedProximalSVC(max_iter=--iterations).fit(X, y)`` with the labels a
  Dask array built on the workers beside the blocks: the client holds neither the matrix nor the
  labels, and builds nothing of the documents' length.
- ``lsqr``: ``textsel.lsqr`` on a :class:`~textsel.distributed.BlockMatrix` with K right-hand
  sides given as an array on the client (random signs, m x K: the caller's own array, sent once).

Time on a 2-core machine with 8 workers means little (the seconds per iteration, the whole
call's time over its iterations, are an upper bound of the per-iteration overhead on a tiny
problem); bytes and memory do.  Reported per configuration: the bytes the client sent and
received per iteration (the vectors: v out once, the workers' parts of A'D u back, at most
four: ``BlockMatrix.traffic``), the bytes sent once (the right-hand sides or labels given on the
client), 2 x 8 n K for comparison, and the client's peak resident memory (VmHWM) over the whole
run.

    python benchmarks/bench_dask_bytes.py [--workers 2,4,8] [--docs 100000,2000000] [--call wpsvm|lsqr]
        [--terms 2000] [--rhs 20]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

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


def _labels(seed, n_docs, n_classes):
    """One block's labels, made on the worker beside its rows: Zipf-sized classes, every class
    present in a block of a few hundred documents."""
    rng = np.random.default_rng(10**6 + seed)
    sizes = 1.0 / np.arange(1, n_classes + 1)
    return rng.choice(n_classes, size=n_docs, p=sizes / sizes.sum())


def child(args) -> dict:
    import warnings

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
        start = time.perf_counter()
        if args.call == "lsqr":
            B = np.sign(np.random.default_rng(0).standard_normal((A.shape[0], args.rhs)))
            iterations = int(textsel.lsqr(A, B, atol=0, btol=0, iter_lim=args.iterations).itn.max())
        else:
            y = da.concatenate(
                [
                    da.from_delayed(dask.delayed(_labels)(i, n, args.rhs), shape=(n,), dtype=np.int64)
                    for i, n in enumerate(sizes)
                ]
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the iteration limit is the point here
                model = textsel.WeightedProximalSVC(tol=0, max_iter=args.iterations).fit(A, y)
            iterations = int(model.n_iter_.max())
        seconds = time.perf_counter() - start
        return dict(
            call=args.call, workers=args.run, docs=A.shape[0], terms=A.shape[1], rhs=args.rhs,
            iterations=iterations, sent_per_iteration=A.traffic["sent"] / iterations,
            received_per_iteration=A.traffic["received"] / iterations,
            setup_bytes=A.traffic["setup"], bound=2 * 8 * (A.shape[1] + 1) * args.rhs,
            client_mb=peak_rss_mb(),
            seconds_per_iteration=seconds / iterations,
        )  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="2,4,8")
    parser.add_argument("--docs", default="100000")
    parser.add_argument("--call", choices=("wpsvm", "lsqr"), default="wpsvm")
    parser.add_argument("--terms", type=int, default=2_000)
    parser.add_argument("--rhs", type=int, default=20)
    parser.add_argument("--blocks", type=int, default=16)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--run", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        args.docs = int(args.docs)
        print("RESULT " + json.dumps(child(args)))
        return
    print(f"call: {args.call}, {args.terms} terms, K = {args.rhs}, {args.blocks} blocks")
    print("workers  documents  iterations  sent/iter  received/iter  2x8(n+1)K  sent once     client peak"
          "  s/iter (whole call)")  # fmt: skip
    for w in args.workers.split(","):
        for docs in args.docs.split(","):
            options = ["--docs", docs, "--call", args.call, "--terms", args.terms, "--rhs", args.rhs,
                       "--blocks", args.blocks, "--iterations", args.iterations]  # fmt: skip
            cmd = [sys.executable, __file__, "--run", w, *map(str, options)]
            done = subprocess.run(cmd, capture_output=True, text=True)
            line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
            if done.returncode or not line:
                sys.exit(f"W={w} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
            r = json.loads(line[0][7:])
            print(f"{r['workers']:>7}  {r['docs']:>9,}  {r['iterations']:>10}  "
                  f"{r['sent_per_iteration']:>9,.0f}  {r['received_per_iteration']:>13,.0f}  "
                  f"{r['bound']:>9,}  {r['setup_bytes']:>12,}  {r['client_mb']:>8.0f} MB"
                  f"  {r['seconds_per_iteration']:>8.3f}",
                  flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
