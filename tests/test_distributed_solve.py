"""The LSQR solve on a Dask cluster: the same groups and tree as in memory (so the same bits), state
kept as Dask data, and what happens when a worker is lost, retired, frozen or raises, or when the
client dies."""

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("distributed")
from dask_corpus import client_fixture, corpus, relative  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import textsel  # noqa: E402
from textsel import _row_groups  # noqa: E402
from textsel.distributed import _faults  # noqa: E402
from textsel.distributed import solve as cluster_solve  # noqa: E402

client = client_fixture("client", "module")


fragile_client = client_fixture("fragile_client")


@pytest.fixture
def small_groups(monkeypatch):
    """Groups of a few hundred stored values, so that a test matrix has many (the client's
    in-memory solve and ``row_blocks`` read these; the workers only run the groups they get)."""
    monkeypatch.setattr(_row_groups, "MIN_GROUP_NNZ", 1000)
    monkeypatch.setattr(_row_groups, "NNZ_PER_UNKNOWN", 1)


def problem(K=11, weighted=True):
    X, y = corpus()
    B = np.where(y[:, None] == np.arange(4), 1.0, -1.0)
    B = np.hstack([B, B[:, :3] * 0.5, -B])[:, :K]  # 11: a block of 8 lanes and one of 3
    W = np.random.default_rng(2).random(B.shape) + 0.5 if weighted else None
    return X, B, W


def counting_attempts(monkeypatch):
    calls = {"attempts": 0, "steps": 0}
    real_init, real_step = cluster_solve.ClusterRowOperator.__init__, cluster_solve.ClusterRowOperator.step

    def init(self, *args):
        calls["attempts"] += 1
        real_init(self, *args)

    def step(self, *args):
        calls["steps"] += 1
        if "on_step" in calls:
            calls["on_step"](self, calls["steps"])
        return real_step(self, *args)

    monkeypatch.setattr(cluster_solve.ClusterRowOperator, "__init__", init)
    monkeypatch.setattr(cluster_solve.ClusterRowOperator, "step", step)
    return calls


@pytest.mark.parametrize("K, weighted, tol", [(11, True, 1e-6), (11, False, 1e-4), (1, False, 1e-8)])
def test_blocks_cut_like_memory_give_the_in_memory_answer_to_the_bit(client, small_groups, K, weighted, tol):
    """``row_blocks`` cuts X where the in-memory solve cuts its groups (32 here, on 2 workers): x,
    the iterations and the stopping reasons are the in-memory ones exactly, at a tolerance where a
    different order of the sums moves where a column stops."""
    X, B, W = problem(K, weighted)
    kw = dict(damp=np.linspace(0.1, 2.0, K), row_weights=W, fit_intercept=True, atol=tol, btol=tol)
    dX = textsel.distributed.row_blocks(X)
    assert len(dX.chunks[0]) == _row_groups.group_count(X.nnz, X.shape[1] + 1) == 32
    local, dist = textsel.lsqr(X, B, **kw), textsel.lsqr(dX, B, **kw)
    np.testing.assert_array_equal(dist.x, local.x)
    np.testing.assert_array_equal(dist.itn, local.itn)
    np.testing.assert_array_equal(dist.istop, local.istop)


def test_runs_with_few_rows_come_back_whole_with_the_same_bits(client, small_groups):
    """Documents fewer than the terms (each worker's rows at most a quarter of the unknowns): each
    step's result comes back whole, u with it, and its parts are picked on the client (no
    ``pick`` task): the in-memory answer to the bit, 11 columns (a block cut to 3 lanes) and 1."""
    from distributed import get_task_stream

    X, y = corpus(n=600, d=3000, density=0.01)
    for K in (11, 1):
        B = np.where(y[:, None] == np.arange(4), 1.0, -1.0)
        B = np.hstack([B, B[:, :3] * 0.5, -B])[:, :K]
        kw = dict(damp=0.3, fit_intercept=True, atol=1e-6, btol=1e-6)
        dX = textsel.distributed.row_blocks(X)
        assert len(dX.chunks[0]) >= 4
        with get_task_stream(client) as stream:
            dist = textsel.lsqr(dX, B, **kw)
        local = textsel.lsqr(X, B, **kw)
        np.testing.assert_array_equal(dist.x, local.x)
        np.testing.assert_array_equal(dist.itn, local.itn)
        names = {str(task["key"]).split("-")[0] for task in stream.data}
        assert "run_step" in names and "pick" not in names, names


