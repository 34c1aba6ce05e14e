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
    """A signal came while held: the commit undoes its steps, the output folder lets go of its
    staging folder and lock, and then :meth:`act` lets the signal act."""

    def __init__(self, number: int, held: Held):
        super().__init__(number)
        self.number, self.held = number, held

    def act(self):
        """Act on the signal as its handler would have; an interruption all the same where that
        handler returns."""
        self.held.deliver(self.number)
        raise KeyboardInterrupt


class Held:
    """Hold the signals back (:meth:`hold`), put the handlers back and learn what came
    meanwhile (:meth:`restore`), and act on it when the time has come (:meth:`deliver`)."""

    def __init__(self):
        self.caught: int | None = None
        self._now: dict[int, object] = {}
        self._before: dict[int, object] = {}

    def hold(self) -> None:
        if self._now or threading.current_thread() is not threading.main_thread():
            return
        for number in SIGNALS:
            try:
                self._now[number] = signal.signal(number, self._note)
            except (OSError, ValueError):  # a signal this platform does not let Python handle
                continue
        self._before = dict(self._now)

    def _note(self, number, frame) -> None:
        if self.caught is None:
            self.caught = number

    def restore(self) -> int | None:
        """Put the handlers back; the first signal that came while held, if any."""
        now, self._now = self._now, {}
        for number, handler in now.items():
            signal.signal(number, handler)
        caught, self.caught = self.caught, None
        return caught

    def deliver(self, number: int) -> None:
        """Act on ``number`` as its handler before the hold would have: Ctrl-C raises
        ``KeyboardInterrupt`` here; a signal whose handler is the default ends the process."""
        handler = self._before.get(number, signal.SIG_DFL)
        if callable(handler):
            handler(number, None)
        elif handler == signal.SIG_DFL:
            os.kill(os.getpid(), number)
