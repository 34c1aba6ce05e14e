"""What goes wrong on a cluster during a fit, and what the user then sees and finds on the workers
(issue 53): workers out of memory (paused, or restarted by their nanny) end the fit with a
MemoryError within a stated time instead of a hang; a solve keeps no u of past calls alive, even
with Python's cyclic collector off, and concurrent solves leave nothing behind; a data error leaves
nothing of textsel's on the workers; ``client.restart()`` mid-solve on an array computed from a
graph starts the solve again; and the watch sees every worker of a cluster of more than five."""

import gc
import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import wait as futures_wait

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("distributed")
import dask  # noqa: E402
import dask.array as da  # noqa: E402
from dask_corpus import client_fixture, corpus, dask_matrix  # noqa: E402
from distributed import Client, LocalCluster, wait  # noqa: E402

import textsel  # noqa: E402
from textsel.distributed import _faults  # noqa: E402
from textsel.distributed import solve as cluster_solve  # noqa: E402

client = client_fixture("client", "module")
fragile_client = client_fixture("fragile_client")

#: clusters started, workers lost, frozen and restarted: in the slow run (--slow)
pytestmark = pytest.mark.slow

#: how long a call that used to hang may take here before the test calls it a hang
NO_HANG = 120


def on_step(monkeypatch, action):
    """``action(op, n)`` before the n-th step call of every ClusterRowOperator (n from 1)."""
    real = cluster_solve.ClusterRowOperator.step
    count = {"n": 0}

    def step(self, *args):
        count["n"] += 1
        action(self, count["n"])
        return real(self, *args)

    monkeypatch.setattr(cluster_solve.ClusterRowOperator, "step", step)
    return count


def within(seconds, call, *args, **kwargs):
    """``call(*args, **kwargs)`` in a thread: its result, or its exception raised here; an
    AssertionError when it has not ended after ``seconds`` (the call is left to end by itself)."""
    pool = ThreadPoolExecutor(1)
    try:
        job = pool.submit(call, *args, **kwargs)
        if not futures_wait([job], timeout=seconds).done:  # (the call's own TimeoutError is its result)
            raise AssertionError(f"{getattr(call, '__name__', call)} did not end within {seconds} s")
        return job.result()
    finally:
        pool.shutdown(wait=False)


def left_on_cluster(c, keep=(), seconds=10.0):
    """The keys the cluster holds beyond ``keep``, once the workers have had ``seconds`` to release
    them (released keys go within moments)."""
    keep = {str(k) for k in keep}
    end = time.monotonic() + seconds
    while True:
        held = {str(k) for k in c.who_has()} - keep
        held |= {str(k) for keys in c.has_what().values() for k in keys} - keep
        if not held or time.monotonic() > end:
            return sorted(held)
        time.sleep(0.2)


def array_keys(*arrays):
    """The keys the cluster holds for ``arrays`` themselves: their blocks' and the data their graphs
    read (the blocks ``row_blocks`` scattered, a persisted array's)."""
    from distributed import futures_of

    return [
        k for dX in arrays for k in [b.key for b in dX.to_delayed().ravel()] + [f.key for f in futures_of(dX)]
    ]


def generated(i, n_rows, n_terms, per_row):
    """Row block ``i``: ``per_row`` float32 values a row, built where it is computed (as a block
    read from files is), so that its size costs the client nothing."""
    rng = np.random.default_rng(i)
    indices = np.sort(rng.integers(0, n_terms, (n_rows, per_row)), axis=1).astype(np.int32).ravel()
    indptr = np.arange(0, n_rows * per_row + 1, per_row, dtype=np.int32)
    data = np.ones(n_rows * per_row, dtype=np.float32)
    return sp.csr_matrix((data, indices, indptr), shape=(n_rows, n_terms))


def generated_array(n_blocks, n_rows, n_terms=1000, per_row=20):
    """A Dask array of ``n_blocks`` :func:`generated` blocks, computed from a graph of delayed calls."""
    meta = sp.csr_matrix((0, n_terms), dtype=np.float32)
    return da.concatenate([
        da.from_delayed(dask.delayed(generated)(i, n_rows, n_terms, per_row), shape=(n_rows, n_terms),
                        dtype=np.float32, meta=meta)
        for i in range(n_blocks)
    ])  # fmt: skip


# -- 1. workers out of memory ----------------------------------------------------------------------


