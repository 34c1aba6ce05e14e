"""term_stats + BNS for every class, against scikit-learn's chi2 and a numpy/scipy reference.

Same run, same matrix: TfidfVectorizer(sublinear_tf=True, min_df=2) on the training split of
Reuters-21578 ModApte (90 categories, multi-label indicator y) and of 20 Newsgroups bydate
(20 classes).  Prints best-of-N and median wall times, the ratios, peak extra memory traced by
tracemalloc against the size of the (classes x terms) output table, and checks that textsel's
BNS table equals the reference's.

    python benchmarks/bench_termstats.py [--data-home ../shared/data] [--repeat 21]

``--processes N`` instead runs the timing in N fresh processes, one after the other (each loads the
two matrices, vectorized once by the parent into a temporary file, and times textsel and
scikit-learn's chi2 best of ``--repeat``), and prints every process's ratio and their
distribution: which page-fault regime a process lands in is decided by its own heap, so one
process's figure says little.

    python benchmarks/bench_termstats.py --processes 10 --repeat 31
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy
import sklearn
from corpora import argument_parser, benchmark_corpora
from scipy.special import ndtri
from sklearn.feature_selection import chi2 as sklearn_chi2

import textsel
from textsel._parallel import available_cores

_POOL = ThreadPoolExecutor(1)


def numpy_reference_bns(X, Y):
    """BNS the straightforward way: presence matrix, X_bin' Y, rates, clip, ndtri."""
    Xb = X.copy()
    Xb.data[:] = 1.0
    class_df = np.asarray((Xb.T @ Y).T)
    df = np.asarray(Xb.sum(axis=0)).ravel()
    pos = Y.sum(axis=0)[:, None]
    neg = X.shape[0] - pos
    tpr = np.clip(class_df / pos, 0.0005, 0.9995)
    fpr = np.clip((df - class_df) / neg, 0.0005, 0.9995)
    return np.abs(ndtri(tpr) - ndtri(fpr))


def fresh_tables(shape):
    """Allocate and write the two tables a term_stats + score call must produce, on two threads:
    the part of textsel's time that any implementation returning them pays (page faults and
    zeroing of fresh memory dominate it)."""
    counts = np.empty(shape, dtype=np.int64)
    scores = np.empty(shape, dtype=np.float64)
    half = shape[0] // 2
    for table, value in ((counts, 0), (scores, 1.0)):
        job = _POOL.submit(table[half:].fill, value)
        table[:half].fill(value)
        job.result()
    return scores


def timings(func, repeat):
    func()  # warm-up: first-touch page faults and imports are not what we measure
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def peak_extra_bytes(func):
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    result = func()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del result
    return peak


def run(name, X, y, Y_dense, repeat):
    n_classes = Y_dense.shape[1]
    out_bytes = n_classes * X.shape[1] * 8
    print(f"\n== {name}: {X.shape[0]} docs x {X.shape[1]} terms, {X.nnz} nonzeros, {n_classes} classes")
    ours = textsel.score(textsel.term_stats(X, y), "bns")
    ref = numpy_reference_bns(X, Y_dense)
    print(f"max |textsel BNS - numpy/scipy BNS| = {np.max(np.abs(ours - ref)):.2e}")
    shape = (n_classes, X.shape[1])
    methods = {
        "textsel term_stats + bns": lambda: textsel.score(textsel.term_stats(X, y), "bns"),
        "floor: fresh tables only": lambda: fresh_tables(shape),
        "textsel, 1 thread": lambda: textsel.score(textsel.term_stats(X, y, n_jobs=1), "bns", n_jobs=1),
        "scikit-learn chi2": lambda: sklearn_chi2(X, y),
        "numpy/scipy reference bns": lambda: numpy_reference_bns(X, Y_dense),
    }
    results = {}
    print(f"{'method':<28}{'best ms':>10}{'median ms':>11}{'peak extra MB':>15}{'x output':>10}")
    for label, func in methods.items():
        best, median = timings(func, repeat)
        peak = peak_extra_bytes(func)
        results[label] = (best, median)
        row = f"{label:<28}{best * 1e3:>10.2f}{median * 1e3:>11.2f}"
        print(f"{row}{peak / 2**20:>15.1f}{peak / out_bytes:>10.2f}")
    base_best, base_median = results["textsel term_stats + bns"]
    for anchor in ("scikit-learn chi2", "numpy/scipy reference bns"):
        best, median = results[anchor]
        print(
            f"ratio {anchor} / textsel: {best / base_best:.1f}x (best), {median / base_median:.1f}x (median)"
        )
    one_thread = results["scikit-learn chi2"][0] / results["textsel, 1 thread"][0]
    print(f"ratio scikit-learn chi2 / textsel 1 thread: {one_thread:.1f}x (best)")
    print(f"output table: {out_bytes / 2**20:.1f} MB")


