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

import numpy as np

from .._ext.ccore import lsqr_rowop
from .._row_groups import tree_half
from ._faults import restarting, result_within, scatter_within
from ._solve_worker import add_parts, pick, run_step, setup_group

__all__ = [
    "CLIENT_DEPTH", "ArrayRows", "ClusterRowOperator", "client_nodes", "combine", "solve", "span",
    "tree_plan",
]  # fmt: skip


#: the client adds the top this many levels of the tree; below, tasks add the workers' pieces
#: among the workers (the client then receives at most 2**CLIENT_DEPTH parts an iteration, not
#: one per worker, at the cost of one scheduler round trip per level below)
CLIENT_DEPTH = 2


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


def combine(plan, parts):
    """The plan's root from ``parts``, the parts of some of its nodes keyed by :func:`span`: the
    nodes above them added here."""
    if span(plan) in parts:
        return parts[span(plan)]
    return add_parts(combine(plan[1], parts), combine(plan[2], parts))


class ClusterRowOperator:
    """The row operator of ``ts_lsqr_rowop`` over a :class:`BlockMatrix`: one group per block, its
    state Dask data on the worker holding the block.  Built by :func:`solve`; its ``start`` and
    ``step`` are called by the C solver."""

    def __init__(self, A, rows, fit_intercept):
        self.A, self.client = A, A.client
        self.fit_intercept = bool(fit_intercept)
        who_has = self.client.who_has(A.futures)
        present = sorted(self.client.nthreads())
        load = dict.fromkeys(present, 0)
        fair = -(-A.n_blocks // max(len(present), 1))
        owners = []
        for future in A.futures:
            # each block with a worker holding it: the previous block's while it holds no more than
            # its share (a run of blocks on one worker is a piece of the tree it adds in its own
            # task), else the least loaded (blocks copied to several workers spread evenly)
            holders = [w for w in who_has.get(future.key, ()) if w in load] or present
            previous = owners[-1] if owners else None
            if previous in holders and load[previous] < fair:
                owner = previous
            else:
                owner = min(holders, key=lambda w: (load[w], w))
            load[owner] += 1
            owners.append(owner)
        self.plan = tree_plan(owners)
        self.runs = {}  # owner -> its blocks, in order
        for i, owner in enumerate(owners):
            self.runs.setdefault(owner, []).append(i)
        self.nodes = {}
        for owner, node in _here_nodes(self.plan):
            self.nodes.setdefault(owner, []).append(node)
        self.rows = rows
        self.groups = [
            self._submit(owners[i], setup_group, A.futures[i], rows.block(i, owners[i]), self.fit_intercept)
            for i in range(A.n_blocks)
        ]
        self.state = dict.fromkeys(self.runs)  # owner -> its last run_step result (u), or None
        self._pending = []

    # -- the two calls of the C solver -------------------------------------------------------

    def start(self, cols, exps, maxabs, unorm, g):
        if exps is None:
            futures = self._steps("max", cols)
            self._pending = list(futures.values())
            parts = result_within(self.client, list(futures.values()), "lsqr", list(self.runs))
            self.rows.release()  # every group is set up: what was sent for them is theirs now
            maxabs[:] = np.max([p[1] for p in parts], axis=0) if parts else 0.0
        else:
            self._products("start", cols, unorm, g, exps=np.asarray(exps, dtype=np.int64))

    def step(self, cols, v, vcoef, ucoef, unorm, g):
        v = np.ascontiguousarray(v)
        v_future = scatter_within(self.client, v, self._target(), "lsqr")
        self._pending = [v_future]
        self.A.traffic["sent"] += v.nbytes  # once, to one worker; the others fetch it from there
        self._products("step", cols, unorm, g, v=v_future, vcoef=np.array(vcoef), ucoef=np.array(ucoef))
        self.A.traffic["products"] += 2

    # -- the tasks -------------------------------------------------------------------------------

    def _submit(self, worker, func, *args, **kwargs):
        # a preference: a block that moved (a retired worker's, moved by the scheduler) is followed
        return self.client.submit(func, *args, workers=[worker], allow_other_workers=True, pure=False,
                                  **kwargs)  # fmt: skip

    def _steps(self, kind, cols, **args):
        cols = np.array(cols, dtype=np.int64)
        return {
            owner: self._submit(
                owner,
                run_step,
                [self.groups[i] for i in idx],
                self.state[owner],
                idx,
                kind,
                cols,
                self.nodes.get(owner, []),
                **args,
            )  # fmt: skip
            for owner, idx in self.runs.items()
        }

    def _products(self, kind, cols, unorm, g, **args):
        steps = self._steps(kind, cols, **args)
        self._pending += list(steps.values())  # released by close() if this call fails
        picked = {}

        def future_of(node):
            if node[0] == "here":
                picked[span(node)] = self._submit(node[1], pick, steps[node[1]], span(node), len(cols))
                return picked[span(node)]
            return self.client.submit(add_parts, future_of(node[1]), future_of(node[2]), pure=False)

        back = {span(node): future_of(node) for node in client_nodes(self.plan)}
        self._pending += list(picked.values()) + list(back.values())
        got = result_within(self.client, list(back.values()), "lsqr", list(self.runs))
        part = combine(self.plan, dict(zip(back, got, strict=True)))
        self.A.traffic["received"] += sum(sums.nbytes for _, _, sums in got)
        self.state, self._pending = steps, []  # the new u; the previous results released with their futures
        scale, ssq, total = part
        unorm[:] = scale * np.sqrt(ssq)
        g[...] = total

    def _target(self):
        """The worker v is sent to: the first holding groups that the scheduler lists as running
        now (not paused for memory, not retiring: its groups' tasks run where its data goes),
        else None: one Dask chooses."""
        workers = self.client.scheduler_info()["workers"]
        return next((w for w in self.runs if workers.get(w, {}).get("status") == "running"), None)

    def close(self):
        """Drop every future of the solve: its state on the workers is released with them.  (Not
        ``Client.cancel``: cancelling a key cancels its dependents too, and the scheduler refuses
        a dependent no client holds, such as an earlier u still feeding the last step, by dropping
        the client's connection.)"""
        self.groups, self.state, self._pending = [], {}, []


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
    a solve).  A solve whose state a lost worker took starts again from its beginning
    (``_faults.restarting``)."""
    m, n = A.shape
    K = rows.n_columns

    def attempt():
        op = ClusterRowOperator(A, rows, fit_intercept)
        try:
            return lsqr_rowop(op, m, n, fit_intercept, K, damp, atol, btol, conlim, iter_lim)
        finally:
            op.close()
            rows.release()

    return restarting(A.client, attempt, "lsqr", before_again=rows.refresh)
