"""Dealing work to threads: class costs and greedy longest-first grouping."""

import numpy as np
from numpy.typing import NDArray

def class_loads(
    indptr: NDArray[np.int32] | NDArray[np.int64], class_ptr: NDArray[np.int64], class_docs: NDArray[np.int64]
) -> NDArray[np.int64]: ...
def deal_longest_first(weights: NDArray[np.float64], n_groups: int) -> NDArray[np.int64]: ...
