"""The lock a run takes on its entries of an output folder, and the names of its files there.

The lock is ``flock`` on ``.textsel-<slug>.lock`` in the folder, so a run killed outright holds
none.  The file appears locked and holding its holder line (it is written under a private name
and linked into place); one a killed run left is opened without following links and taken over
only if it is a regular file of one link, the user's own, holding a holder line textsel writes
(or of two, the second its private name, when the run was killed between linking it into place
and removing that name: the name goes).  Anything else at that name (a link planted to make a
run overwrite its target, a file of the user's, another user's file) is refused, never written.
The holder line names the run's staging folder, so the next run undoes what a killed run's
journal says it did (:mod:`.journal`) and removes exactly that staging folder and nothing else.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import secrets
import shutil
import stat
import time
from pathlib import Path

from .journal import recover
from .targets import NO_HARD_LINKS

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None
    import msvcrt

__all__ = ["EntryLock", "OutputBusyError", "slug"]

_OPEN = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
_HOLDER = re.compile(
    r"pid (\d+), started (\d\d:\d\d:\d\d)(?:, staging (\.textsel-[A-Za-z0-9_-]+\.partial))?\n?"
)


class OutputBusyError(OSError):
    """Another run is writing the same entries into the same folder."""


def slug(key: str) -> str:
    """A short name for a run's key, fit for file names whatever the key (an output file's
    name can be 255 bytes long, or hold any character): the key itself where it is a short
    plain word, else a hash of it."""
    if re.fullmatch(r"[a-z0-9][a-z0-9-]{0,23}", key):
        return key
    return "h" + hashlib.sha256(os.fsencode(key)).hexdigest()[:16]


class EntryLock:
    """The lock of one key's entries in ``folder``.

    Parameters
    ----------
    folder : Path
        The output folder (existing).
    key : str
        What the run writes there (``"study"``, a paper, ``"select:<name>"``); runs of one key
        exclude each other, runs of other keys do not.
    option, shown : str
        How the user named the folder, for messages.
    """

    def __init__(self, folder: Path, key: str, option: str, shown: str):
        self.slug = slug(key)
        self.path = folder / f".textsel-{self.slug}.lock"
        self.option, self.shown = option, shown
        self._fd: int | None = None

    def acquire(self, what: str) -> str | None:
        """Take the lock (or raise :class:`OutputBusyError` naming the holder); returns the name
        of the staging folder a killed run of the same key left behind, if any."""
        while True:
            fd = self._open()
            try:
                try:
                    _lock(fd)
                except OSError:
                    held = _HOLDER.fullmatch(_read(fd))
                    holder = f" (pid {held.group(1)}, started {held.group(2)})" if held else ""
                    raise OutputBusyError(
                        f"{self.option} {self.shown}: another textsel run{holder} is writing {what} "
                        "there; this run stops: wait for that one or give another folder"
                    ) from None
                self._check_ours(fd)
                if not self._still_there(fd):  # unlinked by a run that finished: take the new one
                    os.close(fd)
                    continue
                held = _HOLDER.fullmatch(_read(fd))
                if held is None:
                    self._refuse("holds something textsel did not write")
            except BaseException:
                os.close(fd)
                raise
            self._fd = fd
            stale = held.group(3)
            return stale if stale and stale.startswith(f".textsel-{self.slug}-") else None

    def _open(self) -> int:
        """The lock file, made with its holder line in it, or the one there, not through a link."""
        while True:
            fd = self._create()
            if fd is not None:
                return fd
            try:
                return os.open(self.path, os.O_RDWR | _OPEN)
            except FileNotFoundError:
                continue  # released between the two calls
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.EMLINK):  # a link: O_NOFOLLOW refused it
                    self._refuse("is a link")
                raise

    def _create(self) -> int | None:
        """A new lock file, locked and holding its holder line before its name appears (written
        under a private name and linked into place), so that no run ever finds it empty; None
        if a lock file is there."""
        private = self.path.with_name(f"{self.path.name}.{secrets.token_hex(6)}")
        fd = os.open(private, os.O_RDWR | os.O_CREAT | os.O_EXCL | _OPEN, 0o644)
        try:
            os.write(fd, _holder_line(None).encode())
            _lock(fd)
            os.link(private, self.path)
        except FileExistsError:
            os.close(fd)
            return None
        except OSError as exc:
            os.close(fd)
            if exc.errno not in NO_HARD_LINKS:
                raise
            return self._create_in_place()  # a file system without hard links
        except BaseException:
            os.close(fd)
            raise
        finally:
            private.unlink(missing_ok=True)
        return fd

    def _create_in_place(self) -> int | None:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _OPEN, 0o644)
        except FileExistsError:
            return None
        _lock(fd)
        os.write(fd, _holder_line(None).encode())
        return fd

    def _check_ours(self, fd: int) -> None:
        found = os.fstat(fd)
        if stat.S_ISREG(found.st_mode) and found.st_nlink > 1:
            self._let_go_private_names(found)
            found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or found.st_nlink != 1:
            self._refuse("is not a regular file of one link")
        if hasattr(os, "geteuid") and found.st_uid != os.geteuid():
            self._refuse("belongs to another user")

    def _let_go_private_names(self, lock: os.stat_result | None) -> None:
        """Remove the private names killed runs left (``.textsel-<slug>.lock.<hex>``): of the lock
        file itself (``lock``: it is locked by this run, so its maker is gone), or files no run
        holds locked a minute after they were made (their makers died before linking them into
        place)."""
        pattern = re.compile(re.escape(self.path.name) + r"\.[0-9a-f]{12}")
        with contextlib.suppress(OSError), os.scandir(self.path.parent) as entries:
            for entry in entries:
                if not pattern.fullmatch(entry.name):
                    continue
                with contextlib.suppress(OSError):
                    found = entry.stat(follow_symlinks=False)
                    if not stat.S_ISREG(found.st_mode) or not _own(found):
                        continue
                    if lock is not None and (found.st_dev, found.st_ino) == (lock.st_dev, lock.st_ino):
                        os.unlink(entry.path)
                    elif found.st_nlink == 1 and time.time() - found.st_mtime > 60 and _unheld(entry.path):
                        os.unlink(entry.path)  # a minute old: not one a live run is making now

    def _refuse(self, why: str):
        raise ValueError(
            f"{self.option} {self.shown}: {self.path.name} there {why}, so it is not textsel's lock; "
            "remove it if it is not yours, or give another folder"
        )

    def _still_there(self, fd: int) -> bool:
        try:
            here = os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            return False
        mine = os.fstat(fd)
        return (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)

    def record(self, staging: str) -> None:
        """Write the holder line naming the staging folder: over the first one, which it
        outgrows, so that the file never holds less than a whole line."""
        line = _holder_line(staging).encode()
        os.lseek(self._fd, 0, os.SEEK_SET)
        os.write(self._fd, line)
        os.ftruncate(self._fd, len(line))

    def remove_stale(self, folder: Path, name: str | None) -> str | None:
        """Undo what a killed run named in the lock did to the folder, as its journal says, and
        remove its staging folder (a real folder, not a link); and the private names of lock
        files that killed runs left.  Returns the manifest of a killed run that had put all its
        files in place (its text), to be recorded, or None."""
        self._let_go_private_names(None)
        if name is None:
            return None
        path = folder / name
        try:
            found = os.stat(path, follow_symlinks=False)
        except FileNotFoundError:
            return None
        if not stat.S_ISDIR(found.st_mode):
            return None
        manifest = recover(folder, path)
        shutil.rmtree(path, ignore_errors=True)
        return manifest

    def release(self) -> None:
        """Give the lock up; the lock file is unlinked while still held, so that no run ever
        finds an unlocked file of an ended run's (unless that run was killed)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            if fcntl is not None and self._still_there(fd):
                self.path.unlink(missing_ok=True)
        except OSError:
            pass  # a lock file left behind is taken over by the next run
        finally:
            os.close(fd)
        if fcntl is None:  # Windows cannot unlink an open file
            with contextlib.suppress(OSError):
                self.path.unlink()


def _own(found: os.stat_result) -> bool:
    return not hasattr(os, "geteuid") or found.st_uid == os.geteuid()


def _unheld(path: str) -> bool:
    """Whether no process holds the lock of the file at ``path`` (opened without following links)."""
    fd = os.open(path, os.O_RDWR | _OPEN)
    try:
        _lock(fd)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def _holder_line(staging: str | None) -> str:
    where = f", staging {staging}" if staging else ""
    return f"pid {os.getpid()}, started {time.strftime('%H:%M:%S')}{where}\n"


def _read(fd: int) -> str:
    try:
        return (
            os.pread(fd, 4096, 0).decode("utf-8", "replace")
            if hasattr(os, "pread")
            else os.read(fd, 4096).decode("utf-8", "replace")
        )
    except OSError:  # Windows: the holder's locked byte cannot be read
        return ""


def _lock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    else:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