def small_cluster(memory_limit, **config):
    """Two worker processes of one thread and ``memory_limit`` each, Dask's memory settings
    ``config`` (distributed.worker.memory.*) given to them."""
    settings = {f"distributed.worker.memory.{k}": v for k, v in config.items()}
    with dask.config.set(settings):
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                               memory_limit=memory_limit)  # fmt: skip
    return cluster, Client(cluster)


def test_workers_restarted_for_memory_end_the_fit_with_a_memory_error(monkeypatch):
    """Blocks that do not fit in 200 MB workers (each block 48 MB, its checked float64 copy 72 MB):
    the nannies restart the workers, which come back under new addresses.  The fit used to wait for
    ever (6 min 40 s observed, tasks restricted to the old addresses); now it raises a MemoryError
    naming the workers' memory and memory_limit, long before the bound here."""
    cluster, c = small_cluster("200MB")
    try:
        c.wait_for_workers(2)
        dX = generated_array(2, 300_000)
        B = np.ones((dX.shape[0], 1))
        began = time.perf_counter()
        with pytest.raises(MemoryError, match="memory_limit") as caught:
            within(NO_HANG, textsel.lsqr, dX, B, iter_lim=5)
        took = time.perf_counter() - began
        assert "out of memory" in str(caught.value) and "restarted" in str(caught.value), caught.value
        assert took < NO_HANG
        print(f"MemoryError after {took:.1f} s: {caught.value}")
    finally:
        c.close()
        cluster.close()


def test_workers_paused_for_memory_end_the_fit_after_the_stated_time(monkeypatch):
    """Workers squeezed before their first task (their memory already past the pause threshold,
    never restarted): no task can start, no log line says why, and the fit used to wait for ever.
    Now a MemoryError naming memory_limit once no worker has run for the stall time (3 s here)."""
    monkeypatch.setattr(_faults, "STALL", 3.0)
    cluster, c = small_cluster("200MB", pause=0.1, terminate=False, target=False, spill=False)
    try:  # (no wait_for_workers: it counts running workers, and these may be paused already)
        X, y = corpus(n=600)
        began = time.perf_counter()
        with pytest.raises(MemoryError, match="paused.*memory_limit") as caught:
            within(NO_HANG, textsel.lsqr, dask_matrix(X), y.astype(float))
        took = time.perf_counter() - began
        assert took < 30, took
        print(f"MemoryError after {took:.1f} s: {caught.value}")
    finally:
        c.close()
        cluster.close()


def test_the_users_graph_carries_no_worker_restriction(client):
    """The blocks of the user's array are computed where Dask puts them: textsel restricts its own
    tasks only (a loose restriction to a worker that left keeps a task waiting for it when it
    becomes ready while no worker runs, even once workers join under other addresses)."""
    from textsel.distributed import BlockMatrix

    dX = generated_array(4, 500, per_row=5)
    A = BlockMatrix(dX)
    users = {str(k) for k in dask.core.flatten(dX.__dask_keys__())}

    def restrictions(dask_scheduler, keys=tuple(users)):
        return {
            k: sorted(ts.worker_restrictions or ())
            for k, ts in dask_scheduler.tasks.items()
            if str(k) in keys
        }

    try:
        found = client.run_on_scheduler(restrictions)
    finally:
        A.release()
    assert found and all(not w for w in found.values()), found


# -- 2. and 3. no u of past calls, nothing left by concurrent solves --------------------------------

STATE = ("run_step", "replay", "saved_u", "setup_group", "relay", "pick", "add_parts")


def solve_state(c):
    """The solve's keys each worker holds, by worker."""
    return {w: [k for k in keys if str(k).startswith(STATE)] for w, keys in c.has_what().items()}


