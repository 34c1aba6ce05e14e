"""Per-row quantities of a document-term matrix, shared by the in-memory fits and the Dask
workers' blocks (so this module imports numpy and scipy only)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["row_norms"]


def row_norms(X) -> np.ndarray:
    """The Euclidean norm of every row of a sparse or dense matrix."""
    if sp.issparse(X):
        return np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return np.linalg.norm(X, axis=1)
