"""What a loader returns: scikit-learn's ``Bunch`` with scikit-learn's field names (the names
textsel's loaders first used kept as aliases that warn), and ``subset=`` / ``return_X_y=`` as
scikit-learn's fetchers take them (``fetch_20newsgroups``, ``fetch_rcv1``) for the corpora with a
published train/test split."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils import Bunch

from .._checks import plain
from .._errors import warn

#: textsel's first field names -> scikit-learn's (``fetch_20newsgroups``, ``fetch_rcv1``,
#: ``fetch_openml``: ``data``, ``target``, ``*_train``/``*_test``, ``DESCR``)
RENAMED = {"X": "data", "y": "target", "texts": "data", "y_train": "target_train", "y_test": "target_test",
           "description": "DESCR"}  # fmt: skip


class LoaderBunch(Bunch):
    """A Bunch whose earlier names (:data:`RENAMED`) still read, with a ``FutureWarning`` at the
    caller's line; they are not keys (``set(bunch)`` is scikit-learn's names alone)."""

    def __getitem__(self, key):
        return self._read(key)

    def __getattr__(self, key):
        try:
            return self._read(key)
        except KeyError:
            raise AttributeError(key) from None

    def _read(self, key):
        if not dict.__contains__(self, key) and RENAMED.get(key) is not None and RENAMED[key] in self:
            new = RENAMED[key]
            message = f"the loader's {key!r} is now {new!r}, scikit-learn's name; {key!r} will be removed"
            warn(message, FutureWarning)
            key = new
        return dict.__getitem__(self, key)


#: the values of ``subset``, as scikit-learn's fetchers name them
SUBSETS = ("train", "test", "all")


def check_subset(subset, return_X_y) -> None:
    """Refuse a ``subset`` that is not one of :data:`SUBSETS` (None: both splits, apart), and
    ``return_X_y`` without a subset (which split would ``(X, y)`` be?)."""
    if subset is not None and (not isinstance(subset, str) or subset not in SUBSETS):
        raise ValueError(
            f"subset must be 'train', 'test', 'all' or None (both splits, apart), got {plain(subset)!r}"
        )
    if return_X_y and subset is None:
        raise ValueError("return_X_y=True needs subset= ('train', 'test' or 'all'): which split is (X, y)?")


def one_subset(split: dict, subset: str, shared: dict, return_X_y: bool):
    """From ``split`` (``{"train": {...}, "test": {...}}``, each with ``data`` and ``target`` and
    per-document arrays), the ``subset``'s Bunch (``"all"``: train then test, as scikit-learn's
    fetchers concatenate them) with ``shared`` (``target_names``, ...) added, or ``(data, target)``."""
    parts = [split["train"], split["test"]] if subset == "all" else [split[subset]]
    out = {}
    for key in parts[0]:
        values = [p[key] for p in parts]
        if isinstance(values[0], list):
            out[key] = [v for value in values for v in value]
        elif sp.issparse(values[0]):
            out[key] = sp.vstack(values, format="csr")
        else:
            out[key] = np.concatenate(values)
    if return_X_y:
        return out["data"], out["target"]
    return LoaderBunch(**out, **shared)
