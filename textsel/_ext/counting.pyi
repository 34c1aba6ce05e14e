"""Document frequencies, overall and per class, from CSR buffers."""

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

def count_classes(
    blocks: Sequence[tuple[NDArray[Any], NDArray[Any], NDArray[Any]]],
    class_ptr: NDArray[np.int64],
    class_docs: NDArray[np.int64],
    primary: NDArray[np.uint8],
    class_list: NDArray[np.int64],
    mark: NDArray[np.uint16],
    df: NDArray[np.int64],
    class_df: NDArray[np.int64],
    accumulate: bool = False,
    interrupt: Any = None,
) -> tuple[int, int, int]: ...
def indicator_lists(
    cells: NDArray[np.uint8], n_classes: int, n_pairs: int
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.uint8], int]: ...
