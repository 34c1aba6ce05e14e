"""Kernels of model masking's curves and of the AUC / best-F1 scan."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

def prefix_row_sums(
    data: NDArray[np.floating[Any]],
    indices: NDArray[np.integer[Any]],
    indptr: NDArray[np.integer[Any]],
    weights: NDArray[np.float64],
    bounds: NDArray[np.int64],
    square: bool,
) -> NDArray[np.float64]: ...
def svset_curve(
    sv_data: NDArray[np.floating[Any]],
    sv_indices: NDArray[np.integer[Any]],
    sv_indptr: NDArray[np.integer[Any]],
    scale: NDArray[np.float64],
    test_data: NDArray[np.floating[Any]],
    test_indices: NDArray[np.integer[Any]],
    test_indptr: NDArray[np.integer[Any]],
    bounds: NDArray[np.int64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
def group_by_size(
    data: NDArray[np.floating[Any]],
    indices: NDArray[np.integer[Any]],
    indptr: NDArray[np.integer[Any]],
    rank_of: NDArray[np.int64],
    bounds: NDArray[np.int64],
) -> tuple[NDArray[np.floating[Any]], NDArray[np.integer[Any]], NDArray[np.integer[Any]], bool]: ...
def ranked_auc_f1(
    ranked: NDArray[np.float64], positive: NDArray[np.uint8], n_pos: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
