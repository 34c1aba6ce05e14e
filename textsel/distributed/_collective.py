"""The solve's exchanges among the workers, outside the task graph (``textsel.distributed.solve``).

An iteration runs no task, as Dask's peer-to-peer shuffle runs none: a worker plugin installs the
handlers of :func:`install`, the client calls the worker of the solve's first group
(``textsel_solve_call``), and the workers message each other (``textsel_solve_put``).  The groups
of blocks are the ranks of the exchanges, whichever worker holds them, so that every sum is added
in one fixed order and the solve is bitwise the same wherever its groups run.  With G groups, the
largest power of two P <= G of them exchange in rounds (Rabenseifner's all-reduce, split in two):

- v, sent to rank 0, is dealt out down a binomial tree (rank r keeps rows ``bounds[r]`` of it), and
  gathered back by recursive doubling: log2 P rounds each, every rank sending and receiving about
  8 n K bytes in all;
- each rank computes its group's parts of ||u|| and A'D u; a rank r >= P first adds its part into
  rank r - P's;
- the parts are reduce-scattered by recursive halving (log2 P rounds, about 8 n K bytes each way a
  rank), and rank r's rows of the total gathered to rank 0 down the binomial tree; rank 0 returns
  them to the client with every group's norm parts.

So no worker sends or receives much more than 3 x 8 n K bytes an iteration, in O(log G) messages,
whatever G.  A rank that fails abandons the solve on every worker (its waiting ranks raise
StateLost); the client starts the solve again.  Imports numpy and textsel's kernels at module level
only (``distributed``, loaded in any worker, inside the functions).
"""

from __future__ import annotations

import asyncio

import numpy as np

from ._solve_worker import StateLost, compute, state_of, states

__all__ = ["PATIENCE", "Mailbox", "install", "release", "split"]

#: seconds a rank waits for a peer's message before it gives the solve up as lost
PATIENCE = 600.0

_MAILBOX = "_textsel_mailbox"


def split(n_groups: int) -> int:
    """P, the largest power of two <= ``n_groups``: the ranks of the halving and doubling rounds."""
    return 1 << (n_groups.bit_length() - 1)


class Mailbox:
    """A worker's messages to the ranks it hosts, by (solve, rank, tag); on the event loop only."""

    def __init__(self):
        self.slots, self.closed = {}, set()

    def _slot(self, key):
        if key not in self.slots:
            self.slots[key] = asyncio.get_running_loop().create_future()
        return self.slots[key]

    def put(self, solve, key, data):
        if solve not in self.closed:  # else a message of an abandoned solve
            slot = self._slot((solve, *key))
            if not slot.done():
                slot.set_result(data)

    async def take(self, solve, key):
        if solve in self.closed:
            raise StateLost(f"solve {solve} was abandoned")
        slot = self._slot((solve, *key))
        try:
            return await asyncio.wait_for(asyncio.shield(slot), PATIENCE)
        except TimeoutError:
            raise StateLost(f"a peer of solve {solve} sent nothing for {PATIENCE:.0f} s") from None
        finally:
            self.slots.pop((solve, *key), None)

    def close(self, solve):
        """Abandon ``solve``: its waiting ranks raise StateLost, its messages are dropped."""
        self.closed.add(solve)
        for key in [k for k in self.slots if k[0] == solve]:
            slot = self.slots.pop(key)
            if not slot.done():
                slot.set_exception(StateLost(f"solve {solve} was abandoned"))


def install(worker):
    """Give ``worker`` a mailbox and the solve's handlers (a worker plugin's setup; a second install
    keeps the mailbox)."""
    if getattr(worker, _MAILBOX, None) is None:
        setattr(worker, _MAILBOX, Mailbox())

    async def call(solve, call, v=None):
        return await _root(worker, solve, call, v)

    async def put(solve, rank, tag, data=None, call=None):
        _deliver(worker, solve, rank, tuple(tag), data, call)
        return "OK"

    async def abort(solve):
        getattr(worker, _MAILBOX).close(solve)
        return "OK"

    worker.handlers.update(textsel_solve_call=call, textsel_solve_put=put, textsel_solve_abort=abort)


def release(solve, dask_worker=None) -> int:
    """Drop every group of ``solve`` this worker holds and abandon its messages (its waiting ranks
    raise StateLost); run by ``Client.run`` on the worker's event loop.  Returns how many groups."""
    box = getattr(dask_worker, _MAILBOX, None)
    if box is not None:
        box.close(solve)
    table = states(dask_worker)
    keys = [key for key in table if key[0] == solve]
    for key in keys:
        del table[key]
    return len(keys)


def _deliver(worker, solve, rank, tag, data, call):
    """A message for ``rank`` here: a call's first message starts the rank."""
    if call is not None:
        asyncio.ensure_future(_guarded(worker, solve, rank, call, data))
    else:
        getattr(worker, _MAILBOX).put(solve, (rank, *tag), data)


async def _guarded(worker, solve, rank, call, data):
    """Rank ``rank`` of ``call``; if it fails, the solve is abandoned everywhere (the client, waiting
    on rank 0, hears of it as StateLost and starts again)."""
    try:
        await _rank(worker, solve, rank, call, data)
    except Exception:
        for host in dict.fromkeys(call["hosts"]):
            try:
                if host == worker.address:
                    getattr(worker, _MAILBOX).close(solve)
                else:
                    await worker.rpc(host).textsel_solve_abort(solve=solve)
            except Exception:  # a lost worker: nothing to tell it
                pass


async def _root(worker, solve, call, v):
    """Rank 0 of ``call``, started by the client: the total's rows and the groups' small parts."""
    total, small = await _rank(worker, solve, 0, call, v)
    from distributed.protocol import to_serialize

    return {"g": to_serialize(total), "small": to_serialize(small)}


