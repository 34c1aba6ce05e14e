"""Row blocks of a Dask array of CSR matrices: the checks, the label blocks, the persisted matrix."""

from __future__ import annotations

import math

import dask
import dask.array as da
import numpy as np
from dask.delayed import Delayed, delayed

from ._faults import BlockLostError, releasing, restarting, result_within
from ._worker import checked_float64, local_labels, n_rows

__all__ = [
    "BlockMatrix",
    "row_blocks",
    "as_label_array",
    "persisted_futures",
    "place",
    "place_blocks",
    "contiguous_groups",
    "initial_groups",
    "label_blocks",
    "matrix_blocks",
]


def check_row_blocks(X, name: str = "X"):
    """Refuse a Dask array that is not 2-D and chunked along rows only, with a ``ValueError``."""
    if not isinstance(X, da.Array):
        raise TypeError(f"{name} must be a dask.array.Array of scipy.sparse blocks, got {type(X)!r}")
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (documents x terms), got {X.ndim}-D")
    if X.numblocks[1] != 1:
        raise ValueError(
            f"{name} is split along its columns into {X.numblocks[1]} chunks; textsel needs row blocks "
            f"that hold every term: rechunk with {name}.rechunk({{1: -1}})"
        )
    if math.isnan(X.shape[1]):
        raise ValueError(f"{name} has an unknown number of columns; give the array its shape")


def matrix_blocks(X, name: str = "X") -> list[Delayed]:
    """The row blocks of ``X`` as Delayed objects, in row order (``X`` checked first)."""
    check_row_blocks(X, name)
    return list(X.to_delayed().ravel())


