"""Calls into the C core (csrc/): buffers in, results out, the GIL released around the work."""

from typing import Any

import numpy as np
from numpy.typing import NDArray

#: ``ts_status`` of csrc/textsel.h, name -> value
STATUS: dict[str, int]

def check_status(
    code: int,
    where: str,
    interrupt: Interrupt | None = None,
    *,
    array: str | None = None,
    position: int | None = None,
    block: int | None = None,
    detail: str | None = None,
) -> None: ...

class Interrupt:
    """A Ctrl-C shared by the kernels of one call; ``error`` is what stopped them, if anything."""

    error: BaseException | None
    def __init__(self) -> None: ...

def lsqr_rowop(
    op: Any,
    n_rows: int,
    n_cols: int,
    fit_intercept: bool,
    n_rhs: int,
    damp: NDArray[np.float64],
    atol: float,
    btol: float,
    conlim: float,
    iter_lim: int,
    interrupt: Interrupt | None = None,
) -> tuple[NDArray[np.float64], dict[str, NDArray[Any]]]: ...
def csr_row_sumsq(
    data: NDArray[np.float64],
    indices: NDArray[np.int32] | NDArray[np.int64],
    indptr: NDArray[np.int32] | NDArray[np.int64],
    n_cols: int,
    out: NDArray[np.float64],
) -> None: ...
def csr_matmat(
    data: NDArray[np.float64],
    indices: NDArray[np.int32] | NDArray[np.int64],
    indptr: NDArray[np.int32] | NDArray[np.int64],
    n_cols: int,
    V: NDArray[np.float64],
    out: NDArray[np.float64] | None = None,
    panel_cols: int = 0,
) -> NDArray[np.float64]: ...
def dcd_svm_csr(
    data: NDArray[np.float64],
    indices: NDArray[np.int32] | NDArray[np.int64],
    indptr: NDArray[np.int32] | NDArray[np.int64],
    n_cols: int,
    y: NDArray[np.float64],
    loss: str,
    C_pos: float,
    C_neg: float,
    tol: float,
    max_iter: int,
    fit_intercept: bool,
    intercept_scaling: float,
    shrinking: bool,
    seed: int,
    alpha0: NDArray[np.float64] | None = None,
    weights: NDArray[np.float64] | None = None,
    newton: bool = True,
    interrupt: Interrupt | None = None,
    primal: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64], int, bool]: ...
def nested_svm_csc(
    train_data: NDArray[np.float64],
    train_indices: NDArray[np.int32] | NDArray[np.int64],
    train_indptr: NDArray[np.int32] | NDArray[np.int64],
    y: NDArray[np.float64],
    test_data: NDArray[np.float64],
    test_indices: NDArray[np.int32] | NDArray[np.int64],
    test_indptr: NDArray[np.int32] | NDArray[np.int64],
    y_test: NDArray[np.float64],
    order: NDArray[np.int64],
    ks: NDArray[np.int64],
    loss: str,
    C_pos: float,
    C_neg: float,
    tol: float,
    max_iter: int,
    fit_intercept: bool,
    intercept_scaling: float,
    seed: int,
    newton: bool = True,
    max_share: float = 0.7,
    certify: bool = True,
    interrupt: Interrupt | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_], NDArray[np.bool_]]: ...
