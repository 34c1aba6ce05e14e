"""The one seam between the in-memory API and textsel.distributed.

Public entry points that accept a document-term matrix check here whether it is a Dask array (or a
:class:`textsel.distributed.BlockMatrix`) and, if so, hand the call to the matching function of
``textsel.distributed.handlers``.  Nothing here imports Dask: a matrix is recognised by the
module its type comes from, so ``import textsel`` stays free of it.
"""

from __future__ import annotations

import functools
import importlib


def is_distributed(obj) -> bool:
    """True for a Dask collection or a textsel.distributed matrix (checked without importing Dask)."""
    module = type(obj).__module__
    return module.startswith("textsel.distributed") or (
        module.startswith("dask.") and hasattr(obj, "__dask_graph__")
    )


def handler(name: str):
    """``textsel.distributed.handlers.<name>``, imported on first use."""
    return getattr(importlib.import_module("textsel.distributed.handlers"), name)


def distributed_method(name: str):
    """Decorate a method ``f(self, X, ...)``: a distributed ``X`` goes to ``handlers.<name>(self,
    f, X, ...)``, which receives the in-memory method to reuse on each block."""

    def wrap(method):
        @functools.wraps(method)
        def dispatch(self, X, *args, **kwargs):
            if is_distributed(X):
                return handler(name)(self, method, X, *args, **kwargs)
            return method(self, X, *args, **kwargs)

        return dispatch

    return wrap
