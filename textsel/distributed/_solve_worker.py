"""What the tasks of a solve on a cluster compute (``textsel.distributed.solve``): pure functions of
Dask data, so that Dask holds, moves, counts and releases everything a solve keeps on a worker.

Each row block of the matrix is one group of the solve (:class:`Group`: its CSR rows, checked
once, with its rows of b and of the row weights, laid out column by column as in memory), the
result of one task.  Each call of the C solver's row operator then runs one task per worker over
the groups it holds (:func:`run_step`): it gives every group a new u (LSQR's u of the group's rows,
a fresh array: the previous one is the previous task's result, never written) and returns the
parts of ||u|| and A'D u added over each piece of the fixed tree (:func:`textsel._row_groups.tree_reduce`)
whose groups are all here; :func:`add_parts` adds two pieces for the rest of the tree.  The
kernel is the in-memory solve's (``RowGroup.step``), lane block by lane block, so that a solve
on a Dask array cut like the in-memory groups gives the in-memory answer to the last bit.

Imports numpy and textsel's kernels only, as ``_worker`` does.
"""

from __future__ import annotations

import numpy as np

from .._ext.rowblocks import RowGroup
from .._row_groups import LANES, add_norms, lane_width, tree_reduce
from .._rows import block_row_weights, block_targets, document_weights
from ._worker import local_labels

__all__ = [
    "Group", "add_parts", "cut_lanes", "pick", "relay", "replay", "run_step", "saved_u", "setup_group",
    "unpack_part",
]  # fmt: skip


class Group:
    """One block's share of a solve: its CSR rows (float64, structure and values checked here,
    once), its right-hand sides ``BT`` and row weights ``WT`` (K x rows, each column's rows
    contiguous; ``WT`` None: all 1)."""

    def __init__(self, X, BT, WT, fit_intercept, fetched=False):
        self.X, self.BT, self.WT, self.fit_intercept = X, BT, WT, bool(fit_intercept)
        self.fetched = bool(fetched)
        self.kernel(np.zeros_like(BT), check=True)  # refuses a malformed block, here and once

    @property
    def n_rows(self) -> int:
        return self.X.shape[0]

    def __sizeof__(self) -> int:
        # what Dask's memory manager counts: b and the weights, and the rows when they were fetched
        # from another worker (else the block is its own key's, counted there)
        rows = self.X.data.nbytes + self.X.indices.nbytes + self.X.indptr.nbytes if self.fetched else 0
        return object.__sizeof__(self) + self.BT.nbytes + (0 if self.WT is None else self.WT.nbytes) + rows

    def kernel(self, u, check=False) -> RowGroup:
        """The C step over these rows with ``u`` (K x rows) as LSQR's u, updated in place."""
        X = self.X
        return RowGroup(X.data, X.indices, X.indptr, X.shape[1], self.fit_intercept, u, self.WT, check)

    def scaled_b(self, cols) -> np.ndarray:
        """D b of the columns ``cols`` (len(cols) x rows)."""
        return self.BT[cols] if self.WT is None else self.WT[cols] * self.BT[cols]


def setup_group(X, rows, fit_intercept, fetched=False) -> Group:
    """A block's :class:`Group`.  ``rows`` is ``("arrays", b, weights)``, the block's rows of b and
    of the weights (None: all 1) as given, or ``("labels", y, s, recipe, delta, held_out)``: its
    labels and sample weights, from which b and the weights are built here as in memory
    (:mod:`textsel._rows`), 0 on the rows ``held_out`` (a slice, or None).  ``fetched``: the block
    came from another worker, and its memory is counted with the group."""
    if rows[0] == "arrays":
        _, b, w = rows
    else:
        _, y, s, recipe, delta, held_out = rows
        y = local_labels(y)
        b = block_targets(y, recipe)
        w = block_row_weights(b, document_weights(y, s, recipe), delta, held_out)
    BT = np.ascontiguousarray(np.asarray(b, dtype=np.float64).T)
    WT = None if w is None else np.ascontiguousarray(np.asarray(w, dtype=np.float64).T)
    return Group(X, BT, WT, fit_intercept, fetched)