def test_a_solve_keeps_no_u_of_past_calls_with_the_collector_off(client, monkeypatch):
    """With Python's cyclic garbage collector off, each call's futures used to stay alive (a
    recursive closure held them): every call's u on every worker (41 keys of u here, with a copy
    of u taken every call).  Now a worker holds a handful (its u, the new one, the copies of one
    partner's; 4 measured), not one a call, and the workers hold nothing of the solve once it
    has returned."""
    monkeypatch.setattr(cluster_solve, "CHECKPOINT", 0.0)  # a copy of u every call: the most held
    X, y = corpus(n=6000)
    B = np.where(y[:, None] == np.arange(4), 1.0, -1.0)
    dX = textsel.distributed.row_blocks(X, client, n_blocks=8)
    peak = {}

    def count(op, n):
        for w, keys in solve_state(op.client).items():
            u = [k for k in keys if str(k).startswith(("run_step", "replay", "saved_u"))]
            peak[w] = max(peak.get(w, 0), len(u))

    on_step(monkeypatch, count)
    gc.disable()
    try:
        result = textsel.lsqr(dX, B, atol=1e-12, btol=1e-12, iter_lim=24)
        assert int(result.itn.max()) == 24
        left = left_on_cluster(client, keep=array_keys(dX), seconds=5)
    finally:
        gc.enable()
    print("u per worker at the peak, collector off:", peak)
    assert peak and max(peak.values()) <= 6, peak  # (releases reach the scheduler within moments)
    assert left == [], left


@pytest.mark.slow
@pytest.mark.parametrize("collector", ["on", "off"])
def test_concurrent_solves_leave_nothing_on_the_workers(client, collector):
    """Three solves at once on one client, each on its own layout of blocks (3, 5 and 8 blocks),
    with the cyclic collector as Python runs it and with it off: each gives its answer alone, and
    once all have returned the workers hold the three arrays' blocks and nothing else (100 keys of
    the solves were left with the collector on, 378 with it off)."""
    X, y = corpus(n=3000)
    B = np.where(y[:, None] == np.arange(4), 1.0, -1.0)
    arrays = [textsel.distributed.row_blocks(X, client, n_blocks=n) for n in (3, 5, 8)]
    kw = dict(atol=1e-10, btol=1e-10, iter_lim=30)
    alone = [textsel.lsqr(dX, B, **kw).x for dX in arrays]
    if collector == "off":
        gc.disable()
    try:
        with ThreadPoolExecutor(3) as pool:
            together = list(pool.map(lambda dX: textsel.lsqr(dX, B, **kw).x, arrays))
        left = left_on_cluster(client, keep=array_keys(*arrays), seconds=5)
    finally:
        gc.enable()
    for got, expected in zip(together, alone, strict=True):
        np.testing.assert_array_equal(got, expected)
    assert left == [], left


# -- 4. a data error leaves nothing behind ------------------------------------------------------------


@pytest.mark.parametrize("case", ["nan in a block", "negative weight", "mixed labels", "nan, persisted"])
def test_a_data_error_leaves_nothing_on_the_workers(client, case):
    """A fit that stops on a data error (what a user fixes and retries in a notebook, which keeps
    the error, its traceback and their frames): the error is the in-memory one, and the workers hold
    nothing of textsel's afterwards (no checked block, no labels or weights placed), while the
    error is still held."""
    X, y = corpus(n=3000)
    w = np.ones(X.shape[0])
    X = X.astype(np.float64)
    if case.startswith("nan"):
        X.data[X.indptr[2000]] = np.nan  # in the fourth block of the uneven chunks
    elif case == "negative weight":
        w[2500] = -1.0
    else:
        y = y.astype(object)
        y[2500] = "spam"
    dX = dask_matrix(X)
    if case.endswith("persisted"):
        dX = dX.persist()
        wait(dX)
    keep = list(client.who_has())  # the array the user persisted, or nothing
    if case == "nan in a block":
        call, message = (lambda: textsel.lsqr(dX, y.astype(float))), "X block 4: X contains NaN"
    elif case.startswith("nan"):
        call, message = (lambda: textsel.WeightedProximalSVC().fit(dX, y)), "X block 4: X contains NaN"
    elif case == "negative weight":
        call = lambda: textsel.WeightedProximalSVC().fit(dX, y, sample_weight=w)  # noqa: E731
        message = "sample_weight block 4: Negative"
    else:
        call, message = (lambda: textsel.WeightedProximalSVC().fit(dX, y)), "cannot be ordered together"
    with pytest.raises(ValueError, match=message) as caught:
        call()
    assert left_on_cluster(client, keep=keep) == []
    assert caught.value is not None  # held, as a notebook holds the last error


# -- 5. client.restart() mid-solve ---------------------------------------------------------------------


