"""term_stats on row blocks: each block counted where it lives, the small tables summed in a tree."""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import scipy.sparse as sp
from dask.core import flatten
from dask.delayed import delayed

from .._labels import check_classes, encode_labels, label_repr, unique_labels
from .._stats import TermStats
from ._blocks import (
    as_label_array,
    check_row_blocks,
    label_blocks,
    matrix_blocks,
    persisted_futures,
    place_blocks,
)
from ._faults import restarting, result_within
from ._worker import accumulate, add_packed, add_stats, block_stats, unpack_stats, worker_stats

__all__ = ["term_stats"]

#: how many tables one reduction task adds
SPLIT_EVERY = 8

#: up to this many workers, each sends its table to the client; beyond, the tables are added
#: pairwise among the workers and one reaches the client
TO_CLIENT_UP_TO = 2


def _classes(y, classes):
    """The class order every block must share: given, the indicator's columns, or y's labels."""
    if classes is not None:
        return np.asarray(classes)
    if y.ndim == 2 and y.shape[1] != 1:
        return None  # indicator columns: every block numbers them alike
    if isinstance(y, da.Array):
        found = np.asarray(da.unique(y.ravel()).compute())
    else:
        found = unique_labels(y)
    if found.size < 2:
        which = label_repr(found[0]) if found.size else "none"
        raise ValueError(f"y has {found.size} class ({which}); term statistics need at least 2 classes")
    return found


def term_stats(X, y, *, classes=None, n_jobs=None) -> TermStats:
    """:func:`textsel.term_stats` on a Dask array of CSR row blocks; the same TermStats, exactly.

    Each block is counted by the in-memory kernel on the worker that holds it, with ``n_jobs``
    threads (default 1: the cluster's workers are the parallelism); only (classes x terms)
    tables travel.  A persisted array on the active dask.distributed Client is counted where it
    lies: one task per worker counts the blocks it holds in one pass (Dask recomputes a block a
    lost worker held); up to :data:`TO_CLIENT_UP_TO` workers each sends back its table, beyond
    that the tables are added pairwise among the workers and one reaches the client.  Any other
    array, on any scheduler, by a task per block with the tables added ``SPLIT_EVERY`` at a time.
    """
    check_row_blocks(X)
    keys = list(flatten(X.__dask_keys__()))  # enough to find a persisted array's blocks
    n_terms = int(X.shape[1])
    y = as_label_array(y)
    classes = _classes(y, classes)
    codes = _codes(y, classes)
    if codes is not None:  # the blocks count class positions; the names are put back below
        y, counted_classes = codes, np.arange(classes.size)
    else:
        counted_classes = classes
    y_parts = label_blocks(y, X)
    n_jobs = 1 if n_jobs is None else n_jobs
    client, futures = persisted_futures(keys)
    if client is not None:
        stats = _on_workers(client, futures, y_parts, n_terms, counted_classes, n_jobs)
    else:
        stats = _in_graph(matrix_blocks(X), y_parts, n_terms, counted_classes, n_jobs)
    if stats.n_docs == 0:
        raise ValueError(f"X must have at least one document and one term, got shape (0, {n_terms})")
    if codes is not None:
        stats = TermStats(stats.class_df, stats.df, stats.class_sizes, stats.n_docs, classes,
                          stats.multilabel)  # fmt: skip
    return stats


def _codes(y, classes):
    """1-D integer or Boolean labels in memory as their positions in ``classes``, in the
    narrowest unsigned type (one byte a document for up to 256 classes, where int64 labels take
    eight on their way to the workers), checked as :func:`textsel.term_stats` checks them;
    None for any other ``y`` (sent as it is)."""
    if not isinstance(y, np.ndarray) or y.ndim != 1 or y.dtype.kind not in "biu" or classes is None:
        return None
    classes = check_classes(classes, "y")
    if classes.dtype.kind not in "biu":
        return None  # e.g. string classes for integer labels: the blocks report the mismatch
    return encode_labels(y, classes)[1].astype(np.min_scalar_type(classes.size - 1))


def _on_workers(client, futures, y_parts, n_terms, classes, n_jobs):
    """A persisted array: one task per worker counts the blocks it holds in one pass; the tables
    come back to the client, or are added among the workers first (:func:`_in_tree`)."""
    if any(not isinstance(p, np.ndarray) and not sp.issparse(p) for p in y_parts):
        y_parts = list(dask.compute(*y_parts))
    placed = []  # the workers the last attempt placed its tasks on

    def attempt():
        placement = place_blocks(client, futures)
        placed[:] = [w for w, _ in placement]
        if len(placement) > TO_CLIENT_UP_TO:
            return [_in_tree(client, placement, futures, y_parts, n_terms, classes, n_jobs)]
        tasks = _tasks(client, placement, futures, y_parts, n_terms, classes, n_jobs)
        return result_within(client, tasks, "term_stats", placed)

    # the one fault policy: a worker that left (its tasks placed again), out of memory, frozen
    first, *rest = restarting(client, attempt, "term_stats", workers=lambda: placed)  # by first block
    total = unpack_stats(first)
    for fields in rest:
        total = accumulate(total, fields)
    return total


def _tasks(client, placement, futures, y_parts, n_terms, classes, n_jobs):
    """One :func:`worker_stats` task per worker, over the blocks placed with it."""
    where = dict(allow_other_workers=True, pure=False)  # a lost block is recomputed elsewhere
    return [
        client.submit(worker_stats, [futures[i] for i in idx], [y_parts[i] for i in idx], idx, n_terms,
                      classes, n_jobs, workers=[w], **where)
        for w, idx in placement
    ]  # fmt: skip


def _in_tree(client, placement, futures, y_parts, n_terms, classes, n_jobs):
    """Each worker's table by one task, the tables added pairwise among the workers (a fixed
    tree over the placement's order); the client receives one table, whatever the number of
    workers."""
    parts = _tasks(client, placement, futures, y_parts, n_terms, classes, n_jobs)
    while len(parts) > 1:
        pairs = [parts[i : i + 2] for i in range(0, len(parts), 2)]
        parts = [
            pair[0] if len(pair) == 1 else client.submit(add_packed, *pair, pure=False) for pair in pairs
        ]
    return result_within(client, parts[:1], "term_stats", [w for w, _ in placement])[0]


def _in_graph(blocks, y_parts, n_terms, classes, n_jobs):
    """Any array, any scheduler: a task per block, the tables added ``SPLIT_EVERY`` at a time."""
    parts = [
        delayed(block_stats, pure=True)(b, yb, i, n_terms, classes, n_jobs)
        for i, (b, yb) in enumerate(zip(blocks, y_parts, strict=True))
    ]
    while len(parts) > 1:
        parts = [
            delayed(add_stats, pure=True)(*parts[i : i + SPLIT_EVERY])
            for i in range(0, len(parts), SPLIT_EVERY)
        ]
    (stats,) = dask.compute(parts[0])
    return stats
