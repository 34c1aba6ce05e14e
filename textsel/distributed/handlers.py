"""What the public entry points call when ``X`` is distributed (see ``textsel/_dispatch.py``).

Each is called with the in-memory function it stands in for, then that function's own arguments,
and reuses the in-memory code for everything but the passes over ``X``: ``term_stats`` and
``lsqr`` run on the cluster, a fit reads ``X`` as it is (:func:`input_as_is`), a classifier's fit
reads its documents from :func:`document_rows` as it reads them in memory (the selectors' fits
need only ``term_stats``), and transform / predict / decision_function run the in-memory method
on each block, lazily.  No handler calls into an estimator but the method it was handed; nothing
here imports the public modules that dispatch to it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._stats import TermStats
from ._blocks import BlockMatrix, check_row_blocks
from ._worker import block_error, check_block
from .rows import BlockRows
from .solve import ArrayRows, solve
from .termstats import term_stats as _term_stats

__all__ = ["document_rows", "input_as_is", "lsqr", "map_row_blocks", "refuse_partial_fit", "term_stats"]


def _array(X):
    """The Dask array behind ``X`` (a BlockMatrix keeps the one it was built from)."""
    return X.array if isinstance(X, BlockMatrix) else X


def term_stats(_in_memory, X, y, *, classes=None, n_jobs=None) -> TermStats:
    """:func:`textsel.term_stats` on the cluster.  The caller's ``n_jobs`` has no say here (a
    selector's included): the workers are the parallelism, each block counted on one thread."""
    return _term_stats(_array(X), y, classes=classes)


def input_as_is(_in_memory, est, X, y, **validate):
    """A Dask array of row blocks (or a BlockMatrix) as a fit reads it: as it is, its width recorded
    as scikit-learn's ``validate_data`` records it; its blocks are checked where they are read."""
    width = X.shape[1]
    if not isinstance(width, (int, np.integer)):
        raise ValueError("X has an unknown number of columns; give the Dask array its shape")
    est.n_features_in_ = int(width)
    if hasattr(est, "feature_names_in_"):
        del est.feature_names_in_
    return X, y


def refuse_partial_fit(_in_memory, est, X, y, classes=None):
    raise TypeError(
        "partial_fit takes in-memory chunks; a Dask array is counted on its cluster by fit(X, y), "
        "which gives the same selection as partial_fit over its blocks"
    )


def lsqr(_in_memory, X, inputs, fit_intercept, n_jobs=None):
    """:func:`textsel.lsqr` on the cluster's blocks, u, b and the weights kept on the workers
    (:func:`textsel.distributed.solve.solve`): ``(x, report)``.

    ``inputs(m)`` checks the right-hand sides, weights, damps and tolerances for ``m`` rows, as
    ``textsel.least_squares.prepare`` does (Dask arrays among them computed to the client).  The
    caller's ``n_jobs`` has no say here: each worker computes its blocks' products with its
    own threads.
    """
    A = X if isinstance(X, BlockMatrix) else BlockMatrix(X)
    try:
        B, damps, weights, tolerances, limit = inputs(A.shape[0])
        return solve(A, ArrayRows(A, B, weights), damps, fit_intercept, *tolerances, limit)
    finally:
        if A is not X:  # built for this call: its blocks go with it, whatever happened
            A.release()


def document_rows(_in_memory, est, X, y, sample_weight) -> BlockRows:
    """A least-squares classifier's documents on the cluster (``textsel.linear_model``'s fit
    reads them as it reads :class:`textsel._rows.DocumentRows`): the checked blocks of ``X`` (a
    :class:`BlockMatrix` built here unless given, then released with the rows) and every pass
    over the labels and weights on the workers."""
    A = X if isinstance(X, BlockMatrix) else BlockMatrix(X)
    try:
        return BlockRows(A, y, sample_weight, est.class_weight, type(est).__name__, owned=A is not X)
    except BaseException:
        if A is not X:
            A.release()
        raise


def _apply(block, method, est, n_terms, empty, block_info=None):
    index = block_info[0]["chunk-location"][0] if block_info else 0
    X = check_block(block, index, n_terms)
    if X.shape[0] == 0:
        return empty
    try:
        return method(est, X)
    except (ValueError, TypeError) as exc:
        raise block_error("X", index, exc) from exc


def _shared(est):
    """``est`` sent to every worker once when a Client is active (a fitted selector holds its
    score table, tens of MB that would otherwise travel inside the graph), else ``est``."""
    try:
        from distributed import default_client

        client = default_client()
    except (ImportError, ValueError):
        return est
    return client.scatter(est, broadcast=True, hash=False)


def map_row_blocks(method, est, X):
    """``method`` (transform, predict, decision_function) on each row block, as a lazy Dask array.

    The output's type, width and dtype come from the method run on one empty document here.
    """
    X = _array(X)
    check_row_blocks(X)
    n_terms = int(X.shape[1])
    probe = method(est, sp.csr_matrix((1, n_terms)))
    empty = probe[:0]
    est = _shared(est)
    if probe.ndim == 1:
        return X.map_blocks(
            _apply, method, est, n_terms, empty, drop_axis=1, chunks=(X.chunks[0],), dtype=probe.dtype,
            meta=empty,
        )  # fmt: skip
    return X.map_blocks(
        _apply, method, est, n_terms, empty, chunks=(X.chunks[0], (probe.shape[1],)), dtype=probe.dtype,
        meta=empty,
    )  # fmt: skip
