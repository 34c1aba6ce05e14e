"""The least-squares fit on a Dask cluster against the same fit in memory, same data, one run.

20 Newsgroups (bydate training split, TfidfVectorizer(sublinear_tf=True, min_df=2)) replicated
``--replicas`` times (16: 181,024 documents, 27.4M nonzeros), 20 classes.  Each configuration
runs in a fresh process: ``WeightedProximalSVC(n_jobs=t).fit(X, y)`` in memory on 1 and 2
threads, then on a LocalCluster of W worker processes of one thread each for every W of
``--workers``, the matrix given as ``textsel.distributed.row_blocks(X)`` (cut where the in-memory
solve cuts its groups, consecutive blocks on each worker; ``--blocks`` cuts it otherwise, and a
layout that leaves a worker without blocks is refused).  ``--classes 1`` fits one class against
the rest instead.

Printed per configuration: the whole fit (best of ``--repeat``), LSQR's iterations, seconds per
iteration of the row operator (every call the C solver makes of it, timed on the client), the
arithmetic of an iteration (the largest total, over the workers, of the step tasks' compute time,
from Dask's task stream, per call), the rest of an iteration (the first less the second: sending
v, the scheduler's round trips, bringing the parts back and adding the top of the tree), and
whether the coefficients and iterations equal the in-memory ones to the bit.

``--kill-at N`` measures a lost worker instead: the blocks are read by the workers from files
(one ``.npz`` a block, written to a temporary folder first: data Dask can compute again, as a
user's reading of their files is), the fit runs once undisturbed and once with a worker killed
(SIGKILL; its nanny starts a new one) at the N-th call of the row operator; printed are both fit
times, the delay, and whether the disturbed model equals the undisturbed one and memory's.

    python benchmarks/bench_dask_solve.py [--data-home ../shared/data] [--workers 1,2,4] [--classes 20]
    python benchmarks/bench_dask_solve.py --workers 2 --kill-at 20
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp

import textsel


def corpus(args):
    from bench_dask import base_corpus

    base, y0 = base_corpus(args.data_home)
    X = sp.vstack([base] * args.replicas, format="csr")
    y = np.tile(y0, args.replicas)
    if args.classes == 1:
        y = (y == 0).astype(np.int64)
    return X, y


def fit(X, y, repeat, **kw):
    best, model = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        model = textsel.WeightedProximalSVC(**kw).fit(X, y)
        best = min(best, time.perf_counter() - start)
    return best, model


def run_memory(args, threads):
    X, y = corpus(args)
    seconds, model = fit(X, y, args.repeat, n_jobs=threads)
    np.savez(args.reference, coef=model.coef_, n_iter=model.n_iter_) if threads == 1 else None
    return dict(config=f"in memory, {threads} thread{'s' * (threads > 1)}", fit_s=seconds,
                itn=int(np.max(model.n_iter_)))  # fmt: skip


def block_from_file(path):
    return sp.load_npz(path)


def from_files(X, chunks, folder):
    """``X`` cut at ``chunks`` as a Dask array whose blocks are read from one file each."""
    import dask
    import dask.array as da

    bounds = np.concatenate([[0], np.cumsum(chunks)])
    blocks = []
    for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        path = os.path.join(folder, f"block{i}.npz")
        sp.save_npz(path, X[a:b], compressed=False)
        reader = dask.delayed(block_from_file, pure=True)(path)
        blocks.append(da.from_delayed(reader, shape=(b - a, X.shape[1]), dtype=X.dtype,
                                      meta=sp.csr_matrix((0, X.shape[1]))))  # fmt: skip
    return da.concatenate(blocks, axis=0)


def run_killed(args, n_workers, calls):
    """The fit on blocks read from files, undisturbed and with a worker killed at call N."""
    from distributed import Client, LocalCluster

    X, y = corpus(args)
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    with cluster, Client(cluster) as client, tempfile.TemporaryDirectory() as folder:
        client.wait_for_workers(n_workers)
        chunks = textsel.distributed.row_blocks(X, n_blocks=args.blocks).chunks[0]
        dX = from_files(X, chunks, folder).persist()
        del X
        calls.update(n=0, s=0.0)
        undisturbed, model = fit(dX, y, 1)

        def kill(n):
            if n == args.kill_at:
                victim = sorted(client.nthreads())[-1]
                os.kill(client.run(os.getpid, workers=[victim])[victim], signal.SIGKILL)

        calls.update(n=0, s=0.0, on_call=kill)
        disturbed, again = fit(dX, y, 1)
        ref = np.load(args.reference)
    same = np.array_equal(again.coef_, model.coef_) and np.array_equal(again.n_iter_, model.n_iter_)
    memory = np.array_equal(again.coef_, ref["coef"]) and np.array_equal(again.n_iter_, ref["n_iter"])
    return dict(config=f"{n_workers} workers, killed", fit_s=undisturbed, killed_s=disturbed,
                itn=int(np.max(again.n_iter_)), same_as_undisturbed=bool(same),
                same_bits=bool(memory))  # fmt: skip


def run_cluster(args, n_workers):
    from distributed import Client, LocalCluster, get_task_stream

    from textsel.distributed import solve

    calls = {"n": 0, "s": 0.0}
    for name in ("start", "step"):  # the row operator's calls, timed on the client
        real = getattr(solve.ClusterRowOperator, name)

        def timed(self, *a, _real=real):
            began = time.perf_counter()
            try:
                return _real(self, *a)
            finally:
                calls["n"] += 1
                calls["s"] += time.perf_counter() - began
                if "on_call" in calls:
                    calls["on_call"](calls["n"])

        setattr(solve.ClusterRowOperator, name, timed)
    if args.kill_at:
        return run_killed(args, n_workers, calls)
    X, y = corpus(args)
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    with cluster, Client(cluster) as client:
        client.wait_for_workers(n_workers)
        dX = textsel.distributed.row_blocks(X, n_blocks=args.blocks)
        del X
        if len(dX.chunks[0]) < n_workers:
            raise SystemExit(
                f"{len(dX.chunks[0])} blocks for {n_workers} workers: a worker would hold none; give "
                "--blocks at least the number of workers (the answer then differs from memory's in its "
                "last bits)"
            )
        best = None
        for _ in range(args.repeat):
            calls.update(n=0, s=0.0)
            with get_task_stream(client) as stream:
                seconds, model = fit(dX, y, 1)
            compute = {}
            for task in stream.data:
                if str(task["key"]).startswith("run_step"):
                    for span in task["startstops"]:
                        if span["action"] == "compute":
                            compute[task["worker"]] = (
                                compute.get(task["worker"], 0.0) + span["stop"] - span["start"]
                            )
            n = calls["n"]
            row = dict(fit_s=seconds, itn=int(np.max(model.n_iter_)), calls=n, call_s=calls["s"] / n,
                       arithmetic_s=max(compute.values()) / n)  # fmt: skip
            if best is None or row["fit_s"] < best["fit_s"]:
                best = row
        ref = np.load(args.reference)
    same = np.array_equal(model.coef_, ref["coef"]) and np.array_equal(model.n_iter_, ref["n_iter"])
    config = f"{n_workers} worker{'s' * (n_workers > 1)}"
    best.update(config=config, blocks=len(dX.chunks[0]), same_bits=bool(same))
    return best


def main():
    from corpora import argument_parser

    parser = argument_parser(__doc__.splitlines()[0], repeat=1)
    parser.add_argument("--replicas", type=int, default=16)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--classes", type=int, choices=(1, 20), default=20)
    parser.add_argument(
        "--blocks",
        type=int,
        default=None,
        help="row blocks (default: cut like the in-memory solve's groups, for the same bits)",
    )
    parser.add_argument("--kill-at", type=int, default=0, help="kill a worker at this call of the operator")
    parser.add_argument("--run", help=__import__("argparse").SUPPRESS)
    parser.add_argument("--reference", help=__import__("argparse").SUPPRESS)
    args = parser.parse_args()
    if args.run:
        kind, number = args.run.split(":")
        row = run_memory(args, int(number)) if kind == "memory" else run_cluster(args, int(number))
        return print("RESULT " + json.dumps(row))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        reference = os.path.join(tmp, "memory.npz")
        memory = ["memory:1"] if args.kill_at else ["memory:1", "memory:2"]  # memory:1 writes the reference
        for run in memory + [f"cluster:{w}" for w in args.workers.split(",")]:
            cmd = [sys.executable, __file__, "--data-home", args.data_home, "--repeat", str(args.repeat),
                   "--replicas", str(args.replicas), "--classes", str(args.classes), "--run", run,
                   "--reference", reference]  # fmt: skip
            cmd += ["--blocks", str(args.blocks)] * (args.blocks is not None)
            cmd += ["--kill-at", str(args.kill_at)] * bool(args.kill_at)
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=os.path.dirname(__file__))
            line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
            if done.returncode or not line:
                sys.exit(f"{run} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
            rows.append(json.loads(line[0][7:]))
            report(rows[-1], rows)


def report(row, rows):
    two = next((r for r in rows if r["config"] == "in memory, 2 threads"), None)
    line = f"{row['config']:>22}: fit {row['fit_s']:7.2f} s, {row['itn']} iterations"
    if "killed_s" in row:
        line += (f"; a worker killed: {row['killed_s']:.2f} s ({row['killed_s'] - row['fit_s']:+.2f} s), "
                 f"same bits as undisturbed: {row['same_as_undisturbed']}, "
                 f"as in memory: {row['same_bits']}")  # fmt: skip
    elif "calls" in row:
        rest = row["call_s"] - row["arithmetic_s"]
        line += (f", {row['blocks']} blocks; per call of the row operator ({row['calls']}): "
                 f"{1e3 * row['call_s']:.1f} ms, arithmetic {1e3 * row['arithmetic_s']:.1f} ms, rest "
                 f"{1e3 * rest:.1f} ms; same bits as in memory: {row['same_bits']}")  # fmt: skip
        if two is not None:
            line += f"; fit / in-memory 2-thread fit: {row['fit_s'] / two['fit_s']:.2f}x"
    print(line, flush=True)


if __name__ == "__main__":
    main()
