"""term_stats on row blocks: each block counted where it lives, the small tables summed in a tree."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import scipy.sparse as sp
from dask.delayed import delayed

from .._validation import label_repr
from ..termstats import TermStats
from ..termstats import term_stats as term_stats_in_memory
from ._blocks import as_label_array, block_error, check_block, label_blocks, matrix_blocks, place_blocks

__all__ = ["term_stats"]

#: how many tables one reduction task adds
SPLIT_EVERY = 8


def _classes(y, classes):
    """The class order every block must share: given, the indicator's columns, or y's labels."""
    if classes is not None:
        return np.asarray(classes)
    if y.ndim == 2 and y.shape[1] != 1:
        return None  # indicator columns: every block numbers them alike
    if isinstance(y, da.Array):
        found = np.asarray(da.unique(y.ravel()).compute())
    else:
        found = np.unique(y)
    if found.size < 2:
        which = label_repr(found[0]) if found.size else "none"
        raise ValueError(f"y has {found.size} class ({which}); term statistics need at least 2 classes")
    return found


def _block_stats(block, y_block, index, n_terms, classes, n_threads):
    X = check_block(block, index, n_terms)
    y_block = as_label_array(y_block)
    if y_block.shape[0] != X.shape[0]:
        raise ValueError(f"y block {index} has {y_block.shape[0]} rows but X block {index} has {X.shape[0]}")
    if X.shape[0] == 0:
        return _empty(y_block, n_terms, classes)
    try:
        return term_stats_in_memory(X, y_block, classes=classes, n_threads=n_threads)
    except (ValueError, TypeError) as exc:
        raise block_error("X", index, exc) from exc


def _empty(y_block, n_terms, classes):
    multilabel = y_block.ndim == 2 and y_block.shape[1] != 1
    names = classes if classes is not None else np.arange(y_block.shape[1])
    return TermStats(
        class_df=np.zeros((len(names), n_terms), dtype=np.int64),
        df=np.zeros(n_terms, dtype=np.int64),
        class_sizes=np.zeros(len(names), dtype=np.int64),
        n_docs=0,
        classes=names,
        multilabel=multilabel,
    )


def _accumulate(total: TermStats, part: TermStats) -> TermStats:
    """``total + part`` written into ``total``'s arrays; both were counted with the same global
    class order, so no alignment (``TermStats.__add__``) and no new table is needed."""
    total.class_df[...] += part.class_df
    total.df[...] += part.df
    total.class_sizes[...] += part.class_sizes
    return TermStats(total.class_df, total.df, total.class_sizes, total.n_docs + part.n_docs,
                     total.classes, total.multilabel)  # fmt: skip


def _add(*parts: TermStats) -> TermStats:
    """The sum of ``parts`` in a fresh table (the parts may be shared by the scheduler)."""
    first = parts[0]
    total = TermStats(first.class_df.copy(), first.df.copy(), first.class_sizes.copy(), first.n_docs,
                      first.classes, first.multilabel)  # fmt: skip
    for part in parts[1:]:
        total = _accumulate(total, part)
    return total


def _worker_stats(blocks, y_parts, indices, n_terms, classes, n_threads):
    """One worker's blocks counted one after the other into one table (only it travels)."""
    parts = (
        _block_stats(*args, n_terms, classes, n_threads)
        for args in zip(blocks, y_parts, indices, strict=True)
    )
    total = next(parts)
    for part in parts:
        total = _accumulate(total, part)
    return total


def _persisted_blocks(blocks):
    """The futures of ``blocks`` when a distributed Client is active and has every one of them
    (a persisted array, computed or still computing), else None."""
    try:
        from distributed import Future, default_client

        client = default_client()
    except (ImportError, ValueError):
        return None, None
    keys = [b.key for b in blocks]
    if not all(k in client.futures for k in keys):
        return None, None
    return client, [Future(k, client) for k in keys]


def term_stats(X, y, *, classes=None, n_threads=None) -> TermStats:
    """:func:`textsel.term_stats` on a Dask array of CSR row blocks; the same TermStats, exactly.

    Each block is counted by the in-memory kernel on the worker that holds it, with ``n_threads``
    threads (default 1: the cluster's workers are the parallelism); only (classes x terms)
    tables travel.  A persisted array on the active dask.distributed Client is counted by one
    task per worker over the blocks it holds, which sends back one table; any other array, on
    any scheduler, by a task per block with the tables added ``SPLIT_EVERY`` at a time.
    """
    blocks = matrix_blocks(X)
    n_terms = int(X.shape[1])
    y_parts = label_blocks(y, X)
    classes = _classes(as_label_array(y), classes)
    n_threads = 1 if n_threads is None else n_threads
    client, futures = _persisted_blocks(blocks)
    if client is not None:
        stats = _on_workers(client, futures, y_parts, n_terms, classes, n_threads)
    else:
        stats = _in_graph(blocks, y_parts, n_terms, classes, n_threads)
    if stats.n_docs == 0:
        raise ValueError(f"X must have at least one document and one term, got shape (0, {n_terms})")
    return stats


def _on_workers(client, futures, y_parts, n_terms, classes, n_threads):
    """A persisted array: one task per worker over the blocks it holds, one table back from each."""
    if any(not isinstance(p, np.ndarray) and not sp.issparse(p) for p in y_parts):
        y_parts = list(dask.compute(*y_parts))
    tasks = [
        client.submit(
            _worker_stats,
            [futures[i] for i in idx],
            [y_parts[i] for i in idx],
            idx,
            n_terms,
            classes,
            n_threads,
            workers=[w],
            allow_other_workers=True,
            pure=False,
        )  # fmt: skip
        for w, idx in place_blocks(client, futures)
    ]
    return _add(*client.gather(tasks))


def _in_graph(blocks, y_parts, n_terms, classes, n_threads):
    """Any array, any scheduler: a task per block, the tables added ``SPLIT_EVERY`` at a time."""
    parts = [
        delayed(_block_stats, pure=True)(b, yb, i, n_terms, classes, n_threads)
        for i, (b, yb) in enumerate(zip(blocks, y_parts, strict=True))
    ]
    while len(parts) > 1:
        parts = [
            delayed(_add, pure=True)(*parts[i : i + SPLIT_EVERY]) for i in range(0, len(parts), SPLIT_EVERY)
        ]
    (stats,) = dask.compute(parts[0])
    return stats
