"""Exceptions for the C core's status codes.

Each class also subclasses the builtin a Python user would expect
(``ValueError``, ``MemoryError``), so ``except ValueError`` keeps working, and
carries the C status as ``.code``.
"""

from __future__ import annotations


class CoreError(Exception):
    """An error reported by textsel's C core; ``code`` is its status."""

    code = 0

    def __init__(self, message: str):
        super().__init__(f"{message} (textsel C status {self.code})")
        self.message = message

    def __reduce__(self):
        # rebuilt from the message as given, not from args (which carry the status already): an
        # error raised in a worker process reaches its caller as it was
        return (type(self), (self.message,), self.__dict__)


class CoreArgumentError(CoreError, ValueError):
    code = -1


class CoreMemoryError(CoreError, MemoryError):
    code = -2


class CoreIndexError(CoreError, ValueError):
    code = -3


class CoreNonFiniteError(CoreError, ValueError):
    code = -4


_BY_CODE = {cls.code: cls for cls in (CoreArgumentError, CoreMemoryError, CoreIndexError, CoreNonFiniteError)}
_MESSAGES = {
    -1: "invalid argument",
    -2: "out of memory",
    -3: "a CSR column index or row pointer is out of range",
    -4: "a value, weight, right-hand side or product is NaN or infinite, or a result overflowed "
    "the double range (rescale X, b or the weights)",
}


def check_status(code: int, where: str) -> None:
    """Raise the exception for a nonzero C status ``code``, naming ``where`` it came from."""
    if code == 0:
        return
    cls = _BY_CODE.get(code)
    if cls is None:
        raise RuntimeError(f"{where}: unknown textsel C status {code}")
    raise cls(f"{where}: {_MESSAGES[code]}")
