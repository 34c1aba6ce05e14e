"""What a solve's exchange costs per iteration on Dask in the two shapes known to work, same sizes.

A distributed LSQR iteration ends with every worker's part of A'D u (n terms x K numbers) added
and the total back where the next v is computed.  This times that exchange alone (no
arithmetic: each worker's part is a ready array of the right size), per iteration, on a
LocalCluster of W one-thread worker processes:

- **tasks** (dask-ml's shape, the one textsel uses): the client sends v to one worker, each
  worker runs one task that reads v and returns a part, the client gathers the parts;
- **pinned** (xgboost.dask's shape): one long-running task per worker, pinned, kept for the whole
  solve; each iteration the ranks add their parts by recursive doubling, exchanging them through
  Dask's public primitives (each part scattered on its worker and its future passed through a
  ``distributed.Queue`` per rank), so every rank holds the total.

    python benchmarks/bench_dask_shapes.py [--workers 1,2,4] [--n 130000] [--ks 1,20] [--iterations 30]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def part_for(v, n, K, rank):
    return np.full((n, K), float(rank)) + v[:1, :1]


def tasks_shape(client, workers, n, K, iterations):
    v = np.zeros((n, K))
    started = time.perf_counter()
    for _ in range(iterations):
        sent = client.scatter(v, workers=[workers[0]], direct=True, hash=False)
        futures = [
            client.submit(part_for, sent, n, K, r, workers=[w], pure=False) for r, w in enumerate(workers)
        ]
        parts = client.gather(futures, direct=True)
        v = sum(parts[1:], parts[0])
    return (time.perf_counter() - started) / iterations


def rank_loop(rank, size, n, K, iterations, prefix):
    """One pinned rank: ``iterations`` all-reductions of its part by recursive doubling (a power of
    two of ranks), through queues of futures; the seconds per iteration."""
    from distributed import Queue, get_client, get_worker

    client, me = get_client(), get_worker().address
    inbox = Queue(f"{prefix}-{rank}", client=client)
    outboxes = {r: Queue(f"{prefix}-{r}", client=client) for r in range(size)}
    total = np.zeros((n, K))
    started = time.perf_counter()
    for _ in range(iterations):
        have, d = np.full((n, K), float(rank)) + total[:1, :1], 1
        while d < size:
            partner = rank ^ d
            mine = client.scatter(have, workers=[me], direct=True, hash=False)
            outboxes[partner].put(mine)
            theirs = inbox.get().result()
            have = have + theirs if rank < partner else theirs + have
            d *= 2
        total = have
    return (time.perf_counter() - started) / iterations


def pinned_shape(client, workers, n, K, iterations):
    import uuid

    prefix = uuid.uuid4().hex
    futures = [
        client.submit(rank_loop, r, len(workers), n, K, iterations, prefix, workers=[w], pure=False)
        for r, w in enumerate(workers)
    ]
    return max(client.gather(futures))


def main():
    from distributed import Client, LocalCluster

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument(
        "--n", type=int, default=130_000, help="unknowns (20 Newsgroups: about 130,000 terms)"
    )
    parser.add_argument("--ks", default="1,20")
    parser.add_argument("--iterations", type=int, default=30)
    args = parser.parse_args()
    print(f"exchange per iteration, n = {args.n} unknowns, best of 3 runs of {args.iterations} iterations")
    for W in (int(w) for w in args.workers.split(",")):
        if W & (W - 1):
            raise SystemExit("the pinned shape's recursive doubling here needs a power of two of workers")
        cluster = LocalCluster(n_workers=W, threads_per_worker=1, processes=True, dashboard_address=":0")
        with cluster, Client(cluster) as client:
            client.wait_for_workers(W)
            workers = sorted(client.nthreads())
            for K in (int(k) for k in args.ks.split(",")):
                row = {}
                for name, shape in (("tasks", tasks_shape), ("pinned", pinned_shape)):
                    shape(client, workers, args.n, K, 3)  # warm-up
                    row[name] = min(shape(client, workers, args.n, K, args.iterations) for _ in range(3))
                tasks, pinned = 1e3 * row["tasks"], 1e3 * row["pinned"]
                print(f"W = {W}, K = {K:2d}: tasks {tasks:7.1f} ms, pinned {pinned:7.1f} ms", flush=True)


if __name__ == "__main__":
    main()
