"""How far a long call has got (:func:`textsel.study.forman`, the reproductions, the command
line's ``--progress``), on stderr: a bar on a terminal, a line per stage in a log."""

from __future__ import annotations

import sys

__all__ = ["MODES", "Progress"]

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


class Progress:
    """The reports of one call, on stderr, each line headed by ``name``.

    Parameters
    ----------
    name : str
        What heads each line (``"textsel study"``).
    progress : bool, None or {"bar", "lines"}
        A call's ``progress`` argument: False or None for silence, True or "bar" for a bar
        (tqdm's where it is installed, else a line at each tenth), "lines" for plain lines.
    """

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
