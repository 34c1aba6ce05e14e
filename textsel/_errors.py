"""The Python exception for every status code of textsel's compiled kernels.

The codes are one enum, ``ts_status`` in ``csrc/textsel.h``, shared by the C core and the Cython
kernels; :data:`textsel._ext.ccore.STATUS` reads its values from the header, so nothing here
repeats a number.  Each exception class also subclasses the builtin a Python user would expect
(``ValueError``, ``MemoryError``), so ``except ValueError`` keeps working, and carries the
status's name (``status``) and value (``code``).
"""

from __future__ import annotations


class CoreError(Exception):
    """An error reported by one of textsel's compiled kernels.

    Attributes
    ----------
    status : str
        The name of its ``ts_status`` code (``"TS_ERR_ARG"``, ...).
    code : int or None
        The code's value, as the kernel returned it.
    """

    status = ""

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message if code is None else f"{message} (textsel status {self.status} = {code})")
        self.message = message
        self.code = code

    def __reduce__(self):
        # rebuilt from the message and code as given, not from args (which carry the status
        # already): an error raised in a worker process reaches its caller as it was
        return (type(self), (self.message, self.code), self.__dict__)


class CoreArgumentError(CoreError, ValueError):
    status = "TS_ERR_ARG"


class CoreMemoryError(CoreError, MemoryError):
    status = "TS_ERR_NOMEM"


class CoreIndexError(CoreError, ValueError):
    status = "TS_ERR_INDEX"


class CoreNonFiniteError(CoreError, ValueError):
    status = "TS_ERR_NONFINITE"


class CoreCallbackError(CoreError, RuntimeError):
    """An operator callback failed; the caller re-raises what the callback raised, so this is
    seen only if that exception was lost."""

    status = "TS_ERR_CALLBACK"


class CoreInterrupted(CoreError, KeyboardInterrupt):
    """A kernel stopped at its interrupt check; the caller re-raises the signal handler's
    exception, so this is seen only if none was recorded."""

    status = "TS_ERR_INTERRUPTED"


class CoreNegativeError(CoreError, ValueError):
    status = "TS_ERR_NEGATIVE"


class CoreIndptrError(CoreError, ValueError):
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


def status_error(status: str, code: int, where: str) -> CoreError:
    """The exception for the status named ``status`` (value ``code``), naming ``where`` it came from."""
    cls, message = EXCEPTIONS[status]
    return cls(f"{where}: {message}", code)