def test_whole_runs_below_the_clients_levels_are_picked_by_tasks(client, monkeypatch):
    """6 blocks on 2 workers cut the tree below the client's top two levels: a whole run's pieces
    there are added among the workers, so they are picked by tasks; the client's own nodes of a
    whole run come back whole.  The same bits as with every part picked on the workers."""
    X, y = corpus(n=600, d=3000, density=0.01)
    B = np.where(y[:, None] == np.arange(4), 1.0, -1.0)
    dX = textsel.distributed.row_blocks(X, client, n_blocks=6)
    kw = dict(damp=0.3, fit_intercept=True, atol=1e-6, btol=1e-6)
    whole = textsel.lsqr(dX, B, **kw)
    real = cluster_solve.ClusterRowOperator.__init__

    def never_whole(self, *args):
        real(self, *args)
        self.whole = [False] * len(self.whole)

    monkeypatch.setattr(cluster_solve.ClusterRowOperator, "__init__", never_whole)
    picked = textsel.lsqr(dX, B, **kw)
    np.testing.assert_array_equal(whole.x, picked.x)
    np.testing.assert_array_equal(whole.itn, picked.itn)


def test_a_classifier_fits_the_same_model_on_the_cluster(client, small_groups):
    """WeightedProximalSVC on the blocks of ``row_blocks``: the in-memory coefficients and
    iterations to the bit (labels, weights and estimates built block by block)."""
    X, y = corpus()
    local = textsel.WeightedProximalSVC().fit(X, y)
    dist = textsel.WeightedProximalSVC().fit(textsel.distributed.row_blocks(X), y)
    np.testing.assert_array_equal(dist.coef_, local.coef_)
    np.testing.assert_array_equal(dist.n_iter_, local.n_iter_)


