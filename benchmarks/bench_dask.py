"""textsel on Dask against textsel in memory, same data, one run.

20 Newsgroups (bydate training split, TfidfVectorizer(sublinear_tf=True, min_df=2)) replicated
``--replicas`` times (16: 181,024 documents, 27.4M nonzeros) in ``--blocks`` row blocks.  Each
configuration runs in a fresh process: in memory (the stacked CSR matrix), then a LocalCluster
of 1 and of 2 worker processes (one thread each) whose blocks are built on the workers from
slices of the base matrix: consecutive blocks on each worker, as evenly as the count allows
(fewer blocks than workers is refused: a worker would idle), each slice sent once to each
worker that builds from it, the copies pinned there, and the slices dropped once the blocks
exist (the client holds only the base and the labels).  Timed, whole public calls:

- term_stats + BNS: ``textsel.score(textsel.term_stats(X, y), "bns")``, and ``term_stats`` alone
  (the throughput the worker count changes; BNS is scored on the client), best of ``--repeat``
  (30), and for term_stats also the median call;
- the 20-class WeightedProximalSVC fit (tol 1e-4, the estimator's default), once, including
  (on the cluster) the BlockMatrix that checks and persists the blocks.

With the default ``--workers 1,2`` each round also runs two measurements of the term_stats
scaling that this machine's drift (up to a factor of two between minutes) cannot skew as
much: a 1-worker and a 2-worker cluster alive side by side in one process, their calls
alternated; and the counting kernel alone, without Dask, in one process on all rows against
two processes on the halves at once, the ceiling two workers could reach at that moment.

Reported: wall times, documents per second for term_stats, LSQR iterations and seconds per
iteration, bytes moved per LSQR iteration (vectors to and from the workers, counted by the
operator), peak resident memory (VmHWM) of every worker and of the client / in-memory
process, the MB of blocks each worker holds (values and indices), and whether the results
equal the in-memory ones.

    python benchmarks/bench_dask.py [--data-home ../shared/data] [--replicas 16] [--blocks 32]
    python benchmarks/bench_dask.py --kernel-scaling   # the kernel alone, 1 process against 2
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp

import textsel  # light: the estimators and scikit-learn load on first use

# Dask starts each worker by spawning a Python that imports this script again (as __mp_main__):
# what is imported here at module level is imported into every worker.  scikit-learn, the
# corpus readers and the benchmark helpers are imported inside the functions that need them,
# so a worker carries only what its tasks use.


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM).  Not ru_maxrss: a spawned worker's ru_maxrss
    starts from the resident size of the process it was forked from before its exec."""
    with open("/proc/self/status") as status:
        line = next(x for x in status if x.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def base_corpus(data_home, shuffle=True):
    """The 20 Newsgroups training matrix and labels, its rows in a fixed random order (seed 0)
    unless ``shuffle`` is False.  The bydate split lists documents newsgroup by newsgroup and
    its second half holds 58% of the nonzeros, so that cutting each replica in two in file
    order would give one of two workers 36% more to count than the other."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from textsel.datasets import load_20newsgroups

    news = load_20newsgroups(data_home)
    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
    X = vectorizer.fit_transform(news.data_train).tocsr()
    y = np.asarray(news.target_train)
    if shuffle:
        order = np.random.default_rng(0).permutation(X.shape[0])
        X, y = X[order], y[order]
    return X, y


def test_f1(data_home, model):
    """The model's micro-F1 on the 20 Newsgroups bydate test split (vectorized as the training
    split was: the vocabulary and idf of the training documents)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics import f1_score

    from textsel.datasets import load_20newsgroups

    news = load_20newsgroups(data_home)
    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2).fit(news.data_train)
    predicted = model.predict(vectorizer.transform(news.data_test))
    return float(f1_score(news.target_test, predicted, average="micro"))


