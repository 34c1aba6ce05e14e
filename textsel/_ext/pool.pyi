"""Large result tables from a pool of recently freed blocks."""

from typing import Any

from numpy.typing import DTypeLike, NDArray

MIN_BYTES: int
POOL_BLOCKS: int

def empty(shape: int | tuple[int, ...], dtype: DTypeLike = ...) -> NDArray[Any]: ...
def pool_state() -> tuple[int, int]: ...
def release_pool() -> None: ...