def child(path, repeat):
    """One fresh process: best-of-``repeat`` textsel and chi2 times on each saved matrix."""
    import scipy.sparse as sp

    saved = np.load(path, allow_pickle=False)
    out = {}
    for name in json.loads(str(saved["names"])):
        X = sp.csr_matrix((saved[f"{name}/data"], saved[f"{name}/indices"], saved[f"{name}/indptr"]),
                          shape=tuple(saved[f"{name}/shape"]))  # fmt: skip
        y = saved[f"{name}/y"]
        ours, _ = timings(lambda X=X, y=y: textsel.score(textsel.term_stats(X, y), "bns"), repeat)
        ref, _ = timings(lambda X=X, y=y: sklearn_chi2(X, y), repeat)
        out[name] = (ours, ref)
    print("RESULT " + json.dumps(out))


def processes(args):
    """Run :func:`child` in ``args.processes`` fresh processes and print the ratio distribution."""
    arrays, names = {}, []
    for corpus in benchmark_corpora(args.data_home):
        X = corpus.X.tocsr()
        names.append(corpus.name)
        for field in ("data", "indices", "indptr"):
            arrays[f"{corpus.name}/{field}"] = getattr(X, field)
        arrays[f"{corpus.name}/shape"] = np.array(X.shape)
        arrays[f"{corpus.name}/y"] = np.asarray(corpus.y)
    ratios = {name: [] for name in names}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "matrices.npz")
        np.savez(path, names=json.dumps(names), **arrays)
        for i in range(args.processes):
            done = subprocess.run([sys.executable, __file__, "--child", path, "--repeat", str(args.repeat)],
                                  capture_output=True, text=True, check=True)  # fmt: skip
            result = json.loads(next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))[7:])
            cells = []
            for name in names:
                ours, ref = result[name]
                ratios[name].append(ref / ours)
                cells.append(
                    f"{name}: textsel {ours * 1e3:6.2f} ms, chi2 {ref * 1e3:6.2f} ms, {ref / ours:5.1f}x"
                )
            print(f"process {i + 1:2d}: " + ";  ".join(cells))
    for name in names:
        r = sorted(ratios[name])
        print(f"{name}: scikit-learn chi2 / textsel term_stats + bns, best of {args.repeat} per process, "
              f"over {len(r)} processes: worst {r[0]:.1f}x, median {statistics.median(r):.1f}x, "
              f"best {r[-1]:.1f}x")  # fmt: skip


def main():
    parser = argument_parser(__doc__.splitlines()[0], repeat=21)
    parser.add_argument("--processes", type=int, help="time in this many fresh processes")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument(
        "--shuffle",
        action="store_true",
        help="documents in a random order (seed 0) instead of the files' order, in which each class's "
        "documents lie together",
    )
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.repeat)
    if args.processes:
        return processes(args)
    print(f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"scikit-learn {sklearn.__version__}, textsel {textsel.__version__}; "
          f"{available_cores()} cores, {platform.processor() or platform.machine()}")  # fmt: skip
    for corpus in benchmark_corpora(args.data_home):
        X, y, Y, name = corpus.X, corpus.y, corpus.Y, f"{corpus.name} train"
        if args.shuffle:
            order = np.random.default_rng(0).permutation(X.shape[0])
            X, y, Y, name = X[order], y[order], Y[order], name + ", rows shuffled"
        run(name, X, y, Y, args.repeat)


if __name__ == "__main__":
    main()
