"""The one seam between the in-memory API and textsel.distributed.

Public entry points that accept a document-term matrix are decorated here (:func:`dispatched`):
where the matrix is a Dask array (or a :class:`textsel.distributed.BlockMatrix`) the call goes to
the matching function of ``textsel.distributed.handlers``, else to the in-memory code.  No other
module asks which one it has.  Nothing here imports Dask: a matrix is recognised by the
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


def dispatched(name: str, x_at: int = 0):
    """Decorate a function (or method) whose argument ``x_at`` is the matrix: where it is
    distributed, the call goes to ``handlers.<name>(f, *args, **kwargs)``, which receives the
    in-memory function to reuse, else to ``f`` itself.  The one place textsel decides between
    memory and a cluster."""

    def wrap(function):
        @functools.wraps(function)
        def dispatch(*args, **kwargs):
            if is_distributed(args[x_at] if len(args) > x_at else kwargs["X"]):
                return handler(name)(function, *args, **kwargs)
            return function(*args, **kwargs)

        return dispatch

    return wrap
