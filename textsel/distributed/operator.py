"""A V on a cluster, the blocks answering where they live: the out-of-fold scores of SCut on a
distributed fit (the solves themselves keep their vectors on the workers: ``solve``)."""

from __future__ import annotations

import asyncio

import numpy as np

from ._blocks import place
from ._faults import restarting, result_within
from ._worker import block_matvec

__all__ = ["BlockOperator"]


class BlockOperator:
    """``A V`` on a :class:`BlockMatrix`.

    Each product runs one task per group of blocks (:attr:`BlockMatrix.groups`) on the worker
    holding them, sends it ``V`` (to every worker at once), runs the C block kernel there and
    brings back the block results, written straight into ``out``.  A product is stateless, so
    one that fails because a worker was lost is simply asked again once the cluster has
    recomputed the lost blocks from their graph (``_faults.restarting``).
    """

    def __init__(self, A):
        self.A = A
        self.client = A.client
        self._workers = []  # the workers the last product placed its tasks on

    def _placement(self) -> list[tuple[str, list[int]]]:
        return place(self.client, self.A.futures, self.A.groups)

    def _run(self, product, *args):
        """Run ``product``, again after a lost worker (``_faults``' one policy; a task's own error
        is raised as itself)."""
        return restarting(self.client, lambda: product(*args), "lsqr", before_again=self.A.mend,
                          workers=lambda: self._workers)  # fmt: skip

    def _submit(self, worker, func, blocks, data):
        futures = [self.A.futures[i] for i in blocks]
        return self.client.submit(func, futures, data, workers=[worker], allow_other_workers=True,
                                  pure=False)  # fmt: skip

    def _send(self, pieces):
        """Each (worker, data) pair sent to its worker (through the scheduler), all at once
        rather than one after another (each send waits out a round trip); the data's futures, in
        order."""
        client = self.client

        async def send_all():
            return await asyncio.gather(*[
                client.scatter(data, workers=[worker], direct=False, hash=False, asynchronous=True)
                for worker, data in pieces
            ])  # fmt: skip

        return client.sync(send_all)

    def _matvec(self, V, out):
        placement = self._placement()
        self._workers = [w for w, _ in placement]
        sent = self._send([(w, V) for w, _ in placement])
        self.A.traffic["sent"] += V.nbytes * len(placement)
        tasks = [self._submit(w, block_matvec, idx, v) for (w, idx), v in zip(placement, sent, strict=True)]
        results = result_within(self.client, tasks, "lsqr", self._workers)
        starts = self.A.row_starts
        for (_, idx), parts in zip(placement, results, strict=True):
            for i, part in zip(idx, parts, strict=True):
                out[starts[i] : starts[i + 1]] = part
                self.A.traffic["received"] += part.nbytes

    def matvec(self, V: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """A V, for V of shape (n_terms, P), written into ``out`` (n_docs, P) if given."""
        out = np.empty((self.A.shape[0], V.shape[1])) if out is None else out
        self.A.traffic["products"] += 1
        self._run(self._matvec, V, out)
        return out
