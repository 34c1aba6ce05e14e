"""The one way a run writes its results into a folder: ``textsel study --out``, ``textsel
reproduce --out`` (and ``textsel.reproduce.reproduce(out=...)``) and ``textsel select --output``.

A run names the entries of the folder it owns (``forman.md`` and ``forman/``; the study's tables
and figures; the selection file), and :class:`OutputFolder` does the rest:

- **before any work** (in milliseconds) it refuses a folder that is a file, or one it cannot
  create or write into, with a one-line error naming the option;
- it takes a lock on the run's entries, so that a second run writing the same entries into the
  same folder stops at once and says so (two runs into one folder end with one complete result);
- the run writes into a staging folder private to it, inside the folder (so that moving is a
  rename, not a copy);
- on success each entry is moved into place whole (a file by one atomic rename, a folder by two
  renames), and entries an earlier run left that this run did not write (figures of a run with
  plots, before a run without) are removed; entries the run does not own are never touched;
- on failure or Ctrl-C the staging folder is removed and the folder is as it was before the run.

The lock is ``flock`` on a lock file beside the entries (``fcntl``; ``msvcrt`` on Windows), so a
run killed outright leaves no lock held; its staging folder is removed by the next run that
takes the lock.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import tempfile
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None
    import msvcrt

__all__ = ["OutputBusyError", "OutputFolder", "check_folder"]


def check_folder(folder, option: str) -> None:
    """The checks :class:`OutputFolder` makes first, with nothing imported but the standard
    library, for a command to run before it loads anything: a folder that is a file, or whose
    nearest existing parent cannot be written into, is an error naming ``option``."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{option} {folder}: exists and is not a folder; give a folder")
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    if not existing.is_dir():
        raise ValueError(f"{option} {folder}: {existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OSError(f"{option} {folder}: cannot write there (Permission denied)")


class OutputBusyError(OSError):
    """Another run is writing the same entries into the same folder."""


class OutputFolder:
    """A context for a run's results in ``folder``: entering checks the folder, takes the lock and
    returns the private staging folder to write into; leaving moves what was written into place
    (or, on an exception, removes it).

    Parameters
    ----------
    folder : path
        Where the results go; created (with its parents) if missing.
    owns : sequence of str
        The names (``fnmatch`` patterns) of the entries of ``folder`` the run owns: what it
        writes, and what of an earlier run's it replaces or removes.
    option : str
        How the user named ``folder`` (``"--out"``, ``"out"``), for the errors.
    what : str, optional
        The lock's name (default: the first of ``owns``), for two runs that own the same entries.
    """

    def __init__(self, folder, owns, option: str, what: str | None = None):
        self.folder = Path(folder)
        self.owns = tuple(owns)
        self.option = option
        self.what = what or self.owns[0]
        self.staging: Path | None = None
        self._lock_fd: int | None = None
        self._created: list[Path] = []

    # -- entering: the checks, the lock, the staging folder -----------------------------------------

    def __enter__(self) -> Path:
        check_folder(self.folder, self.option)
        try:
            self._make_folder()
            self._lock()
            self._remove_stale_stagings()
            prefix = f".{_safe(self.what)}."
            self.staging = Path(tempfile.mkdtemp(prefix=prefix, suffix=".partial", dir=self.folder))
        except OutputBusyError:
            self._undo_folder()
            raise
        except OSError as exc:
            self._release()
            self._undo_folder()
            reason = exc.strerror or exc
            raise OSError(f"{self.option} {self.folder}: cannot write there ({reason})") from None
        return self.staging

    def _make_folder(self) -> None:
        missing = [p for p in (self.folder, *self.folder.parents) if not p.exists()]
        self.folder.mkdir(parents=True, exist_ok=True)
        self._created = missing  # removed again if the run fails, deepest first

    def _undo_folder(self) -> None:
        for path in self._created:
            try:
                path.rmdir()  # only if still empty
            except OSError:
                break

    def _lock(self) -> None:
        path = self.folder / f".{_safe(self.what)}.lock"
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                _lock_fd(fd)
            except OSError:
                holder = os.read(fd, 200).decode("utf-8", "replace").strip()
                os.close(fd)
                holder = f" ({holder})" if holder else ""
                raise OutputBusyError(
                    f"{self.option} {self.folder}: another textsel run{holder} is writing "
                    f"{', '.join(self.owns)} there; this run stops: wait for that one or give another folder"
                ) from None
            try:  # the lock file a finishing run unlinked is not the lock any more: take the new one
                same = os.fstat(fd).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()}, started {time.strftime('%H:%M:%S')}".encode())
        self._lock_fd, self._lock_path = fd, path

    def _release(self) -> None:
        if self._lock_fd is None:
            return
        if fcntl is not None:
            # unlinked while held, so no run ever sees an unlocked file of an ended run's
            self._lock_path.unlink(missing_ok=True)
            os.close(self._lock_fd)
        else:  # Windows cannot unlink an open file
            os.close(self._lock_fd)
            try:
                self._lock_path.unlink()
            except OSError:
                pass
        self._lock_fd = None

    def _remove_stale_stagings(self) -> None:
        # with the lock held, a staging folder of these entries belongs to a run that was killed
        for stale in self.folder.glob(f".{_safe(self.what)}.*.partial"):
            shutil.rmtree(stale, ignore_errors=True)

    # -- leaving: into place, or away ------------------------------------------------------------

    def __exit__(self, kind, error, traceback) -> None:
        try:
            if kind is None:
                self._commit()
            else:
                shutil.rmtree(self.staging, ignore_errors=True)
        finally:
            self._release()
        if kind is not None:
            self._undo_folder()  # a folder this run created, empty again without the lock

    def _commit(self) -> None:
        written = sorted(os.listdir(self.staging))
        strays = [name for name in written if not self._owned(name)]
        if strays:
            shutil.rmtree(self.staging, ignore_errors=True)
            raise RuntimeError(f"the run wrote {strays} outside the entries it owns {self.owns}")
        for name in written:
            source, target = self.staging / name, self.folder / name
            if source.is_dir() and target.exists():
                # a folder cannot be renamed over a non-empty one: the old one is moved aside first
                aside = self.staging / f".replaced-{name}"
                os.replace(target, aside)
            os.replace(source, target)  # a file: replaced whole, atomically
        for name in os.listdir(self.folder):
            if self._owned(name) and name not in written:  # an earlier run's, not this run's
                _remove(self.folder / name)
        shutil.rmtree(self.staging, ignore_errors=True)

    def _owned(self, name: str) -> bool:
        return not name.startswith(".") and any(fnmatch.fnmatchcase(name, pattern) for pattern in self.owns)


def _lock_fd(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    else:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _safe(name: str) -> str:
    """A name usable in the lock's and staging folder's file names."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name) or "output"
