"""What runs on the workers for a solve whose row vectors stay there (``textsel.distributed.solve``).

A worker keeps, for each group of row blocks it solves, the blocks, their right-hand sides b,
their row weights and LSQR's u, for the whole solve, in a table on the worker object keyed by
the solve and the group.  The groups' state is set up by a task (:func:`setup`); the iterations
run outside the task graph, as Dask's own peer-to-peer shuffle does: the client calls each worker
of the solve directly (the ``textsel_solve_call`` handler, installed by :func:`install`), and the
workers exchange v and the parts of A'D u among themselves (``textsel_solve_put``), so that an
iteration costs the scheduler nothing:

- v reaches the first worker whole, which deals its rows out in P chunks, one per worker; each
  worker passes its chunk to every other (an all-gather);
- each worker updates its groups' u, and computes their parts of ||u|| and of A'D u;
- each worker sends every other worker that worker's rows of its groups' parts, and adds the
  parts of its own rows in group order (a reduce-scatter); the client receives each worker's
  rows of the total and the norms' parts.

Each worker sends and receives about 2 x 8 n K bytes an iteration, whatever the number of
workers.  Imports numpy and textsel's kernels only, as ``_worker`` does (and ``distributed``,
already loaded in a worker, inside the handlers).
"""

from __future__ import annotations

import numpy as np

from .._ext.ccore import csr_matmat, csr_rmatmat
from .._rows import block_row_weights, block_targets, document_weights
from ._worker import local_labels

__all__ = ["Mailbox", "StateLost", "add_norms", "install", "release", "setup"]

_TABLE = "_textsel_solves"


class StateLost(RuntimeError):
    """A group's state is not on the worker that runs its task: the worker holding it was lost
    (or the task moved); the solve restarts from its beginning."""


def _worker():
    from distributed import get_worker

    return get_worker()


def _states(worker):
    table = getattr(worker, _TABLE, None)
    if table is None:
        table = {}
        setattr(worker, _TABLE, table)
    return table


def setup(solve, group, blocks, rows, fit_intercept) -> int:
    """Keep the group's blocks (CSR, float64, checked), right-hand sides and row weights here for
    the solve; returns the group's number of rows.

    ``rows`` is ``("arrays", b_parts, weight_parts)``, the blocks' rows of b and of the weights
    (None: all ones) as given, or ``("labels", y_parts, s_parts, recipe, delta, held_out)``: the
    blocks' labels and sample weights, from which b and the weights are built here as in memory
    (:mod:`textsel._rows`), 0 on the rows ``held_out[j]`` of block j (a slice, or None).
    """
    if rows[0] == "arrays":
        _, b_parts, weight_parts = rows
    else:
        b_parts, weight_parts = _from_labels(*rows[1:])
    state = {
        "blocks": list(blocks),
        "b": [np.ascontiguousarray(b, dtype=np.float64) for b in b_parts],
        "w": None
        if weight_parts is None or all(w is None for w in weight_parts)
        else [np.ascontiguousarray(w, dtype=np.float64) for w in weight_parts],
        "fit_intercept": bool(fit_intercept),
    }
    state["u"] = [np.zeros_like(b) for b in state["b"]]
    _states(_worker())[(solve, group)] = state
    return sum(b.shape[0] for b in state["b"])


def _from_labels(y_parts, s_parts, recipe, delta, held_out):
    """The blocks' targets and row weights from their labels (the weights None when all are 1)."""
    b_parts, w_parts = [], []
    for j, y in enumerate(y_parts):
        y = local_labels(y)
        T = block_targets(y, recipe)
        s = document_weights(y, None if s_parts is None else s_parts[j], recipe)
        b_parts.append(T)
        w_parts.append(block_row_weights(T, s, delta, held_out[j]))
    if any(w is None for w in w_parts) and not all(w is None for w in w_parts):
        w_parts = [np.ones_like(T) if w is None else w for T, w in zip(b_parts, w_parts, strict=True)]
    return b_parts, w_parts


