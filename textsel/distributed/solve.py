"""LSQR on a cluster with the documents' vectors on the workers.

The C solver runs here on the client (:func:`textsel._ext.ccore.lsqr_rowop`) and holds only
vectors of the unknowns' length (n terms x K right-hand sides): v, w and x.  Its row operator,
:class:`ClusterRowOperator`, keeps each group of row blocks' right-hand sides, row weights and
LSQR's u on the worker holding the blocks for the whole solve (``_solve_worker``).  Per
iteration:

- v goes out once, to one worker, and down a binary tree among the workers from there;
- one task per group updates its u, and returns its part of ||u|| and of A'D u;
- the parts are added pairwise among the workers, in a fixed binary tree over the groups (the
  sum does not depend on where the groups run), and only the total, n x K, comes back.

So the bytes through the client per iteration are 2 x 8 n K plus a few per right-hand side,
whatever the number of workers or documents.  A worker lost during a solve takes its groups'
state with it: the solve starts again from its beginning (not from a checkpoint) once the
cluster has recomputed the lost blocks, at most :data:`RESTARTS` times; Ctrl-C cancels the
tasks in flight and drops the state.
"""

from __future__ import annotations

import contextlib
import itertools
import uuid

import numpy as np

from .._ext.ccore import lsqr_rowop
from ._blocks import place_groups
from ._solve_worker import StateLost, combine, forward, release, setup, start, step

__all__ = ["RESTARTS", "ArrayRows", "ClusterRowOperator", "solve"]

#: how many times a solve starts again after a worker was lost
RESTARTS = 3

#: seconds between two looks at the cluster while a step's result is awaited
POLL = 0.5


@contextlib.contextmanager
def _lost_workers():
    """A worker that dies under a call (its task killed, its connection closed, data sent to it
    lost) as StateLost; a data error, Ctrl-C or StateLost itself as it is."""
    try:
        yield
    except (ValueError, TypeError, MemoryError, StateLost):
        raise
    except Exception as exc:
        raise StateLost(f"a worker was lost during the solve ({exc!r})") from exc


class ClusterRowOperator:
    """The row operator of ``ts_lsqr_rowop`` over a :class:`BlockMatrix`: b (n_docs x K), the row
    weights (same shape, or None) and u kept on the workers, one state per group of blocks.

    Built by :func:`solve`; its ``start`` and ``step`` are called by the C solver.
    """

    def __init__(self, A, rows, fit_intercept):
        self.A = A
        self.client = A.client
        self.fit_intercept = bool(fit_intercept)
        self.solve_id = uuid.uuid4().hex
        self._pending, self.workers = [], []
        try:
            with _lost_workers():
                self._setup(A, rows)
        except BaseException:
            self.close()  # what the groups set up so far
            raise

    def _setup(self, A, rows):
        self.placement = place_groups(self.client, A.futures, A.groups)
        self.workers = [w for w, _ in self.placement]
        pending = []
        for group, (worker, idx) in enumerate(self.placement):
            blocks = [A.futures[i] for i in idx]
            group_rows = rows.group(idx, worker)
            task = (setup, self.solve_id, group, blocks, group_rows, self.fit_intercept)
            pending.append(self._submit(worker, *task))
        self._wait(pending)

    # -- the two calls of the C solver -------------------------------------------------------

    def start(self, cols, exps, maxabs, unorm, g):
        with _lost_workers():
            self._start(cols, exps, maxabs, unorm, g)

    def step(self, cols, v, vcoef, ucoef, unorm, g):
        with _lost_workers():
            self._step(cols, v, vcoef, ucoef, unorm, g)

    def _start(self, cols, exps, maxabs, unorm, g):
        exps = None if exps is None else [int(e) for e in exps]
        parts = [
            self._submit(w, start, self.solve_id, group, cols, exps) for group, w in enumerate(self.workers)
        ]
        total = self._wait([self._reduce(parts)])[0]
        if exps is None:
            maxabs[:] = total[1]
        else:
            self._unpack(total, unorm, g)

    _iterating = False  # the bytes of start() are counted with the setup's

    def _step(self, cols, v, vcoef, ucoef, unorm, g):
        self._iterating = True
        # v once to the first group's worker, and from there to the others down a tree
        sent = self.client.scatter(
            np.ascontiguousarray(v), workers=[self.workers[0]], direct=True, hash=False
        )
        self.A.traffic["sent"] += v.nbytes + vcoef.nbytes + ucoef.nbytes + cols.nbytes
        held = self._broadcast(sent)
        parts = [
            self._submit(w, step, self.solve_id, group, cols, held[w], vcoef, ucoef)
            for group, w in enumerate(self.workers)
        ]
        self._unpack(self._wait([self._reduce(parts)])[0], unorm, g)
        self.A.traffic["products"] += 2

    # -- the plumbing --------------------------------------------------------------------------

    def _submit(self, worker, func, *args):
        # pinned: the group's state is on that worker and nowhere else
        return self.client.submit(func, *args, workers=[worker], allow_other_workers=False, pure=False)

    def _broadcast(self, sent):
        """v on every worker of the solve: from the first, down a binary tree (each worker that
        has it passes it to one more, log2 W rounds), so that no worker sends it W - 1 times.
        Up to two workers the second fetches it directly.  Returns {worker: future}."""
        order = list(dict.fromkeys(self.workers))
        if len(order) <= 2:
            return dict.fromkeys(order, sent)
        held, waiting = {order[0]: sent}, order[1:]
        while waiting:
            for source in list(held):
                if not waiting:
                    break
                target = waiting.pop(0)
                held[target] = self._submit(target, forward, held[source])
        return held

    def _reduce(self, parts):
        """The parts added pairwise, level by level, in group order, among the workers."""
        while len(parts) > 1:
            pairs = itertools.zip_longest(parts[0::2], parts[1::2])
            parts = [a if b is None else self.client.submit(combine, a, b, pure=False) for a, b in pairs]
        return parts[0]

    def _unpack(self, total, unorm, g):
        _, scale, ssq, G = total
        unorm[:] = scale * np.sqrt(ssq)
        g[...] = G
        if self._iterating:
            self.A.traffic["received"] += G.nbytes + scale.nbytes + ssq.nbytes

    def _wait(self, futures):
        """The futures' results; a worker holding a group's state found gone is StateLost (its
        tasks, pinned to it, would wait for ever)."""
        from distributed import wait

        self._pending = futures  # cancelled by close() if the solve stops here (Ctrl-C)
        while True:
            try:
                wait(futures, timeout=POLL)
                break
            except TimeoutError:
                present = set(self.client.scheduler_info(n_workers=-1)["workers"])
                if not set(self.workers) <= present:
                    self.client.cancel(futures)
                    raise StateLost("a worker holding part of the solve was lost") from None
        return self.client.gather(futures, direct=True)

    def close(self):
        """Cancel the tasks in flight and drop the state on every worker that holds some (best
        effort: a lost worker has none)."""
        try:
            self.client.cancel(self._pending)
            self.client.run(release, self.solve_id, workers=sorted(set(self.workers)))
        except Exception:  # a worker gone meanwhile: its state went with it
            pass


