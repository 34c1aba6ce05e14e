"""How a call tells its user something (the one home of it): a warning, at the user's line;
how far a long call has got, on stderr (a bar on a terminal, a line per stage in a log)."""

from __future__ import annotations

import os
import sys
import warnings

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn(message, category)`` attributed to the first caller outside textsel (a
    user's script, or scikit-learn's code where it called textsel), not to textsel's own lines."""
    frame, level = sys._getframe(1), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


#: the ways to report: a tqdm bar (a line every tenth without tqdm), or plain lines
MODES = ("bar", "lines")


def mode_of(progress) -> str | None:
    """A call's ``progress`` as a mode: False or None for none, True for a bar, or a mode."""
    if progress is None or progress is False:
        return None
    if progress is True:
        return "bar"
    if isinstance(progress, str) and progress in MODES:
        return progress
    raise ValueError(f"progress must be True, False, 'bar' or 'lines', got {progress!r}")


def command_mode(flag) -> str | None:
    """The mode of a command's ``--progress`` / ``--no-progress`` (None when neither is given):
    none with ``--no-progress``, else a bar where stderr is a terminal and a line per stage where
    it is not (a log, a pipe, a CI job), so that a long run is never silent until it ends."""
    if flag is False:
        return None
    return "bar" if sys.stderr is not None and sys.stderr.isatty() else "lines"


class Progress:
    """The reports of one call, on stderr, each line headed by ``name``."""

    def __init__(self, name: str, progress):
        self.name, self.mode = name, mode_of(progress)

    def stage(self, text: str) -> None:
        """A line saying what the call does next."""
        if self.mode is not None:
            print(f"{self.name}: {text}", file=sys.stderr, flush=True)

    def over(self, items, total: int, unit: str):
        """Yield ``items`` (``total`` of them): a bar in "bar" mode where tqdm is installed, else
        a line at each tenth of the way."""
        if self.mode is None:
            yield from items
            return
        if self.mode == "bar":
            try:
                from tqdm.auto import tqdm
            except ImportError:
                pass
            else:
                yield from tqdm(items, total=total, desc=self.name, unit=unit)
                return
        step = max(1, -(-total // 10))
        for done, item in enumerate(items, 1):
            yield item
            if done % step == 0 or done == total:
                print(f"{self.name}: {done} of {total} {unit}s", file=sys.stderr, flush=True)
