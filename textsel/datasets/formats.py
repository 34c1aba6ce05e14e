"""Sparse matrix file formats beside ARFF: SVMlight (through scikit-learn) and CLUTO."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

from ._results import LoaderBunch


def load_svmlight(path, *, return_X_y=False):
    """Read an SVMlight / libsvm file with scikit-learn's loader.

    Parameters
    ----------
    path : path
        The file (``.gz`` and ``.bz2`` are undone).
    return_X_y : bool, default False
        Return ``(X, y)`` instead of a Bunch, as scikit-learn's ``load_svmlight_file`` does.

    Returns
    -------
    Bunch or tuple
        ``data`` (CSR, float64), ``target`` (the labels as read) and ``DESCR``; with
        ``return_X_y``, ``(X, y)``.  (``X`` and ``y`` still read, with a ``FutureWarning``.)
    """
    try:
        X, y = load_svmlight_file(str(path))
    except FileNotFoundError:
        raise
    except (EOFError, OSError, zlib.error) as exc:  # a corrupt .gz or .bz2 (bz2 raises OSError)
        raise ValueError(f"{path} is not a readable SVMlight file ({type(exc).__name__}: {exc})") from None
    except OverflowError:  # scikit-learn's parser holds a feature index in a C int
        raise ValueError(
            f"{path}: a feature index (or query id) beyond {2**31 - 1}, more columns than an SVMlight "
            "file can be read with; renumber the features (a hashed space: fewer hash bits)"
        ) from None
    X = sp.csr_matrix(X)
    return (X, y) if return_X_y else LoaderBunch(data=X, target=y, DESCR=f"{Path(path).name}: SVMlight")


def load_cluto(path, classes_path=None, terms_path=None, *, return_X_y=False):
    """Read a CLUTO sparse matrix (``.mat``), with its row classes and column labels if given.

    The format: a header line ``n_rows n_cols nnz``, then one line per row of
    ``column value`` pairs with 1-based column numbers.  ``classes_path`` (CLUTO's
    ``.mat.rclass``) holds one class label per row; ``terms_path`` (``.mat.clabel``) one term
    per column.

    With ``return_X_y=True``, ``(X, y)`` instead of a Bunch, as scikit-learn's loaders give.

    Returns
    -------
    Bunch or tuple
        ``data`` (CSR, float64), ``target`` (class labels, or None), ``feature_names`` (or
        None), ``DESCR``.  (``X`` and ``y`` still read, with a ``FutureWarning``.)
    """
    path = Path(path)
    with path.open() as fh:
        header = fh.readline().split()
        if len(header) != 3 or not all(h.isdecimal() for h in header):
            raise ValueError(f"{path}: the first line must be 'n_rows n_cols nnz'")
        n_rows, n_cols, nnz = map(int, header)
        if max(n_rows, n_cols, nnz) >= 2**62:
            raise ValueError(f"{path}: the header's sizes are out of range")
        indptr, indices, values = [0], [], []
        for lineno, line in enumerate(fh, 2):
            tokens = line.split()
            if len(tokens) % 2:
                raise ValueError(f"{path}:{lineno}: expected 'column value' pairs")
            try:
                cols = [int(c) - 1 for c in tokens[0::2]]
                vals = [float(v) for v in tokens[1::2]]
            except ValueError:
                raise ValueError(f"{path}:{lineno}: expected 'column value' pairs of numbers") from None
            if cols and (min(cols) < 0 or max(cols) >= n_cols):
                raise ValueError(f"{path}:{lineno}: column number out of 1..{n_cols}")
            if not np.isfinite(vals).all():
                raise ValueError(f"{path}:{lineno}: a value is not finite")
            indices.extend(cols)
            values.extend(vals)
            indptr.append(len(indices))
    if len(indptr) - 1 != n_rows:
        raise ValueError(f"{path}: the header says {n_rows} rows, the file has {len(indptr) - 1}")
    if len(indices) != nnz:
        raise ValueError(f"{path}: the header says {nnz} nonzeros, the file has {len(indices)}")
    X = sp.csr_matrix((np.asarray(values), np.asarray(indices, dtype=np.int64), np.asarray(indptr)),
                      shape=(n_rows, n_cols))  # fmt: skip
    y = None
    if classes_path is not None:
        y = np.asarray(Path(classes_path).read_text().split())
        if y.size != n_rows:
            raise ValueError(f"{classes_path}: {y.size} labels for {n_rows} rows")
    names = None
    if terms_path is not None:
        names = np.asarray(Path(terms_path).read_text().split(), dtype=object)
        if names.size != n_cols:
            raise ValueError(f"{terms_path}: {names.size} labels for {n_cols} columns")
    return (
        (X, y)
        if return_X_y
        else LoaderBunch(data=X, target=y, feature_names=names, DESCR=f"{path.name}: CLUTO")
    )
