"""The row-parallel solve in memory (``textsel/_row_groups.py``): how rows are cut into groups,
the one tree that adds the groups' parts, and what that buys: the same answer to the last bit on
any number of threads, equal to scipy's LSQR and to the products written out in numpy."""

import os

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import lsqr as scipy_lsqr

import textsel
from textsel import _row_groups as rg
from textsel._ext.ccore import Interrupt


@pytest.fixture
def small_groups(monkeypatch):
    """Groups of a few thousand stored values, so that a test matrix is cut into many."""
    monkeypatch.setattr(rg, "MIN_GROUP_NNZ", 500)
    monkeypatch.setattr(rg, "NNZ_PER_UNKNOWN", 1)


def _matrix(m=3000, n=200, density=0.02, seed=0, index_dtype=np.int32):
    X = sp.random(m, n, density=density, random_state=seed, format="csr")
    X.indices, X.indptr = X.indices.astype(index_dtype), X.indptr.astype(index_dtype)
    return X


def test_the_group_count_is_a_power_of_two_that_each_group_earns():
    assert rg.group_count(0, 10) == 1
    assert rg.group_count(rg.MIN_GROUP_NNZ - 1, 1) == 1  # too few values for a second thread
    assert rg.group_count(3 * rg.MIN_GROUP_NNZ, 1) == 2
    # 20 Newsgroups x16: 27.4M values, 56,437 unknowns
    assert rg.group_count(27_400_000, 56_437) == 16
    assert rg.group_count(10**12, 10) == rg.MAX_GROUPS
    # a long part of A'D u per group needs as many values per unknown
    assert rg.group_count(10**9, 10**8) == 1
    for nnz in range(0, 5_000_000, 77_777):
        count = rg.group_count(nnz, 1000)
        assert count & (count - 1) == 0 and 1 <= count <= rg.MAX_GROUPS


def test_group_bounds_cover_the_rows_with_about_equal_values():
    X = _matrix(m=5000)
    for n_groups in (1, 2, 3, 8, 64):
        bounds = rg.group_bounds(X.indptr, n_groups)
        assert bounds[0] == 0 and bounds[-1] == X.shape[0] and bounds.size == n_groups + 1
        assert np.all(np.diff(bounds) >= 0)
        sizes = np.diff(X.indptr[bounds])
        assert sizes.max() - sizes.min() <= 2 * np.diff(X.indptr).max()
    # one row holding every value: every group but one is empty, none is lost
    bounds = rg.group_bounds(np.array([0, 0, 100, 100]), 4)
    assert bounds[0] == 0 and bounds[-1] == 3 and np.all(np.diff(bounds) >= 0)


@pytest.mark.parametrize("n_parts", range(1, 10))
def test_the_tree_is_fixed_by_the_number_of_parts(n_parts):
    """Written out: the largest power of two below the count on the left, recursively."""
    expected = {
        1: "0", 2: "(0+1)", 3: "((0+1)+2)", 4: "((0+1)+(2+3))", 5: "(((0+1)+(2+3))+4)",
        6: "(((0+1)+(2+3))+(4+5))", 7: "(((0+1)+(2+3))+((4+5)+6))", 8: "(((0+1)+(2+3))+((4+5)+(6+7)))",
        9: "((((0+1)+(2+3))+((4+5)+(6+7)))+8)",
    }  # fmt: skip
    parts = [str(k) for k in range(n_parts)]
    assert rg.tree_reduce(parts, lambda a, b: f"({a}+{b})") == expected[n_parts]


