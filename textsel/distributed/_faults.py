"""The one policy for what goes wrong on a cluster mid-call, used by every distributed call.

- A worker lost (killed, its machine gone, retired without its data) is noticed by the scheduler,
  which recomputes what it can from the graph; a result that cannot be recomputed (a solve's u,
  whose history is released as the solve goes) is cancelled, the call sees
  ``concurrent.futures.CancelledError`` and :func:`restarting` runs it again (after the call's own
  mending, ``before_again``: a solve rebuilds what the worker took, see
  ``solve.ClusterRowOperator``; a matrix computes its lost blocks again from the array's graph,
  ``BlockMatrix.mend``), at most :data:`RESTARTS` times, once a worker is present.  Data that
  was held on the cluster and went with the worker (sent from the client, or persisted and then
  dropped by ``Client.restart``) cannot come back: a :class:`BlockLostError` says so.
- A worker that leaves while a call waits for tasks placed on it (killed, retired, restarted by
  its nanny under a new address) is a lost worker too, noticed by :func:`result_within` from the
  workers the scheduler lists now: a task restricted to it, even loosely, that became ready while
  no worker ran waits for that address for ever (the scheduler does not look again when workers
  join under others), so the call is mended and run again on the workers present.
- Workers out of memory: a worker of the call restarted by its nanny for memory (Dask's
  ``worker-restart-memory`` event), or every worker of the cluster paused for memory for
  :data:`STALL` seconds (no task can start anywhere), is a ``MemoryError`` naming the workers'
  memory and their ``memory_limit``, at once: running the call again would meet the same wall.
- An exception raised in a task (a data error, a MemoryError, a bug) is the task's: Dask sends it
  back and it is raised here as itself, on the first try.
- A worker that stops answering (frozen, swapped out) is reported by :func:`result_within` as a
  ``TimeoutError`` naming it once the scheduler has heard no heartbeat from it for
  :data:`STALL` seconds (a worker busy with a long task keeps sending them: its event loop runs
  beside the task); Dask's scheduler itself removes such a worker after
  ``distributed.scheduler.worker-ttl`` (5 minutes by default).  A cluster left without any worker
  for as long is a ``TimeoutError`` too.

The workers are listed by :func:`workers_now`, every one of them on every version of distributed.
"""

from __future__ import annotations

import asyncio
import inspect
from concurrent.futures import CancelledError
from contextlib import contextmanager

from .._errors import clear_locals

__all__ = [
    "RESTARTS", "STALL", "BlockLostError", "memory_restarts", "releasing", "restarting", "result_within",
    "scatter_within", "workers_now",
]  # fmt: skip

#: how many times a call starts again after a worker took part of its state with it
RESTARTS = 3

#: seconds without a heartbeat reaching the scheduler after which a worker is reported frozen
STALL = 60.0

#: seconds between two looks at the workers' heartbeats while a call's results are awaited
POLL = 2.0


class BlockLostError(RuntimeError):
    """A row block is gone from the cluster and cannot be computed again: the array reads it from
    data the cluster held (sent from the client, as :func:`textsel.distributed.row_blocks` sends
    them, or persisted), not from a graph, and that data went with a lost worker or a restart of
    the cluster, so the solve can neither go on nor start again.  Build the blocks from their
    source (files, delayed reads) for a solve that outlives its workers."""


def _lost_errors():
    from distributed.comm.core import CommClosedError

    return (CancelledError, CommClosedError)


def workers_now(client) -> dict:
    """``{address: what the scheduler knows of it}`` for every worker of the cluster now.

    ``Client.scheduler_info`` lists at most 5 workers unless asked for all (``n_workers=-1``) on
    distributed 2025.4 to 2026.6, and has no such keyword before: asked for all where the
    installed version takes it, plainly where it does not.
    """
    info = client.scheduler_info
    try:
        takes = "n_workers" in inspect.signature(info).parameters
    except (TypeError, ValueError):  # no signature to read: the plain call
        takes = False
    return (info(n_workers=-1) if takes else info())["workers"]


