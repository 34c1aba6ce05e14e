"""What runs on the workers: the block checks and the per-block kernels.

Imports numpy, scipy and textsel's kernels only (no Dask, no scikit-learn), so that a worker
that counts and multiplies blocks carries nothing else: an idle worker process is about 60 MB,
and scikit-learn alone would add 50 MB to each.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._checks import as_csr
from .._ext.ccore import csr_matmat
from .._stats import BlockValueError, TermStats, count_blocks

__all__ = [
    "accumulate",
    "add_packed",
    "add_stats",
    "block_error",
    "block_matvec",
    "block_stats",
    "check_block",
    "checked_float64",
    "kept",
    "n_rows",
    "pack_stats",
    "unpack_stats",
    "worker_stats",
]


def block_error(name: str, index: int, exc: Exception) -> Exception:
    """``exc`` (a ValueError or TypeError from a block) as the same kind of error naming the block."""
    kind = TypeError if isinstance(exc, TypeError) and not isinstance(exc, ValueError) else ValueError
    return kind(f"{name} block {index}: {exc}")


def check_block(
    block, index: int, n_terms: int, name: str = "X", check_structure=True, float64=False
) -> sp.csr_matrix:
    """One block as a CSR matrix the kernels accept (:func:`textsel._checks.as_csr`), its type,
    width and (unless the caller's kernel checks it as it reads) structure checked; errors name
    the block.  Empty blocks are allowed."""
    if not sp.issparse(block):
        raise TypeError(
            f"{name} block {index} is a {type(block).__module__}.{type(block).__name__}, not a "
            f"scipy.sparse matrix; textsel's Dask path needs sparse row blocks (a dense block of a "
            f"large corpus would not fit): map the blocks with scipy.sparse.csr_matrix"
        )
    if block.ndim != 2 or block.shape[1] != n_terms:
        raise ValueError(f"{name} block {index} has shape {block.shape}; every block needs {n_terms} columns")
    if block.shape[0] == 0:
        return sp.csr_matrix((0, n_terms), dtype=np.float64)
    try:
        return as_csr(block, name, check_structure=check_structure, float64=float64)
    except (ValueError, TypeError) as exc:
        raise block_error(name, index, exc) from exc


def checked_float64(block, index, n_terms, name):
    """A block for the LSQR products: checked, float64 values, every one finite."""
    X = check_block(block, index, n_terms, name, float64=True)
    if not np.isfinite(X.data).all():
        raise ValueError(f"{name} block {index}: {name} contains NaN or infinity")
    return X


def kept(value):
    """``value``, here: a copy on this worker, computed elsewhere, for the tasks placed here."""
    return value


def n_rows(block) -> int:
    return int(block.shape[0])


def local_labels(y):
    """One block's labels (already computed): a CSR indicator, or an ndarray with a column
    vector flattened."""
    if sp.issparse(y):
        return sp.csr_matrix(y)
    y = np.asarray(y)
    return y.ravel() if y.ndim == 2 and y.shape[1] == 1 else y


def block_stats(block, y_block, index, n_terms, classes, n_jobs) -> TermStats:
    """One block's TermStats by the in-memory kernel, counted in the global class order."""
    return _count_checked([block], [y_block], [index], n_terms, classes, n_jobs)


def _count_checked(blocks, y_parts, indices, n_terms, classes, n_jobs) -> TermStats:
    """The TermStats of blocks (numbered ``indices``) counted together by the in-memory kernel,
    in one pass over them all; errors name the block."""
    checked = []
    for block, y_block, index in zip(blocks, y_parts, indices, strict=True):
        X = check_block(block, index, n_terms, check_structure=False)  # the counting kernel checks it
        y_block = local_labels(y_block)
        if y_block.shape[0] != X.shape[0]:
            raise ValueError(
                f"y block {index} has {y_block.shape[0]} rows but X block {index} has {X.shape[0]}"
            )
        if X.shape[0]:
            checked.append((index, X, y_block))
    if not checked:
        return _empty(local_labels(y_parts[0]), n_terms, classes)
    y = checked[0][2]
    if len(checked) > 1:
        parts = [yb for _, _, yb in checked]
        y = sp.vstack(parts, format="csr") if any(sp.issparse(p) for p in parts) else np.concatenate(parts)
    try:
        return count_blocks([X for _, X, _ in checked], y, classes=classes, n_jobs=n_jobs)
    except BlockValueError as exc:
        raise block_error("X", checked[exc.block][0], exc) from exc
    except (ValueError, TypeError) as exc:
        if len(checked) == 1:
            raise block_error("X", checked[0][0], exc) from exc
        # a fault in the labels: count the blocks one by one to name the block that has it
        for index, X, y_block in checked:
            _count_checked([X], [y_block], [index], n_terms, classes, n_jobs)
        raise


def _empty(y_block, n_terms, classes):
    multilabel = y_block.ndim == 2 and y_block.shape[1] != 1
    names = classes if classes is not None else np.arange(y_block.shape[1])
    return TermStats(
        class_df=np.zeros((len(names), n_terms), dtype=np.int64),
        df=np.zeros(n_terms, dtype=np.int64),
        class_sizes=np.zeros(len(names), dtype=np.int64),
        n_docs=0,
        classes=names,
        multilabel=multilabel,
    )


def accumulate(total: TermStats, part) -> TermStats:
    """``total + part`` written into ``total``'s arrays; ``part`` is a TermStats or the fields
    :func:`pack_stats` sent (added as they came, narrow types included: no widened copy).  Both were
    counted with the same global class order, so no alignment (``TermStats.__add__``) and no new
    table is needed."""
    if isinstance(part, tuple):
        class_df, df, class_sizes, n_docs = part[:4]
    else:
        class_df, df, class_sizes, n_docs = part.class_df, part.df, part.class_sizes, part.n_docs
    total.class_df[...] += class_df
    total.df[...] += df
    total.class_sizes[...] += class_sizes
    return TermStats(total.class_df, total.df, total.class_sizes, total.n_docs + n_docs,
                     total.classes, total.multilabel)  # fmt: skip


def add_stats(*parts: TermStats) -> TermStats:
    """The sum of ``parts`` in a fresh table (the parts may be shared by the scheduler)."""
    first = parts[0]
    total = TermStats(first.class_df.copy(), first.df.copy(), first.class_sizes.copy(), first.n_docs,
                      first.classes, first.multilabel)  # fmt: skip
    for part in parts[1:]:
        total = accumulate(total, part)
    return total


def worker_stats(blocks, y_parts, indices, n_terms, classes, n_jobs) -> tuple:
    """One worker's blocks counted together into one table (one pass, class by class across
    the blocks: see :func:`textsel.termstats.count_blocks`); only the table travels, packed by
    :func:`pack_stats` for the trip."""
    return pack_stats(_count_checked(blocks, y_parts, indices, n_terms, classes, n_jobs))


def pack_stats(stats: TermStats) -> tuple:
    """``stats`` as plain fields, each count table in the narrowest unsigned type its counts fit
    (a class's count never exceeds its size, a term's never the number of documents): for
    20 Newsgroups on two workers, 2 bytes a cell where int64 takes 8, a quarter of the bytes to
    send and to hold while they are sent."""
    class_df = stats.class_df.astype(np.min_scalar_type(int(stats.class_sizes.max(initial=0))))
    df = stats.df.astype(np.min_scalar_type(stats.n_docs))
    return (class_df, df, stats.class_sizes, stats.n_docs, stats.classes, stats.multilabel)


def add_packed(a: tuple, b: tuple) -> tuple:
    """Two tables :func:`pack_stats` packed, added (in int64) and packed again: a step of the
    reduction among the workers."""
    return pack_stats(accumulate(unpack_stats(a), b))


def unpack_stats(fields: tuple) -> TermStats:
    """The TermStats :func:`pack_stats` packed (TermStats widens the tables to int64)."""
    return TermStats(*fields)


def block_matvec(blocks, V):
    """X_b V for each of one worker's blocks, in order."""
    return [csr_matmat(b.data, b.indices, b.indptr, b.shape[1], V) for b in blocks]