def test_norm_parts_combine_without_leaving_the_double_range():
    rng = np.random.default_rng(1)
    for exponent in (0, 600, -600):
        values = np.ldexp(rng.uniform(0.5, 1, size=(5, 40)), exponent)
        parts = []
        for row in values:
            scale = np.abs(row).max(keepdims=True)
            parts.append((scale, np.array([np.sum((row / scale) ** 2)])))
        scale, ssq = rg.tree_reduce(parts, rg.add_norms)
        exact = np.ldexp(np.sqrt(np.sum(np.ldexp(values, -exponent) ** 2)), exponent)
        np.testing.assert_allclose(scale * np.sqrt(ssq), exact, rtol=1e-14)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_a_step_on_many_groups_is_the_products_written_out(small_groups, index_dtype, fit_intercept):
    X = _matrix(index_dtype=index_dtype)
    m, n = X.shape
    K = 11  # two lane blocks, the second partly filled
    rng = np.random.default_rng(2)
    B, W = rng.normal(size=(m, K)), rng.uniform(0.5, 2, size=(m, K))
    groups = rg.RowGroups(X, B, W, fit_intercept, 3)
    assert len(groups.groups) >= 8
    operator = groups.operator()  # its Python calls, its tasks on three threads
    A = sp.hstack([X, np.ones((m, 1))]).tocsr() if fit_intercept else X
    u0 = rng.normal(size=(m, K))
    groups.uT.T[:] = u0
    cols = np.array([9, 0, 4, 10, 2, 7, 1, 3, 5])  # columns 6 and 8 do not run
    P = cols.size
    v, vcoef, ucoef = rng.normal(size=(A.shape[1], P)), rng.uniform(0.5, 1.5, P), -rng.uniform(size=P)
    unorm, g = np.empty(P), np.empty((A.shape[1], P))
    operator.step(cols, v, vcoef, ucoef, unorm, g)
    operator.close()
    u = vcoef * W[:, cols] * (A @ v) + ucoef * u0[:, cols]
    np.testing.assert_allclose(groups.uT.T[:, cols], u, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(groups.uT.T[:, [6, 8]], u0[:, [6, 8]])
    np.testing.assert_allclose(unorm, np.linalg.norm(u, axis=0), rtol=1e-13)
    np.testing.assert_allclose(g, A.T @ (W[:, cols] * u), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("K", [1, 3, 20])
def test_the_answer_is_the_same_to_the_last_bit_on_any_number_of_threads(small_groups, K):
    X = _matrix(m=4000, n=300)
    rng = np.random.default_rng(3)
    b, weights = rng.normal(size=(X.shape[0], K)), rng.uniform(0.2, 3, size=(X.shape[0], 1))
    options = dict(damp=0.3, row_weights=weights, fit_intercept=True)
    results = [textsel.lsqr(X, b, n_jobs=t, **options) for t in (1, 2, 3, 4, 7)]
    assert len(rg.RowGroups(X, b, None, True, 1).groups) >= 8
    for other in results[1:]:
        np.testing.assert_array_equal(other.x, results[0].x)
        np.testing.assert_array_equal(other.itn, results[0].itn)
        np.testing.assert_array_equal(other.r1norm, results[0].r1norm)


def test_many_groups_solve_as_scipy_does(small_groups):
    X = _matrix(m=2500, n=150, density=0.05)
    b = np.random.default_rng(4).normal(size=X.shape[0])
    tight = dict(atol=1e-12, btol=1e-12, iter_lim=400)
    ours = textsel.lsqr(X, b, damp=0.05, n_jobs=2, **tight)
    ref = scipy_lsqr(X, b, damp=0.05, **tight)
    np.testing.assert_allclose(ours.x, ref[0], rtol=1e-9, atol=1e-12)
    assert abs(ours.itn - ref[2]) <= 2


def test_a_group_refuses_a_bad_structure_or_value_once_before_any_iteration():
    X = _matrix(m=50, n=10, density=0.3)
    b = np.ones(50)
    bad = X.copy()
    bad.indices[3] = 10  # column out of range
    with pytest.raises(ValueError, match="lsqr"):
        textsel.lsqr(bad, b)
    bad = X.copy()
    bad.data[5] = np.nan
    with pytest.raises(ValueError, match="lsqr"):
        textsel.lsqr(bad, b)
    assert np.isfinite(X.data).all()  # the caller's matrix untouched


def test_a_column_solves_to_the_same_bits_alone_or_among_others(small_groups):
    """Alone, a column runs in lane blocks of 1 (an eighth of the memory per stored value); among
    others, in a lane of 8; its sums are the same either way, as its answer."""
    X = _matrix(m=3000, n=250)
    rng = np.random.default_rng(5)
    b = rng.normal(size=(X.shape[0], 10))
    weights = rng.uniform(0.5, 2, size=b.shape)
    together = textsel.lsqr(X, b, damp=0.2, row_weights=weights, fit_intercept=True, n_jobs=2)
    for j in (0, 7, 9):
        alone = textsel.lsqr(X, b[:, j], damp=0.2, row_weights=weights[:, j], fit_intercept=True, n_jobs=3)
        np.testing.assert_array_equal(alone.x, together.x[:, j])
        assert alone.itn == together.itn[j]


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_row_norms_count_a_repeated_column_once_and_ignore_the_threads(index_dtype):
    """The norms the proximal SVMs' estimates use, by the C core: numpy's norms of the dense rows,
    for unsorted rows, repeated columns (their values add up, as scipy's matrix has them), empty
    rows and any number of threads; the caller's matrix untouched."""
    from textsel._products import row_norms

    X = _matrix(m=2000, n=60, density=0.1, index_dtype=index_dtype)
    X.data[X.indptr[10] : X.indptr[11]] = 0  # row 10 stores only zeros
    X.eliminate_zeros()  # and then nothing
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    order = np.lexsort((np.random.default_rng(6).permutation(X.nnz), rows))  # shuffled within rows
    X = sp.csr_matrix((X.data[order], X.indices[order], X.indptr), shape=X.shape)
    X.indices[X.indptr[5]] = X.indices[X.indptr[5] + 1]  # row 5 repeats a column
    assert X.indptr[10] == X.indptr[11]
    before = X.copy()
    dense = np.linalg.norm(X.toarray(), axis=1)
    for n_jobs in (1, 2, 5):
        np.testing.assert_allclose(row_norms(X, n_jobs), dense, rtol=1e-14, atol=0)
    assert (X != before).nnz == 0 and not X.has_canonical_format


def test_fewer_groups_than_jobs_share_the_lane_blocks_and_keep_the_answer():
    """A matrix of one or two groups (here at the default sizes) runs several lane blocks at once
    so that every thread has work; a lane block's columns are computed apart from the others', so
    the answer is still the same to the last bit."""
    X = _matrix(m=3000, n=300)
    assert len(rg.RowGroups(X, np.ones((3000, 1)), None, False, 1).groups) == 1
    b = np.random.default_rng(8).normal(size=(X.shape[0], 21))  # lane blocks of 8, 8 and 5
    results = [textsel.lsqr(X, b, damp=0.1, fit_intercept=True, n_jobs=t) for t in (1, 2, 3, 4)]
    for other in results[1:]:
        np.testing.assert_array_equal(other.x, results[0].x)
        np.testing.assert_array_equal(other.itn, results[0].itn)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("scale", [1.0, 1e300, 1e-300])
def test_the_groups_operator_keeps_its_bits_on_threads_and_through_python(small_groups, fit_intercept, scale):
    """The solver iterates on the groups as one C operator, its tasks on a team of 1, 2 or 3
    threads (no call into Python per iteration), or calls the same operator through Python's
    protocol: the same bits, on many groups, 17 columns (two full lane blocks and one alone),
    weights, and right-hand sides the solver must rescale; a closed team stays closed."""
    from textsel._ext.ccore import lsqr_rowop
    from textsel.least_squares import prepare

    class ThroughPython:  # no rowop_capsule: lsqr_rowop calls start and step
        def __init__(self, operator):
            self.start, self.step = operator.start, operator.step

    X = _matrix(m=4000, n=300, index_dtype=np.int64)
    rng = np.random.default_rng(8)
    b, w = scale * rng.normal(size=(X.shape[0], 17)), rng.uniform(0.2, 3, size=(X.shape[0], 17))
    B, damps, weights, tolerances, limit = prepare(X.shape[0], b, 0.3, w, 1e-10, 1e-10, 1e8, None)
    solved = []
    for threads, python in ((1, False), (2, False), (3, False), (2, True)):
        groups = rg.RowGroups(X, B, weights, fit_intercept, threads)
        operator = groups.operator()
        try:
            run = ThroughPython(operator) if python else operator
            solved.append(
                lsqr_rowop(run, *X.shape, fit_intercept, 17, damps, *tolerances, limit, Interrupt())
            )
        finally:
            operator.close()
            operator.close()
    assert len(groups.groups) >= 8
    for x, report in solved[1:]:
        np.testing.assert_array_equal(x, solved[0][0])
        for key, value in report.items():
            np.testing.assert_array_equal(value, solved[0][1][key])


_TEAM_SCRIPT = """
import os, signal, sys, threading, time
import numpy as np, scipy.sparse as sp
from textsel import _row_groups as rg
rg.MIN_GROUP_NNZ, rg.NNZ_PER_UNKNOWN = 4000, 1
X = sp.random(3000, 300, density=0.02, format="csr", random_state=0)
groups = rg.RowGroups(X, np.ones((3000, 9)), None, False, 8)
tasks = lambda: len(os.listdir("/proc/self/task"))
base = tasks()
sys.setswitchinterval(1e-6)
busy = [threading.Thread(target=lambda: sum(range(10**7)), daemon=True) for _ in range(2)]
for thread in busy:
    thread.start()
for _ in range(300):  # dropped without close(): its members end without the GIL
    op = groups.operator()
    del op
for thread in busy:
    thread.join()
stop = False
def pest():  # Ctrl-C every 3 ms while teams start and stop
    while not stop:
        time.sleep(0.003)
        os.kill(os.getpid(), signal.SIGINT)
armed = False
def interrupt(signum, frame):  # Ctrl-C as Python's own handler raises it, only while a team starts
    global armed  # or stops: landing in this script's own loop would end the script, not test it
    if armed:
        armed = False
        raise KeyboardInterrupt
signal.signal(signal.SIGINT, interrupt)
threading.Thread(target=pest, daemon=True).start()
hits, start = 0, time.time()
while time.time() - start < 2:
    try:
        armed = True
        op = groups.operator()
        op.close()
        armed = False
    except KeyboardInterrupt:
        hits += 1
stop = True
signal.signal(signal.SIGINT, signal.SIG_IGN)
wait = time.time()
while tasks() > base + 1 and time.time() - wait < 5:  # the pest, and members still exiting
    time.sleep(0.01)
print("threads", max(tasks() - base - 1, 0), "interrupts", hits, flush=True)
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts the process's threads in /proc")
def test_a_team_ends_its_threads_when_dropped_and_survives_ctrl_c_storms(tmp_path):
    """The operator's team: dropped without close() while other Python threads hold the GIL, each
    member still ends (it needs no GIL); Ctrl-C every 3 ms while teams start and stop neither
    crashes nor hangs the process; no thread is left behind."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _TEAM_SCRIPT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    leftover, interrupts = done.stdout.split()[1], int(done.stdout.split()[3])
    assert leftover == "0" and interrupts > 0