def release(solve, dask_worker=None) -> int:
    """Drop every group of ``solve`` this worker holds and abandon its messages (at the end of the
    solve, or when it is abandoned: calls still waiting for a peer raise StateLost; run by
    ``Client.run`` on the worker's event loop, which passes ``dask_worker``); returns how many."""
    worker = dask_worker if dask_worker is not None else _worker()
    box = getattr(worker, _MAILBOX, None)
    if box is not None:
        box.close(solve)
    table = _states(worker)
    keys = [key for key in table if key[0] == solve]
    for key in keys:
        del table[key]
    return len(keys)


def _weights(state, j, cols):
    # a copy only for a subset of the columns (``cols`` a slice: a view)
    return None if state["w"] is None else state["w"][j][:, cols]


def _start(state, cols, exps):
    """With ``exps`` None: the group's max |D b| of each column ``cols[p]``; else u = 2^-exps D b for
    those columns and the group's part of ||u|| and A'D u."""
    if exps is None:
        maxabs = np.zeros(cols.size)
        for j, b in enumerate(state["b"]):
            Db = b[:, cols] if state["w"] is None else _weights(state, j, cols) * b[:, cols]
            if Db.size:
                np.maximum(maxabs, np.abs(Db).max(axis=0), out=maxabs)
        return maxabs
    for j, b in enumerate(state["b"]):
        Db = b[:, cols] if state["w"] is None else _weights(state, j, cols) * b[:, cols]
        state["u"][j][:, cols] = np.ldexp(Db, -np.asarray(exps))
    return _part(state, cols)


def _step(state, cols, v, vcoef, ucoef):
    """u = vcoef D A v + ucoef u for the columns ``cols`` (A = [X, 1] with the intercept), then the
    group's part of ||u|| and A'D u; each block's two products one after the other, while its
    rows are in cache."""
    every = _every_column(cols, state)
    n = state["blocks"][0].shape[1]
    V = np.ascontiguousarray(v[:n])
    g, scale, ssq = (
        np.zeros((n + state["fit_intercept"], cols.size)),
        np.zeros(cols.size),
        np.zeros(cols.size),
    )
    for j, X in enumerate(state["blocks"]):
        if X.shape[0] == 0:
            continue
        Au = csr_matmat(X.data, X.indices, X.indptr, n, V)
        if state["fit_intercept"]:
            Au += v[n]
        w = _weights(state, j, every)
        if w is not None:
            Au *= w
        Au *= vcoef
        if isinstance(every, slice):  # every column, in order: u updated in place, no copy
            u = state["u"][j]
            u *= ucoef
            u += Au
        else:
            u = Au
            u += ucoef * state["u"][j][:, cols]
            state["u"][j][:, cols] = u
        scale, ssq = _block_part(X, u, w, n, state["fit_intercept"], g, scale, ssq)
    return scale, ssq, g


def _every_column(cols, state):
    """``slice(None)`` when ``cols`` is every column in order (views instead of copies), else ``cols``."""
    K = state["b"][0].shape[1] if state["b"] else cols.size
    return slice(None) if cols.size == K and (cols == np.arange(K)).all() else cols


def _part(state, cols):
    """The group's part of ||u|| as (scale, sum of squares / scale^2) per column, and of A'D u."""
    n = state["blocks"][0].shape[1]
    every = _every_column(cols, state)
    g, scale, ssq = (
        np.zeros((n + state["fit_intercept"], cols.size)),
        np.zeros(cols.size),
        np.zeros(cols.size),
    )
    for j, X in enumerate(state["blocks"]):
        if X.shape[0]:
            u = state["u"][j][:, every]
            scale, ssq = _block_part(
                X, u, _weights(state, j, every), n, state["fit_intercept"], g, scale, ssq
            )
    return scale, ssq, g


def _block_part(X, u, w, n, fit_intercept, g, scale, ssq):
    """Add one block's A'D u into ``g`` and its ||u|| into (scale, ssq)."""
    du = np.ascontiguousarray(u if w is None else w * u)
    csr_rmatmat(X.data, X.indices, X.indptr, n, du, g[:n] if fit_intercept else g)
    if fit_intercept:
        g[n] += du.sum(axis=0)
    return _add_norms(scale, ssq, *_norm_part(u))