def memory_restarts(client, workers) -> list[dict]:
    """The restarts for memory of ``workers`` by their nannies (Dask's ``worker-restart-memory``
    events: the worker's address, its pid and its memory when restarted).  An address is not
    given again to a restarted worker, so an event naming one of the call's workers happened
    during the call."""
    workers = set(workers)
    if not workers:
        return []
    return [msg for _, msg in client.get_events("worker-restart-memory") if msg.get("worker") in workers]


def _mib(n) -> str:
    return f"{n / 2**20:.0f} MiB"


def _limits(listed) -> str:
    """The workers' memory_limit, as the scheduler lists them."""
    limits = sorted({info.get("memory_limit") or 0 for info in listed.values()})
    if not limits:
        return "memory_limit: unknown (no worker now)"
    return "memory_limit " + ", ".join("none" if not n else _mib(n) for n in limits)


_MORE = (
    "give the workers more memory (memory_limit of LocalCluster, --memory-limit of dask worker) or "
    "more workers, or keep less on them; the call was abandoned"
)


def out_of_memory(client, what: str, restarts=(), listed=None) -> MemoryError:
    """The ``MemoryError`` of a call whose workers ran out of memory: ``restarts`` (as
    :func:`memory_restarts` gives them) restarted by their nannies, or none given: every worker
    of ``listed`` paused for :data:`STALL` seconds."""
    if restarts:
        listed = workers_now(client)
        if not listed:  # every worker is being restarted: their memory_limit is theirs again soon
            try:
                client.wait_for_workers(1, timeout=POLL)
                listed = workers_now(client)
            except (TimeoutError, asyncio.TimeoutError):
                pass
        each = "; ".join(
            f"{r.get('worker')} restarted by its nanny at {_mib(r.get('rss', 0))}" for r in restarts
        )
        return MemoryError(
            f"{what}: the workers ran out of memory: {each} (a nanny restarts its worker past "
            f"distributed.worker.memory.terminate, 95% of memory_limit by default; the workers' "
            f"{_limits(listed)}); {_MORE}"
        )
    each = "; ".join(
        f"{w}: {_mib(info.get('metrics', {}).get('memory', 0))} of its memory_limit "
        f"{_mib(info.get('memory_limit') or 0)}"
        for w, info in sorted(listed.items())
    )
    return MemoryError(
        f"{what}: the workers ran out of memory: every worker has been paused for {STALL:.0f} s, so no "
        f"task could start ({each}; Dask pauses a worker past distributed.worker.memory.pause, 80% of "
        f"memory_limit by default); {_MORE}"
    )


