"""What the workers compute for a solve whose row vectors stay there (``textsel.distributed.solve``).

A worker keeps, for each group of row blocks it solves, the blocks, their right-hand sides b,
their row weights and LSQR's u, for the whole solve, in a table on the worker object keyed by
the solve and the group, set up by a task (:func:`setup`).  :func:`compute` is one call of the C
solver's row operator on one group: its max |D b|, or u updated and the group's parts of ||u||
and of A'D u, which ``_collective`` adds among the workers; nothing of length m (documents)
leaves a worker.  Imports numpy and textsel's kernels only, as ``_worker`` does.
"""

from __future__ import annotations

import numpy as np

from .._ext.rowblocks import rowblocks_step
from .._row_groups import add_norms as add_pair
from .._rows import block_row_weights, block_targets, document_weights
from ._worker import local_labels

__all__ = ["StateLost", "add_norms", "compute", "setup", "state_of", "states"]

_TABLE = "_textsel_solves"


class StateLost(RuntimeError):
    """A group's state is not on the worker that runs its task: the worker holding it was lost
    (or the task moved); the solve restarts from its beginning."""


def _worker():
    from distributed import get_worker

    return get_worker()


def states(worker):
    table = getattr(worker, _TABLE, None)
    if table is None:
        table = {}
        setattr(worker, _TABLE, table)
    return table


def setup(solve, group, blocks, rows, fit_intercept) -> int:
    """Keep the group's blocks (CSR, float64, checked), right-hand sides and row weights here for
    the solve; returns the group's number of rows.

    ``rows`` is ``("arrays", b_parts, weight_parts)``, the blocks' rows of b and of the weights
    (None: all ones) as given, or ``("labels", y_parts, s_parts, recipe, delta, held_out)``: the
    blocks' labels and sample weights, from which b and the weights are built here as in memory
    (:mod:`textsel._rows`), 0 on the rows ``held_out[j]`` of block j (a slice, or None).
    """
    if rows[0] == "arrays":
        _, b_parts, weight_parts = rows
    else:
        b_parts, weight_parts = _from_labels(*rows[1:])
    state = {
        "blocks": list(blocks),
        "b": [np.ascontiguousarray(b, dtype=np.float64) for b in b_parts],
        "w": None
        if weight_parts is None or all(w is None for w in weight_parts)
        else [np.ascontiguousarray(w, dtype=np.float64) for w in weight_parts],
        "fit_intercept": bool(fit_intercept),
    }
    state["u"] = [np.zeros_like(b) for b in state["b"]]
    states(_worker())[(solve, group)] = state
    return sum(b.shape[0] for b in state["b"])


def _from_labels(y_parts, s_parts, recipe, delta, held_out):
    """The blocks' targets and row weights from their labels (the weights None when all are 1)."""
    b_parts, w_parts = [], []
    for j, y in enumerate(y_parts):
        y = local_labels(y)
        T = block_targets(y, recipe)
        s = document_weights(y, None if s_parts is None else s_parts[j], recipe)
        b_parts.append(T)
        w_parts.append(block_row_weights(T, s, delta, held_out[j]))
    if any(w is None for w in w_parts) and not all(w is None for w in w_parts):
        w_parts = [np.ones_like(T) if w is None else w for T, w in zip(b_parts, w_parts, strict=True)]
    return b_parts, w_parts


def _weights(state, j, cols):
    # a copy only for a subset of the columns (``cols`` a slice: a view)
    return None if state["w"] is None else state["w"][j][:, cols]


def _start(state, cols, exps):
    """With ``exps`` None: the group's max |D b| of each column ``cols[p]``; else u = 2^-exps D b for
    those columns and the group's part of ||u|| and A'D u."""
    if exps is None:
        maxabs = np.zeros(cols.size)
        for j, b in enumerate(state["b"]):
            Db = b[:, cols] if state["w"] is None else _weights(state, j, cols) * b[:, cols]
            if Db.size:
                np.maximum(maxabs, np.abs(Db).max(axis=0), out=maxabs)
        return maxabs
    for j, b in enumerate(state["b"]):
        Db = b[:, cols] if state["w"] is None else _weights(state, j, cols) * b[:, cols]
        state["u"][j][:, cols] = np.ldexp(Db, -np.asarray(exps))
    return _part(state, cols)


def _step(state, cols, v, vcoef, ucoef):
    """u = vcoef D A v + ucoef u for the columns ``cols`` (A = [X, 1] with the intercept), then the
    group's part of ||u|| and A'D u, in one pass over each block's values (the C kernel)."""
    return rowblocks_step(
        state["blocks"], state["u"], state["w"], state["blocks"][0].shape[1], state["fit_intercept"],
        cols, np.ascontiguousarray(v, dtype=np.float64), vcoef, ucoef,
    )  # fmt: skip


def _part(state, cols):
    """The group's part of ||u|| as (scale, sum of squares / scale^2) per column, and of A'D u."""
    return rowblocks_step(
        state["blocks"], state["u"], state["w"], state["blocks"][0].shape[1], state["fit_intercept"], cols
    )


def compute(state, kind, cols, exps=None, v=None, vcoef=None, ucoef=None):
    """One call of the row operator on one group's ``state``: ``kind`` "max" (max |D b| of each
    column ``cols[p]``), "start" (u = 2^-exps D b) or "step" (u = vcoef D A v + ucoef u); the two
    latter return the group's (scale, ssq, A'D u)."""
    cols = np.asarray(cols)
    if kind == "max":
        return _start(state, cols, None)
    if kind == "start":
        return _start(state, cols, exps)
    return _step(state, cols, v, np.asarray(vcoef), np.asarray(ucoef))


def state_of(worker, solve, group):
    """The group's state on ``worker``, or StateLost."""
    try:
        return states(worker)[(solve, group)]
    except KeyError:
        raise StateLost(f"group {group} of solve {solve} is not on this worker") from None


def add_norms(parts):
    """The groups' (scale, ssq) pairs, in group order, as one (each pair added as
    :func:`textsel._row_groups.add_norms` adds two)."""
    total = parts[0]
    for other in parts[1:]:
        total = add_pair(total, other)
    return total