def _norm_part(u):
    """(scale, sum of (u / scale)^2) per column: scale 1 where the plain sum of squares is inside
    the double range (one pass), the largest magnitude elsewhere (as BLAS nrm2 does)."""
    ssq = np.einsum("ij,ij->j", u, u)
    scale = np.ones_like(ssq)
    bad = ~((ssq >= _TINY) & (ssq <= _HUGE))
    if bad.any():
        big = np.abs(u[:, bad]).max(axis=0)
        safe = np.where(big > 0, big, 1.0)
        scale[bad] = big
        ssq[bad] = ((u[:, bad] / safe) ** 2).sum(axis=0)
    return scale, ssq


_TINY, _HUGE = np.finfo(np.float64).tiny, np.finfo(np.float64).max


def _add_norms(scale_a, ssq_a, scale_b, ssq_b):
    """Two (scale, scaled sum of squares) pairs as one, as LAPACK's nrm2 combines them: no square
    of a value near the ends of the double range is ever formed."""
    scale = np.maximum(scale_a, scale_b)
    safe = np.where(scale > 0, scale, 1.0)
    return scale, ssq_a * (scale_a / safe) ** 2 + ssq_b * (scale_b / safe) ** 2


def add_norms(parts):
    """The groups' (scale, ssq) pairs, in group order, as one."""
    scale, ssq = parts[0]
    for other in parts[1:]:
        scale, ssq = _add_norms(scale, ssq, *other)
    return scale, ssq


# -- the exchanges among the workers, outside the task graph ------------------------------------

#: seconds a worker waits for a peer's message before it gives the solve up as lost
PATIENCE = 600.0

_MAILBOX = "_textsel_mailbox"


class Mailbox:
    """A worker's messages from its peers, by (solve, tag); used on the worker's event loop only."""

    def __init__(self):
        self.slots, self.closed = {}, set()

    def _slot(self, key):
        import asyncio

        if key not in self.slots:
            self.slots[key] = asyncio.get_running_loop().create_future()
        return self.slots[key]

    def put(self, solve, tag, data):
        if solve in self.closed:  # a message of an abandoned solve
            return
        slot = self._slot((solve, tag))
        if not slot.done():
            slot.set_result(data)

    async def take(self, solve, tags):
        import asyncio

        if solve in self.closed:
            raise StateLost(f"solve {solve} was abandoned")
        slots = [self._slot((solve, tag)) for tag in tags]
        try:
            values = await asyncio.wait_for(asyncio.gather(*slots), PATIENCE)
        except TimeoutError:
            raise StateLost(f"a peer of solve {solve} sent nothing for {PATIENCE:.0f} s") from None
        for tag in tags:
            del self.slots[(solve, tag)]
        return values

    def close(self, solve):
        """Abandon ``solve``: its waiting calls raise StateLost, its messages are dropped."""
        self.closed.add(solve)
        for key in [k for k in self.slots if k[0] == solve]:
            slot = self.slots.pop(key)
            if not slot.done():
                slot.set_exception(StateLost(f"solve {solve} was abandoned"))


def install(worker):
    """Give ``worker`` a mailbox and the solve's handlers (a worker plugin's setup: again on every
    worker that joins later; a second install keeps the mailbox)."""
    if getattr(worker, _MAILBOX, None) is None:
        setattr(worker, _MAILBOX, Mailbox())

    async def put(solve, tag, data):
        getattr(worker, _MAILBOX).put(solve, tuple(tag), data)
        return "OK"

    async def call(**request):
        return await _call(worker, **request)

    async def abort(solve):
        getattr(worker, _MAILBOX).close(solve)
        return "OK"

    worker.handlers["textsel_solve_put"] = put
    worker.handlers["textsel_solve_call"] = call
    worker.handlers["textsel_solve_abort"] = abort


async def _send(worker, messages):
    """Each (peer, solve, tag, data) to its peer, all at once; to this worker itself, straight."""
    import asyncio

    from distributed.protocol import to_serialize

    box = getattr(worker, _MAILBOX)
    remote = []
    for peer, solve, tag, data in messages:
        if peer == worker.address:
            box.put(solve, tag, data)
        else:
            remote.append(
                worker.rpc(peer).textsel_solve_put(solve=solve, tag=list(tag), data=to_serialize(data))
            )
    await asyncio.gather(*remote)
    return sum(_nbytes(m[3]) for m in messages if m[0] != worker.address)


