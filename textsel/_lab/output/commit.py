"""Putting a run's staged files in place: all of them, or, on any error or Ctrl-C, none.

Each file is moved over its target by one atomic rename (readers see the old file or the new,
never half of one), after the old file was kept aside under a second name; a name that is a link
is followed and its final target replaced, the link kept; an existing target that is not a
regular file (a FIFO, a device) is written straight into, after every rename succeeded.  An
earlier run's files this run does not write again are removed only as the manifest allows
(:mod:`textsel._lab.output.manifest`), through folders opened without following links.  Every step
records how to undo it; when any step fails, the steps done are undone in reverse order, so the
folder is as it was, byte for byte.  Ctrl-C and termination signals wait while the steps run
(:mod:`textsel._lab.output.signals`); one that came meanwhile undoes them, and acts once the
output folder has let go of its staging folder and lock.  An undo that fails keeps
what it could not put back and says where.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import stat
from pathlib import Path

from .journal import MANIFEST, Journal
from .journal import identity as placed_as
from .manifest import Manifest, identity
from .signals import Caught, Held
from .targets import NO_HARD_LINKS, FileTarget, foreign_link, write_through

__all__ = ["Commit", "RollbackError"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FDS = {os.open, os.stat, os.rename, os.rmdir, os.mkdir, os.chmod} <= os.supports_dir_fd


class RollbackError(OSError):
    """A failed run's steps could not all be undone; the message says what is kept where."""

    pending: tuple[Held, int] | None = None  # a signal that came meanwhile

    def act_on_signal(self) -> None:
        """Act on a signal that came while the steps were undone (once the output folder has
        let go of its lock): Ctrl-C raises, a default handler ends the process."""
        if self.pending is not None:
            held, number = self.pending
            try:
                held.act(number)
            except Caught as caught:
                caught.act()


