"""Forman's sparse word-count ARFF files."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._home import reading_archive
from ._results import LoaderBunch

_ATTRIBUTE = re.compile(r"@attribute\s+('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\S+)\s+(.*)$", re.I)


def _unquote(token: str) -> str:
    token = token.strip()
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        return token[1:-1]
    return token


def _number(kind, token: str, path, lineno: int, what: str):
    """``kind(token)``, or a ValueError naming the file and line; values must be finite."""
    try:
        value = kind(token.strip())
    except ValueError:
        raise ValueError(f"{path}:{lineno}: {what} {token.strip()!r} is not a number") from None
    if not np.isfinite(value):
        raise ValueError(f"{path}:{lineno}: {what} {token.strip()!r} is not finite")
    return value


def load_arff(path, *, return_X_y=False):
    """Read a sparse ARFF file of word counts whose last attribute is the class.

    The format Forman published his benchmark in: ``@attribute word integer``
    lines, a nominal class attribute ``@attribute class {a,b,...}`` last, and
    sparse rows ``{index value, ...}``.  In sparse ARFF an omitted attribute
    takes its zero value, which for a nominal attribute is its first value.
    Plain and gzip-compressed files are read.

    Parameters
    ----------
    path : path
        ``.arff`` or ``.arff.gz`` file.
    return_X_y : bool, default False
        Return ``(X, y)`` instead of a Bunch, as scikit-learn's loaders do.

    Returns
    -------
    Bunch or tuple
        ``data`` (CSR, float64 counts, documents x words), ``target`` (class label strings),
        ``feature_names`` (words), ``target_names`` (the class's nominal values, in declared
        order), ``relation``, ``DESCR``; with ``return_X_y``, ``(X, y)``.  (``X`` and ``y``, the
        names before scikit-learn's, still read, with a ``FutureWarning``.)
    """
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    names: list[str] = []
    classes: list[str] | None = None
    relation = ""
    indptr, indices, values, labels = [0], [], [], []
    with reading_archive(path, "gzip-compressed ARFF file"), opener(path, "rt", encoding="latin-1") as fh:
        in_data = False
        for lineno, raw in enumerate(fh, 1):
            line = raw.strip()
            if not line or line.startswith("%"):
                continue
            if not in_data:
                low = line.lower()
                if low.startswith("@relation"):
                    relation = _unquote(line[9:])
                elif low.startswith("@attribute"):
                    m = _ATTRIBUTE.match(line)
                    if m is None:
                        raise ValueError(f"{path}:{lineno}: cannot read attribute line {line!r}")
                    if classes is not None:
                        raise ValueError(f"{path}:{lineno}: the nominal class must be the last attribute")
                    kind = m.group(2).strip()
                    if kind.startswith("{"):
                        classes = [_unquote(v) for v in kind.strip("{}").split(",")]
                    else:
                        names.append(_unquote(m.group(1)))
                elif low.startswith("@data"):
                    if classes is None:
                        raise ValueError(f"{path}: no nominal class attribute before @data")
                    in_data = True
                continue
            if not (line.startswith("{") and line.endswith("}")):
                raise ValueError(f"{path}:{lineno}: expected a sparse row {{index value, ...}}")
            label = classes[0]
            for item in line[1:-1].split(","):
                item = item.strip()
                if not item:
                    continue
                col, _, val = item.strip().partition(" ")
                col = _number(int, col, path, lineno, "attribute index")
                if col == len(names):
                    label = _unquote(val)
                    if label not in classes:
                        raise ValueError(f"{path}:{lineno}: class {label!r} not declared")
                elif 0 <= col < len(names):
                    indices.append(col)
                    values.append(_number(float, val, path, lineno, "value"))
                else:
                    raise ValueError(f"{path}:{lineno}: attribute index {col} out of range")
            labels.append(label)
            indptr.append(len(indices))
    if classes is None:
        raise ValueError(f"{path}: no @data section")
    X = sp.csr_matrix(
        (np.asarray(values, dtype=np.float64), np.asarray(indices, dtype=np.int32), np.asarray(indptr)),
        shape=(len(labels), len(names)),
    )
    X.sum_duplicates()
    y = np.asarray(labels, dtype=object).astype(str)
    if return_X_y:
        return X, y
    return LoaderBunch(
        data=X,
        target=y,
        feature_names=np.asarray(names, dtype=object),
        target_names=classes,
        relation=relation,
        DESCR=f"{path.name}: ARFF relation {relation!r}, {X.shape[0]} instances x {X.shape[1]} attributes",
    )