def label_blocks(y, X, name: str = "y") -> list:
    """``y`` cut like the rows of ``X``: a list with one piece (ndarray or Delayed) per block.

    ``y`` is array-like (split on the client at ``X``'s row boundaries, computed first when those
    are unknown) or a Dask array chunked like ``X``'s rows (each block's piece stays with it; the
    row counts are checked again when the block is computed).
    """
    row_chunks = X.chunks[0]
    if isinstance(y, da.Array):
        if y.ndim not in (1, 2):
            raise ValueError(f"{name} must be 1-D labels or a 2-D indicator matrix, got {y.ndim}-D")
        if y.ndim == 2 and y.numblocks[1] != 1:
            y = y.rechunk({1: -1})
        if y.numblocks[0] != len(row_chunks):
            raise ValueError(
                f"{name} has {y.numblocks[0]} row chunks but X has {len(row_chunks)}: chunk {name} like "
                f"X's rows ({name}.rechunk({{0: X.chunks[0]}}))"
            )
        known = not any(math.isnan(c) for c in row_chunks + y.chunks[0])
        if known and tuple(y.chunks[0]) != tuple(row_chunks):
            first = next(i for i, (a, b) in enumerate(zip(y.chunks[0], row_chunks, strict=True)) if a != b)
            raise ValueError(
                f"{name} block {first} has {y.chunks[0][first]} rows but X block {first} has "
                f"{row_chunks[first]}: chunk {name} like X's rows ({name}.rechunk({{0: X.chunks[0]}}))"
            )
        return list(y.to_delayed().ravel())
    y_arr = as_label_array(y)
    if y_arr.ndim == 0:
        raise ValueError(f"{name} must be 1-D labels or a 2-D indicator matrix, got a scalar")
    if any(math.isnan(c) for c in row_chunks):
        row_chunks = dask.compute(*[delayed(n_rows)(b) for b in X.to_delayed().ravel()])
    n_docs = int(sum(row_chunks))
    if y_arr.shape[0] != n_docs:
        raise ValueError(f"{name} has {y_arr.shape[0]} entries but X has {n_docs} documents")
    bounds = np.cumsum((0,) + tuple(int(c) for c in row_chunks))
    return [y_arr[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def as_label_array(y):
    """``y`` as a Dask array, a CSR indicator matrix or an ndarray (a column vector flattened)."""
    return y if isinstance(y, da.Array) else local_labels(y)


def persisted_futures(blocks, client=None):
    """(client, the futures of ``blocks`` (Delayed objects or their keys)) when a distributed
    Client (``client``, or the current one) holds every one of them (a persisted array, computed
    or still computing), else (None, None)."""
    try:
        from distributed import Future, default_client

        client = client or default_client()
    except (ImportError, ValueError):
        return None, None
    keys = [b if isinstance(b, (str, tuple)) else b.key for b in blocks]
    if not all(k in client.futures for k in keys):
        return None, None
    return client, [Future(k, client) for k in keys]


def place(client, futures, groups, workers=None) -> list[tuple[str, list[int]]]:
    """The one placement policy: (worker, block indices) for each of ``groups`` (lists of block
    indices into ``futures``), in their order.  A group goes to the worker holding most of its
    blocks, the least loaded one (in blocks placed) among equals, so that a group held nowhere
    (its blocks being recomputed after a lost worker) goes where the least work is.  With
    ``workers`` given (as many as the groups, or more), each group has a worker of its own: the
    (group, worker) pairs holding the most blocks are matched first."""
    listed = [futures[i] for g in groups for i in g]
    who_has = client.who_has(listed)

    def held(idx) -> dict:
        count: dict[str, int] = {}
        for i in idx:
            for w in who_has.get(futures[i].key, ()):
                count[w] = count.get(w, 0) + 1
        return count

    if workers is not None:
        counts = [held(idx) for idx in groups]
        worker_of: dict[int, str] = {}
        for _, g, w in sorted((-counts[g].get(w, 0), g, w) for g in range(len(groups)) for w in workers):
            if g not in worker_of and w not in worker_of.values():
                worker_of[g] = w
        return [(worker_of[g], idx) for g, idx in enumerate(groups)]
    workers = _workers(client, who_has, listed)
    load = dict.fromkeys(workers, 0)
    placed = []
    for idx in groups:
        count = held(idx)
        worker = max(workers, key=lambda w: (count.get(w, 0), -load[w]))
        load[worker] += len(idx)
        placed.append((worker, idx))
    return placed


def place_blocks(client, futures) -> list[tuple[str, list[int]]]:
    """Each block placed on its own (:func:`place`), the blocks of each worker gathered: (worker,
    block indices) pairs ordered by each worker's first block, so that results added in this order
    are added in a fixed order."""
    by_worker: dict[str, list[int]] = {}
    for worker, (i,) in place(client, futures, [[i] for i in range(len(futures))]):
        by_worker.setdefault(worker, []).append(i)
    return sorted(by_worker.items(), key=lambda g: g[1][0])


def _workers(client, who_has, futures) -> list[str]:
    """The workers to place on, sorted: those holding the blocks when every block has a holder
    (no second question to the scheduler, a millisecond a call), else every worker running."""
    if futures and all(who_has.get(f.key) for f in futures):
        return sorted({w for f in futures for w in who_has[f.key]})
    workers = sorted(client.nthreads())
    if not workers:
        raise ConnectionError("no worker is running")  # the callers retry once workers are back
    return workers


def _lost_block(i: int, name: str) -> BlockLostError:
    return BlockLostError(
        f"row block {i} of the matrix was lost and cannot be computed again: {name} reads it from "
        "data the cluster held (sent from the client, as textsel.distributed.row_blocks sends its "
        "blocks, or persisted), not from a graph, and that data went with a lost worker or a restart "
        "of the cluster; give a Dask array computed from its source (files, delayed reads) for a "
        "solve that outlives its workers"
    )


def contiguous_groups(n_blocks: int, n_groups: int) -> list[list[int]]:
    """Block indices cut into ``min(n_groups, n_blocks)`` runs of consecutive blocks, as even in
    count as they can be (block ``i`` in run ``i * n_groups // n_blocks``)."""
    if n_blocks == 0:
        return []
    n_groups = max(1, min(n_groups, n_blocks))
    groups: list[list[int]] = [[] for _ in range(n_groups)]
    for i in range(n_blocks):
        groups[i * n_groups // n_blocks].append(i)
    return groups


def initial_groups(client, blocks) -> list[tuple[str | None, list[int]]]:
    """(worker, block indices) for each group of a new BlockMatrix: the blocks each worker holds
    when the cluster already holds them all, else runs of consecutive blocks, one per worker
    (worker None when there is none yet)."""
    workers = sorted(client.nthreads())
    _, held = persisted_futures(blocks, client)
    if held is not None and blocks and workers:
        return place_blocks(client, held)
    groups = contiguous_groups(len(blocks), len(workers))
    return [(workers[g] if workers else None, idx) for g, idx in enumerate(groups)]


def row_blocks(X, client=None, n_blocks=None):
    """An in-memory matrix as a Dask array of CSR row blocks held by the cluster's workers.

    The blocks are cut where :func:`textsel.lsqr` cuts the matrix into groups in memory (for a
    solve with an intercept, as the classifiers fit), so that a solve on the array gives the
    in-memory answer to the last bit; ``n_blocks`` cuts it into that many blocks of about as many
    stored values instead (to use more workers than the matrix has groups).  Consecutive blocks
    go to each worker, as evenly as their count allows, sent from here (a graph holding
    the matrix would pass through the scheduler: Dask's "Sending large graph" warning).  Scattered
    blocks have no graph to recompute them from: a worker lost with them loses them for good, so
    a long job on an unreliable cluster should build its blocks from files instead.

    Parameters
    ----------
    X : sparse matrix or array-like of shape (n_docs, n_terms)
        The matrix in memory (converted to CSR).
    client : dask.distributed.Client, optional
        Default: the current client.
    n_blocks : int, optional
        The number of row blocks, from 1 to the number of rows.  Default: the number of groups
        the in-memory solve cuts ``X`` into (a power of two set by its size, at most 64), which
        makes a fit on the array bitwise the in-memory fit.

    Returns
    -------
    dask.array.Array
        Row chunks only, each chunk a ``scipy.sparse.csr_matrix``.

    Examples
    --------
    ``dask.array.from_array(X, chunks=...)`` would put the whole matrix in the task graph;
    this sends each block to its worker once::

        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2) as cluster, Client(cluster):
            dX = textsel.distributed.row_blocks(X, n_blocks=8)
            model = textsel.WeightedProximalSVC().fit(dX, y)
    """
    import scipy.sparse as sp
    from distributed import default_client

    from .._checks import as_csr, check_positive_int
    from .._row_groups import group_bounds, group_count

    X = as_csr(X, "X")
    client = client or default_client()
    if n_blocks is None:
        n_blocks = group_count(X.nnz, X.shape[1] + 1)
    n_blocks = check_positive_int(n_blocks, "n_blocks", 1, max(X.shape[0], 1))
    bounds = group_bounds(X.indptr, n_blocks)
    workers = sorted(client.nthreads())
    if not workers:
        raise ValueError("row_blocks: the client's cluster has no worker")
    pieces = [X[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    futures = []
    for worker, idx in zip(workers, contiguous_groups(len(pieces), len(workers)), strict=False):
        futures += client.scatter([pieces[i] for i in idx], workers=[worker], direct=False, hash=False)
    meta = sp.csr_matrix((0, X.shape[1]), dtype=X.dtype)
    return da.concatenate([
        da.from_delayed(delayed(f), shape=p.shape, dtype=X.dtype, meta=meta)
        for f, p in zip(futures, pieces, strict=True)
    ])  # fmt: skip


class BlockMatrix:
    """A document-term matrix held as CSR row blocks on the workers of a Dask cluster.

    Built once from a Dask array (each block checked and converted to float64 CSR on its
    worker, where it stays), then reused: :func:`textsel.lsqr` and the least-squares
    classifiers accept it wherever they accept ``X``, and a fit given the Dask array builds one
    itself.  The blocks are Dask futures with their graph, so a block lost with its worker is
    recomputed from that graph, and one the cluster dropped altogether (``Client.restart``) is
    computed again by :meth:`mend`.  A data error (NaN, a negative or malformed block) leaves
    nothing on the workers.

    The blocks are placed once: for an array the cluster already holds (persisted), where they
    lie, so that no block moves; for any other, runs of consecutive blocks, one per worker
    present.  Only textsel's own tasks (the checked copies) are given a worker: the array's own
    graph is computed where Dask chooses.  A solve takes each block as one group of the in-memory
    solve and adds their parts by one fixed tree over the blocks, so that it is bitwise the same
    on any number of workers and wherever the blocks later live (after a lost worker's blocks
    were recomputed elsewhere, for one).

    Parameters
    ----------
    X : dask.array.Array
        Chunked along rows only, each chunk a scipy.sparse matrix.
    client : dask.distributed.Client, optional
        Default: the current client.
    name : str
        The parameter name errors use.

    Attributes
    ----------
    shape : tuple of int
    row_starts : ndarray of int64
        The first row of each block, and the number of rows last.
    groups : list of list of int
        Runs of blocks, one per worker when the matrix was built (where SCut's held-out products
        run; a solve's groups are its blocks).
    traffic : dict
        Bytes of vectors sent to and received from the workers by the client during the LSQR
        iterations (``sent``: v; ``received``: the workers' parts of A'D u), the number of
        products (two an iteration), and the bytes sent once a solve to set it up (``setup``: its
        right-hand sides and row weights, or the labels, each block's to its worker), summed over
        every solve on this matrix.
    """

    def __init__(self, X, client=None, name: str = "X"):
        from distributed import default_client, futures_of

        blocks = matrix_blocks(X, name)
        if client is None:
            try:
                client = default_client()
            except ValueError as exc:
                raise ValueError(
                    "solving on a Dask array needs a dask.distributed Client: start one (for example "
                    "Client(LocalCluster())) before the call"
                ) from exc
        self.client = client
        self.name = name
        self.array = X
        self._blocks = blocks  # the array's blocks, from which a block the cluster dropped is computed again
        self._data = {f.key: f for f in futures_of(X)}  # data on the cluster the array reads (not a graph)
        self._n_terms = int(X.shape[1])
        placed = initial_groups(client, blocks)
        self.groups = [idx for _, idx in placed]
        self.futures = [None] * len(blocks)
        self._where = [None] * len(blocks)  # the worker each block was checked on (None: Dask's choice)
        with releasing(self.release):  # a data error keeps no block on the workers
            for worker, idx in placed:
                self._check(idx, worker)
            sizes = restarting(client, self._sizes, self._what, before_again=self.mend,
                               workers=self._workers)  # fmt: skip
        self.row_starts = np.cumsum([0, *sizes]).astype(np.int64)
        self.shape = (int(self.row_starts[-1]), self._n_terms)
        if self.shape[0] == 0:
            raise ValueError(f"{name} must have at least one document, got shape {self.shape}")
        self.dtype = np.dtype(np.float64)
        self.traffic = {"sent": 0, "received": 0, "products": 0, "setup": 0}

    @property
    def _what(self) -> str:
        return f"checking the row blocks of {self.name}"

    def _workers(self) -> list[str]:
        """The workers the blocks were checked on."""
        return sorted({w for w in self._where if w is not None})

    def _check(self, idx, worker):
        """The blocks ``idx`` checked and made float64 on ``worker`` (None: where Dask chooses), each
        by a task of textsel's own reading the array's block where Dask computes it.  The array's
        graph is the user's and is left without restrictions: a task restricted to a worker, even
        loosely, that becomes ready while no worker runs waits for that address for ever, even
        once workers join under others (restarted by their nannies); textsel's own tasks are
        placed again by :meth:`mend` when their worker has left."""
        client = self.client
        _, raw = persisted_futures([self._blocks[i] for i in idx], client)
        if raw is None:
            raw = client.compute([self._blocks[i] for i in idx])
        where = {} if worker is None else dict(workers=[worker], allow_other_workers=True)
        for i, block in zip(idx, raw, strict=True):
            self.futures[i] = client.submit(checked_float64, block, i, self._n_terms, self.name, pure=False,
                                            **where)  # fmt: skip
            self._where[i] = worker

    def _sizes(self) -> list[int]:
        """The number of rows of every block (the blocks checked on the way)."""
        futures = self.client.map(n_rows, self.futures, pure=False)
        return result_within(self.client, futures, self._what, self._workers())

    def mend(self):
        """Every block the cluster can no longer give computed again from the array's graph, on a
        worker present: one whose future was cancelled (dropped by ``Client.restart``, or computed
        from data that went with a worker), or held nowhere while the worker it was placed on has
        left (the scheduler would wait for that worker).  A :class:`BlockLostError` for a block
        whose graph reads data the cluster held and lost: it cannot be computed again."""
        client = self.client
        present = sorted(client.nthreads())
        held = client.who_has([f for f in self.futures if f.status in ("pending", "finished")])
        again = [
            i
            for i, f in enumerate(self.futures)
            if f.status in ("cancelled", "lost")
            or (f.status != "error" and not held.get(f.key) and self._where[i] not in (None, *present))
        ]
        gone = {k for k, f in self._data.items() if f.status in ("cancelled", "lost")}
        for i in again:
            # a persisted block is its own datum; which datum another block reads its graph does not
            # say cheaply, and any gone may be its own
            key = self._blocks[i].key
            if key in gone or (key not in self._data and gone):
                raise _lost_block(i, self.name)
        load = {w: sum(where == w for where in self._where) for w in present}
        moved: dict[str | None, list[int]] = {}
        for i in again:
            worker = (
                self._where[i]
                if self._where[i] in load
                else min(load, key=lambda w: (load[w], w), default=None)
            )
            if worker is not None:
                load[worker] += 1
            moved.setdefault(worker, []).append(i)
        for worker, idx in moved.items():
            self._check(idx, worker)

    @property
    def n_blocks(self) -> int:
        return len(self.futures)

    def release(self):
        """Drop the blocks' futures, so that the workers release them (the matrix is of no use
        afterwards)."""
        self.futures = []
        self._where = []

    def __repr__(self) -> str:
        return f"BlockMatrix(shape={self.shape}, n_blocks={self.n_blocks})"
