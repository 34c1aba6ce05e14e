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
carried forward instead: the files are in place, the names the old files were kept under are
let go, and the manifest the run had made is handed back to be recorded.

Paths inside the output folder are noted relative to it (a folder renamed since is still put
back); a link's target elsewhere by its absolute path.  A journal is believed only in a staging
folder that is the user's own and closed to others, and only for what a commit does: a name an
earlier file was kept under is one of textsel's (``.textsel-<hex>.old`` or ``.new``) beside the
file, a file moved into the staging folder is in it, and a file is removed or put back only
where it is still the one the journal names (device and inode).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
from pathlib import Path

__all__ = ["MANIFEST", "Journal", "recover"]

NAME = "journal"
#: the manifest a commit will record, kept in its staging folder until it is recorded
MANIFEST = "manifest.json"
_OPEN = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_KEPT = re.compile(r"\.textsel-[0-9a-f]{12}\.(?:old|new)")


class Journal:
    """The journal of one commit into ``folder``, in its staging folder ``scratch``."""

    def __init__(self, folder: Path, scratch: Path):
        self.folder = os.fspath(folder)
        self._fd = os.open(scratch / NAME, _OPEN, 0o600)

    def note(self, step: str, *fields) -> None:
        """Record ``step`` before it is taken; the line reaches the disk first (one write, synced)."""
        os.write(self._fd, (json.dumps([step, *map(self._text, fields)]) + "\n").encode())
        os.fsync(self._fd)

    def _text(self, field):
        if not isinstance(field, os.PathLike):
            return field
        path = os.fspath(field)
        inside = os.path.commonpath([self.folder, path]) == self.folder
        return os.path.relpath(path, self.folder) if inside else path

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def identity(path) -> list[int]:
    """What the journal tells a file by: its device and inode."""
    found = os.lstat(path)
    return [found.st_dev, found.st_ino]


def recover(folder: Path, scratch: Path) -> str | None:
    """Undo (or, past its commit point, finish) what the dead run whose staging folder is
    ``scratch`` did to ``folder``; a step that cannot be undone is left as it is.  Returns the
    manifest a finished run had made (its text), for the caller to record, or None."""
    steps = [_resolved(folder, step) for step in _read(scratch)]
    steps = [step for step in steps if step is not None]
    if any(step[0] == "committed" for step in steps):
        for step in steps:  # the new files are the run's result: the old ones it kept aside go
            if step[0] in ("aside", "copy") and _kept_name(step):
                _unlink(step[2])
        with contextlib.suppress(OSError, UnicodeDecodeError):
            return (scratch / MANIFEST).read_text(encoding="utf-8")
        return None
    asides = {step[1]: step[2] for step in steps if step[0] == "aside" and _kept_name(step)}
    for step in reversed(steps):
        with contextlib.suppress(OSError, ValueError, IndexError, TypeError):
            _undo(step, asides, scratch)
    return None


def _resolved(folder: Path, step):
    """The step with its paths made absolute (relative ones are in ``folder``)."""
    try:
        return [
            step[0],
            *(
                os.path.join(folder, field) if isinstance(field, str) and not os.path.isabs(field) else field
                for field in step[1:]
            ),
        ]
    except TypeError:
        return None


def _kept_name(step) -> bool:
    """An ``aside`` or ``copy`` step names one of textsel's second names beside the target."""
    return (
        len(step) == 3
        and isinstance(step[2], str)
        and _KEPT.fullmatch(os.path.basename(step[2])) is not None
        and os.path.dirname(step[2]) == os.path.dirname(step[1])
    )


def _undo(step, asides, scratch: Path) -> None:
    what = step[0]
    if what == "moved":  # a file renamed over ``target``: if it was, the earlier one comes back
        target, placed = step[1], step[2]
        if identity(target) != placed:
            return
        aside = asides.get(target)
        if aside is not None and os.path.lexists(aside):
            os.replace(aside, target)
        else:
            os.unlink(target)
    elif what in ("aside", "copy") and _kept_name(step):  # a second name that outlived the step
        _unlink(step[2])
    elif what == "mkdir":
        os.rmdir(step[1])  # only while empty: a file of the user's since keeps it
    elif what == "removed":  # an earlier run's file moved into the staging folder
        origin, kept = step[1], step[2]
        if (
            os.path.dirname(kept) == os.fspath(scratch)
            and os.path.lexists(kept)
            and not os.path.lexists(origin)
        ):
            os.rename(kept, origin)
    elif what == "rmdir":
        if not os.path.lexists(step[1]):
            os.mkdir(step[1], step[2])


def _unlink(path) -> None:
    with contextlib.suppress(OSError):
        if not stat.S_ISDIR(os.lstat(path).st_mode):
            os.unlink(path)


def _own_and_closed(found: os.stat_result) -> bool:
    """The user's own, and (for a folder) closed to everyone else."""
    if not hasattr(os, "geteuid"):
        return True
    return found.st_uid == os.geteuid() and not (stat.S_ISDIR(found.st_mode) and found.st_mode & 0o077)


def _read(scratch: Path) -> list:
    """The journal's whole lines (a line cut short by the kill is no step taken); none where the
    staging folder or the journal is not the user's own, or the folder is open to others."""
    try:
        folder = os.lstat(scratch)
        if not stat.S_ISDIR(folder.st_mode) or not _own_and_closed(folder):
            return []
        fd = os.open(scratch / NAME, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return []
    with open(fd, "rb") as stream:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or found.st_nlink != 1 or not _own_and_closed(found):
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
