"""What runs on the workers for the documents' side of a classifier's fit (``textsel.distributed.rows``):
each block's label summary, its sums and its positives, by the block functions of :mod:`textsel._rows`.
Imports numpy and textsel's kernels only, as ``_worker`` does (scikit-learn only to check sample
weights, when there are some)."""

from __future__ import annotations

import numpy as np

from .._products import row_norms
from .._rows import RowSums, block_sums, block_targets, document_weights, summarize_labels
from ._worker import block_error, local_labels

__all__ = ["group_sums", "label_summary", "positive"]


def label_summary(y, index, n_rows):
    """One block's :class:`textsel._rows.LabelSummary`, its length checked against the block's."""
    y = local_labels(y)
    if y.ndim not in (1, 2):
        raise ValueError(f"y block {index} must be 1-D labels or a 2-D indicator matrix, got {y.ndim}-D")
    if y.shape[0] != n_rows:
        raise ValueError(f"y block {index} has {y.shape[0]} rows but X block {index} has {n_rows}")
    try:
        return summarize_labels(y)
    except (ValueError, TypeError) as exc:
        raise block_error("y", index, exc) from exc


def group_sums(indices, y_parts, s_parts, recipe, blocks=None) -> RowSums:
    """The :class:`textsel._rows.RowSums` of a group's blocks, added in block order; with the
    ``blocks``, the norm sums too."""
    total = None
    for j, index in enumerate(indices):
        y = local_labels(y_parts[j])
        T = block_targets(y, recipe)
        try:
            s = document_weights(y, None if s_parts is None else s_parts[j], recipe)
        except (ValueError, TypeError) as exc:
            raise block_error("sample_weight", index, exc) from exc
        part = block_sums(T, s, None if blocks is None else row_norms(blocks[j]))
        total = part if total is None else total + part
    return total


def positive(y, recipe) -> np.ndarray:
    """Which of one block's documents belong to each column."""
    return block_targets(local_labels(y), recipe) > 0
