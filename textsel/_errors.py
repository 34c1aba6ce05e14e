"""The Python exception for every status code of textsel's compiled kernels.

The codes are one enum, ``ts_status`` in ``csrc/textsel.h``, shared by the C core and the Cython
kernels; :data:`textsel._ext.ccore.STATUS` reads its values from the header, so nothing here
repeats a number.  Every kernel's status reaches Python through one function,
:func:`textsel._ext.ccore.check_status`, which builds its exception with :func:`status_error`.
Each exception class also subclasses the builtin a Python user would expect (``ValueError``,
``MemoryError``), so ``except ValueError`` keeps working, and carries the status's name
(``status``) and value (``code``), and where the kernel found the fault: the stored value or row
(``position``) and the row block (``block``), where it reports them.

And the one way the library warns its user: :func:`warn`, attributed to the user's own line; and
the one way an error is made safe to keep: :func:`clear_locals`, for an error whose frames hold
buffers (a solver's) or futures (a cluster's data) that must not outlive the call.
"""

from __future__ import annotations

import os
import sys
import traceback
import warnings


class CoreError(Exception):
    """An error reported by one of textsel's compiled kernels, its message in the caller's words.

    Attributes
    ----------
    status : str
        The name of its ``ts_status`` code (``"TS_ERR_ARG"``, ...).
    code : int or None
        The code's value, as the kernel returned it (None for a fault found before the kernel ran).
    position : int or None
        The stored value (or, for a row pointer, the row) at which the kernel found the fault.
    block : int or None
        The position of the row block holding it, in the sequence of blocks given
        (:func:`textsel.termstats.count_blocks`; -1 for a document in no block).
    """

    status = ""

    def __init__(self, message: str, code: int | None = None, *, position: int | None = None,
                 block: int | None = None):  # fmt: skip
        # the message in the user's words; the kernel's status stays on the attributes
        super().__init__(message)
        self.message = message
        self.code = code
        self.position = position
        self.block = block

    def __reduce__(self):
        # rebuilt from the message and code as given, not from args (which carry the status
        # already): an error raised in a worker process reaches its caller as it was
        return (type(self), (self.message, self.code), self.__dict__)


class CoreValueError(CoreError, ValueError):
    """A kernel refused a value, an index or an argument it was given.

    Public as ``textsel.termstats.BlockValueError``: a fault in one of the row blocks
    :func:`textsel.termstats.count_blocks` counts is one of these, ``block`` naming the block.
    """


class CoreArgumentError(CoreValueError):
    status = "TS_ERR_ARG"


class CoreMemoryError(CoreError, MemoryError):
    status = "TS_ERR_NOMEM"


class CoreIndexError(CoreValueError):
    status = "TS_ERR_INDEX"


class CoreNonFiniteError(CoreValueError):
    status = "TS_ERR_NONFINITE"


class CoreCallbackError(CoreError, RuntimeError):
    """An operator callback failed; the caller re-raises what the callback raised, so this is
    seen only if that exception was lost."""

    status = "TS_ERR_CALLBACK"


class CoreInterrupted(CoreError, KeyboardInterrupt):
    """A kernel stopped at its interrupt check; the caller re-raises the signal handler's
    exception, so this is seen only if none was recorded."""

    status = "TS_ERR_INTERRUPTED"


class CoreNegativeError(CoreValueError):
    status = "TS_ERR_NEGATIVE"


class CoreIndptrError(CoreValueError):
    status = "TS_ERR_INDPTR"


#: status name -> (exception class, what it means to a user)
EXCEPTIONS = {
    "TS_ERR_ARG": (CoreArgumentError, "invalid argument"),
    "TS_ERR_NOMEM": (CoreMemoryError, "out of memory"),
    "TS_ERR_INDEX": (CoreIndexError, "a CSR column index or row pointer is out of range"),
    "TS_ERR_NONFINITE": (
        CoreNonFiniteError,
        "a value, weight, right-hand side or product is NaN or infinite, or a result overflowed "
        "the double range (rescale X, b or the weights)",
    ),
    "TS_ERR_CALLBACK": (CoreCallbackError, "an operator callback failed"),
    "TS_ERR_INTERRUPTED": (CoreInterrupted, "interrupted"),
    "TS_ERR_NEGATIVE": (CoreNegativeError, "a count or weight is negative"),
    "TS_ERR_INDPTR": (CoreIndptrError, "a CSR row pointer is out of range or decreasing"),
}


#: what a status found at a position of a named array says of it ({name}, {position})
IN_ARRAY = {
    "TS_ERR_NONFINITE": "{name} contains NaN or infinity (stored value at position {position})",
    "TS_ERR_NEGATIVE": "Negative values in data passed to {name} (stored value at position {position}); "
    "counts and weights must be non-negative",
    "TS_ERR_INDEX": "{name}.indices holds a column index out of range at position {position}",
    "TS_ERR_INDPTR": "{name}.indptr is not a valid CSR row pointer (row {position})",
}


def status_error(status: str, code: int | None, where: str, *, array: str | None = None,
                 position: int | None = None, block: int | None = None,
                 detail: str | None = None) -> CoreError:  # fmt: skip
    """The exception for the status named ``status`` (value ``code``, None for a fault found
    before the kernel ran), naming ``where`` it came from.

    With ``array`` and ``position``, the message names the array and the place in it (as a user
    reads "X contains NaN ..."); ``detail`` says what was wrong in the caller's words instead of
    the status's general meaning; ``block`` is kept on the exception.
    """
    cls, meaning = EXCEPTIONS[status]
    if detail is not None:
        message = f"{where}: {detail}"
    elif array is not None and position is not None and status in IN_ARRAY:
        message = IN_ARRAY[status].format(name=array, position=position)
    else:
        message = f"{where}: {meaning}"
    return cls(message, code, position=position, block=block)


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)`` attributed to the first caller outside textsel (a
    user's script, or scikit-learn's code where it called textsel), not to textsel's own lines."""
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def clear_locals(exc: BaseException | None, seen: set | None = None) -> None:
    """The locals of every finished frame in ``exc``'s traceback, and in those of the errors it
    was raised from or during, cleared; the traceback keeps its lines.

    For an error that leaves a call whose frames held what must not outlive it: views of a
    solver's buffers, freed once it returns (a post-mortem debugger would read freed memory), or a
    cluster's futures (they would keep the call's data on the workers while the error is kept).
    """
    seen = set() if seen is None else seen
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        traceback.clear_frames(exc.__traceback__)
        if exc.__cause__ is not None:
            clear_locals(exc.__cause__, seen)
        exc = exc.__context__