def test_a_restart_mid_solve_on_a_graph_array_starts_the_solve_again(fragile_client, monkeypatch):
    """``client.restart()`` mid-solve drops every block, but the blocks of an array computed from a
    graph (``da.from_array``) can be computed again: the solve starts again and gives the
    undisturbed answer to the bit (it used to raise BlockLostError calling them blocks sent from
    the client)."""
    X, y = corpus()
    B = np.where(y[:, None] == np.arange(4), 1.0, -1.0)
    dX = dask_matrix(X, (500, 700, 300, 1000, 500))
    kw = dict(damp=0.5, atol=1e-8, btol=1e-8)
    undisturbed = textsel.lsqr(dX, B, **kw)
    restarted = []

    def restart(op, n):
        if n == 5 and not restarted:
            restarted.append(n)
            op.client.restart()

    on_step(monkeypatch, restart)
    got = textsel.lsqr(dX, B, **kw)
    assert restarted
    np.testing.assert_array_equal(got.x, undisturbed.x)
    np.testing.assert_array_equal(got.itn, undisturbed.itn)


def test_a_restart_mid_solve_on_data_held_by_the_cluster_names_what_is_lost(fragile_client, monkeypatch):
    """Blocks the cluster holds as data (persisted) cannot be computed again once ``restart()`` has
    dropped them: BlockLostError naming the block, and saying so without claiming they were sent
    from the client."""
    X, y = corpus()
    dX = dask_matrix(X, (500, 700, 300, 1000, 500)).persist()

    def restart(op, n):
        if n == 3:
            op.client.restart()

    on_step(monkeypatch, restart)
    with pytest.raises(
        textsel.distributed.BlockLostError, match=r"row block \d+ of the matrix was lost"
    ) as e:
        textsel.lsqr(dX, y.astype(float), atol=1e-8, btol=1e-8)
    assert "persisted" in str(e.value)


# -- 6. more than five workers -------------------------------------------------------------------------


def test_every_worker_is_listed_whatever_the_distributed_version():
    """``workers_now`` asks for every worker where ``scheduler_info`` takes ``n_workers`` (distributed
    2025.4 and later lists 5 by default until 2026.6), and calls it plainly where it does not."""

    class Old:
        def scheduler_info(self, **kwargs):
            assert not kwargs
            return {"workers": dict.fromkeys("abcdefg", {})}

    class Limited:
        def scheduler_info(self, n_workers=5, **kwargs):
            names = "abcdefg" if n_workers == -1 else "abcdefg"[:n_workers]
            return {"workers": dict.fromkeys(names, {})}

    assert sorted(_faults.workers_now(Old())) == list("abcdefg")
    assert sorted(_faults.workers_now(Limited())) == list("abcdefg")


@pytest.mark.slow
def test_a_frozen_worker_beyond_the_fifth_is_reported(monkeypatch):
    """Seven workers, a solve on every one, ``scheduler_info`` listing five unless asked for all (as
    distributed 2025.4 to 2026.6 do): a worker stopped (SIGSTOP) that is not among the five listed is
    reported as frozen within the stall time (3 s here), not waited for."""
    monkeypatch.setattr(_faults, "STALL", 3.0)
    real = Client.scheduler_info

    def limited(self, n_workers=5, **kwargs):
        return real(self, n_workers=n_workers, **kwargs)

    monkeypatch.setattr(Client, "scheduler_info", limited)
    cluster = LocalCluster(n_workers=7, threads_per_worker=1, processes=True, dashboard_address=":0",
                           memory_limit="400MB")  # fmt: skip
    c = Client(cluster)
    pids, stopped = {}, []
    try:
        c.wait_for_workers(7)
        pids = c.run(os.getpid)
        unlisted = sorted(set(pids) - set(c.scheduler_info()["workers"]))
        assert len(pids) == 7 and unlisted
        X, y = corpus(n=3500)
        dX = textsel.distributed.row_blocks(X, c, n_blocks=7)
        assert {w for ws in c.who_has(dX).values() for w in ws} == set(pids)  # a block on every worker

        def freeze(op, n):
            if n == 3:
                os.kill(pids[unlisted[0]], signal.SIGSTOP)
                stopped.append(unlisted[0])

        on_step(monkeypatch, freeze)
        with pytest.raises(TimeoutError, match="for 3 s") as caught:
            within(60, textsel.lsqr, dX, y.astype(float), atol=1e-14, btol=1e-14, iter_lim=100000)
        assert unlisted[0] in str(caught.value)
    finally:
        for worker in stopped:
            os.kill(pids[worker], signal.SIGCONT)
        c.close()
        cluster.close()
