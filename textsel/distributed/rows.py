"""The documents' labels and weights of a classifier's fit on a cluster, kept beside the row blocks.

:class:`BlockRows` is the cluster's :class:`textsel._rows.DocumentRows`: the labels (and sample
weights) of each row block are placed once on the worker that solves the block, and everything of
the documents' length is built there from them by the same block functions as in memory: the
label summaries that fix the classes, the weighted class sizes and norm sums the estimates read,
and, for each solve, the targets and row weights (``_solve_worker.setup_group``).  The client holds the
labels only when it was given them as an array (8 bytes a document for integer labels), and a Dask
array of labels chunked like ``X``'s rows never reaches it; no documents x classes array is built
here, except SCut's held-out scores and their positives (:meth:`BlockRows.positive`).
"""

from __future__ import annotations

import copy
import math
from types import SimpleNamespace

import dask.array as da
import numpy as np

from .._checks import check_lsqr_options
from .._rows import check_weighted, merge_summaries, resolve
from ._blocks import as_label_array, label_blocks, place
from ._faults import releasing, restarting, result_within
from ._rows_worker import group_sums, label_summary, positive
from ._worker import kept
from .solve import solve

__all__ = ["BlockRows"]


class BlockRows:
    """The labels and weights of a :class:`textsel.distributed.BlockMatrix`'s documents, per block
    on the workers: what a least-squares classifier's fit reads of them, as
    :class:`textsel._rows.DocumentRows` gives it in memory.

    Parameters
    ----------
    A : BlockMatrix
    y : array-like, sparse matrix or Dask array
        Labels; a Dask array is chunked like ``A``'s rows.
    sample_weight : array-like, Dask array, scalar or None
    class_weight : dict, list of dicts, "balanced" or None
    owner : str
        The estimator's name, for errors.
    owned : bool
        ``A`` was built for this fit: :meth:`release` releases its blocks.
    """

    def __init__(self, A, y, sample_weight, class_weight, owner, owned=False):
        self.A = self.X = A
        self.owned = owned
        self.client = A.client
        self._placed = {}  # one dict, shared by every fold's copy (holding_out), updated in place
        self._y_pieces = self._pieces(y, "y")
        self._s_pieces = None
        if sample_weight is not None:
            scalar = not isinstance(sample_weight, da.Array) and np.ndim(sample_weight) == 0
            self._s_pieces = (
                [sample_weight] * A.n_blocks if scalar else self._pieces(sample_weight, "sample_weight")
            )
        with releasing(self._placed.clear):  # a data error keeps no label or weight on the workers
            self.refresh()
            summaries = self._results(self._summaries)
            self.recipe = resolve(merge_summaries(summaries), class_weight, owner)
            self.sums = self._sums(norms=False)
            check_weighted(self.sums)
        self._norm_sums = None
        self.held_out = None  # (fold, n_folds): the documents weighted 0, for a fold's model
        self._operator = None  # the product that scores SCut's folds, made on first use

    @property
    def n_docs(self) -> int:
        return self.A.shape[0]

    @property
    def n_columns(self) -> int:
        return self.recipe.n_columns

    # -- placing the labels ----------------------------------------------------------------

    def _pieces(self, values, name):
        """``values`` cut like the blocks' rows: ndarray pieces (views of the array given) or, for a
        Dask array, its Delayed blocks."""
        if isinstance(values, da.Array):
            sizes = tuple(int(n) for n in np.diff(self.A.row_starts))
            known = not any(math.isnan(c) for c in values.chunks[0])
            same_length = values.ndim in (1, 2) and values.shape[0] == self.n_docs
            if known and same_length and values.chunks[0] != sizes:
                values = values.rechunk({0: sizes})  # cut like the blocks: a piece beside each
            return label_blocks(values, self.A.array, name)
        arr = as_label_array(values)
        if arr.ndim == 0 or arr.shape[0] != self.n_docs:
            got = "a scalar" if arr.ndim == 0 else f"{arr.shape[0]} entries"
            raise ValueError(f"{name} has {got} but X has {self.n_docs} documents")
        starts = self.A.row_starts
        return [arr[starts[i] : starts[i + 1]] for i in range(self.A.n_blocks)]

    def _place(self, pieces):
        """Each block's piece on the worker solving the block: scattered from here (an array's), or
        a Dask array's computed where Dask chooses (its graph is the user's and gets no restriction:
        see ``BlockMatrix._check``) and kept on that worker by a task of textsel's own (recomputed
        from its graph if its worker is lost)."""
        if pieces is None:
            return None
        if not hasattr(pieces[0], "dask") and np.ndim(pieces[0]) == 0:
            return list(pieces)  # one scalar weight, passed as it is
        placed = [None] * len(pieces)
        for worker, idx in self.placement:
            chunk = [pieces[i] for i in idx]
            if hasattr(chunk[0], "dask"):
                futures = [
                    self.client.submit(kept, piece, workers=[worker], allow_other_workers=True, pure=False)
                    for piece in self.client.compute(chunk)
                ]
            else:
                futures = self.client.scatter(chunk, workers=[worker], direct=False, hash=False)
                self.A.traffic["setup"] += sum(getattr(p, "nbytes", 0) for p in chunk)
            for i, future in zip(idx, futures, strict=True):
                placed[i] = future
        return placed

    def refresh(self):
        """Place the pieces (again, after a lost worker took some of those scattered from here, on
        the workers holding the blocks now, the blocks the cluster dropped computed again first)."""
        self.A.mend()
        self._placed["placement"] = place(self.client, self.A.futures, self.A.groups)
        self._placed["y"] = self._place(self._y_pieces)
        self._placed["s"] = self._place(self._s_pieces)

    @property
    def placement(self):
        return self._placed["placement"]

    @property
    def _y(self):
        return self._placed["y"]

    @property
    def _s(self):
        return self._placed["s"]

    def _results(self, tasks):
        """The results of the futures ``tasks()`` submits, asked again after a lost worker once the
        labels are placed again (``_faults``' one policy; a task's own error is raised as itself)."""

        def attempt():
            return result_within(self.client, tasks(), "fit", self._workers())

        return restarting(self.client, attempt, "fit", before_again=self.refresh, workers=self._workers)

    def _workers(self):
        """The workers the labels are placed on."""
        return [w for w, _ in self.placement]

    def _summaries(self):
        """One ``label_summary`` task per block, on the worker holding its labels."""
        sizes = np.diff(self.A.row_starts)
        return [self._submit(i, label_summary, self._y[i], i, int(sizes[i])) for i in range(self.A.n_blocks)]

    def _submit(self, i, func, *args):
        worker = next(w for w, idx in self.placement if i in idx)
        return self.client.submit(func, *args, workers=[worker], allow_other_workers=True, pure=False)

    # -- what the estimators read ----------------------------------------------------------

    def _sums(self, norms):
        def tasks():
            parts = []
            for worker, idx in self.placement:
                s = None if self._s is None else [self._s[i] for i in idx]
                blocks = [self.A.futures[i] for i in idx] if norms else None
                args = (idx, [self._y[i] for i in idx], s, self.recipe, blocks)
                parts.append(self.client.submit(group_sums, *args, workers=[worker], allow_other_workers=True,
                                                pure=False))  # fmt: skip
            return parts

        total = None
        for part in self._results(tasks):  # added in group order: the same sum every time
            total = part if total is None else total + part
        return total

    def norm_sums(self):
        """:class:`textsel._rows.RowSums` with the documents' norms (one pass over the blocks)."""
        if self._norm_sums is None:
            self._norm_sums = self._sums(norms=True)
        return self._norm_sums

    def positive(self) -> np.ndarray:
        """Which documents belong to each column (documents x columns, bool), here: for SCut."""
        parts = self._results(
            lambda: [self._submit(i, positive, self._y[i], self.recipe) for i in range(self.A.n_blocks)]
        )
        return np.concatenate(parts)

    def held_out_scores(self, fold, n_folds, coef, intercept) -> np.ndarray:
        """The scores of fold ``fold``'s documents by the model ``(coef, intercept)``: one product
        on the cluster, each block answering where it lives."""
        from .operator import BlockOperator

        if self._operator is None:
            self._operator = BlockOperator(self.A)
        return (self._operator.matvec(np.ascontiguousarray(coef.T)) + intercept)[fold::n_folds]

    def release(self):
        """Release the labels and weights placed on the workers, and the blocks when the matrix was
        built for this fit (the rows are of no use afterwards)."""
        self._placed.clear()
        if self.owned:
            self.A.release()

    def holding_out(self, fold, n_folds):
        """The training problem of SCut's fold ``fold`` (:func:`textsel._rows.out_of_fold_scores`):
        the whole matrix, with these rows' documents of the fold (every ``n_folds``-th from
        document ``fold``) weighted 0, the same least-squares problem as on the training rows
        alone, without slicing the blocks."""
        rows = copy.copy(self)  # the labels placed on the workers are shared, not placed again
        rows.held_out = (int(fold), int(n_folds))
        return self.A, rows

    def lsqr(self, A, delta, *, damp, fit_intercept, atol, btol, iter_lim, n_jobs=None):
        """LSQR of ``A`` against the targets, row weights ``delta`` on each column's positives (None:
        1), on the cluster (``n_jobs`` has no say: each worker uses its own): an object with
        :class:`textsel.LSQRResult`'s fields."""
        damps, _, tolerances, limit = check_lsqr_options(self.n_columns, damp, atol, btol, 1e8, iter_lim)
        x, report = solve(A, _SolveRows(self, delta), damps, fit_intercept, *tolerances, limit)
        return SimpleNamespace(x=x, **report)


class _SolveRows:
    """:class:`BlockRows` bound to one solve's ``delta``: the ``rows`` of ``solve.solve``."""

    def __init__(self, rows, delta):
        self.rows, self.delta = rows, None if delta is None else np.asarray(delta, dtype=np.float64)
        self.n_columns = rows.n_columns

    def block(self, i, worker):
        """The ``rows`` argument of ``_solve_worker.setup_group`` for block ``i``."""
        rows = self.rows
        starts = rows.A.row_starts
        held = None
        if rows.held_out is not None:  # the fold's rows of this block: every n-th from its first
            fold, n_folds = rows.held_out
            held = slice((fold - starts[i]) % n_folds, None, n_folds)
        s = None if rows._s is None else rows._s[i]
        return ("labels", rows._y[i], s, rows.recipe, self.delta, held)

    def refresh(self):
        self.rows.refresh()

    def release(self):
        """Nothing to drop: the labels stay placed for the fit's other solves."""
