"""textsel on a Dask cluster (``pip install textsel[dask]``).

Nothing here is called directly in the common case: :func:`textsel.term_stats`,
:func:`textsel.lsqr`, the selectors and the least-squares classifiers accept a Dask array of
scipy.sparse CSR row blocks wherever they accept ``X`` and come here through one seam
(``textsel/_dispatch.py``).  :class:`BlockMatrix` holds such an array's blocks persisted and
checked on the workers, for several solves on the same matrix.  ``import textsel`` does not
import this package or Dask.
"""

__all__ = ["BlockMatrix"]


def __getattr__(name):
    # lazily: a worker unpickling a block task imports this package, and needs no Dask array code
    if name == "BlockMatrix":
        from ._blocks import BlockMatrix

        return BlockMatrix
    raise AttributeError(f"module 'textsel.distributed' has no attribute {name!r}")