class Commit:
    """One run's move into ``folder``.

    Parameters
    ----------
    folder : Path
        The output folder, links resolved.
    option, shown : str
        How the user named the folder, for messages.
    removable : callable
        ``removable(name)``: whether an earlier run's entry of this top-level name may be
        removed (a name the command writes), whatever the manifest says.
    """

    def __init__(self, folder: Path, option: str, shown: str, removable=lambda name: True):
        self.folder, self.option, self.shown, self.removable = folder, option, shown, removable
        self._undo: list = []  # (what, how to undo it) for each step done, in order
        self._done: list = []  # what to let go once every step succeeded
        self._streams: list[tuple[Path, Path]] = []
        self._journal: Journal | None = None

    def run(self, tree: Path, old: Manifest | None, scratch: Path, manifest: bool = False) -> Manifest:
        """Move the files under ``tree`` into the folder (keeping their relative paths) and remove
        what ``old`` lists and this run did not write, each step noted in the journal in
        ``scratch`` first; undo all of it on any failure or signal.  Returns what was placed
        (with ``manifest``, also kept in ``scratch`` before the commit point, so that a run
        killed past it has its manifest recorded by the next)."""
        held = Held()
        try:
            held.hold()
            try:
                self._journal = Journal(self.folder, scratch)
            except OSError as exc:
                raise OSError(
                    f"{self.option} {self.shown}: cannot write the results there ({exc.strerror or exc}); "
                    "the folder is as it was"
                ) from None
            placed = self._place_tree(tree, old)
            if old is not None:
                self._remove_stale(old, placed, scratch)
            if manifest:
                with open(scratch / MANIFEST, "w", encoding="utf-8") as kept:
                    kept.write(placed.dumps(self.folder))
                    kept.flush()
                    os.fsync(kept.fileno())
            self._journal.note("committed")  # a run killed from here on is carried forward
            caught = held.restore()
            if caught is not None:
                held.act(caught)  # Ctrl-C raises here, and the steps are undone; a handler may let it pass
            # what goes into a FIFO or a device cannot be taken back: last, and Ctrl-C may end a wait
            for target, source in self._streams:
                write_through(FileTarget(str(target), target, stream=True), source.read_bytes(), self.option)
        except BaseException as exc:
            self._undo_all(exc, held)
            raise
        finally:
            if self._journal is not None:
                self._journal.close()
        try:
            held.hold()
            self._let_go()
        finally:
            caught = held.restore()
        if caught is not None:
            held.act(caught)  # past the last step: the results are in place
        return placed

    def _undo_all(self, cause: BaseException, held: Held) -> None:
        """Undo every step, signals held meanwhile; one that came acts afterwards (a failed undo
        carries it on its error, for the output folder to act on once it has let go)."""
        late = None
        while True:
            try:
                held.hold()
                break
            except KeyboardInterrupt as exc:  # came in the instants before the hold took
                late = exc
        try:
            self._roll_back(cause)
        except RollbackError as failed:
            caught = held.restore()
            failed.pending = (held, caught) if caught is not None else None
            raise
        caught = held.restore()
        if caught is not None and not isinstance(cause, (Caught, KeyboardInterrupt)):
            held.act(caught)
        if late is not None and not isinstance(cause, KeyboardInterrupt):
            raise late

    # -- placing -----------------------------------------------------------------------------------

    def refuse(self, why: str):
        raise ValueError(f"{self.option} {self.shown}: {why}")

    def _place_tree(self, tree: Path, old: Manifest | None) -> Manifest:
        placed = Manifest()
        for top, folders, files in os.walk(tree):
            rel_top = Path(top).relative_to(tree).parts
            for name in sorted(folders):
                rel = (*rel_top, name)
                made = self._place_folder(rel)
                if made or (old is not None and rel in old.folders and self._plain_folder(rel)):
                    placed.folders.add(rel)
            for name in sorted(files):
                rel = (*rel_top, name)
                try:
                    ident = self._place_file(Path(top) / name, rel)
                except OSError as exc:
                    where = os.path.join(*rel)
                    raise OSError(
                        f"{self.option} {self.shown}: cannot write {where} ({exc.strerror or exc}); "
                        "the folder is as it was"
                    ) from None
                if ident is not None:
                    placed.files[rel] = ident
        return placed

    def _place_folder(self, rel) -> bool:
        """Make the folder ``rel`` unless it is there (a link to a folder is followed); True if
        this run made it."""
        target = self.folder.joinpath(*rel)
        if target.is_dir() and not foreign_link(target):
            return False
        if os.path.lexists(target):
            kind = "a link to nothing" if target.is_symlink() else "not a folder"
            kind = "another user's link in a shared folder" if foreign_link(target) else kind
            self.refuse(f"{os.path.join(*rel)} there is {kind}, where textsel writes a folder")
        self._journal.note("mkdir", target)
        os.mkdir(target)
        self._undo.append((target, lambda: os.rmdir(target)))
        return True

    def _plain_folder(self, rel) -> bool:
        return stat.S_ISDIR(os.lstat(self.folder.joinpath(*rel)).st_mode)

    def _place_file(self, source: Path, rel) -> list[int] | None:
        """Put ``source`` at ``rel``; its identity there when ``rel`` is the file itself (not a
        link, not a stream), for the manifest."""
        entry = self.folder.joinpath(*rel)
        if foreign_link(entry):
            self.refuse(f"{os.path.join(*rel)} there is another user's link in a shared folder; not followed")
        try:
            found = os.stat(entry)
        except FileNotFoundError:
            found = None
        if found is not None and stat.S_ISDIR(found.st_mode):
            self.refuse(f"{os.path.join(*rel)} there is a folder, where textsel writes a file")
        if found is not None and not stat.S_ISREG(found.st_mode):
            self._streams.append((entry, source))  # opened by its name, through its links
            return None
        self._replace(source, Path(os.path.realpath(entry)), os.path.join(*rel))
        here = os.lstat(entry)
        return identity(here) if stat.S_ISREG(here.st_mode) else None

    def _replace(self, source: Path, target: Path, shown: str) -> None:
        """Move ``source`` over ``target`` in one rename, the old file kept aside until the end."""
        try:
            os.stat(target, follow_symlinks=False)
        except FileNotFoundError:
            self._move(source, target)
            placed = os.lstat(target)
            self._undo.append((shown, lambda: _unlink_if(target, placed)))
            return
        aside = self._keep_aside(target)
        with contextlib.suppress(OSError):
            shutil.copymode(target, source)  # the user's permissions stay the file's
        step = len(self._undo)
        self._undo.append((shown, lambda: aside.unlink()))  # until the move: the second name goes
        self._move(source, target)
        self._undo[step] = (
            f"{shown} (the earlier one is kept as {aside})",
            lambda: os.replace(aside, target),
        )

    def _move(self, source: Path, target: Path) -> None:
        """``os.replace``, or, to a link's target on another file system, a copy beside the
        target renamed over it."""
        self._journal.note("moved", target, placed_as(source))
        try:
            os.replace(source, target)
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
            near = _unused(target.parent, ".new")
            try:
                self._journal.note("copy", target, near)
                _copy_exclusive(source, near)
                self._journal.note("moved", target, placed_as(near))
                os.replace(near, target)
            except BaseException:
                near.unlink(missing_ok=True)
                raise

    def _keep_aside(self, target: Path) -> Path:
        """A second name for the old file beside it (a hard link; a copy where links fail)."""
        aside = _unused(target.parent, ".old")
        self._journal.note("aside", target, aside)
        try:
            os.link(target, aside)  # ``target`` is no link: its links were resolved
        except OSError as exc:
            if exc.errno not in NO_HARD_LINKS:
                raise
            _copy_exclusive(target, aside)
        self._done.append(lambda: aside.unlink(missing_ok=True))
        return aside

    # -- an earlier run's files ----------------------------------------------------------------------

    def _remove_stale(self, old: Manifest, placed: Manifest, scratch: Path) -> None:
        # moved into the staging folder, not beside themselves, so that a folder they leave empty can go
        removed = _Folder(scratch, ())
        self._done.append(removed.close)
        self._undo.append(("", removed.close))
        owner = os.geteuid() if hasattr(os, "geteuid") else None
        for number, (rel, ident) in enumerate(sorted(old.files.items())):
            if rel in placed.files or not self.removable(rel[0]):
                continue
            parent = self._parent(self.folder, rel[:-1])
            if parent is None:
                continue
            with contextlib.suppress(FileNotFoundError):
                found = parent.lstat(rel[-1])
                if not stat.S_ISREG(found.st_mode) or identity(found) != ident:
                    continue  # changed since, or not a file: the user's now
                if owner is not None and found.st_uid != owner:
                    continue
                aside = f"removed-{number}"
                self._journal.note("removed", parent.path / rel[-1], scratch / aside)
                parent.move(rel[-1], removed, aside)
                undo = lambda p=parent, a=aside, n=rel[-1]: removed.move(a, p, n)  # noqa: E731
                self._undo.append((f"{os.path.join(*rel)} (kept in {scratch / aside})", undo))
        for rel in sorted(old.folders - placed.folders, key=len, reverse=True):
            parent = self._parent(self.folder, rel[:-1])
            if parent is None or not self.removable(rel[0]):
                continue
            try:
                mode = stat.S_IMODE(parent.lstat(rel[-1]).st_mode)
                self._journal.note("rmdir", parent.path / rel[-1], mode)
                parent.rmdir(rel[-1])  # only a real, empty folder: anything of the user's keeps it
            except OSError:
                continue
            self._undo.append((os.path.join(*rel), lambda p=parent, n=rel[-1], m=mode: p.mkdir(n, m)))

    def _parent(self, root: Path, parts) -> _Folder | None:
        try:
            parent = _Folder(root, parts)
        except OSError:  # gone, or a link now: nothing of this run's is there
            return None
        self._done.append(parent.close)
        self._undo.append(("", parent.close))
        return parent

    def _roll_back(self, cause: BaseException) -> None:
        """Undo every step done, the last first; an undo that fails keeps what it could not put
        back (and the staging folder with it) and is named in a :class:`RollbackError`."""
        failed = []
        for what, undo in reversed(self._undo):
            try:
                undo()
            except Exception as exc:  # noqa: BLE001 - every other step is still undone
                failed.append(f"{what}: {exc}")
        self._undo.clear()
        if failed:
            raise RollbackError(
                f"{self.option} {self.shown}: the run failed ({cause!r}) and these could not be put back: "
                + "; ".join(failed)
            ) from cause

    def _let_go(self) -> None:
        """Past the commit: the old files kept aside are let go (an error here loses nothing)."""
        for clear in reversed(self._done):
            with contextlib.suppress(OSError):
                clear()


