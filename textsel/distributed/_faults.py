"""The one policy for what goes wrong on a cluster mid-call, used by every distributed call.

- A worker lost (killed, its machine gone, retired without its data) is noticed by the scheduler,
  which recomputes what it can from the graph; a result that cannot be recomputed (a solve's u,
  whose history is released as the solve goes) is cancelled, the call sees
  ``concurrent.futures.CancelledError`` and :func:`restarting` runs it again (after the call's own
  mending, ``before_again``: a solve rebuilds what the worker took, see
  ``solve.ClusterRowOperator``), at most :data:`RESTARTS` times, once a worker is present.  Data
  that was sent from the client and went with the worker cannot come back: a
  :class:`BlockLostError` says so.
- An exception raised in a task (a data error, a MemoryError, a bug) is the task's: Dask sends it
  back and it is raised here as itself, on the first try.
- A worker that stops answering (frozen, swapped out) is reported by :func:`result_within` as a
  ``TimeoutError`` naming it once the scheduler has heard no heartbeat from it for
  :data:`STALL` seconds (a worker busy with a long task keeps sending them: its event loop runs
  beside the task); Dask's scheduler itself removes such a worker after
  ``distributed.scheduler.worker-ttl`` (5 minutes by default).
"""

from __future__ import annotations

import asyncio
import traceback
from concurrent.futures import CancelledError

__all__ = ["RESTARTS", "STALL", "BlockLostError", "restarting", "result_within", "scatter_within"]

#: how many times a call starts again after a worker took part of its state with it
RESTARTS = 3

#: seconds without a heartbeat reaching the scheduler after which a worker is reported frozen
STALL = 60.0

#: seconds between two looks at the workers' heartbeats while a call's results are awaited
POLL = 2.0


class BlockLostError(RuntimeError):
    """A row block went with a lost worker and cannot be computed again: it was sent from the
    client (as :func:`textsel.distributed.row_blocks` sends them), not computed from a graph, so
    the solve can neither go on nor start again.  Build the blocks from their source (files,
    delayed reads) for a solve that outlives a worker."""


def _lost_errors():
    from distributed.comm.core import CommClosedError

    return (CancelledError, CommClosedError)


def result_within(client, futures, what: str, workers) -> list:
    """The results of ``futures``, each task's exception raised as itself; a ``TimeoutError``
    naming those of ``workers`` (the call's) the scheduler has not heard from for :data:`STALL`
    seconds while it waits (a worker's heartbeats are compared with themselves, so no clock need
    agree; a worker of the cluster the call does not use is none of its business)."""
    import time

    from distributed import wait

    heard = {}  # worker -> (its last heartbeat as the scheduler saw it, when that changed here)
    while True:
        try:
            wait(futures, timeout=POLL)
            break
        except (TimeoutError, asyncio.TimeoutError):
            now, silent = time.monotonic(), []
            listed = client.scheduler_info()["workers"]
            for worker in set(workers) & set(listed):
                seen = listed[worker].get("last_seen")
                last, since = heard.get(worker, (None, now))
                if seen != last:
                    heard[worker] = (seen, now)
                elif now - since >= STALL:
                    silent.append(worker)
            if silent:
                raise TimeoutError(
                    f"{what}: the scheduler has heard nothing from {sorted(silent)} for {STALL:.0f} s "
                    "(frozen?); the call was abandoned"
                ) from None
    return client.gather(futures, direct=True)


def scatter_within(client, data, worker, what: str):
    """``data`` sent to ``worker`` (None: one Dask chooses), its future; the tasks of other workers
    fetch it from there.  A ``TimeoutError`` after :data:`STALL` seconds (a frozen worker never
    takes it), and a worker that left meanwhile as a lost worker.  (Not
    ``broadcast``: the scheduler's copying to a worker that died meanwhile waits, it does not
    fail.)"""

    async def send():
        # through the scheduler, not straight to the workers: a client killed between sending data
        # to a worker and telling the scheduler would leave it there, unknown, for good
        where = None if worker is None else [worker]
        sent = client.scatter(data, workers=where, direct=False, hash=False, asynchronous=True)
        try:
            return await asyncio.wait_for(sent, STALL)
        except (TimeoutError, asyncio.TimeoutError):
            raise TimeoutError(f"{what}: worker {worker or '(any)'} took no data for {STALL:.0f} s "
                               "(frozen or overloaded?); the call was abandoned") from None  # fmt: skip
        except (KeyError, OSError, ValueError) as exc:  # the scheduler or a worker lost it meanwhile
            raise CancelledError(f"{what}: a worker left while data was sent to it ({exc!r})") from exc

    return client.sync(send)


def _clear_locals(exc, seen=None):
    """The locals of every finished frame in ``exc``'s traceback and in those of the errors it
    was raised from or during, cleared."""
    seen = set() if seen is None else seen
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        traceback.clear_frames(exc.__traceback__)
        if exc.__cause__ is not None:
            _clear_locals(exc.__cause__, seen)
        exc = exc.__context__


def restarting(client, attempt, what: str, before_again=None):
    """``attempt()``, run again from its beginning when a worker lost part of its state (at most
    :data:`RESTARTS` times, ``before_again()`` first); any other error raised as it is."""
    lost = _lost_errors()
    for tries in range(RESTARTS + 1):
        try:
            return attempt()
        except BaseException as exc:
            # Dask keeps a task's error, with the traceback it gathers on its way up here, in the
            # failed futures' state on the client; the finished frames' locals hold the call's
            # futures, and so would keep its data on the workers for as long as the client lives.
            # The traceback keeps its lines; the frames lose their locals.
            _clear_locals(exc)
            if not isinstance(exc, lost):
                raise
            if tries == RESTARTS:
                raise RuntimeError(
                    f"{what}: a worker was lost {RESTARTS + 1} times during the call ({exc!r}); it was "
                    "abandoned and nothing is returned"
                ) from exc
            client.wait_for_workers(1, timeout=STALL)
            if before_again is not None:
                before_again()
    raise AssertionError("unreachable")
