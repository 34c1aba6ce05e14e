"""Kernels of textsel._ranked: row prefixes of rank-ordered columns, row hashing and grouping."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

def prefix_columns(
    data: NDArray[np.floating[Any]],
    indices: NDArray[np.integer[Any]],
    indptr: NDArray[np.integer[Any]],
    k: int,
) -> tuple[NDArray[np.floating[Any]], NDArray[np.integer[Any]], NDArray[np.integer[Any]]]: ...
def row_hashes(
    data: NDArray[np.float64],
    indices: NDArray[np.integer[Any]],
    indptr: NDArray[np.integer[Any]],
    codes: NDArray[np.int64],
) -> NDArray[np.uint64]: ...
def group_sorted(
    data: NDArray[np.float64],
    indices: NDArray[np.integer[Any]],
    indptr: NDArray[np.integer[Any]],
    codes: NDArray[np.int64],
    hashes: NDArray[np.uint64],
    order: NDArray[np.int64],
    n_cols: int,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]: ...
def take_rows(
    data: NDArray[np.floating[Any]],
    indices: NDArray[np.integer[Any]],
    indptr: NDArray[np.integer[Any]],
    rows: NDArray[np.int64],
) -> tuple[NDArray[np.floating[Any]], NDArray[np.integer[Any]], NDArray[np.integer[Any]]]: ...
def prefix_margins(
    data: NDArray[np.floating[Any]],
    indices: NDArray[np.integer[Any]],
    indptr: NDArray[np.integer[Any]],
    w: NDArray[np.float64],
    b: float,
) -> NDArray[np.float64]: ...
