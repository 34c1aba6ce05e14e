"""Forman's metrics over a statistics table, cell by cell, and BNS by inverse-normal lookup."""

import numpy as np
from numpy.typing import NDArray

from .ccore import Interrupt

def score_table(
    metric: int,
    class_df: NDArray[np.int64],
    df: NDArray[np.int64],
    class_sizes: NDArray[np.int64],
    n_docs: int,
    invert: bool,
    pow_k: float,
    pr_floor: float,
    out: NDArray[np.float64],
    interrupt: Interrupt | None = None,
) -> int: ...
def bns_table(
    class_df: NDArray[np.int64],
    df: NDArray[np.int64],
    class_sizes: NDArray[np.int64],
    order: NDArray[np.int64],
    n_docs: int,
    clip: float,
    w_pos: NDArray[np.float64],
    w_neg: NDArray[np.float64],
    z: NDArray[np.float64],
    touched: NDArray[np.int64],
    out: NDArray[np.float64],
    interrupt: Interrupt | None = None,
) -> int: ...
def bns_scratch(n_docs: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]: ...