def _nbytes(data):
    if isinstance(data, np.ndarray):
        return data.nbytes
    return sum(_nbytes(d) for d in data) if isinstance(data, (list, tuple)) else 0


async def _call(worker, solve, kind, iteration, me, peers, bounds, groups, cols, exps=None, v=None,
                vcoef=None, ucoef=None):  # fmt: skip
    """One call of the C solver's row operator on this worker's ``groups``: ``kind`` "max" (the
    groups' max |D b|), "start" (u = 2^-exps D b) or "step" (v in, u updated).  This worker is
    ``peers[me]`` and owns the rows ``bounds[me]:bounds[me + 1]`` of A'D u.  Returns the groups'
    norm parts and this worker's rows of the total (summed over every group, in group order), and
    the bytes it sent to its peers."""
    import asyncio

    from distributed.protocol import to_serialize

    box = getattr(worker, _MAILBOX)
    loop = asyncio.get_running_loop()
    cols = np.asarray(cols)
    states = [_state_of(worker, solve, group) for group in groups]
    sent = 0
    if kind == "max":
        parts = await loop.run_in_executor(None, lambda: [_start(s, cols, None) for s in states])
        return {"max": to_serialize(parts), "sent": 0}
    if kind == "step":
        v, sent = await _all_gather(worker, box, solve, iteration, me, peers, bounds, v)
        parts = await loop.run_in_executor(None, lambda: [_step(s, cols, v, vcoef, ucoef) for s in states])
    else:
        parts = await loop.run_in_executor(None, lambda: [_start(s, cols, exps) for s in states])
    # reduce-scatter: each peer's rows of every group's part to that peer
    rows = [(bounds[p], bounds[p + 1]) for p in range(len(peers))]
    out = [
        (
            peer,
            solve,
            ("g", iteration, me),
            [(group, g[a:b]) for group, (_, _, g) in zip(groups, parts, strict=True)],
        )
        for peer, (a, b) in zip(peers, rows, strict=True)
    ]
    sent += await _send(worker, out)
    received = await box.take(solve, [("g", iteration, p) for p in range(len(peers))])
    chunks = sorted((pair for message in received for pair in message), key=lambda pair: pair[0])
    total = await loop.run_in_executor(None, _sum_in_order, [c for _, c in chunks])
    norms = [(group, scale, ssq) for group, (scale, ssq, _) in zip(groups, parts, strict=True)]
    return {"norms": to_serialize(norms), "g": to_serialize(total), "sent": sent}


def _sum_in_order(chunks):
    total = chunks[0].copy()
    for chunk in chunks[1:]:
        total += chunk
    return total


async def _all_gather(worker, box, solve, iteration, me, peers, bounds, v):
    """v on every worker: the first deals its P chunks out, each worker passes its own to every
    other.  Returns (v, bytes sent)."""
    P = len(peers)
    if P == 1:
        return v, 0
    tag = ("v", iteration)
    if me == 0:
        chunks = [v[bounds[p] : bounds[p + 1]] for p in range(P)]
        deal = [(peers[p], solve, (*tag, p, "own"), chunks[p]) for p in range(1, P)]
        share = [(peers[p], solve, (*tag, 0), chunks[0]) for p in range(1, P)]
        return v, await _send(worker, deal + share)
    (own,) = await box.take(solve, [(*tag, me, "own")])
    share = [(peers[p], solve, (*tag, me), own) for p in range(1, P) if p != me]
    sent = await _send(worker, share)
    others = await box.take(solve, [(*tag, p) for p in range(P) if p != me])
    others.insert(me, own)
    return np.ascontiguousarray(np.vstack(others)), sent


def _state_of(worker, solve, group):
    try:
        return _states(worker)[(solve, group)]
    except KeyError:
        raise StateLost(f"group {group} of solve {solve} is not on this worker") from None
