"""What the public entry points call when ``X`` is distributed (see ``textsel/_dispatch.py``).

Each reuses the in-memory code for everything but the passes over ``X``: the selectors score
and select on the client from the distributed statistics, the classifiers run their usual fit
with the distributed LSQR, and transform / predict / decision_function run the in-memory method
on each block, lazily.  Of an estimator, a handler calls only the hooks named in
``textsel._base.DISTRIBUTED_HOOKS`` and the methods it was handed; nothing here imports the
public modules that dispatch to it.
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp

from .._stats import TermStats
from ._blocks import BlockMatrix, check_row_blocks
from ._worker import block_error, check_block
from .operator import BlockOperator
from .rows import BlockRows, fold_bounds
from .solve import ArrayRows, solve
from .termstats import term_stats as _term_stats

__all__ = ["fit_lsqr_classifier", "fit_selector", "lsqr", "map_row_blocks", "term_stats"]


def _array(X):
    """The Dask array behind ``X`` (a BlockMatrix keeps the one it was built from)."""
    return X.array if isinstance(X, BlockMatrix) else X


def term_stats(X, y, *, classes=None, n_threads=None) -> TermStats:
    return _term_stats(_array(X), y, classes=classes, n_threads=n_threads)


def lsqr(X, inputs, fit_intercept):
    """:func:`textsel.lsqr` on the cluster's blocks, u, b and the weights kept on the workers
    (:func:`textsel.distributed.solve.solve`): ``(x, report)``.

    ``inputs(m)`` checks the right-hand sides, weights, damps and tolerances for ``m`` rows, as
    ``textsel.least_squares.prepare`` does (Dask arrays among them computed to the client).  The
    caller's ``n_threads`` has no say here: each worker computes its blocks' products with its
    own threads.
    """
    A = X if isinstance(X, BlockMatrix) else BlockMatrix(X)
    try:
        B, damps, weights, tolerances, limit = inputs(A.shape[0])
        return solve(A, ArrayRows(A, B, weights), damps, fit_intercept, *tolerances, limit)
    finally:
        if A is not X:  # built for this call: its blocks go with it, whatever happened
            A.release()


def _mark_fitted(est, n_features):
    est.n_features_in_ = int(n_features)
    if hasattr(est, "feature_names_in_"):
        del est.feature_names_in_


def fit_selector(est, fit, X, y):
    """TermSelector / ScalableTermSelector ``fit``: statistics on the cluster, the rest here."""
    est._textsel_check_params()
    stats = _term_stats(_array(X), y)
    _mark_fitted(est, stats.n_terms)
    return est._textsel_fit_stats(stats)


def fit_lsqr_classifier(est, fit, X, y, sample_weight=None):
    """The least-squares classifiers' ``fit`` with every pass over ``X`` and over the documents'
    labels and weights on the cluster (:class:`textsel.distributed.rows.BlockRows`)."""
    A = X if isinstance(X, BlockMatrix) else BlockMatrix(X)
    try:
        rows = BlockRows(A, y, sample_weight, est.class_weight, type(est).__name__)
        est._textsel_fit_rows(A, rows, functools.partial(_out_of_fold_scores, est))
    finally:
        if A is not X:  # built for this fit: its blocks go with it, whatever happened
            A.release()
    _mark_fitted(est, A.shape[1])
    return est


def _out_of_fold_scores(est, A, rows, n_folds, delta, damp):
    """SCut's held-out scores on the cluster: each fold's model is the weighted solve with the
    held-out documents' weights set to zero (the same least-squares problem as on the training
    rows alone, without slicing the blocks), scored by one product."""
    operator = BlockOperator(A)
    scores = np.empty((rows.n_docs, rows.n_columns))
    for start, stop in fold_bounds(rows.n_docs, n_folds):
        coef, intercept, _ = est._textsel_solve(A, rows.holding_out(start, stop), delta, damp)
        scores[start:stop] = (operator.matvec(np.ascontiguousarray(coef.T)) + intercept)[start:stop]
    return scores


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


def map_row_blocks(est, method, X):
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
