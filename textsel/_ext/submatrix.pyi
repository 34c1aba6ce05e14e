"""Kernels of textsel._ranked: the top-k prefix of rows sorted by rank."""

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
    indices: NDArray[np.integer[Any]], indptr: NDArray[np.integer[Any]], mapping: NDArray[np.integer[Any]]
) -> tuple[NDArray[np.integer[Any]], NDArray[np.integer[Any]], NDArray[np.bool_]]: ...
