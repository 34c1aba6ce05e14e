"""The round-robin merge of the classes' term rankings."""

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

def round_robin(
    table: NDArray[np.float64],
    heads: Sequence[NDArray[np.int64]],  # each row's terms above its guess, in index order
    guesses: NDArray[np.float64],
    k: int,
) -> NDArray[np.intp]: ...
def round_robin_heads(
    heads: Sequence[NDArray[np.int64]],  # each class's terms above its guess, in index order
    head_scores: Sequence[NDArray[np.float64]],
    guesses: NDArray[np.float64],
    n_terms: int,
    k: int,
) -> NDArray[np.intp] | None: ...