async def _rank(worker, solve, rank, call, data):
    """One group's part of ``call`` (kind "max", "start" or "step"): receive v (for "step"),
    compute, add among the ranks; rank 0 returns (the total's rows or None, {group: small part})
    and the others None."""
    kind, it, hosts, bounds = call["kind"], call["iteration"], call["hosts"], call["bounds"]
    G, P = len(hosts), split(len(hosts))
    net = _Net(worker, solve, rank, it, hosts)
    v = None
    if rank < P:
        v = await _deal(net, call, rank, P, bounds, data)
        if kind == "step":
            v = await _all_gather(net, rank, P, bounds, v)
        if rank + P < G:
            await net.send(rank + P, ("start",), v if kind == "step" else None, call=call)
    else:
        v = data
    state = state_of(worker, solve, rank)
    loop = asyncio.get_running_loop()
    args = dict(exps=call.get("exps"), v=v, vcoef=call.get("vcoef"), ucoef=call.get("ucoef"))
    part = await loop.run_in_executor(None, lambda: compute(state, kind, call["cols"], **args))
    if kind == "max":
        g, small = None, {rank: part}
    else:
        scale, ssq, g = part
        small = {rank: (scale, ssq)}
    if rank >= P:  # into rank - P's part, and no further
        await net.send(rank - P, ("extra",), (g, small, net.sent))
        return None
    if rank + P < G:
        g_extra, small_extra, sent_extra = await net.take(("extra",))
        g = g if g is None else g + g_extra
        small.update(small_extra)
        net.sent += sent_extra
    if g is not None:
        g = await _reduce_scatter(net, rank, P, bounds, g)
    return await _gather(net, rank, P, g, small)


class _Net:
    """One rank's messages: to a rank on this worker straight into its mailbox, to another by RPC;
    counts the bytes sent to other workers."""

    def __init__(self, worker, solve, rank, iteration, hosts):
        self.worker, self.solve, self.rank, self.it, self.hosts = worker, solve, rank, iteration, hosts
        self.sent = 0

    async def send(self, to, tag, data, call=None):
        key = (*tag, self.it, self.rank)
        host = self.hosts[to]
        if host == self.worker.address:
            _deliver(self.worker, self.solve, to, key, data, call)
            return
        from distributed.protocol import to_serialize

        self.sent += _nbytes(data)
        await self.worker.rpc(host).textsel_solve_put(
            solve=self.solve, rank=to, tag=list(key), data=to_serialize(data), call=call
        )

    async def take(self, tag, sender=None):
        sender = self.rank + split(len(self.hosts)) if sender is None else sender
        return await getattr(self.worker, _MAILBOX).take(self.solve, (self.rank, *tag, self.it, sender))


def _nbytes(data):
    if isinstance(data, np.ndarray):
        return data.nbytes
    if isinstance(data, dict):
        return sum(_nbytes(d) for d in data.values())
    return sum(_nbytes(d) for d in data) if isinstance(data, (list, tuple)) else 0


async def _deal(net, call, rank, P, bounds, data):
    """The call down the binomial tree over ranks 0..P-1, with (for "step") each subtree's rows of
    v: rank r receives rows ``bounds[r]:bounds[hi]`` and passes on the upper halves.  Returns this
    rank's own rows of v (None but for "step")."""
    if rank == 0:
        lo, hi, rows = 0, P, data
    else:
        lo, hi, rows = data  # the first message, which started this rank
    while hi - lo > 1:
        mid = (lo + hi) // 2
        upper = None if rows is None else rows[bounds[mid] - bounds[lo] :]
        await net.send(mid, ("deal",), (mid, hi, upper), call=call)
        rows = None if rows is None else rows[: bounds[mid] - bounds[lo]]
        hi = mid
    return rows


async def _all_gather(net, rank, P, bounds, own):
    """v whole on every rank < P by recursive doubling: in round d each rank swaps all it has with
    rank ^ d."""
    have, d = own, 1
    while d < P:
        partner = rank ^ d
        await net.send(partner, ("gather", d), have)
        theirs = await net.take(("gather", d), partner)
        have = np.vstack([have, theirs] if rank < partner else [theirs, have])
        d *= 2
    return np.ascontiguousarray(have)


async def _reduce_scatter(net, rank, P, bounds, g):
    """Rank r's rows ``bounds[r]:bounds[r + 1]`` of the sum over ranks < P by recursive halving:
    in each round a rank keeps the half of its rows on its side, sends the other half to the
    partner across, and adds the partner's half of its own."""
    lo, hi, part = 0, P, g
    while hi - lo > 1:
        mid = (lo + hi) // 2
        cut = bounds[mid] - bounds[lo]
        if rank < mid:
            partner, keep, give = rank + (mid - lo), part[:cut], part[cut:]
            hi = mid
        else:
            partner, keep, give = rank - (mid - lo), part[cut:], part[:cut]
            lo = mid
        await net.send(partner, ("halve", hi - lo), np.ascontiguousarray(give))
        part = keep + await net.take(("halve", hi - lo), partner)
    return part


async def _gather(net, rank, P, g, small):
    """The ranks' rows (in order) and small parts to rank 0 up the binomial tree; rank 0 returns
    (rows stacked or None, smalls, with the bytes every rank sent under "sent")."""
    pieces, d = ([] if g is None else [g]), 1
    while d < P:
        if rank & d:
            await net.send(rank - d, ("up", d), (pieces, small, net.sent))
            return None
        their_pieces, their_small, their_sent = await net.take(("up", d), rank + d)
        pieces += their_pieces
        small.update(their_small)
        net.sent += their_sent
        d *= 2
    small["sent"] = net.sent
    return (np.vstack(pieces) if pieces else None), small
