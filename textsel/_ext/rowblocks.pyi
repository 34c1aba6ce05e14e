"""The step of a row operator on row blocks: the blocks one worker keeps (a distributed solve) or
one group of an in-memory solve's rows."""

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

class RowGroup:
    n_rows: int
    n_cols: int
    n_rhs: int
    fit_intercept: bool
    def __init__(
        self,
        data: NDArray[np.float64],
        indices: NDArray[np.int32] | NDArray[np.int64],
        indptr: NDArray[np.int32] | NDArray[np.int64],
        n_cols: int,
        fit_intercept: bool,
        u: NDArray[np.float64],
        weights: NDArray[np.float64] | None,
    ) -> None: ...
    def step(
        self,
        cols: NDArray[np.int64],
        vb: NDArray[np.float64] | None,
        vcoef: NDArray[np.float64] | None,
        ucoef: NDArray[np.float64] | None,
        scale: NDArray[np.float64],
        ssq: NDArray[np.float64],
        gb: NDArray[np.float64],
    ) -> None: ...