def test_blocks_held_interleaved_are_solved_in_runs_of_consecutive_blocks(client, small_groups, monkeypatch):
    """Blocks held alternately by the two workers (as Dask may persist an array's blocks): the solve
    gives each worker one run of consecutive blocks (so the tree's pieces cross workers at one
    place, not at every block), the worker fetching once the blocks of its run it does not hold;
    the answer is memory's to the bit."""
    import dask.array as da
    from dask import delayed

    X, B, W = problem()
    kw = dict(damp=0.5, row_weights=W, fit_intercept=True, atol=1e-6, btol=1e-6)
    bounds = _row_groups.group_bounds(X.indptr, _row_groups.group_count(X.nnz, X.shape[1] + 1))
    pieces = [X[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    workers = sorted(client.nthreads())
    futures = [
        client.scatter(p, workers=[workers[i % 2]], direct=False, hash=False) for i, p in enumerate(pieces)
    ]
    dX = da.concatenate([da.from_delayed(delayed(f), shape=p.shape, dtype=X.dtype, meta=p[:0])
                         for f, p in zip(futures, pieces, strict=True)]).persist()  # fmt: skip
    seen = []
    real = cluster_solve.ClusterRowOperator._owners
    monkeypatch.setattr(
        cluster_solve.ClusterRowOperator, "_owners", lambda op: seen.append(real(op)) or seen[-1]
    )
    dist = textsel.lsqr(dX, B, **kw)
    owners, fetch = seen[0]
    assert len(pieces) >= 8 and sorted(set(owners)) == workers
    assert sum(a != b for a, b in zip(owners, owners[1:], strict=False)) == 1  # two runs
    assert len(fetch) // 4 <= sum(fetch) < len(fetch)  # about half the blocks of each run fetched
    np.testing.assert_array_equal(dist.x, textsel.lsqr(X, B, **kw).x)


@pytest.mark.slow
@pytest.mark.parametrize("n_workers, fanout", [(3, 4), (4, 1)])
def test_the_answer_does_not_depend_on_the_number_of_workers(small_groups, monkeypatch, n_workers, fanout):
    """On 3 and 4 workers (blocks spread unevenly, the tree cut across workers at other places)
    the in-memory answer to the bit; with a fan-out of 1, v goes down a chain of workers, each
    passing it on from a ``relay`` task of its own: the second and third of the four, every step
    that sent v down the tree."""
    from distributed import get_task_stream

    monkeypatch.setattr(cluster_solve, "FANOUT", fanout)
    # each step's first worker; None where the scheduler listed none running (on a loaded
    # machine), and Dask then placed v itself, with no relay that step
    targets = []
    real = cluster_solve.ClusterRowOperator._target
    monkeypatch.setattr(
        cluster_solve.ClusterRowOperator, "_target", lambda op: targets.append(real(op)) or targets[-1]
    )
    X, B, W = problem()
    kw = dict(damp=0.5, row_weights=W, fit_intercept=True, atol=1e-6, btol=1e-6)
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    with cluster, Client(cluster) as c:
        c.wait_for_workers(n_workers)
        dX = textsel.distributed.row_blocks(X, c)
        with get_task_stream(c) as stream:
            dist = textsel.lsqr(dX, B, **kw)
    local = textsel.lsqr(X, B, **kw)
    np.testing.assert_array_equal(dist.x, local.x)
    np.testing.assert_array_equal(dist.itn, local.itn)
    relays = {}
    for task in stream.data:
        if str(task["key"]).startswith("relay"):
            relays[task["worker"]] = relays.get(task["worker"], 0) + 1
    steps = sum(t is not None for t in targets)  # the steps that sent v down the tree
    assert steps >= int(dist.itn.max()) // 2, targets
    if fanout >= n_workers - 1:
        assert relays == {}  # every worker fetches v from the first
    else:
        assert sorted(relays.values()) == [steps, steps], relays  # two of four pass it on, each step


def test_v_goes_down_a_tree_of_the_stated_fanout():
    """``copy_tree``: every worker but the first has one parent before it; no parent has more than
    ``fanout`` children; the depth is the least a tree of that fan-out allows (log_fanout)."""
    for fanout in range(1, 6):
        for n in range(1, 60):
            parents = cluster_solve.copy_tree(n, fanout)
            assert parents[0] is None and all(0 <= p < j for j, p in enumerate(parents) if j)
            assert all(parents.count(p) <= fanout for p in set(parents[1:]))
            depth = [0] * n
            for j in range(1, n):
                depth[j] = depth[parents[j]] + 1
            least, reach = 0, 1  # workers within depth d: 1 + f + ... + f^d
            while reach < n:
                least, reach = least + 1, reach + fanout ** (least + 1)
            assert max(depth) == least, (fanout, n, depth)


@pytest.mark.parametrize("n_ranks", range(1, 10))
def test_the_workers_parts_add_up_as_the_in_memory_tree(n_ranks):
    """In process, no cluster: 9 groups held by 1 to 9 owners, in runs and interleaved.  Each
    owner's ``run_step`` adds the pieces of the tree it holds whole, ``combine`` the rest: the
    norm and A'D u of the in-memory row operator to the bit, for a start and for a step."""
    from textsel.distributed._solve_worker import cut_lanes, pick, run_step, setup_group

    rng = np.random.default_rng(n_ranks)
    X = sp.random(900, 60, density=0.05, format="csr", random_state=rng)
    B, W = rng.standard_normal((900, 11)), rng.random((900, 11)) + 0.5
    bounds = _row_groups.group_bounds(X.indptr, 9)
    memory = _row_groups.RowGroups(X, B, W, True, 1)
    memory.groups = memory.groups[:0]  # rebuilt below on exactly these 9 groups
    from textsel._ext.rowblocks import GroupsOperator, RowGroup

    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        s, e = X.indptr[a], X.indptr[b]
        memory.groups.append(RowGroup(X.data[s:e], X.indices[s:e], X.indptr[a : b + 1] - s, 60, True,
                                      memory.uT[:, a:b], memory.weights[:, a:b]))  # fmt: skip
    in_memory = GroupsOperator(memory.groups, memory.B, memory.weights, memory.uT, 60, True, 2)
    groups = [
        setup_group(X[a:b], ("arrays", B[a:b], W[a:b]), True)
        for a, b in zip(bounds[:-1], bounds[1:], strict=True)
    ]
    # 9 columns: a block of 8 lanes and one of one lane alone; 11: the second block cut to 3
    cols = np.array([0, 2, 3, 5, 6, 7, 8, 9, 10]) if n_ranks % 2 else np.arange(11)
    P = cols.size
    v = rng.standard_normal((61, P))
    # v as the solver hands it over, in its lane blocks; the lanes past the columns hold others'
    lanes = rng.standard_normal((2, 61, 8))
    lanes[0], lanes[1, :, : P - 8] = v[:, :8], v[:, 8:]
    vcoef, ucoef = rng.random(P), -rng.random(P)
    exps = rng.integers(-3, 3, P)

    def rows(g):  # the solver's lane blocks of g as (61, P)
        return np.concatenate([g[0], g[1, :, : P - 8]], axis=1)

    for owners in ([i * n_ranks // 9 for i in range(9)], [i % n_ranks for i in range(9)]):
        plan = cluster_solve.tree_plan(owners)
        state = dict.fromkeys(set(owners))
        stepped = dict(v=cut_lanes(lanes, P), vcoef=vcoef, ucoef=ucoef)
        for kind, args in (("start", dict(exps=exps)), ("step", stepped)):
            parts = {}
            for owner in state:
                idx = [i for i in range(9) if owners[i] == owner]
                nodes = [node for o, node in cluster_solve._here_nodes(plan) if o == owner]
                state[owner] = run_step(
                    [groups[i] for i in idx], state[owner], idx, kind, cols, nodes, **args
                )
                parts.update({node: pick(state[owner], node, cols.size) for node in nodes})
            g = np.full((2, 61, 8), np.nan)  # the solver's g: its lanes past the columns are not read
            scale, ssq, _ = cluster_solve.combine(plan, parts, g)
            g = rows(g)
            # the tree's pieces added by tasks below the client's top levels: the same bits
            top = {
                cluster_solve.span(n): cluster_solve.combine(n, parts)
                for n in cluster_solve.client_nodes(plan)
            }
            assert len(top) <= 4
            g_top = np.full((2, 61, 8), np.nan)
            got_top = (*cluster_solve.combine(plan, top, g_top)[:2], rows(g_top))
            for got, expected in zip(got_top, (scale, ssq, g), strict=True):
                np.testing.assert_array_equal(got, expected)
            unorm, g_memory = np.empty(cols.size), np.empty((61, cols.size))
            if kind == "start":
                in_memory.start(cols, exps, None, unorm, g_memory)
            else:
                in_memory.step(cols, v, vcoef, ucoef, unorm, g_memory)
            np.testing.assert_array_equal(scale * np.sqrt(ssq), unorm)
            np.testing.assert_array_equal(g, g_memory)
        if n_ranks == 1:
            assert plan[0] == "here"  # one owner adds the whole tree in its task
    in_memory.close()


def test_tree_plan_cuts_the_tree_where_owners_change():
    """A node whose groups one owner holds is that owner's; the others are added by the tree's
    split (the largest power of two on the left)."""
    assert cluster_solve.tree_plan(["a"] * 5) == ("here", "a", 0, 5)
    assert cluster_solve.tree_plan(["a", "a", "b"]) == ("add", ("here", "a", 0, 2), ("here", "b", 2, 3))
    assert cluster_solve.tree_plan(["a", "b", "a"]) == (
        "add", ("add", ("here", "a", 0, 1), ("here", "b", 1, 2)), ("here", "a", 2, 3))  # fmt: skip


def counting_resumes(monkeypatch):
    """The length of the log replayed at each resume (the calls since the last copy of u)."""
    replayed = []
    real = cluster_solve.ClusterRowOperator._resume

    def resume(self):
        replayed.append(None if self.log is None else len(self.log))
        return real(self)

    monkeypatch.setattr(cluster_solve.ClusterRowOperator, "_resume", resume)
    return replayed


@pytest.mark.slow
@pytest.mark.parametrize("checkpoint", [0.0, float("inf")])
def test_a_lost_worker_is_resumed_from_the_copy_of_u_with_the_same_answer(
    fragile_client, small_groups, monkeypatch, checkpoint
):
    """A worker killed mid-solve takes its groups and their u with it: Dask recomputes the lost
    blocks from their graph, the solve rebuilds the u there from the last copy (taken after every
    call, or never: from zeros) by running the logged calls again, and goes on without starting
    again; the answer is the undisturbed one to the bit.  With a copy after every call, at most the
    last two calls are run again (the copy under way when the worker died may not have landed)."""
    import dask.array as da

    monkeypatch.setattr(cluster_solve, "CHECKPOINT", checkpoint)
    X, B, W = problem()
    kw = dict(damp=0.5, row_weights=W, fit_intercept=True, atol=1e-6, btol=1e-6)
    bounds = _row_groups.group_bounds(X.indptr, 32)
    dX = da.from_array(X, chunks=(tuple(np.diff(bounds)), -1), asarray=False)  # a graph to recompute from
    undisturbed = textsel.lsqr(dX, B, **kw)
    calls = counting_attempts(monkeypatch)
    replayed = counting_resumes(monkeypatch)

    def kill(op, n):
        if n == 8:
            os.kill(next(iter(op.client.run(os.getpid).values())), signal.SIGKILL)

    calls["on_step"] = kill
    dist = textsel.lsqr(dX, B, **kw)
    assert calls["attempts"] == 1 and len(replayed) >= 1, (calls, replayed)
    assert replayed[0] <= 2 if checkpoint == 0 else replayed[0] >= 8, replayed
    np.testing.assert_array_equal(dist.x, undisturbed.x)
    np.testing.assert_array_equal(dist.itn, undisturbed.itn)
    np.testing.assert_array_equal(dist.x, textsel.lsqr(X, B, **kw).x)


@pytest.mark.slow
def test_a_block_sent_from_the_client_and_lost_is_named(fragile_client, small_groups, monkeypatch):
    """Blocks from ``row_blocks`` were sent from the client: one lost with its worker cannot be
    computed again, and the solve says which block and why at once (no restarts that cannot help)."""
    X, B, W = problem()
    dX = textsel.distributed.row_blocks(X, fragile_client)
    calls = counting_attempts(monkeypatch)

    def kill(op, n):
        if n == 3:
            os.kill(next(iter(op.client.run(os.getpid).values())), signal.SIGKILL)

    calls["on_step"] = kill
    with pytest.raises(textsel.distributed.BlockLostError, match=r"row block \d+ of the matrix was lost"):
        textsel.lsqr(dX, B, damp=0.5, atol=1e-8, btol=1e-8)
    assert calls["attempts"] == 1


def test_a_replay_rebuilds_u_to_the_bit():
    """In process: a run's u after a start and three steps, rebuilt by ``replay`` from zeros and
    from a copy taken after the start, is the u the calls made, to the bit."""
    from textsel.distributed._solve_worker import replay, run_step, saved_u, setup_group

    rng = np.random.default_rng(5)
    X = sp.random(300, 40, density=0.1, format="csr", random_state=rng)
    B, W = rng.standard_normal((300, 3)), rng.random((300, 3)) + 0.5
    groups = [setup_group(X[a:b], ("arrays", B[a:b], W[a:b]), True) for a, b in ((0, 120), (120, 300))]
    nodes, cols = [(0, 2)], np.arange(3)
    log = [("start", cols, dict(exps=np.array([1, 0, -2])))]
    for _ in range(3):
        v = [rng.standard_normal((41, 3))]  # its lane blocks, cut to its columns
        log.append(("step", cols, dict(v=v, vcoef=rng.random(3), ucoef=-rng.random(3))))
    result, after_start = None, None
    for kind, c, args in log:
        result = run_step(groups, result, [0, 1], kind, c, nodes, **args)
        after_start = saved_u(result) if after_start is None else after_start
    from_zeros = replay(groups, None, [0, 1], nodes, log)
    for rebuilt in (from_zeros, replay(groups, after_start, [0, 1], nodes, log[1:])):
        for got, expected in zip(rebuilt[0], result[0], strict=True):
            np.testing.assert_array_equal(got, expected)
    assert replay(groups, None, [0, 1], nodes, []) is None  # nothing run yet: zeros, as run_step reads None


@pytest.mark.slow
def test_a_retired_worker_hands_over_its_state_and_the_solve_goes_on(
    fragile_client, small_groups, monkeypatch
):
    """A worker retired mid-solve (as an adaptive cluster retires one) hands its data, the
    groups' u included, to the other through the scheduler: no restart, the same bits."""
    X, B, W = problem()
    kw = dict(damp=0.5, row_weights=W, fit_intercept=True, atol=1e-6, btol=1e-6)
    dX = textsel.distributed.row_blocks(X, fragile_client)
    calls = counting_attempts(monkeypatch)

    def retire(op, n):
        if n == 4:
            op.client.retire_workers([sorted(op.client.nthreads())[0]])

    calls["on_step"] = retire
    dist = textsel.lsqr(dX, B, **kw)
    assert calls["attempts"] == 1 and len(fragile_client.nthreads()) == 1
    np.testing.assert_array_equal(dist.x, textsel.lsqr(X, B, **kw).x)


@pytest.mark.slow
def test_an_error_on_a_worker_reaches_the_user_as_itself(fragile_client, small_groups, monkeypatch):
    """A MemoryError raised in a step on a worker is raised here as a MemoryError, on the first
    try (no restart), and the solve's state is released (the error's traceback, which Dask keeps
    with the failed futures, holds none of them)."""
    X, B, W = problem()
    dX = textsel.distributed.row_blocks(X, fragile_client)
    real_rowop = cluster_solve.lsqr_rowop

    def break_pack():
        import textsel.distributed._solve_worker as worker

        def views(v):
            raise MemoryError("no room for v")

        worker._lane_views = views

    fragile_client.run(break_pack)
    attempts = []
    monkeypatch.setattr(cluster_solve, "lsqr_rowop", lambda *a: attempts.append(1) or real_rowop(*a))
    with pytest.raises(MemoryError, match="no room for v"):
        textsel.lsqr(dX, B, damp=0.5)
    assert len(attempts) == 1
    gc.collect()  # distributed's own internal exceptions and its frames form cycles (no futures of ours)
    for _ in range(50):  # the scheduler forgets what was released within moments
        held = fragile_client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))
        if held == len(dX.chunks[0]):
            break
        time.sleep(0.1)
    assert held == len(dX.chunks[0])  # the blocks the test holds, nothing of the solve


@pytest.mark.slow
def test_a_frozen_worker_is_reported_within_the_stated_time(fragile_client, monkeypatch):
    """A worker stopped mid-solve (SIGSTOP): the call raises TimeoutError naming it once the
    scheduler has heard no heartbeat from it for the stall time (set to 3 s here), instead of
    waiting for ever; the other worker, busy or idle, keeps its heartbeats and is not named."""
    monkeypatch.setattr(_faults, "STALL", 3.0)
    X, B, W = problem()
    dX = textsel.distributed.row_blocks(X, fragile_client, n_blocks=4)
    pids = fragile_client.run(os.getpid)
    calls = counting_attempts(monkeypatch)
    stopped = []

    def freeze(op, n):
        if n == 3:
            worker = sorted(pids)[0]
            os.kill(pids[worker], signal.SIGSTOP)
            stopped.append(worker)

    calls["on_step"] = freeze
    began = time.perf_counter()
    try:
        with pytest.raises(TimeoutError, match="for 3 s") as caught:
            textsel.lsqr(dX, B, damp=0.5, atol=1e-12, btol=1e-12)
    finally:
        for worker in stopped:
            os.kill(pids[worker], signal.SIGCONT)
    assert time.perf_counter() - began < 30
    assert stopped[0] in str(caught.value)
    assert [w for w in pids if w != stopped[0]][0] not in str(caught.value)


@pytest.mark.slow
def test_a_killed_client_leaves_nothing_on_the_workers(tmp_path):
    """A client process killed (SIGKILL) in the middle of a solve: within 10 s the workers hold no
    data and the scheduler no task (the solve's state was Dask data, released with the client)."""
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    with cluster, Client(cluster) as watcher:
        script = tmp_path / "solve.py"
        script.write_text(
            textwrap.dedent(f"""
            import sys
            sys.path.insert(0, {os.path.dirname(__file__)!r})
            import numpy as np
            from distributed import Client
            from dask_corpus import corpus
            import textsel
            from textsel.distributed import solve

            X, y = corpus(n=20000, d=2000)
            B = np.where(y[:, None] == np.arange(4), 1.0, -1.0)
            real = solve.ClusterRowOperator.step

            def step(self, *args):
                print("solving", flush=True)
                return real(self, *args)

            solve.ClusterRowOperator.step = step
            with Client({cluster.scheduler_address!r}):
                dX = textsel.distributed.row_blocks(X, n_blocks=8)
                textsel.lsqr(dX, B, atol=0, btol=0, iter_lim=100000)
        """)
        )
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, env=env, text=True)
        try:
            for _ in range(3):
                assert proc.stdout.readline().strip() == "solving"
            held = watcher.run(lambda dask_worker: len(dask_worker.data))
            assert sum(held.values()) > 0  # the blocks, the groups and their u
        finally:
            proc.kill()
            proc.wait()
        killed = time.perf_counter()
        while time.perf_counter() - killed < 10:
            held = watcher.run(lambda dask_worker: len(dask_worker.data))
            tasks = watcher.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))
            if sum(held.values()) == 0 and tasks == 0:
                break
            time.sleep(0.2)
        if sum(held.values()) or tasks:
            left = watcher.run_on_scheduler(
                lambda dask_scheduler: [(str(ts.key), ts.state, sorted(c.client_key for c in ts.who_wants))
                                        for ts in dask_scheduler.tasks.values()]
            )  # fmt: skip
            clients = {watcher.id}
            if left and all(key.startswith("ndarray-") and state == "memory" and not set(wants) & clients
                            for key, state, wants in left):  # fmt: skip
                # distributed's scheduler keeps a scattered array whose scatter completes as its
                # client is removed (the key lands after the client's keys were released); the
                # solve scatters its vectors each iteration, so a kill can meet one in flight
                pytest.xfail(f"a scatter in flight as the client died, kept by the scheduler: {left}")
        assert sum(held.values()) == 0 and tasks == 0, (held, tasks)


def test_row_blocks_refuses_bad_arguments(client):
    X, _, _ = problem()
    with pytest.raises(ValueError, match="n_blocks"):
        textsel.distributed.row_blocks(X, client, n_blocks=0)
    with pytest.raises(TypeError, match="n_blocks"):
        textsel.distributed.row_blocks(X, client, n_blocks=2.5)
    dX = textsel.distributed.row_blocks(X.toarray(), client, n_blocks=3)
    assert len(dX.chunks[0]) == 3 and relative(dX.compute().toarray(), X.toarray()) == 0
