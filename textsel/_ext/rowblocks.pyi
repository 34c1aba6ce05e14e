"""The step of a distributed solve's row operator on the row blocks one worker keeps."""

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

def rowblocks_step(
    blocks: list[Any],
    u: list[NDArray[np.float64]],
    weights: Sequence[NDArray[np.float64] | None] | None,
    n_cols: int,
    fit_intercept: bool,
    cols: NDArray[np.int64],
    v: NDArray[np.float64] | None = None,
    vcoef: NDArray[np.float64] | None = None,
    ucoef: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]: ...
