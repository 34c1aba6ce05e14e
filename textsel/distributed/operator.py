"""The LSQR products on a cluster: the C solver calls back, the blocks answer where they live."""

from __future__ import annotations

import numpy as np

from ._blocks import place_groups
from ._worker import block_matvec, block_rmatvec

__all__ = ["BlockOperator"]

#: how many times a product is tried again after a worker was lost
RETRIES = 3


class BlockOperator:
    """``A`` and ``A'`` on a :class:`BlockMatrix`, for :func:`textsel._ccore.lsqr_operator`.

    Each product runs one task per group of blocks (:attr:`BlockMatrix.groups`) on the worker
    holding them, sends it the one vector it needs (all of ``V``, or the rows of ``U`` its blocks
    cover), runs the C block kernels there, and brings back the block results (``A V``) or one
    partial sum per group (``A' U``), added here in group order: the sums do not depend on where
    the blocks live.  A product is stateless, so one that fails because a worker was lost is
    simply asked again once the cluster has recomputed the lost blocks from their graph.
    """

    def __init__(self, A):
        self.A = A
        self.client = A.client

    def _placement(self) -> list[tuple[str, list[int]]]:
        return place_groups(self.client, self.A.futures, self.A.groups)

    def _run(self, product, *args):
        """Run ``product`` and retry it after a lost worker (not after a data error)."""
        for attempt in range(RETRIES + 1):
            try:
                return product(*args)
            except (ValueError, TypeError, MemoryError):
                raise
            except Exception as exc:  # a worker or its data lost in the middle: ask again
                if attempt == RETRIES:
                    raise RuntimeError(
                        f"lsqr: a product on the cluster failed {RETRIES + 1} times ({exc!r}); "
                        "the solve was abandoned and nothing is returned"
                    ) from exc
                self.client.wait_for_workers(1, timeout=60)

    def _submit(self, worker, func, blocks, *data):
        scattered = [self.client.scatter(d, workers=[worker], direct=True, hash=False) for d in data]
        self.A.traffic["sent"] += sum(d.nbytes for d in data)
        futures = [self.A.futures[i] for i in blocks]
        return self.client.submit(func, futures, *scattered, workers=[worker], allow_other_workers=True,
                                  pure=False)  # fmt: skip

    def _matvec(self, V):
        placement = self._placement()
        tasks = [self._submit(w, block_matvec, idx, V) for w, idx in placement]
        results = self.client.gather(tasks, direct=True)
        starts = self.A.row_starts
        Y = np.empty((self.A.shape[0], V.shape[1]))
        for (_, idx), parts in zip(placement, results, strict=True):
            for i, part in zip(idx, parts, strict=True):
                Y[starts[i] : starts[i + 1]] = part
                self.A.traffic["received"] += part.nbytes
        return Y

    def _rmatvec(self, U):
        placement = self._placement()
        starts = self.A.row_starts
        tasks = []
        for w, idx in placement:
            rows = np.concatenate([U[starts[i] : starts[i + 1]] for i in idx])
            local = np.cumsum([0] + [int(starts[i + 1] - starts[i]) for i in idx])
            tasks.append(self._submit(w, block_rmatvec, idx, rows, local))
        partials = self.client.gather(tasks, direct=True)
        G = np.zeros((self.A.shape[1], U.shape[1]))
        for part in partials:  # in group order, whichever worker computed each
            G += part
            self.A.traffic["received"] += part.nbytes
        return G

    def matvec(self, V: np.ndarray) -> np.ndarray:
        """A V for V of shape (n_terms, P)."""
        self.A.traffic["products"] += 1
        return self._run(self._matvec, V)

    def rmatvec(self, U: np.ndarray) -> np.ndarray:
        """A' U for U of shape (n_docs, P)."""
        self.A.traffic["products"] += 1
        return self._run(self._rmatvec, U)