class ArrayRows:
    """The right-hand sides b (n_docs x K) and row weights (the same shape, or None) of a solve
    given as arrays on the client (:func:`textsel.lsqr` on a Dask array): each group's rows go
    straight to its worker, once a solve."""

    def __init__(self, A, b, weights):
        self.A, self.b, self.weights = A, b, weights
        self.n_columns = b.shape[1]

    def group(self, idx, worker):
        """The ``rows`` argument of :func:`_solve_worker.setup` for the blocks ``idx`` on ``worker``."""
        starts = self.A.row_starts
        b_parts = [self.b[starts[i] : starts[i + 1]] for i in idx]
        w_parts = None if self.weights is None else [self.weights[starts[i] : starts[i + 1]] for i in idx]
        sent = self.A.client.scatter([b_parts, w_parts], workers=[worker], direct=True, hash=False)
        self.A.traffic["setup"] += sum(p.nbytes for p in b_parts) + sum(p.nbytes for p in w_parts or ())
        return ("arrays", *sent)

    def refresh(self):
        """Nothing to do before a restart: the arrays are here."""


def solve(A, rows, damp, fit_intercept, atol, btol, conlim, iter_lim):
    """:func:`textsel.lsqr` on a :class:`BlockMatrix` with u, b and the weights on the workers:
    ``(x, report)`` as :func:`textsel._ext.ccore.lsqr_rowop` returns them.  ``rows`` gives b and the
    weights of each group (:class:`ArrayRows`, or ``textsel.distributed.rows.BlockRows`` bound to a
    solve).  A solve that loses a worker starts again from its beginning, at most
    :data:`RESTARTS` times."""
    m, n = A.shape
    K = rows.n_columns
    for attempt in range(RESTARTS + 1):
        op = None
        try:
            op = ClusterRowOperator(A, rows, fit_intercept)
            return lsqr_rowop(op, m, n, fit_intercept, K, damp, atol, btol, conlim, iter_lim)
        except StateLost as exc:
            if attempt == RESTARTS:
                raise RuntimeError(
                    f"lsqr: the solve lost a worker {RESTARTS + 1} times ({exc}); it was abandoned and "
                    "nothing is returned"
                ) from exc
            A.client.wait_for_workers(1, timeout=60)
            rows.refresh()  # what was sent from here and lost with the worker, sent again
        finally:
            if op is not None:
                op.close()
    raise AssertionError("unreachable")
