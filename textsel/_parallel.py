"""Running a nogil kernel over blocks of classes on a few threads.

The kernels release the GIL, so plain threads give real parallelism; a
persistent pool avoids paying thread start-up on every call.  :func:`check_n_jobs` is the one
check of ``n_jobs``, for threads and for ``study.forman``'s joblib processes alike; the command
line's ``--n-jobs`` is read by it too, so this module imports numpy only where it splits work.
"""

from __future__ import annotations

import numbers
import os
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from .names import N_JOBS_RULE

if TYPE_CHECKING:
    import numpy as np

# Below this much work (table cells or nonzeros) a second thread costs more than it saves.
MIN_WORK_PER_THREAD = 100_000

_pool: ThreadPoolExecutor | None = None


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


#: the limit threadpoolctl set on textsel's threads (threadpool_limits), or None
_limit: int | None = None


def _env_limit() -> int | None:
    """The thread budget the environment gives this process: ``TEXTSEL_NUM_THREADS``, else
    ``OMP_NUM_THREADS`` (which joblib's worker processes and Dask's nannies set to share the
    machine), when it is a positive integer."""
    for name in ("TEXTSEL_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").split(",")[0].strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return None


def default_n_jobs() -> int:
    """Threads a call uses when not told: every core this process may use, within the limits
    set by threadpoolctl (``threadpool_limits``) and by the environment (``OMP_NUM_THREADS``,
    ``TEXTSEL_NUM_THREADS``), so that textsel inside joblib or Dask workers does not
    oversubscribe the machine."""
    return max(1, min(n for n in (available_cores(), _limit, _env_limit()) if n is not None))


#: what ``n_jobs`` may be, as errors say it


def check_n_jobs(n_jobs, name: str = "n_jobs"):
    """``n_jobs`` as every textsel call reads it: checked, and capped at the cores.

    More threads or worker processes than cores only wait for one another (and textsel's results
    do not depend on their number), so a count written for a larger machine runs here on all its
    cores, never on 99999 threads or processes.

    Parameters
    ----------
    n_jobs : int or None
        None (joblib's own default where joblib runs the work, else every core), -1 (every core
        this process may use) or a count of 1 or more.  0 and other negative values (joblib's -2,
        all cores but one) are refused.
    name : str, default "n_jobs"
        What the messages call it (``"--n-jobs"`` on the command line).

    Returns
    -------
    int or None
        None, -1, or the count capped at the cores this process may use.

    Raises
    ------
    ValueError
        For 0 or a negative value other than -1, naming ``name``.
    TypeError
        For a value that is not an integer (``True`` included).
    """
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        from ._checks import plain

        raise TypeError(f"{name} must be an integer, got {plain(n_jobs)!r}")
    if n_jobs == -1:
        return -1
    if n_jobs < 1:
        raise ValueError(f"{name} must be {N_JOBS_RULE}, got {int(n_jobs)}")
    return min(int(n_jobs), available_cores())


def effective_n_jobs(n_jobs) -> int:
    """``n_jobs`` as a count of threads (see :func:`check_n_jobs`): None or -1 means
    :func:`default_n_jobs`."""
    n_jobs = check_n_jobs(n_jobs)
    return default_n_jobs() if n_jobs is None or n_jobs == -1 else n_jobs


def _register_with_threadpoolctl() -> None:
    """Make ``threadpoolctl.threadpool_limits`` (and what uses it: scikit-learn, joblib) limit
    textsel's threads too: a controller for the library holding textsel's C core."""
    try:
        import threadpoolctl
    except ImportError:  # scikit-learn requires it; without it the environment limits still apply
        return
    if not hasattr(threadpoolctl, "register") or any(
        getattr(c, "internal_api", None) == "textsel" for c in getattr(threadpoolctl, "_ALL_CONTROLLERS", [])
    ):
        return

    class TextselController(threadpoolctl.LibController):
        user_api = "textsel"
        internal_api = "textsel"
        filename_prefixes = ("ccore.",)

        def get_num_threads(self):
            return default_n_jobs()

        def set_num_threads(self, num_threads):
            global _limit
            # threadpoolctl restores a limit by setting back what get_num_threads gave
            _limit = None if num_threads is None else max(1, int(num_threads))

        def get_version(self):
            # from the installed metadata, not ``textsel.__version__``: importing the package
            # from here would close an import circle through the Dask seam
            from importlib.metadata import PackageNotFoundError, version

            try:
                return version("textsel")
            except PackageNotFoundError:
                return None

    threadpoolctl.register(TextselController)


_register_with_threadpoolctl()


def split_blocks(weights: np.ndarray, n_jobs: int) -> list[tuple[int, int]]:
    """Cut ``range(len(weights))`` into at most ``n_jobs`` contiguous blocks of similar total weight."""
    import numpy as np

    n = len(weights)
    total = float(np.sum(weights))
    n_blocks = int(min(n_jobs, n, max(1, total // MIN_WORK_PER_THREAD)))
    if n_blocks <= 1:
        return [(0, n)]
    cum = np.cumsum(weights, dtype=np.float64)
    cuts = np.searchsorted(cum, total * np.arange(1, n_blocks) / n_blocks, side="right")
    bounds = np.unique(np.r_[0, cuts, n])
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def split_groups(weights: np.ndarray, n_jobs: int) -> list[np.ndarray]:
    """Deal the indices of ``weights`` into at most ``n_jobs`` groups of similar total weight.

    Greedy longest-first: unlike contiguous blocks, one heavy item (a large
    class) does not drag its neighbours onto the same thread.
    """
    import numpy as np

    from ._ext.dealing import deal_longest_first

    n = len(weights)
    total = float(np.sum(weights))
    n_groups = int(min(n_jobs, n, max(1, total // MIN_WORK_PER_THREAD)))
    if n_groups <= 1:
        return [np.arange(n, dtype=np.int64)]
    group_of = deal_longest_first(np.ascontiguousarray(weights, dtype=np.float64), n_groups)
    return [members for members in (np.flatnonzero(group_of == g) for g in range(n_groups)) if members.size]


def run_blocks(func, blocks: list, interrupt=None) -> list:
    """``[func(*block) for each block]`` (a block is a tuple of arguments); all but the first
    block go to pool threads, the first runs on the calling thread meanwhile.

    ``interrupt``: the :class:`textsel._ext.ccore.Interrupt` the blocks' solvers share.  When the
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
