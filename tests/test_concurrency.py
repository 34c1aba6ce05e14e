"""Eight threads on shared read-only inputs (issue 13, "Concurrency and determinism").

Every entry point whose kernels release the GIL is called from eight threads at once on inputs
that cannot be written (``setflags(write=False)`` arrays, and a read-only memory map), and must
give results bit for bit equal to a serial call on ordinary arrays (the randomized leverage
scores to 1e-12: their OpenBLAS calls are not bitwise repeatable under concurrency, see
``NOT_BITWISE_UNDER_CONCURRENCY``); seeded calls must repeat bit for bit across runs and thread
counts.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_corpus

import textsel
from textsel.masking import evaluate_subsets
from textsel.sampling import feature_probabilities

N_THREADS = 8

#: entry points whose results may differ in the last bits when called from several threads at
#: once: the randomized leverage scores orthonormalise by Cholesky QR in OpenBLAS (Q'Q, potrf,
#: Q R^-1), and OpenBLAS decides per call how many of its threads to use, which a busy thread pool
#: changes, and with it the order of the sums (seen in about 1 call in 250; a serial call repeats
#: bitwise: test_seeded_calls_repeat_across_runs_and_thread_counts)
NOT_BITWISE_UNDER_CONCURRENCY = {"feature_probabilities"}


def frozen(X):
    """A copy of the CSR matrix ``X`` whose buffers are read-only."""
    X = X.copy()
    for buf in (X.data, X.indices, X.indptr):
        buf.setflags(write=False)
    return X


def mapped(X, tmp_path):
    """``X`` with its buffers in read-only memory-mapped files."""
    arrays = {}
    for name in ("data", "indices", "indptr"):
        buf = getattr(X, name)
        path = tmp_path / f"{name}.npy"
        np.save(path, buf)
        arrays[name] = np.load(path, mmap_mode="r")
    out = sp.csr_matrix(X.shape, dtype=X.dtype)
    out.data, out.indices, out.indptr = arrays["data"], arrays["indices"], arrays["indptr"]
    return out


def corpus():
    X, y = random_corpus(n_docs=600, n_terms=300, n_classes=3, seed=11)
    return sp.csr_matrix(X, dtype=np.float64), np.asarray(y)


def entry_points(X, y):
    """name -> a call on (X, y) returning arrays to compare."""
    binary = (y == 0).astype(int)
    Y = np.stack([y == c for c in range(3)], axis=1).astype(np.float64)
    svm = textsel.DualLinearSVC(random_state=0, n_jobs=1).fit(X[:400], binary[:400])

    def stats():
        s = textsel.term_stats(X, y, n_jobs=2)
        return s.class_df, s.df

    return {
        "term_stats": stats,
        "score bns": lambda: textsel.score(textsel.term_stats(X, y), "bns", n_jobs=2),
        "score ig": lambda: textsel.score(textsel.term_stats(X, y), "ig", n_jobs=2),
        "lsqr": lambda: textsel.lsqr(X, Y, damp=0.1, n_jobs=2).x,
        "DualLinearSVC": lambda: textsel.DualLinearSVC(random_state=3, n_jobs=2).fit(X, binary).coef_,
        "WeightedProximalSVC": lambda: textsel.WeightedProximalSVC(tol=1e-8).fit(X, y).coef_,
        "RLSClassifier": lambda: textsel.RLSClassifier(tol=1e-8).fit(X, y).coef_,
        "TermSelector": lambda: textsel.TermSelector("bns", k=50).fit(X, y).transform(X).toarray(),
        "ScalableTermSelector": lambda: textsel.ScalableTermSelector(k=50).fit(X, y).transform(X).toarray(),
        "evaluate_subsets": lambda: np.array(
            [
                [r["auc"], r["best_f1"]]
                for r in evaluate_subsets(
                    svm, X[:400], binary[:400], X[400:], binary[400:], [0.1, 0.5, 1.0], norm=None
                )
            ]
        ),  # fmt: skip
        "feature_probabilities": lambda: feature_probabilities(
            X, "ss", 20, method="randomized", random_state=5, n_jobs=2
        ),
    }


def as_tuple(result):
    return result if isinstance(result, tuple) else (result,)


@pytest.mark.parametrize("layout", ["read-only arrays", "memory map"])
def test_eight_threads_on_read_only_inputs_equal_a_serial_call(layout, tmp_path):
    X, y = corpus()
    serial = {name: as_tuple(call()) for name, call in entry_points(X, y).items()}
    shared = frozen(X) if layout == "read-only arrays" else mapped(X, tmp_path)
    y_shared = y.copy()
    y_shared.setflags(write=False)
    calls = entry_points(shared, y_shared)
    with ThreadPoolExecutor(N_THREADS) as pool:
        for name, call in calls.items():
            results = [f.result() for f in [pool.submit(call) for _ in range(N_THREADS)]]
            for result in results:
                for got, want in zip(as_tuple(result), serial[name], strict=True):
                    if name in NOT_BITWISE_UNDER_CONCURRENCY:
                        np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, err_msg=name)
                    else:
                        np.testing.assert_array_equal(got, want, err_msg=name)
    np.testing.assert_array_equal(shared.data, X.data)  # nothing wrote to the shared inputs


def test_seeded_calls_repeat_across_runs_and_thread_counts(many_cores):
    """The same random_state gives bitwise equal results whatever n_jobs is."""
    X, y = corpus()
    binary = (y == 0).astype(int)
    for make in (
        lambda t: textsel.DualLinearSVC(random_state=7, n_jobs=t).fit(X, binary).coef_,
        lambda t: feature_probabilities(X, "ss", 20, method="randomized", random_state=7, n_jobs=t),
        lambda t: textsel.lsqr(X, binary.astype(float), damp=0.5, n_jobs=t).x,
        lambda t: textsel.score(textsel.term_stats(X, y, n_jobs=t), "bns", n_jobs=t),
    ):
        first = make(1)
        for threads in (1, 2, 3, 8):
            np.testing.assert_array_equal(make(threads), first)
