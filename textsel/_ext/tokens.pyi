"""Words counted from Python strings by the C core's tokenizer, without the GIL."""

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .ccore import Interrupt

def word_bitmap() -> NDArray[np.uint8]: ...
def plain_texts(
    documents: Iterable[object], decoded: Callable[[object, int], str], content: bool, first: int
) -> list[str]: ...

class Vocabulary:
    def __len__(self) -> int: ...
    def add(self, terms: Sequence[str]) -> NDArray[np.int64]: ...
    def terms(self, order: NDArray[np.int64] | None = None) -> list[str]: ...
    def columns_of(self, columns: NDArray[np.int64]) -> dict[str, int]: ...
    def subset(self, ids: NDArray[np.int64]) -> Vocabulary: ...
    def order(self, ids: NDArray[np.int64] | None = None) -> NDArray[np.int64]: ...
    def merge(self, part: Vocabulary) -> NDArray[np.int64]: ...

def count_terms(
    texts: list[str],
    vocabulary: Vocabulary,
    stop: Vocabulary | None,
    ngram_min: int,
    ngram_max: int,
    fixed: bool,
    interrupt: Interrupt,
    lowercase: bool = False,
) -> tuple[int, NDArray[np.int64] | None, NDArray[np.int64] | None, NDArray[np.int64] | None]: ...
def hash_terms(
    texts: list[str],
    stop: Vocabulary | None,
    ngram_min: int,
    ngram_max: int,
    n_features: int,
    alternate_sign: bool,
    interrupt: Interrupt,
    lowercase: bool = False,
) -> tuple[int, NDArray[np.int64] | None, NDArray[np.int64] | None, NDArray[np.int64] | None]: ...
def remap_rows(
    indptr: NDArray[np.int64],
    ids: NDArray[np.int64],
    counts: NDArray[np.int64],
    mapping: NDArray[np.int64],
    first: int = 0,
    end: int = -1,
) -> None: ...
def recast(values: NDArray[np.int64], dtype: object) -> NDArray[Any] | None: ...
