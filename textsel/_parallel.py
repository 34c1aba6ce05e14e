"""Running a nogil kernel over blocks of classes on a few threads.

The kernels release the GIL, so plain threads give real parallelism; a
persistent pool avoids paying thread start-up on every call.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._termstats import deal_longest_first
from ._validation import check_positive_int

# Below this much work (table cells or nonzeros) a second thread costs more than it saves.
MIN_WORK_PER_THREAD = 100_000

_pool: ThreadPoolExecutor | None = None


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def effective_n_threads(n_threads) -> int:
    """``n_threads`` as a count: None or -1 means every core this process may use."""
    if n_threads is None or (isinstance(n_threads, int) and n_threads == -1):
        return available_cores()
    return check_positive_int(n_threads, "n_threads", 1)


def split_blocks(weights: np.ndarray, n_threads: int) -> list[tuple[int, int]]:
    """Cut ``range(len(weights))`` into at most ``n_threads`` contiguous blocks of similar total weight."""
    n = len(weights)
    total = float(np.sum(weights))
    n_blocks = int(min(n_threads, n, max(1, total // MIN_WORK_PER_THREAD)))
    if n_blocks <= 1:
        return [(0, n)]
    cum = np.cumsum(weights, dtype=np.float64)
    cuts = np.searchsorted(cum, total * np.arange(1, n_blocks) / n_blocks, side="right")
    bounds = np.unique(np.r_[0, cuts, n])
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def split_groups(weights: np.ndarray, n_threads: int) -> list[np.ndarray]:
    """Deal the indices of ``weights`` into at most ``n_threads`` groups of similar total weight.

    Greedy longest-first: unlike contiguous blocks, one heavy item (a large
    class) does not drag its neighbours onto the same thread.
    """
    n = len(weights)
    total = float(np.sum(weights))
    n_groups = int(min(n_threads, n, max(1, total // MIN_WORK_PER_THREAD)))
    if n_groups <= 1:
        return [np.arange(n, dtype=np.int64)]
    group_of = deal_longest_first(np.ascontiguousarray(weights, dtype=np.float64), n_groups)
    return [members for members in (np.flatnonzero(group_of == g) for g in range(n_groups)) if members.size]


def run_blocks(func, blocks: list, interrupt=None) -> list:
    """``[func(*block) for each block]`` (a block is a tuple of arguments); all but the first
    block go to pool threads, the first runs on the calling thread meanwhile.

    ``interrupt``: the :class:`textsel._ccore.Interrupt` the blocks' solvers share.  When the
    calling thread gets an exception (Ctrl-C while it solves or while it waits), it is recorded
    there, so that the other threads' solvers stop at their next check; they are waited for, and
    the exception is raised once no thread runs a block of this call any more.
    """
    global _pool
    if len(blocks) == 1:
        return [func(*blocks[0])]
    if _pool is None or _pool._max_workers < len(blocks) - 1:
        workers = max(len(blocks) - 1, available_cores())
        _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="textsel")
    futures = [_pool.submit(func, *block) for block in blocks[1:]]
    try:
        first = func(*blocks[0])
        return [first] + [f.result() for f in futures]
    except BaseException as exc:
        if interrupt is not None and interrupt.error is None:
            interrupt.error = exc
        for f in futures:
            try:
                f.exception()  # wait; the blocks stop at their solvers' next check
            except BaseException:  # a second Ctrl-C while waiting: keep waiting, then raise
                pass
        raise
