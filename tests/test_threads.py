"""Threading: results do not depend on the number of threads, and the nogil kernels may run
from many Python threads at once (the PyWavelets-style concurrency test)."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_corpus

import textsel
from textsel import _parallel
from textsel._ext.dealing import class_loads, deal_longest_first
from textsel._parallel import effective_n_jobs, split_blocks, split_groups


@pytest.fixture
def tiny_blocks(monkeypatch, many_cores):
    """Split work across threads however small it is, and into as many threads as asked for
    whatever the machine's cores, so the tests exercise the threaded paths."""
    monkeypatch.setattr(_parallel, "MIN_WORK_PER_THREAD", 1)


def big_corpus(seed=0, n_docs=1500, n_terms=800, n_classes=12):
    X, y = random_corpus(n_docs=n_docs, n_terms=n_terms, n_classes=n_classes, density=0.05, seed=seed)
    return X, y


@pytest.mark.parametrize("n_jobs", [1, 2, 3, 8])
def test_results_do_not_depend_on_jobs(n_jobs, tiny_blocks):
    X, y = big_corpus()
    Y = (np.random.default_rng(1).random((X.shape[0], 7)) < 0.2).astype(np.int8)
    for labels in (y, Y):
        reference = textsel.term_stats(X, labels, n_jobs=1)
        stats = textsel.term_stats(X, labels, n_jobs=n_jobs)
        assert stats == reference
        for metric in ("bns", "ig", "odds"):
            np.testing.assert_array_equal(
                textsel.score(stats, metric, n_jobs=n_jobs),
                textsel.score(reference, metric, n_jobs=1),
            )


def test_kernels_run_concurrently_from_many_threads(tiny_blocks):
    corpora = [big_corpus(seed) for seed in range(6)]
    expected = [textsel.score(textsel.term_stats(X, y, n_jobs=1), "bns", n_jobs=1) for X, y in corpora]

    def work(i):
        X, y = corpora[i % 6]
        return i % 6, textsel.score(textsel.term_stats(X, y), "bns")

    with ThreadPoolExecutor(8) as pool:
        for i, table in pool.map(work, range(48)):
            np.testing.assert_array_equal(table, expected[i])


def test_groups_balance_a_heavy_item():
    weights = np.array([1.0, 1.0, 10.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]) * 1e6
    groups = split_groups(weights, 2)
    assert sorted(np.concatenate(groups).tolist()) == list(range(10))
    loads = sorted(weights[g].sum() for g in groups)
    assert loads == [9e6, 10e6]
    # contiguous blocks cannot separate the heavy item from its neighbours
    assert split_blocks(weights, 2) == [(0, 2), (2, 10)]


@pytest.mark.parametrize("n_groups", [1, 2, 3, 5])
def test_dealing_is_greedy_longest_first(n_groups):
    """The Cython dealer gives each item, heaviest first, to the least loaded group (as the plain
    Python greedy rule does, ties to the lower index)."""
    rng = np.random.default_rng(n_groups)
    weights = np.round(rng.random(60) * 20)  # many ties
    order = np.argsort(-weights, kind="stable")
    loads, expected = [0.0] * n_groups, np.empty(60, dtype=np.int64)
    for i in order:
        g = loads.index(min(loads))
        expected[i] = g
        loads[g] += weights[i]
    np.testing.assert_array_equal(deal_longest_first(weights, n_groups), expected)


def test_class_loads_sum_row_lengths():
    X = sp.random(50, 30, density=0.2, format="csr", random_state=0)
    class_docs = np.array([3, 7, 7, 49, 0, 1, 2], dtype=np.int64)
    class_ptr = np.array([0, 2, 2, 4, 7], dtype=np.int64)  # class 1 is empty
    row_nnz = np.diff(X.indptr)
    expected = [row_nnz[class_docs[a:b]].sum() for a, b in zip(class_ptr[:-1], class_ptr[1:], strict=True)]
    np.testing.assert_array_equal(class_loads(X.indptr, class_ptr, class_docs), expected)


def test_small_work_stays_on_one_thread():
    assert len(split_groups(np.ones(5), 4)) == 1
    assert split_blocks(np.ones(5), 4) == [(0, 5)]


@pytest.mark.parametrize("bad, exc", [(0, ValueError), (-2, ValueError), (1.5, TypeError), ("2", TypeError)])
def test_n_jobs_is_checked(bad, exc):
    with pytest.raises(exc, match="n_jobs"):
        effective_n_jobs(bad)
    X, y = random_corpus()
    with pytest.raises(exc, match="n_jobs"):
        textsel.term_stats(X, y, n_jobs=bad)


def test_int64_indices_on_jobs(tiny_blocks):
    X, y = big_corpus()
    X64 = sp.csr_matrix(X.shape)
    X64.data, X64.indices, X64.indptr = X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64)
    assert textsel.term_stats(X64, y, n_jobs=2) == textsel.term_stats(X, y, n_jobs=1)


def test_threadpoolctl_limits_textsel_threads():
    """Issue 15: threadpool_limits (which scikit-learn and joblib use) limits textsel's kernels,
    and lists textsel among the thread pools it controls; results do not change."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from textsel._parallel import available_cores, default_n_jobs

    assert any(info["user_api"] == "textsel" for info in threadpool_info())
    X, y = random_corpus(n_docs=400, n_terms=300, n_classes=6, seed=2)
    unlimited = textsel.score(textsel.term_stats(X, y), "bns")
    with threadpool_limits(limits=1):
        assert default_n_jobs() == 1
        limited = textsel.score(textsel.term_stats(X, y), "bns")
    with threadpool_limits(limits=1, user_api="blas"):  # another library's limit leaves textsel alone
        assert default_n_jobs() == min(available_cores(), default_n_jobs())
    np.testing.assert_array_equal(limited, unlimited)


@pytest.mark.parametrize("env, expected", [({"OMP_NUM_THREADS": "1"}, 1), ({"TEXTSEL_NUM_THREADS": "1"}, 1),
                                           ({"OMP_NUM_THREADS": "junk"}, None)])  # fmt: skip
def test_environment_thread_limits(env, expected):
    """OMP_NUM_THREADS (set by joblib's workers and Dask's nannies) and TEXTSEL_NUM_THREADS bound
    the default; a value that is not a positive integer is ignored."""
    code = "from textsel._parallel import default_n_jobs as d, available_cores as a; print(d(), a())"
    clean = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "TEXTSEL_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True,
                         check=True)  # fmt: skip
    got, cores = map(int, out.stdout.split())
    assert got == (cores if expected is None else expected)


def test_joblib_workers_do_not_oversubscribe():
    """In joblib's worker processes (loky sets OMP_NUM_THREADS to cores / n_jobs) textsel's
    default thread count shrinks to its share."""
    from joblib import Parallel, delayed

    from textsel._parallel import available_cores, default_n_jobs

    counts = Parallel(n_jobs=2, backend="loky")(delayed(default_n_jobs)() for _ in range(2))
    assert max(counts) <= max(1, available_cores() // 2)


def test_selectors_take_n_jobs():
    X, y = random_corpus(n_docs=300, n_terms=200, n_classes=5, seed=3)
    for cls in (textsel.TermSelector, textsel.ScalableTermSelector):
        one = cls(k=20, n_jobs=1).fit(X, y)
        many = cls(k=20, n_jobs=2).fit(X, y)
        np.testing.assert_array_equal(one.get_support(), many.get_support())
    with pytest.raises(ValueError, match="n_jobs"):
        textsel.TermSelector(k=5, n_jobs=0).fit(X, y)
