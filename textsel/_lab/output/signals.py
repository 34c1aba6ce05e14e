"""Ctrl-C and termination held back while an output is being changed on disk.

While a commit moves files into place (or puts them back), a signal must not stop it between
two renames.  Blocking the signal in the calling thread is not enough: the numerical libraries'
threads would receive it instead, and Python would still raise ``KeyboardInterrupt`` in the main
thread at the next instruction.  So the handlers themselves are replaced for the while: a signal
that comes is only noted, and acted on once the handlers are back, by the handler that was there
before (``KeyboardInterrupt`` for Ctrl-C; for a signal whose handler was the default, the signal
sent again, so that the process ends as it would have).  Only the main thread can change
handlers; elsewhere nothing is held.
"""

from __future__ import annotations

import os
import signal
import threading

__all__ = ["Caught", "Held"]

#: the signals that end a run from outside: Ctrl-C, ``kill``, a closed terminal
SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class Caught(BaseException):
    """A signal whose handler is the default (ending the process) came while held: the commit
    undoes its steps, the output folder lets go of its staging folder and lock, and then
    :meth:`act` ends the process as the signal would have."""

    def __init__(self, number: int):
        super().__init__(number)
        self.number = number

    def act(self):
        os.kill(os.getpid(), self.number)
        raise KeyboardInterrupt  # not reached where the signal ends the process


class Held:
    """Hold the signals back (:meth:`hold`), put the handlers back and learn what came
    meanwhile (:meth:`restore`), and act on it when the time has come (:meth:`act`).

    An ignored signal is left alone.  The handlers are swapped one at a time, and a signal can
    come between two swaps; :meth:`restore` therefore puts back every handler that is still
    this hold's, whatever got done, and :meth:`hold` skips those already swapped.
    """

    def __init__(self):
        self.caught: int | None = None
        self._before: dict[int, object] = {}

    def hold(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for number in SIGNALS:
            handler = signal.getsignal(number)
            if handler == self._note or handler in (signal.SIG_IGN, None):
                continue
            self._before[number] = handler
            try:
                signal.signal(number, self._note)
            except (OSError, ValueError):  # a signal this platform does not let Python handle
                continue

    def _note(self, number, frame) -> None:
        if self.caught is None:
            self.caught = number

    def restore(self) -> int | None:
        """Put the handlers back; the first signal that came while held, if any."""
        try:
            for number, handler in self._before.items():
                if signal.getsignal(number) == self._note:
                    signal.signal(number, handler)
        finally:  # a signal acting between two of them: the others are put back all the same
            for number, handler in self._before.items():
                if signal.getsignal(number) == self._note:
                    signal.signal(number, handler)
        caught, self.caught = self.caught, None
        return caught

    def act(self, number: int) -> None:
        """Act on ``number`` as its handler before the hold would have: a handler of Python's or
        the caller's is called (Ctrl-C's raises ``KeyboardInterrupt`` here; one that returns
        lets the run go on); the default (ending the process) raises :class:`Caught`."""
        handler = self._before.get(number, signal.SIG_DFL)
        if callable(handler):
            handler(number, None)
        elif handler == signal.SIG_DFL:
            raise Caught(number)
