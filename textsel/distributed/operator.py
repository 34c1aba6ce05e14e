"""The LSQR products on a cluster: the C solver calls back, the blocks answer where they live."""

from __future__ import annotations

import asyncio

import numpy as np

from ._blocks import place_groups
from ._worker import block_matvec, block_rmatvec

__all__ = ["BlockOperator"]

#: how many times a product is tried again after a worker was lost
RETRIES = 3


class BlockOperator:
    """``A`` and ``A'`` on a :class:`BlockMatrix`, for :func:`textsel._ext.ccore.lsqr_operator`.

    Each product runs one task per group of blocks (:attr:`BlockMatrix.groups`) on the worker
    holding them, sends it the one vector it needs (all of ``V``, or the rows of ``U`` its blocks
    cover; to every worker at once), runs the C block
    kernels there, and brings back the block results (``A V``) or one partial sum per group
    (``A' U``), added here in group order: the sums do not depend on where the blocks live.
    Results are written straight into the solver's output buffer.  A product is stateless, so
    one that fails because a worker was lost is simply asked again once the cluster has
    recomputed the lost blocks from their graph.
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

    def _submit(self, worker, func, blocks, data):
        futures = [self.A.futures[i] for i in blocks]
        return self.client.submit(func, futures, data, workers=[worker], allow_other_workers=True,
                                  pure=False)  # fmt: skip

    def _send(self, pieces):
        """Each (worker, data) pair sent straight from the client to its worker, all at once
        rather than one after another (each send waits out a round trip); the data's futures, in
        order."""
        client = self.client

        async def send_all():
            return await asyncio.gather(*[
                client.scatter(data, workers=[worker], direct=True, hash=False, asynchronous=True)
                for worker, data in pieces
            ])  # fmt: skip

        return client.sync(send_all)

    def _matvec(self, V, out):
        placement = self._placement()
        sent = self._send([(w, V) for w, _ in placement])
        self.A.traffic["sent"] += V.nbytes * len(placement)
        tasks = [self._submit(w, block_matvec, idx, v) for (w, idx), v in zip(placement, sent, strict=True)]
        results = self.client.gather(tasks, direct=True)
        starts = self.A.row_starts
        for (_, idx), parts in zip(placement, results, strict=True):
            for i, part in zip(idx, parts, strict=True):
                out[starts[i] : starts[i + 1]] = part
                self.A.traffic["received"] += part.nbytes

    def _rmatvec(self, U, out):
        placement = self._placement()
        starts = self.A.row_starts
        # each group's rows of U as views, one per block: serialised as they lie, no gathered copy
        pieces = [(w, [U[starts[i] : starts[i + 1]] for i in idx]) for w, idx in placement]
        sent = self._send(pieces)
        self.A.traffic["sent"] += sum(part.nbytes for _, parts in pieces for part in parts)
        tasks = [
            self._submit(w, block_rmatvec, idx, rows) for (w, idx), rows in zip(placement, sent, strict=True)
        ]
        partials = self.client.gather(tasks, direct=True)
        out[...] = partials[0]
        for part in partials[1:]:  # in group order, whichever worker computed each
            out += part
        self.A.traffic["received"] += sum(part.nbytes for part in partials)

    def matvec(self, V: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """A V, for V of shape (n_terms, P), written into ``out`` (n_docs, P) if given."""
        out = np.empty((self.A.shape[0], V.shape[1])) if out is None else out
        self.A.traffic["products"] += 1
        self._run(self._matvec, V, out)
        return out

    def rmatvec(self, U: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """A' U, for U of shape (n_docs, P), written into ``out`` (n_terms, P) if given."""
        out = np.empty((self.A.shape[1], U.shape[1])) if out is None else out
        self.A.traffic["products"] += 1
        self._run(self._rmatvec, U, out)
        return out