def block_bounds(n_base, replicas, blocks):
    """(replica, first row, last row) of each block: every replica cut into blocks/replicas parts."""
    per = max(1, blocks // replicas)
    cuts = np.linspace(0, n_base, per + 1).astype(int)
    return [(r, int(a), int(b)) for r in range(replicas) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]


def copy_block(piece):
    return piece.copy()


def held_mb(client, dX, bounds, base):
    """MB of blocks (values and indices) each worker holds, sorted: the placement's balance."""
    from dask.core import flatten

    from textsel.distributed._blocks import persisted_futures

    _, futures = persisted_futures(list(flatten(dX.__dask_keys__())), client)
    who_has = client.who_has(futures)
    held = dict.fromkeys(client.nthreads(), 0.0)
    for future, (_, a, b) in zip(futures, bounds, strict=True):
        piece = base[a:b]
        for worker in who_has[future.key]:
            held[worker] += (piece.data.nbytes + piece.indices.nbytes) / 2**20
    return sorted(held.values())


def best_and_median(func, repeat):
    """The best and the median wall time of ``repeat`` calls of ``func``: the best is this noisy
    machine's floor, the median what a call usually takes."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times), float(np.median(times))


def stats_and_bns(X, y):
    stats = textsel.term_stats(X, y)
    return stats, textsel.score(stats, "bns")


def run_memory(args, out):
    from corpora import best_of

    base, y0 = base_corpus(args.data_home, not args.file_order)
    X = sp.vstack([base] * args.replicas, format="csr")
    y = np.tile(y0, args.replicas)
    t_stats, (stats, _) = best_of(lambda: stats_and_bns(X, y), args.repeat)
    t_counts, t_counts_median = best_and_median(lambda: textsel.term_stats(X, y), args.repeat)
    start = time.perf_counter()
    model = textsel.WeightedProximalSVC().fit(X, y)
    t_fit = time.perf_counter() - start
    start = time.perf_counter()
    textsel.WeightedProximalSVC(n_jobs=1).fit(X, y)
    t_fit_one = time.perf_counter() - start
    np.savez(out, class_df=stats.class_df, coef=model.coef_, n_iter=model.n_iter_)
    return dict(
        config="in memory", docs=X.shape[0], nnz=int(X.nnz), terms=X.shape[1], stats_s=t_stats,
        counts_s=t_counts, counts_median_s=t_counts_median, fit_s=t_fit, fit_one_thread_s=t_fit_one,
        itn=int(model.n_iter_.max()), client_mb=peak_rss_mb(), worker_mb=[],
        f1=test_f1(args.data_home, model),
    )  # fmt: skip


def persisted_blocks(client, base, bounds):
    """The replicated matrix as a Dask array persisted on ``client``'s workers, each block built on
    its worker from a slice of ``base``; and the MB of blocks each worker holds."""
    import dask
    import dask.array as da
    from distributed import wait

    workers = sorted(client.nthreads())
    if len(bounds) < len(workers):
        idle = len(workers) - len(bounds)
        raise SystemExit(f"--blocks gives {len(bounds)} blocks for {len(workers)} workers: {idle} would hold "
                         "none; give at least one block per worker")  # fmt: skip
    # consecutive blocks on each worker, as even as the count allows (a worker idle or holding
    # more than its share sets the pace), each block built on its worker from a slice of the base
    # sent there once, and pinned: left to the scheduler, work stealing moved some copies at
    # startup (measured 18 blocks against 14, 177 MB against 138 MB)
    home = [workers[i * len(workers) // len(bounds)] for i in range(len(bounds))]
    needed = sorted({((a, b), w) for (_, a, b), w in zip(bounds, home, strict=True)})
    pieces = {(cut, w): client.scatter(base[cut[0] : cut[1]], workers=[w]) for cut, w in needed}
    copies = [
        client.submit(copy_block, pieces[((a, b), w)], workers=[w], allow_other_workers=False, pure=False)
        for (_, a, b), w in zip(bounds, home, strict=True)
    ]
    parts = [
        da.from_delayed(dask.delayed(copy), shape=(b - a, base.shape[1]), dtype=np.float64,
                        meta=sp.csr_matrix((0, 0)))
        for copy, (_, a, b) in zip(copies, bounds, strict=True)
    ]  # fmt: skip
    dX = client.persist(da.concatenate(parts, axis=0))
    with client.as_current():
        wait(dX)
    keys = [piece.key for piece in pieces.values()] + [copy.key for copy in copies]
    del pieces, copies, parts  # construction artefacts (dX holds the blocks): wait until they are gone
    while any(client.who_has(keys).values()):
        time.sleep(0.01)
    return dX, held_mb(client, dX, bounds, base)


def run_cluster(args, n_workers, reference):
    from corpora import best_of
    from distributed import Client, LocalCluster

    from textsel.distributed import BlockMatrix

    base, y0 = base_corpus(args.data_home, not args.file_order)
    y = np.tile(y0, args.replicas)
    with (
        LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        # what the block tasks import, before the clock, on every worker
        client.run(importlib.import_module, "textsel.distributed._worker")
        client.wait_for_workers(n_workers)
        bounds = block_bounds(base.shape[0], args.replicas, args.blocks)
        dX, held = persisted_blocks(client, base, bounds)
        t_stats, (stats, _) = best_of(lambda: stats_and_bns(dX, y), args.repeat)
        t_counts, t_counts_median = best_and_median(lambda: textsel.term_stats(dX, y), args.repeat)
        start = time.perf_counter()
        A = BlockMatrix(dX)
        model = textsel.WeightedProximalSVC().fit(A, y)
        t_fit = time.perf_counter() - start
        itn = int(model.n_iter_.max())
        per_iteration = (A.traffic["sent"] + A.traffic["received"]) / max(1, A.traffic["products"] / 2)
        workers = sorted(client.run(peak_rss_mb).values())
    ref = np.load(reference)
    return dict(
        config=f"{n_workers} worker{'s' if n_workers > 1 else ''}", docs=dX.shape[0],
        stats_s=t_stats, counts_s=t_counts, counts_median_s=t_counts_median, fit_s=t_fit, itn=itn,
        bytes_per_iteration=per_iteration,
        client_mb=peak_rss_mb(), worker_mb=workers, held_mb=held, blocks=len(bounds),
        stats_equal=bool(np.array_equal(stats.class_df, ref["class_df"])),
        coef_rel=float(np.abs(model.coef_ - ref["coef"]).max() / np.abs(ref["coef"]).max()),
        itn_diff=int(np.abs(model.n_iter_ - ref["n_iter"]).max()), f1=test_f1(args.data_home, model),
    )  # fmt: skip


def _count_repeatedly(X, y, repeat, queue):
    textsel.term_stats(X, y, n_jobs=1)
    start = time.perf_counter()
    for _ in range(repeat):
        textsel.term_stats(X, y, n_jobs=1)
    queue.put((time.perf_counter() - start) / repeat)


def kernel_scaling(args):
    """The counting kernel without Dask: one process on the whole matrix against two processes
    at once on its halves (one thread each): what two workers could reach with no overhead."""
    import multiprocessing

    base, y0 = base_corpus(args.data_home, not args.file_order)
    X = sp.vstack([base] * args.replicas, format="csr")
    y = np.tile(y0, args.replicas)
    half = X.shape[0] // 2
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    runs = {}
    for label, parts in (("1 process", [slice(None)]), ("2 processes", [slice(0, half), slice(half, None)])):
        procs = [
            context.Process(target=_count_repeatedly, args=(X[p], y[p], args.repeat, queue)) for p in parts
        ]
        for proc in procs:
            proc.start()
        runs[label] = max(queue.get() for _ in procs)
        for proc in procs:
            proc.join()
    return dict(config="kernel", one=runs["1 process"], two=runs["2 processes"])


def kernel_line(row):
    return (f"term_stats kernel alone, one thread per process: 1 process on all rows "
            f"{row['one']:.4f} s/call, 2 processes on halves {row['two']:.4f} s/call: "
            f"{row['one'] / row['two']:.2f}x throughput")  # fmt: skip


def run_pair(args):
    """term_stats on a 1-worker and a 2-worker cluster alive side by side, their calls alternated,
    so that both sizes see the same moment of this machine (whose speed drifts by up to a factor
    of two between minutes, more than the ratio sought): best and median of each, and the median of the
    ratios of calls made one after the other."""
    from distributed import Client, LocalCluster

    base, y0 = base_corpus(args.data_home, not args.file_order)
    y = np.tile(y0, args.replicas)
    bounds = block_bounds(base.shape[0], args.replicas, args.blocks)
    with contextlib.ExitStack() as stack:
        arrays = []
        for n_workers in (1, 2):
            cluster = stack.enter_context(LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                                       processes=True, dashboard_address=":0"))  # fmt: skip
            client = stack.enter_context(Client(cluster, set_as_default=False))
            client.run(importlib.import_module, "textsel.distributed._worker")
            client.wait_for_workers(n_workers)
            arrays.append((client, persisted_blocks(client, base, bounds)[0]))
        times = np.empty((args.repeat, 2))
        for i in range(-3, args.repeat):  # three rounds of warm-up
            for j, (client, dX) in enumerate(arrays):
                with client.as_current():
                    start = time.perf_counter()
                    textsel.term_stats(dX, y)
                    if i >= 0:
                        times[i, j] = time.perf_counter() - start
    return dict(config="side by side", one_best=times[:, 0].min(), two_best=times[:, 1].min(),
                one_median=float(np.median(times[:, 0])), two_median=float(np.median(times[:, 1])),
                pair_ratio=float(np.median(times[:, 0] / times[:, 1])))  # fmt: skip


def child(args):
    if args.run == "memory":
        row = run_memory(args, args.reference)
    elif args.run == "pair":
        row = run_pair(args)
    elif args.run == "kernel":
        row = kernel_scaling(args)
    else:
        row = run_cluster(args, int(args.run), args.reference)
    print("RESULT " + json.dumps(row))


def main():
    from corpora import argument_parser

    parser = argument_parser(__doc__.splitlines()[0], repeat=30)
    parser.add_argument("--replicas", type=int, default=16)
    parser.add_argument("--blocks", type=int, default=32)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run every configuration this many times, interleaved (this machine's speed drifts by up to a "
        "factor of two between minutes), and summarise the ratios over the rounds",
    )
    parser.add_argument(
        "--file-order",
        action="store_true",
        help="keep the corpus's documents in file order (newsgroup by newsgroup) instead of shuffling them",
    )
    parser.add_argument(
        "--kernel-scaling",
        action="store_true",
        help="only time the counting kernel in 1 process against 2, without Dask",
    )
    parser.add_argument("--run", help=argparse_hidden())
    parser.add_argument("--reference", help=argparse_hidden())
    args = parser.parse_args()
    if args.run:
        return child(args)
    if args.kernel_scaling:
        return print(kernel_line(kernel_scaling(args)))
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        reference = os.path.join(tmp, "memory.npz")
        for number in range(args.rounds):
            rows = []
            runs = ["memory", *args.workers.split(",")]
            for run in runs + ["pair", "kernel"] * (args.workers == "1,2"):
                cmd = [sys.executable, __file__, "--data-home", args.data_home, "--repeat", str(args.repeat),
                       "--replicas", str(args.replicas), "--blocks", str(args.blocks), "--run", run,
                       "--reference", reference] + ["--file-order"] * args.file_order  # fmt: skip
                done = subprocess.run(cmd, capture_output=True, text=True, cwd=os.path.dirname(__file__))
                line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
                if done.returncode or not line:
                    sys.exit(f"{run} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
                rows.append(json.loads(line[0][7:]))
            if args.rounds > 1:
                print(f"round {number + 1} of {args.rounds}:")
            report(rows)
            rounds.append(rows)
    if len(rounds) > 1 and len(rounds[0]) == 5:
        summary(rounds)
    if len(rounds) > 1:
        fit_summary(rounds)


def fit_summary(rounds):
    """The WPSVM fit on the largest cluster against the in-memory fit on two threads and on one,
    each round's configurations minutes apart: medians and ranges over the rounds."""
    ratios = {"2 threads": [], "1 thread": []}
    for rows in rounds:
        mem, cluster = rows[0], [r for r in rows if r["config"].endswith("workers")][-1]
        ratios["2 threads"].append(cluster["fit_s"] / mem["fit_s"])
        ratios["1 thread"].append(cluster["fit_s"] / mem["fit_one_thread_s"])
    print(f"WPSVM fit, {cluster['config']} / in memory, over {len(rounds)} rounds (median, range):")
    for key, values in ratios.items():
        print(f"  against {key}: {np.median(values):.2f}x ({min(values):.2f}x - {max(values):.2f}x)")


def summary(rounds):
    """The goals' ratios in every round (each from configurations run minutes apart, not hours),
    their medians and ranges."""
    keys = ("term_stats 2 workers / 1 worker, throughput", "the same, median calls",
            "term_stats+BNS, the same", "term_stats side by side, best of each",
            "term_stats side by side, median of paired calls",
            "the kernel alone (no Dask), 2 processes / 1", "WPSVM 2 workers / in memory, wall time",
            "largest worker peak / in-memory peak")  # fmt: skip
    ratios = {key: [] for key in keys}
    for mem, one, two, pair, kernel in rounds:
        values = (one["counts_s"] / two["counts_s"], one["counts_median_s"] / two["counts_median_s"],
                  one["stats_s"] / two["stats_s"], pair["one_best"] / pair["two_best"], pair["pair_ratio"],
                  kernel["one"] / kernel["two"],
                  two["fit_s"] / mem["fit_s"], max(two["worker_mb"]) / mem["client_mb"])  # fmt: skip
        for key, value in zip(ratios, values, strict=True):
            ratios[key].append(value)
    print(f"over {len(rounds)} rounds (median, range):")
    for key, values in ratios.items():
        fmt = "{:.1%}" if "peak" in key else "{:.2f}x"
        low, mid, high = (fmt.format(v) for v in (min(values), np.median(values), max(values)))
        print(f"  {key}: {mid} ({low} - {high})")


def argparse_hidden():
    import argparse

    return argparse.SUPPRESS


def report(rows):
    mem = rows[0]
    print(f"20 Newsgroups tf-idf x {mem['docs'] // 11314}: {mem['docs']} documents, {mem['terms']} terms, "
          f"{mem['nnz'] / 1e6:.1f}M nonzeros, {rows[1].get('blocks')} row blocks; "
          "20-class WPSVM, tol 1e-4")  # fmt: skip
    print(f"{'':12}{'term_stats+BNS':>16}{'term_stats':>12}{'docs/s':>12}{'WPSVM fit':>11}{'iters':>7}"
          f"{'s/iter':>8}"
          f"{'MB/iter':>9}{'client MB':>11}{'worker MB (peak)':>20}{'blocks MB':>12}"
          "  equal to in memory")  # fmt: skip
    extra = {r["config"]: r for r in rows if r["config"] in ("side by side", "kernel")}
    pair, kernel = extra.get("side by side"), extra.get("kernel")
    for r in rows[: len(rows) - len(extra)]:
        moved = f"{r['bytes_per_iteration'] / 1e6:9.1f}" if "bytes_per_iteration" in r else f"{'-':>9}"
        workers = ", ".join(f"{w:.0f}" for w in r["worker_mb"]) or "-"
        held = ", ".join(f"{w:.0f}" for w in r.get("held_mb", [])) or "-"
        same = (
            f"stats {'exactly' if r['stats_equal'] else 'NO'}, "
            f"coef {r['coef_rel']:.1e}, itn +-{r['itn_diff']}"
            if "stats_equal" in r else "(reference)"
        )  # fmt: skip
        print(f"{r['config']:12}{r['stats_s']:15.3f}s{r['counts_s']:11.3f}s"
              f"{mem['docs'] / r['counts_s']:12.0f}"
              f"{r['fit_s']:10.2f}s{r['itn']:7d}{r['fit_s'] / r['itn']:8.3f}{moved}{r['client_mb']:11.0f}"
              f"{workers:>20}{held:>12}  {same}")  # fmt: skip
    if len(rows) >= 3:
        one, two = rows[1], rows[2]
        print(f"2 workers / 1 worker, throughput: term_stats {one['counts_s'] / two['counts_s']:.2f}x "
              f"(median calls {one['counts_median_s'] / two['counts_median_s']:.2f}x), "
              f"term_stats+BNS {one['stats_s'] / two['stats_s']:.2f}x")  # fmt: skip
        print(f"distributed WPSVM (2 workers) / in memory: {two['fit_s'] / mem['fit_s']:.2f}x wall time")
        print(f"largest worker peak / in-memory peak: {max(two['worker_mb']) / mem['client_mb']:.1%} "
              f"(2 workers), {max(one['worker_mb']) / mem['client_mb']:.1%} (1 worker)")  # fmt: skip
    fitted = rows[: len(rows) - len(extra)]
    for r in fitted:
        print(f"{r['config']}: WPSVM test micro-F1 {r['f1']:.4f}")
    print(f"in memory on one thread: WPSVM fit {mem['fit_one_thread_s']:.2f}s")
    for r in fitted[1:]:
        print(f"{r['config']} / in memory: {r['fit_s'] / mem['fit_one_thread_s']:.2f}x one thread, "
              f"{r['fit_s'] / mem['fit_s']:.2f}x two threads")  # fmt: skip
    if pair:
        print(f"term_stats side by side (a 1-worker and a 2-worker cluster, calls alternated): "
              f"1 worker best {pair['one_best']:.3f}s, median {pair['one_median']:.3f}s; 2 workers best "
              f"{pair['two_best']:.3f}s, median {pair['two_median']:.3f}s; 2 workers / 1 worker "
              f"{pair['one_best'] / pair['two_best']:.2f}x best of each, {pair['pair_ratio']:.2f}x median "
              "of paired calls")  # fmt: skip
    if kernel:
        print(kernel_line(kernel) + " (the ceiling for two workers on this machine now)")


if __name__ == "__main__":
    main()