def cut_lanes(v, P):
    """Copies of the solver's lane blocks ``v`` (``(ceil(P / 8), n, 8)``), each cut to its columns
    (``(n, width)``): the lanes past P, other columns', never travel."""
    return [np.array(v[j, :, : min(LANES, P - j * LANES)]) for j in range(-(-P // LANES))]


def _lane_views(v):
    """The kernel's lane blocks of v as :func:`cut_lanes` gives it: 8 lanes (a block cut shorter
    padded with zeros, which reach no result), or one alone for a block of one column."""
    views = []
    for block in v:
        n, width = block.shape
        if width != lane_width(width):
            block = np.concatenate([block, np.zeros((n, LANES - width))], axis=1)
        views.append(np.ascontiguousarray(block)[None])
    return views


def _lane_blocks(P):
    """The lane blocks of ``P`` columns, as slices (8 columns each, the last fewer)."""
    return [slice(p0, min(p0 + LANES, P)) for p0 in range(0, P, LANES)]


def _part(group, u, cols, vbs, vcoef, ucoef, spare=None):
    """One group's u updated in place for the columns ``cols`` (``vbs`` None: as it is; else v's
    lane blocks) and its part (scale, ssq, A'D u as a list of lane blocks, in ``spare`` if given:
    the kernel overwrites them), lane block by lane block as the in-memory solve runs them."""
    n1 = group.X.shape[1] + group.fit_intercept
    P = cols.size
    kernel = group.kernel(u)
    scale, ssq, gb = np.empty(P), np.empty(P), []
    for j, lanes in enumerate(_lane_blocks(P)):
        gb.append(spare[j] if spare else np.empty((1, n1, lane_width(lanes.stop - lanes.start))))
        vb = None if vbs is None else vbs[j]
        coefs = (None, None) if vbs is None else (vcoef[lanes], ucoef[lanes])
        kernel.step(cols[lanes], vb, *coefs, scale[lanes], ssq[lanes], gb[-1])
    return scale, ssq, gb


class _LocalTree:
    """A worker's pieces of the tree over its groups, each group's part computed when the tree
    first needs it and added into the part beside it as soon as both exist, so that at most one
    part per level of the tree is alive at once (their buffers reused), not one per group."""

    def __init__(self, compute):
        self.compute, self.spare = compute, []

    def part(self, leaf):
        """A leaf (a group's position) computed, or a sum already made."""
        if isinstance(leaf, int):
            return self.compute(leaf, self.spare.pop() if self.spare else None)
        return leaf

    def add(self, a, b):
        a, b = self.part(a), self.part(b)
        scale, ssq = add_norms(a[:2], b[:2])
        for x, y in zip(a[2], b[2], strict=True):
            np.add(x, y, out=x)
        self.spare.append(b[2])
        return scale, ssq, a[2]

    def sum(self, first, count):
        """The tree's sum over the positions first .. first + count - 1."""
        return self.part(tree_reduce(list(range(first, first + count)), self.add))


def unpack_part(part, out):
    """A part's A'D u (lane blocks as :func:`pick` cuts them) written into ``out``, the solver's
    lane blocks ``(ceil(P / 8), n_unknowns, 8)``; the lanes past P are left as they are."""
    for j, block in enumerate(part[2]):
        out[j, :, : block.shape[2]] = block[0]


def run_step(groups, previous, blocks, kind, cols, nodes, exps=None, v=None, vcoef=None, ucoef=None):
    """One call of the row operator on the groups a worker holds (``groups``, the blocks numbered
    ``blocks``, increasing), their u the first item of ``previous`` (the previous call's result;
    None: zeros).

    ``kind`` "max": ``(None, max |D b| of each column cols[p] over these groups)``.  "start": u =
    2^-exps D b, "step": u = vcoef D A v + ucoef u, for the columns ``cols`` (v as the solver's lane
    blocks cut to their columns, :func:`cut_lanes`); both return ``(u of
    each group, {node: part})``, a part (scale, ssq, lane blocks of A'D u) added by the tree
    for each node (a, b) of ``nodes``, the blocks a..b-1.
    """
    cols = np.ascontiguousarray(cols, dtype=np.int64)
    if kind == "max":
        maxabs = np.zeros(cols.size)
        for group in groups:
            if group.n_rows:
                np.maximum(maxabs, np.abs(group.scaled_b(cols)).max(axis=1), out=maxabs)
        return None, maxabs
    old = [np.zeros_like(g.BT) for g in groups] if previous is None else previous[0]
    u = [np.array(x) for x in old]  # a fresh u: the previous one stays as Dask holds it
    vbs = None
    if kind == "step":
        vbs, vcoef, ucoef = _lane_views(v), np.asarray(vcoef), np.asarray(ucoef)

    def compute(j, spare):
        if kind == "start":
            u[j][cols] = np.ldexp(groups[j].scaled_b(cols), -np.asarray(exps)[:, None])
        return _part(groups[j], u[j], cols, vbs, vcoef, ucoef, spare)

    tree = _LocalTree(compute)
    at = {block: j for j, block in enumerate(blocks)}
    parts = {(a, b): tree.sum(at[a], b - a) for a, b in nodes}
    if len(parts) < len(nodes) or sum(b - a for a, b in nodes) < len(groups):
        raise ValueError(f"nodes {nodes} do not cover the blocks {blocks} once each")
    return u, parts


def relay(v):
    """v, here: a copy on this worker, which the workers below it in the tree fetch."""
    return v


def saved_u(result):
    """The groups' u of a :func:`run_step` result: a copy of it, run on a second worker (so that the
    u outlives the loss of its own)."""
    return result[0]


def replay(groups, saved, blocks, nodes, log):
    """A run's :func:`run_step` result after the calls ``log`` (``(kind, cols, args)`` each, in
    order) from its u ``saved`` (None: zeros): the same kernel on the same inputs, so the same bits
    as the u the lost worker held (the parts computed on the way are dropped)."""
    result = None if saved is None else (saved, {})
    for kind, cols, args in log:
        result = run_step(groups, result, blocks, kind, cols, nodes, **args)
    return result


def add_parts(a, b, out=None):
    """Two parts (scale, ssq, lane blocks of A'D u) as :func:`pick` returns them, as one: the norms
    as :func:`textsel._row_groups.add_norms` adds them, A'D u elementwise, into new arrays (the
    parts may be Dask's) or into ``out``'s lane blocks as :func:`unpack_part` writes them."""
    pairs = enumerate(zip(a[2], b[2], strict=True))
    sums = [x + y if out is None else np.add(x, y, out=out[j : j + 1, :, : x.shape[2]])
            for j, (x, y) in pairs]  # fmt: skip
    return (*add_norms(a[:2], b[:2]), sums)


def pick(result, node, n_columns):
    """The part of ``node`` in a :func:`run_step` result as (scale, ssq, lane blocks of A'D u), the
    last block cut to its columns (its padding never travels).  Run where the result is, so that
    the groups' u never travel with it; the lanes are unpacked where the parts are added up, on
    the client (:func:`unpack_part`), not here: a task that copies the whole part would add its
    time to every call."""
    scale, ssq, gb = result[1][node]
    width = n_columns - (len(gb) - 1) * LANES
    if gb and width < gb[-1].shape[2]:
        gb = [*gb[:-1], np.ascontiguousarray(gb[-1][:, :, :width])]
    return scale, ssq, gb
