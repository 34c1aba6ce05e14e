"""LSQR on a cluster with the documents' vectors on the workers.

The C solver runs here on the client (:func:`textsel._ext.ccore.lsqr_rowop`) and holds only
vectors of the unknowns' length (n terms x K right-hand sides): v, w and x.  Its row operator,
:class:`ClusterRowOperator`, keeps each group of row blocks' right-hand sides, row weights and
LSQR's u on the worker holding the blocks for the whole solve (``_solve_worker``), set up by one
task per group.  The iterations then bypass the scheduler, as Dask's peer-to-peer shuffle does
(``_collective``): once an iteration the client sends v to the worker of the first group and
receives the n x K total of A'D u from it, and the groups' workers deal v out, gather it, and
reduce-scatter and gather the parts among themselves in O(log G) rounds, the sums in one fixed
order over the groups wherever they run.

So the bytes through the client per iteration are 2 x 8 n K plus a few per right-hand side, and
no worker moves much more than 3 x 8 n K, whatever the number of workers or documents; no task
runs per iteration.  A worker lost during a solve takes its groups' state with it: the solve
starts again from its beginning (not from a checkpoint) once the cluster has recomputed the lost
blocks, at most :data:`RESTARTS` times; Ctrl-C abandons the solve on every worker.
"""

from __future__ import annotations

import contextlib
import uuid

import numpy as np
from distributed.diagnostics.plugin import WorkerPlugin

from .._ext.ccore import lsqr_rowop
from ._blocks import place_groups
from ._collective import install, release, split
from ._solve_worker import StateLost, add_norms, setup

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


class SolveHandlers(WorkerPlugin):
    """Installs the solve's handlers (``_solve_worker.install``) on each worker, and on every worker
    that joins later."""

    idempotent = True  # registering it again changes nothing
    name = "textsel-solve"

    def setup(self, worker):
        install(worker)


def _install(client):
    client.register_plugin(SolveHandlers(), name=SolveHandlers.name)


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
        _install(self.client)
        self.placement = place_groups(self.client, A.futures, A.groups)
        self.workers = [w for w, _ in self.placement]
        n_rows, P = A.shape[1] + self.fit_intercept, split(len(self.workers))
        self.bounds = [n_rows * p // P for p in range(P + 1)]  # the rows of A'D u rank p adds up
        self.iteration = 0
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
            if exps is None:
                small = self._call("max", cols)["small"]
                maxabs[:] = np.max([small[group] for group in range(len(self.workers))], axis=0)
            else:
                self._unpack(self._call("start", cols, exps=[int(e) for e in exps]), unorm, g)

    def step(self, cols, v, vcoef, ucoef, unorm, g):
        with _lost_workers():
            v = np.ascontiguousarray(v)
            result = self._call("step", cols, v=v, vcoef=vcoef.tolist(), ucoef=ucoef.tolist())
            self.A.traffic["sent"] += v.nbytes + vcoef.nbytes + ucoef.nbytes + cols.nbytes
            self._unpack(result, unorm, g, count=True)
            self.A.traffic["products"] += 2

    # -- the plumbing --------------------------------------------------------------------------

    def _call(self, kind, cols, v=None, **request):
        """``kind`` on the solve's groups: the client calls the first group's worker, which starts
        the others (``_collective``), and waits for its answer.  If it fails, every worker is told
        to abandon the solve (a worker waiting for a peer stops waiting)."""
        from distributed.protocol import to_serialize

        self.iteration += 1
        call = dict(kind=kind, iteration=self.iteration, hosts=self.workers, bounds=self.bounds,
                    cols=np.asarray(cols).tolist(), **request)  # fmt: skip

        async def run():
            try:
                return await self.client.rpc(self.workers[0]).textsel_solve_call(
                    solve=self.solve_id, call=call, v=None if v is None else to_serialize(v)
                )
            except BaseException:
                for host in dict.fromkeys(self.workers):  # the others stop waiting
                    with contextlib.suppress(Exception):
                        await self.client.rpc(host).textsel_solve_abort(solve=self.solve_id)
                raise

        return self.client.sync(run)

    def _unpack(self, result, unorm, g, count=False):
        """The total of A'D u into ``g``, and the groups' norm parts added in group order into
        ``unorm``."""
        small = result["small"]
        scale, ssq = add_norms([small[group] for group in range(len(self.workers))])
        unorm[:] = scale * np.sqrt(ssq)
        g[...] = result["g"]
        if count:
            self.A.traffic["received"] += result["g"].nbytes + scale.nbytes + ssq.nbytes
            self.A.traffic["peers"] += small["sent"]

    def _submit(self, worker, func, *args):
        # pinned: the group's state is on that worker and nowhere else
        return self.client.submit(func, *args, workers=[worker], allow_other_workers=False, pure=False)

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
