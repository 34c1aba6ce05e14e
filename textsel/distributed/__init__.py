"""textsel on a Dask cluster (``pip install textsel[dask]``).

Nothing here is called directly in the common case: :func:`textsel.term_stats`,
:func:`textsel.lsqr`, the selectors and the least-squares classifiers accept a Dask array of
scipy.sparse CSR row blocks wherever they accept ``X`` and come here through one seam
(``textsel/_dispatch.py``).  :class:`BlockMatrix` holds such an array's blocks persisted and
checked on the workers, for several solves on the same matrix.  ``import textsel`` does not
import this package or Dask.
"""

from ._blocks import BlockMatrix

__all__ = ["BlockMatrix"]
