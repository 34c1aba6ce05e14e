"""Kernels over CSR buffers: the top-k prefix of rows sorted by rank (textsel._ranked), the
columns a map keeps and each column's entries (the vectorizers' pruning)."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

def prefix_columns(
    data: NDArray[np.floating[Any]],
    indices: NDArray[np.integer[Any]],
    indptr: NDArray[np.integer[Any]],
    k: int,
) -> tuple[NDArray[np.floating[Any]], NDArray[np.integer[Any]], NDArray[np.integer[Any]]]: ...
def mapped_columns(
    data: NDArray[Any],
    indices: NDArray[np.integer[Any]],
    indptr: NDArray[np.integer[Any]],
    mapping: NDArray[np.integer[Any]],
) -> tuple[NDArray[Any], NDArray[np.integer[Any]], NDArray[np.integer[Any]]]: ...
def column_counts(indices: NDArray[np.integer[Any]], n_columns: int) -> NDArray[np.int64]: ...
def map_in_place(
    indices: NDArray[np.integer[Any]], mapping: NDArray[np.integer[Any]], first: int = 0, end: int = -1
) -> None: ...
