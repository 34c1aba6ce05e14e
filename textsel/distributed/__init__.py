"""textsel on a Dask cluster (the ``dask`` extra: ``python -m pip install ".[dask]"`` in a clone).

Nothing here is called directly in the common case: :func:`textsel.term_stats`,
:func:`textsel.lsqr`, the selectors and the least-squares classifiers accept a Dask array of
scipy.sparse CSR row blocks wherever they accept ``X`` and come here through one seam
(``textsel/_dispatch.py``).  :class:`BlockMatrix` holds such an array's blocks persisted and
checked on the workers, for several solves on the same matrix; :func:`row_blocks` turns an
in-memory matrix into such an array, cut as an in-memory solve cuts it; :class:`BlockLostError`
is what a solve raises when a block sent from the client went with a lost worker.  ``import
textsel`` does not import this package or Dask.
"""

__all__ = ["BlockLostError", "BlockMatrix", "row_blocks"]


def __getattr__(name):
    # lazily: a worker unpickling a block task imports this package, and needs no Dask array code
    if name == "BlockLostError":  # no Dask needed to name it (or to catch it)
        from ._faults import BlockLostError

        return BlockLostError
    if name in __all__:
        try:
            from . import _blocks
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] in ("dask", "distributed"):
                raise ModuleNotFoundError(
                    f"textsel.distributed needs Dask ({exc.name} is not installed): "
                    'python -m pip install "dask[distributed]" (the dask extra)',
                    name=exc.name,
                ) from exc
            raise
        return getattr(_blocks, name)
    raise AttributeError(f"module 'textsel.distributed' has no attribute {name!r}")
