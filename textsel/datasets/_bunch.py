"""The one shape of every loader's result: scikit-learn's ``Bunch`` with scikit-learn's field
names, the names textsel's loaders first used kept as aliases that warn."""

from __future__ import annotations

from sklearn.utils import Bunch

from .._warnings import warn

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
