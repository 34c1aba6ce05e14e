"""LSQR on a cluster: the C solver here, its row operator as ordinary Dask tasks over the blocks.

The C solver runs on the client (:func:`textsel._ext.ccore.lsqr_rowop`) and holds only vectors of
the unknowns' length (n terms x K right-hand sides): v, w and x.  Each row block of the matrix is
one group of the in-memory solve (``textsel._row_groups``): its rows, b and row weights are a
task's result (``_solve_worker.setup_group``), and each call of the row operator is a few tasks
(:class:`ClusterRowOperator`):

- v is scattered to one worker holding groups; the others' tasks fetch it from there;
- one task per worker (``run_step``) updates its groups' u, each into a new array (a Dask result:
  the memory manager counts it, and it is released with its future once the next call has run),
  and adds its groups' parts of ||u|| and A'D u over every piece of the fixed tree whose groups it
  holds;
- tasks add those pieces up the tree among the workers, and the client the top
  :data:`CLIENT_DEPTH` levels (:func:`combine`), so it receives at most four parts an iteration.

The tree is the in-memory solve's tree over the groups, whichever worker holds them, so the answer
does not depend on the number of workers or where the blocks live, and a Dask array cut like the
in-memory groups (:func:`textsel.distributed.row_blocks`) gives the in-memory answer to the last
bit.  Everything a solve keeps on the workers is Dask data held by this client's futures: a solve
that stops (an error, Ctrl-C, the client's process killed) leaves nothing behind once they are
released.  How a lost worker, an error on a worker and a frozen worker are met is
``_faults``'s one policy.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import CancelledError

import numpy as np

from .._ext.ccore import lsqr_rowop
from .._row_groups import tree_half
from ._blocks import contiguous_groups, place
from ._faults import restarting, result_within, scatter_within, workers_now
from ._solve_worker import (
    add_parts,
    cut_lanes,
    pick,
    relay,
    replay,
    run_step,
    saved_u,
    setup_group,
    unpack_part,
)

__all__ = [
    "CLIENT_DEPTH", "FANOUT", "ArrayRows", "ClusterRowOperator", "client_nodes", "combine", "copy_tree",
    "solve", "span", "tree_plan",
]  # fmt: skip


#: the client adds the top this many levels of the tree; below, tasks add the workers' pieces
#: among the workers (the client then receives at most 2**CLIENT_DEPTH parts an iteration, not
#: one per worker, at the cost of one scheduler round trip per level below)
CLIENT_DEPTH = 2

#: how many workers each holder of v copies it to: the first worker gets v from the client, and v
#: goes down a tree of this fan-out (:func:`copy_tree`), so that no worker sends it more than this
#: many times an iteration; at up to FANOUT + 1 workers every one fetches it from the first
FANOUT = 4

#: seconds of solving between two copies of every run's u to a second worker: a lost worker's u is
#: rebuilt from the last copy by running again the calls since (about this long, on its groups)
CHECKPOINT = 5.0

#: the most bytes of logged calls (their v) kept on the client; beyond (one worker, nowhere to copy
#: u to) the log is dropped, and a lost worker restarts the solve
MAX_LOG_BYTES = 1 << 28

#: seconds a resume waits for as many workers as the solve had (a nanny restarts a killed one
#: within seconds); then it goes on with those present
REJOIN = 5.0


def tree_plan(owners):
    """The fixed tree over the groups, cut where their owners change: ``("here", owner, a, b)`` for
    a node whose groups a..b-1 are all ``owner``'s (added by that owner's task), else ``("add",
    left, right)``.  ``owners[i]`` holds group i."""

    def node(a, b):
        if len(set(owners[a:b])) == 1:
            return ("here", owners[a], a, b)
        half = tree_half(b - a)
        return ("add", node(a, a + half), node(a + half, b))

    return node(0, len(owners))


def copy_tree(n, fanout=None):
    """The parent of each of ``n`` workers in the tree v is copied down (None for the first, which
    gets it from the client): worker j's parent is (j - 1) // fanout, so each sends v to at most
    ``fanout`` others and the last gets it after about log_fanout(n) copies."""
    fanout = FANOUT if fanout is None else fanout
    return [None] + [(j - 1) // fanout for j in range(1, n)]


def _here_nodes(plan):
    """(owner, (a, b)) for each node of ``plan`` that one owner adds in its own task, in order."""
    if plan[0] == "here":
        return [(plan[1], (plan[2], plan[3]))]
    return _here_nodes(plan[1]) + _here_nodes(plan[2])


def span(node):
    """The groups (a, b) a node of a :func:`tree_plan` adds."""
    if node[0] == "here":
        return node[2], node[3]
    return span(node[1])[0], span(node[2])[1]


def client_nodes(plan, depth=CLIENT_DEPTH):
    """The nodes whose parts come back to the client: those ``depth`` levels below the root (or
    nearer, where the tree stops sooner), at most 2**depth of them."""
    if plan[0] == "here" or depth == 0:
        return [plan]
    return client_nodes(plan[1], depth - 1) + client_nodes(plan[2], depth - 1)


def combine(plan, parts, out=None):
    """The plan's root from ``parts``, the parts of some of its nodes keyed by :func:`span`: the
    nodes above them added here, the root's A'D u into ``out`` (the solver's lane blocks of g)
    where given."""
    if span(plan) in parts:
        if out is not None:
            unpack_part(parts[span(plan)], out)
        return parts[span(plan)]
    return add_parts(combine(plan[1], parts), combine(plan[2], parts), out)


class ClusterRowOperator:
    """The row operator of ``ts_lsqr_rowop`` over a :class:`BlockMatrix`: one group per block, its
    state Dask data on the worker that solves the block.  Built by :func:`solve`; its ``start`` and
    ``step`` are called by the C solver.

    Each worker solves one *run* of consecutive blocks (:meth:`_owners`), one task a call; a run
    keeps its number (its place in the tree) when a lost worker's run moves to another.  Every
    :data:`CHECKPOINT` seconds each run's u is copied to a second worker, and the calls since the
    last copy are kept here (:meth:`_resume` rebuilds a lost run's u from them)."""

    def __init__(self, A, rows, fit_intercept):
        self.A, self.client = A, A.client
        self.fit_intercept = bool(fit_intercept)
        owners, fetch = self._owners()
        number = {}  # worker -> its run
        run_of = [number.setdefault(owner, len(number)) for owner in owners]
        self.plan = tree_plan(run_of)
        self.where = list(number)  # run -> the worker it runs on
        self.runs = [[] for _ in self.where]  # run -> its blocks, in order
        for i, run in enumerate(run_of):
            self.runs[run].append(i)
        self.nodes = [[] for _ in self.where]  # run -> the pieces of the tree it adds
        for run, node in _here_nodes(self.plan):
            self.nodes[run].append(node)
        # run -> whether its step comes back whole, u with it (its rows at most a quarter of the unknowns)
        sizes, unknowns = np.diff(A.row_starts), A.shape[1] + self.fit_intercept
        self.whole = [4 * int(sizes[blocks].sum()) <= unknowns for blocks in self.runs]
        self.rows = rows
        self.groups = [
            self._submit(
                owners[i], setup_group, A.futures[i], rows.block(i, owners[i]), self.fit_intercept, fetch[i]
            )  # fmt: skip
            for i in range(A.n_blocks)
        ]
        self.group_at = list(owners)  # block -> the worker its group was set up on
        self.state = [None] * len(self.runs)  # run -> its last run_step result (u), or None
        # run -> the last copy of its u (None: zeros, before the first call); None: no copy to resume
        # from (the log grew too long), a lost worker restarts the solve
        self.saved = [None] * len(self.runs)
        self.log, self._log_bytes = [], 0  # the calls since that copy (None with saved None)
        self._copying, self._copied_at = None, time.monotonic()  # (copies, log length) under way
        self._pending = []

    def _owners(self):
        """The worker that solves each block, and whether it must fetch the block: the blocks cut
        into one run of consecutive blocks per worker (the tree's pieces a run holds whole are
        added in its own task), the runs matched to the workers holding most of their blocks.  A
        block its worker does not hold is fetched once, when its group is set up, and counted with
        the group while the solve lasts: a copy, but no part of the tree crosses workers every
        iteration where blocks sit interleaved (as Dask persists an array's blocks)."""
        futures = self.A.futures
        present = sorted(self.client.nthreads())
        if not present:
            raise CancelledError("lsqr: no worker is running")  # the solve starts once one is
        runs = contiguous_groups(len(futures), len(present))
        owners = [w for w, blocks in place(self.client, futures, runs, workers=present) for _ in blocks]
        who_has = self.client.who_has(futures)
        fetch = [owner not in who_has.get(f.key, ()) for owner, f in zip(owners, futures, strict=True)]
        return owners, fetch

    # -- the two calls of the C solver -------------------------------------------------------

    #: v and g as the C solver's own lane blocks (no copy into or out of its layout)
    lanes = True

    def start(self, cols, exps, maxabs, unorm, g):
        cols = np.array(cols, dtype=np.int64)
        if exps is not None:
            return self._call("start", cols, unorm, g, exps=np.asarray(exps, dtype=np.int64))

        def attempt():
            self._pending = self._steps("max", cols)
            return result_within(self.client, self._pending, "lsqr", self.where)

        parts = restarting(self.client, attempt, "lsqr", before_again=self._resume, workers=self._workers)
        self._pending = []
        self.rows.release()  # every group is set up: what was sent for them is theirs now
        maxabs[:] = np.max([p[1] for p in parts], axis=0) if parts else 0.0

    def step(self, cols, v, vcoef, ucoef, unorm, g):
        # a copy: v is the solver's buffer, and the call is kept for a resume
        v = cut_lanes(v, len(cols))
        self._call("step", np.array(cols, dtype=np.int64), unorm, g, v=v, vcoef=np.array(vcoef),
                   ucoef=np.array(ucoef))  # fmt: skip
        self.A.traffic["products"] += 2

    def _call(self, kind, cols, unorm, g, **args):
        """A start or step call: its tasks, run again after a lost worker once :meth:`_resume` has
        rebuilt what it took; the new u kept, the call logged."""

        def attempt():
            sent = dict(args)
            if kind == "step":  # once, to one worker; the others get it down a tree from there
                sent["v"] = self._send_v(args["v"])
                self.A.traffic["sent"] += _nbytes(args["v"])
            return self._products(kind, cols, sent, np.asarray(g))

        steps, (scale, ssq, _) = restarting(self.client, attempt, "lsqr", before_again=self._resume,
                                            workers=self._workers)  # fmt: skip
        self.state, self._pending = steps, []  # the previous results released with their futures
        self.rows.release()  # what a resume sent for the groups it rebuilt
        self._record(kind, cols, args)
        unorm[:] = scale * np.sqrt(ssq)

    # -- the tasks -------------------------------------------------------------------------------

    def _workers(self):
        """The workers the solve's tasks are placed on."""
        return list(self.where)

    def _submit(self, worker, func, *args, **kwargs):
        # a preference: a block that moved (a retired worker's, moved by the scheduler) is followed
        return self.client.submit(func, *args, workers=[worker], allow_other_workers=True, pure=False,
                                  **kwargs)  # fmt: skip

    def _send_v(self, v):
        """v on the workers: {worker: the future of the copy its tasks read}.  Scattered to the
        first running worker and copied down :func:`copy_tree` by ``relay`` tasks on the workers
        that pass it on; the others' tasks fetch it from their parent."""
        first = self._target()
        root = scatter_within(self.client, [v], first, "lsqr")[0]  # [v]: v (a list) as one key
        self._pending = [root]
        if first is None:
            return dict.fromkeys(self.where, root)
        workers = list(dict.fromkeys([first, *self.where]))
        parents = copy_tree(len(workers))
        held = [root]
        for j in range(1, len(workers)):
            if j in parents:  # it passes v on: a copy of its own, which its children fetch
                held.append(self._submit(workers[j], relay, held[parents[j]]))
                self._pending.append(held[-1])
            else:
                held.append(held[parents[j]])
        return dict(zip(workers, held, strict=True))

    def _steps(self, kind, cols, v=None, **args):
        """One ``run_step`` task per run, in run order (``v``: each worker's copy of v)."""
        return [
            self._submit(
                self.where[run],
                run_step,
                [self.groups[i] for i in blocks],
                self.state[run],
                blocks,
                kind,
                cols,
                self.nodes[run],
                v=None if v is None else v[self.where[run]],
                **args,
            )  # fmt: skip
            for run, blocks in enumerate(self.runs)
        ]

    def _products(self, kind, cols, args, g):
        """The new u of every run (futures) and the call's (scale, ssq, A'D u), added as the tree
        adds them, A'D u into ``g``."""
        steps = self._steps(kind, cols, **args)
        self._pending += steps  # released by close() if this call fails
        picked = []
        back = {span(node): self._added(node, steps, len(cols), picked) for node in client_nodes(self.plan)}
        self._pending += picked + list(back.values())
        got = result_within(self.client, list(back.values()), "lsqr", self.where)
        for part in dict(zip(back.values(), got, strict=True)).values():  # each result once
            whole = isinstance(part[1], dict)  # the vectors: A'D u's lane blocks, a whole result's u
            vectors = [part[0], [p[2] for p in part[1].values()]] if whole else part[2]
            self.A.traffic["received"] += _nbytes(vectors)
        parts = {at: pick(part, at, len(cols)) if isinstance(part[1], dict) else part  # a whole step result
                 for at, part in zip(back, got, strict=True)}  # fmt: skip
        return steps, combine(self.plan, parts, g)

    def _added(self, node, steps, n_columns, picked, top=True):
        """The future of ``node``'s part: picked from its owner's step where one worker adds it (a
        client's node of a whole run: the step itself, picked here), else the sum of its two
        children's, each ``pick`` task appended to ``picked``.  (A method, not a
        closure calling itself: such a closure is a reference cycle, which would hold every call's
        futures, and so every call's u on the workers, until Python's cyclic collector runs.)"""
        if node[0] == "here":
            if top and self.whole[node[1]]:  # picked here, once it has come back
                return steps[node[1]]
            picked.append(self._submit(self.where[node[1]], pick, steps[node[1]], span(node), n_columns))
            return picked[-1]
        left = self._added(node[1], steps, n_columns, picked, False)
        right = self._added(node[2], steps, n_columns, picked, False)
        return self.client.submit(add_parts, left, right, pure=False)

    def _target(self):
        """The worker v is sent to: the first holding groups that the scheduler lists as running
        now (not paused for memory, not retiring: its groups' tasks run where its data goes),
        else None: one Dask chooses."""
        workers = workers_now(self.client)
        return next((w for w in self.where if workers.get(w, {}).get("status") == "running"), None)

    # -- surviving a lost worker -----------------------------------------------------------------

    def _record(self, kind, cols, args):
        """Log a call that ran; finish taking a copy of every run's u, or start one when due (every
        :data:`CHECKPOINT` seconds, or sooner when the log reaches half :data:`MAX_LOG_BYTES`)."""
        if self.log is not None:
            self.log.append((kind, cols, args))
            self._log_bytes += _nbytes(args)
        if self._copying is not None:
            self._finish_copy()
        if self._log_bytes > MAX_LOG_BYTES:  # one worker (nowhere to copy to), or copies failing
            self.log, self.saved, self._copying, self._log_bytes = None, None, None, 0
        due = time.monotonic() - self._copied_at >= CHECKPOINT or self._log_bytes > MAX_LOG_BYTES // 2
        if self._copying is None and due:
            self._start_copy()

    def _start_copy(self):
        """Each run's u copied to the next worker after its own (in the workers' sorted order)."""
        workers = sorted(workers_now(self.client))
        if len(workers) < 2:
            return
        if self.log is None:  # logging starts again here: resumable once this copy is made
            self.log, self._log_bytes = [], 0
        copies = []
        for run, state in enumerate(self.state):
            at = workers.index(self.where[run]) if self.where[run] in workers else -1
            partner = workers[(at + 1) % len(workers)]
            copies.append(None if state is None else self.client.submit(
                saved_u, state, workers=[partner], allow_other_workers=True, pure=False))  # fmt: skip
        self._copying, self._copied_at = (copies, len(self.log)), time.monotonic()

    def _finish_copy(self):
        """The copy under way made the last one once every run's is done on another worker than
        the run's own (a copy beside its u would go with it); given up if a worker left meanwhile."""
        copies, at = self._copying
        status = {c.status for c in copies if c is not None}
        if status - {"finished"}:
            if status & {"error", "cancelled", "lost"}:
                self._copying = None  # the last copy stands
            return
        holders = self.client.who_has([c for c in copies if c is not None])
        if all(c is None or self.where[run] not in holders.get(c.key, ()) for run, c in enumerate(copies)):
            self.saved, self.log = copies, self.log[at:]
            self._log_bytes = sum(_nbytes(logged) for _, _, logged in self.log)
        self._copying = None

    def _resume(self):
        """After a lost worker: each run that lost its u (or whose worker is gone) placed on a worker
        present, its lost groups set up again (the blocks the cluster dropped computed again first,
        ``BlockMatrix.mend``: a ``BlockLostError`` for one that cannot be), and its u rebuilt
        there from the last copy by
        running the logged calls again (the same kernel on the same inputs: the same bits).  A
        ``CancelledError`` when that cannot be done (the copy lost too, or no log kept): the solve
        then starts again (:func:`solve`)."""
        client = self.client
        try:  # a nanny restarts a killed worker within seconds
            client.wait_for_workers(len(set(self.where)), timeout=REJOIN)
        except (TimeoutError, asyncio.TimeoutError):
            pass
        present = sorted(client.nthreads())
        finished = [s for s in self.state if s is not None and s.status == "finished"]
        held = client.who_has(finished) if finished else {}  # the scheduler's word, not a stale status
        lost = [s is not None and not held.get(s.key) for s in self.state]
        moved = [lost[run] or self.where[run] not in present for run in range(len(self.runs))]
        load = dict.fromkeys(present, 0)
        for run, blocks in enumerate(self.runs):
            if not moved[run]:
                load[self.where[run]] = load.get(self.where[run], 0) + len(blocks)
        for run, blocks in enumerate(self.runs):
            if moved[run]:
                self.where[run] = min(present, key=lambda w: (load[w], w))
                load[self.where[run]] += len(blocks)
        self.A.mend()  # the blocks the cluster dropped computed again, or a BlockLostError naming one
        ready = [g for g in self.groups if g.status == "finished"]
        built = client.who_has(ready) if ready else {}
        # a group is set up again when Dask cannot give it (cancelled: its inputs went), or when it is
        # held nowhere and the worker it was placed on has left (Dask would wait for that worker)
        gone = [
            i
            for i, group in enumerate(self.groups)
            if group.status in ("cancelled", "lost")
            or (group.status != "error" and not built.get(group.key) and self.group_at[i] not in present)
        ]
        if gone:
            self.rows.refresh()  # labels sent from here may have gone with the blocks
        run_of = {i: run for run, blocks in enumerate(self.runs) for i in blocks}
        for i in gone:
            worker = self.group_at[i] = self.where[run_of[i]]
            self.groups[i] = self._submit(worker, setup_group, self.A.futures[i], self.rows.block(i, worker),
                                          self.fit_intercept, True)  # fmt: skip
        if not any(lost):
            return
        if self.saved is None or any(
            lost[run] and self.saved[run] is not None and self.saved[run].status != "finished"
            for run in range(len(self.runs))
        ):
            raise CancelledError("lsqr: a lost worker's u cannot be rebuilt (its copy went too, or no log "
                                 "was kept); the solve starts again")  # fmt: skip
        log = scatter_within(client, [self.log], self.where[lost.index(True)], "lsqr")[0]
        for run, blocks in enumerate(self.runs):
            if lost[run]:
                self.state[run] = self._submit(self.where[run], replay, [self.groups[i] for i in blocks],
                                               self.saved[run], blocks, self.nodes[run], log)  # fmt: skip

    def close(self):
        """Drop every future of the solve: its state on the workers is released with them.  (Not
        ``Client.cancel``: cancelling a key cancels its dependents too, and the scheduler refuses
        a dependent no client holds, such as an earlier u still feeding the last step, by dropping
        the client's connection.)"""
        self.groups, self.state, self._pending = [], [], []
        self.saved, self.log, self._copying = None, None, None


def _nbytes(data) -> int:
    """The bytes of the arrays in ``data``: an array, or a dict, list or tuple of them (a logged
    call's arguments, v's lane blocks, a part, a step's result)."""
    if isinstance(data, dict):
        return sum(_nbytes(x) for x in data.values())
    if isinstance(data, (list, tuple)):
        return sum(_nbytes(x) for x in data)
    return getattr(data, "nbytes", 0)


class ArrayRows:
    """The right-hand sides b (n_docs x K) and row weights (the same shape, or None) of a solve
    given as arrays on the client (:func:`textsel.lsqr` on a Dask array): each block's rows sent
    to the worker holding it (through the scheduler), once an attempt."""

    def __init__(self, A, b, weights):
        self.A, self.b, self.weights = A, b, weights
        self.n_columns = b.shape[1]
        self.sent = []

    def block(self, i, worker):
        """The ``rows`` argument of ``setup_group`` for block ``i`` on ``worker``."""
        a, z = self.A.row_starts[i], self.A.row_starts[i + 1]
        parts = [self.b[a:z], None if self.weights is None else self.weights[a:z]]
        sent = self.A.client.scatter(
            [p for p in parts if p is not None], workers=[worker], direct=False, hash=False
        )
        self.A.traffic["setup"] += sum(p.nbytes for p in parts if p is not None)
        self.sent += sent
        return ("arrays", sent[0], sent[1] if len(sent) > 1 else None)

    def refresh(self):
        """Nothing to do before a restart: the arrays are here."""

    def release(self):
        """Drop what an attempt sent to the workers (released with these futures)."""
        self.sent = []


def solve(A, rows, damp, fit_intercept, atol, btol, conlim, iter_lim):
    """:func:`textsel.lsqr` on a :class:`BlockMatrix`, its groups' state on the workers: ``(x,
    report)`` as :func:`textsel._ext.ccore.lsqr_rowop` returns them.  ``rows`` gives b and the
    weights of each block (:class:`ArrayRows`, or ``textsel.distributed.rows.BlockRows`` bound to
    a solve).  A lost worker's part is rebuilt and the solve goes on
    (:meth:`ClusterRowOperator._resume`); where that cannot be done, the solve starts again from its
    beginning (``_faults.restarting``)."""
    m, n = A.shape
    K = rows.n_columns

    def attempt():
        op = ClusterRowOperator(A, rows, fit_intercept)
        try:
            return lsqr_rowop(op, m, n, fit_intercept, K, damp, atol, btol, conlim, iter_lim)
        finally:
            op.close()
            rows.release()

    def mend():
        A.mend()  # the blocks the cluster dropped (a restart drops them all) computed again
        rows.refresh()

    return restarting(A.client, attempt, "lsqr", before_again=mend)
