"""The commit's journal: what a run killed outright (``kill -9``, the OOM killer, a power cut)
while moving its files into place left half done, so that the next run into the folder puts
the folder back as it was before the killed run.

Before each change to the user's folder the commit appends one line to ``journal`` in its
staging folder, written through and synced, saying what it is about to do and how to tell
whether it happened (the inode the moved file carries).  A rename is atomic, so each step
either happened or did not; the next run that takes the same lock (:mod:`.lock`) reads the
journal of the staging folder the dead holder named and undoes the steps that happened, the
last first: each replaced file back from the name it was kept under, each new file removed,
each earlier file moved back from the staging folder, each folder made removed again (if
empty) and each removed one made again.  A journal that reached its ``committed`` line is
carried forward instead: the files are in place, and only the names the old files were kept
under are let go.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path

__all__ = ["Journal", "recover"]

NAME = "journal"
_OPEN = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class Journal:
    """The journal of one commit, in its staging folder ``scratch``."""

    def __init__(self, scratch: Path):
        self._fd = os.open(scratch / NAME, _OPEN, 0o600)

    def note(self, step: str, *fields) -> None:
        """Record ``step`` before it is taken; the line reaches the disk first (one write, synced)."""
        os.write(self._fd, (json.dumps([step, *map(_text, fields)]) + "\n").encode())
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _text(field):
    return os.fspath(field) if isinstance(field, os.PathLike) else field


def recover(scratch: Path) -> None:
    """Undo (or, past its commit point, finish) what the dead run whose staging folder is
    ``scratch`` did to the folder; a step that cannot be undone is left as it is."""
    steps = _read(scratch / NAME)
    if any(step[0] == "committed" for step in steps):
        for step in steps:  # the new files are the run's result: the old ones it kept aside go
            if step[0] in ("aside", "copy"):
                _unlink(step[-1])
        return
    asides = {step[1]: step[2] for step in steps if step[0] == "aside"}
    for step in reversed(steps):
        with contextlib.suppress(OSError, ValueError, IndexError, TypeError):
            _undo(step, asides)


def _undo(step, asides) -> None:
    what = step[0]
    if what == "moved":  # a file renamed over ``target``: if it did, the earlier one comes back
        target, inode = step[1], step[2]
        if os.lstat(target).st_ino != inode:
            return
        aside = asides.get(target)
        if aside is not None and os.path.lexists(aside):
            os.replace(aside, target)
        else:
            os.unlink(target)
    elif what in ("aside", "copy"):  # a second name (or a copy) that outlived the step
        _unlink(step[-1])
    elif what == "mkdir":
        os.rmdir(step[1])  # only while empty: a file of the user's since keeps it
    elif what == "removed":  # an earlier run's file moved into the staging folder
        origin, kept = step[1], step[2]
        if os.path.lexists(kept) and not os.path.lexists(origin):
            os.rename(kept, origin)
    elif what == "rmdir":
        if not os.path.lexists(step[1]):
            os.mkdir(step[1], step[2])


def _unlink(path) -> None:
    with contextlib.suppress(OSError):
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)


def _read(path: Path) -> list:
    """The journal's whole lines (a line cut short by the kill is no step taken)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return []
    with open(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        lines = stream.read().split(b"\n")
    steps = []
    for line in lines:
        try:
            step = json.loads(line)
        except ValueError:
            continue
        if isinstance(step, list) and step and isinstance(step[0], str):
            steps.append(step)
    return steps