class _Folder:
    """A folder reached from ``root`` without following links, so that what is done to its
    entries cannot be sent elsewhere by a link planted meanwhile (by descriptor where the
    platform allows)."""

    def __init__(self, root: Path, parts):
        self.fd, self.path = None, root.joinpath(*parts)
        if _DIR_FDS:
            fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
            for name in parts:
                try:
                    fd_next = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
                finally:
                    os.close(fd)
                fd = fd_next
            self.fd = fd
        elif any(root.joinpath(*parts[: i + 1]).is_symlink() for i in range(len(parts))):
            raise NotADirectoryError(self.path)

    def _at(self, name):
        return (name, {"dir_fd": self.fd}) if self.fd is not None else (self.path / name, {})

    def lstat(self, name):
        path, at = self._at(name)
        return os.stat(path, follow_symlinks=False, **at)

    def move(self, name, other: _Folder, new_name):
        """Rename ``name`` here to ``new_name`` in ``other`` (which must not hold it yet)."""
        if self.fd is not None:
            os.rename(name, new_name, src_dir_fd=self.fd, dst_dir_fd=other.fd)
        else:
            os.rename(self.path / name, other.path / new_name)

    def rmdir(self, name):
        path, at = self._at(name)
        os.rmdir(path, **at)

    def mkdir(self, name, mode):
        path, at = self._at(name)
        os.mkdir(path, mode, **at)
        os.chmod(path if self.fd is None else name, mode, **at)  # as it was, whatever the umask

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _copy_exclusive(source: Path, target: Path) -> None:
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o666)
    try:
        with open(fd, "wb") as out, open(source, "rb") as stream:
            shutil.copyfileobj(stream, out)
        shutil.copymode(source, target)
    except BaseException:
        target.unlink(missing_ok=True)
        raise


def _unlink_if(path: Path, placed: os.stat_result) -> None:
    """Remove ``path`` if it still is the file this run put there."""
    here = os.lstat(path)
    if (here.st_dev, here.st_ino) == (placed.st_dev, placed.st_ino):
        os.unlink(path)


def _unused(folder: Path, suffix: str) -> Path:
    """A name of textsel's in ``folder`` that nothing holds (48 random bits; checked)."""
    while True:
        path = folder / f".textsel-{secrets.token_hex(6)}{suffix}"
        if not os.path.lexists(path):
            return path