def result_within(client, futures, what: str, workers) -> list:
    """The results of ``futures``, each task's exception raised as itself.

    While it waits, it looks every :data:`POLL` seconds at the workers as the scheduler lists them
    now: a ``MemoryError`` (:func:`out_of_memory`) when one of ``workers`` (those the call placed
    its tasks on) was restarted by its nanny for memory, or when every worker of the cluster has
    been paused for :data:`STALL` seconds; a lost worker's ``CancelledError`` when one of
    ``workers`` has left (its tasks may wait for it for ever); a ``TimeoutError`` naming those of
    ``workers`` the scheduler has not heard from for :data:`STALL` seconds (a worker's heartbeats
    are compared with themselves, so no clock need agree; a worker of the cluster the call does
    not use is none of its business), or when the cluster has had no worker for as long.
    """
    import time

    from distributed import wait

    workers = set(workers)
    heard = {}  # worker -> (its last heartbeat as the scheduler saw it, when that changed here)
    stuck = None  # since when no worker of the cluster has been running (none, or all paused)
    while True:
        waited = list(futures)
        try:
            wait(waited, timeout=POLL)
            break
        except (TimeoutError, asyncio.TimeoutError) as exc:
            clear_locals(exc)
            now, silent = time.monotonic(), []
            listed = workers_now(client)
            restarts = memory_restarts(client, workers)
            if restarts:
                raise out_of_memory(client, what, restarts) from None
            gone = workers - set(listed)
            if gone:
                raise CancelledError(
                    f"{what}: {sorted(gone)} left the cluster while the call waited on it"
                ) from None
            if any(info.get("status") == "running" for info in listed.values()):
                stuck = None
            elif stuck is None:
                stuck = now
            elif now - stuck >= STALL:
                if listed:
                    raise out_of_memory(client, what, listed=listed) from None
                raise TimeoutError(f"{what}: the cluster has had no worker for {STALL:.0f} s; the call was "
                                   "abandoned") from None  # fmt: skip
            for worker in workers & set(listed):
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
        finally:
            # distributed's sync keeps an error raised in wait (its timeout, a cancelled future) in a
            # reference cycle with its frames and the closure holding the list waited on: emptied,
            # and the frames' locals cleared, or the futures, and so the call's data on the workers,
            # would stay until Python's cyclic collector runs
            waited.clear()
    # a failed task's error raised from its own future: Client.gather raises it from inside its own
    # reference cycle (an internal exception whose traceback holds the futures gathered), which
    # would keep the call's data on the workers until Python's cyclic collector runs
    failed = next((f for f in futures if f.status in ("error", "cancelled")), None)
    try:
        if failed is not None:
            failed.result()
        return client.gather(futures, direct=True)
    except BaseException as exc:
        _raise_if_out_of_memory(client, exc, what, workers)
        raise


def _raise_if_out_of_memory(client, exc, what, workers):
    """A lost worker's error, or Dask's ``KilledWorker`` (a task whose workers kept dying), raised
    as a ``MemoryError`` from it when a worker of ``workers`` was restarted for memory."""
    from distributed import KilledWorker

    if isinstance(exc, (*_lost_errors(), KilledWorker)):
        restarts = memory_restarts(client, workers)
        if restarts:
            raise out_of_memory(client, what, restarts) from exc


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


@contextmanager
def releasing(*release):
    """On any error in the ``with`` block, each of ``release`` called (each drops futures that
    hold a call's data on the workers) and the finished frames' locals cleared, the error then
    raised as it is: a user who keeps the error (a notebook keeps the last one, its traceback and
    their frames) keeps nothing on the workers."""
    try:
        yield
    except BaseException as exc:
        for drop in release:
            drop()
        clear_locals(exc)
        raise


def restarting(client, attempt, what: str, before_again=None, workers=None):
    """``attempt()``, run again from its beginning when a worker lost part of its state (at most
    :data:`RESTARTS` times, ``before_again()`` first); any other error raised as it is.  A lost
    worker that a worker of ``workers()`` (those the call placed its tasks on, when given) being
    restarted for memory explains is a ``MemoryError``, at once."""
    lost = _lost_errors()
    for tries in range(RESTARTS + 1):
        try:
            return attempt()
        except BaseException as exc:
            # Dask keeps a task's error, with the traceback it gathers on its way up here, in the
            # failed futures' state on the client; the finished frames' locals hold the call's
            # futures, and so would keep its data on the workers for as long as the client lives.
            # The traceback keeps its lines; the frames lose their locals.
            clear_locals(exc)
            if workers is not None:
                _raise_if_out_of_memory(client, exc, what, workers())
            if not isinstance(exc, lost):
                raise
            if tries == RESTARTS:
                raise RuntimeError(
                    f"{what}: a worker was lost {RESTARTS + 1} times during the call ({exc!r}); it was "
                    "abandoned and nothing is returned"
                ) from exc
            try:
                client.wait_for_workers(1, timeout=STALL)  # a running one: not paused
            except (TimeoutError, asyncio.TimeoutError):
                listed = workers_now(client)
                if listed:  # workers there, none running for as long: paused for memory
                    raise out_of_memory(client, what, listed=listed) from exc
                raise
            if before_again is not None:
                before_again()
    raise AssertionError("unreachable")
