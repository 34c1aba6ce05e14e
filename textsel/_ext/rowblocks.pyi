"""One group of a solve's rows: its step of LSQR's row operator, in memory and on a Dask worker; and
the groups of an in-memory solve as one C operator, on the calling thread or a team of threads."""

import numpy as np
from numpy.typing import NDArray

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
        check: bool = True,
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

class GroupsOperator:
    rowop_capsule: object
    def __init__(
        self,
        groups: list[RowGroup],
        b: NDArray[np.float64],
        weights: NDArray[np.float64] | None,
        u: NDArray[np.float64],
        n_cols: int,
        fit_intercept: bool,
        n_threads: int = 1,
    ) -> None: ...
    def start(
        self,
        cols: NDArray[np.int64],
        exps: NDArray[np.integer] | None,
        maxabs: NDArray[np.float64] | None,
        unorm: NDArray[np.float64] | None,
        g: NDArray[np.float64] | None,
    ) -> None: ...
    def step(
        self,
        cols: NDArray[np.int64],
        v: NDArray[np.float64],
        vcoef: NDArray[np.float64],
        ucoef: NDArray[np.float64],
        unorm: NDArray[np.float64],
        g: NDArray[np.float64],
    ) -> None: ...
    def close(self) -> None: ...
