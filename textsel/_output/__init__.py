"""The one way a run writes its results: ``textsel study --out``, ``textsel reproduce --out`` (and
``textsel.reproduce.reproduce(out=...)``) and ``textsel select --output``.

What a command promises, whatever name it is given:

- **a name is a literal**: the entries a run writes are the names it writes, compared by
  equality; nothing is matched as a pattern, and nothing else in the folder is read, moved or
  removed (:mod:`.targets`);
- **checked before any work**: a folder that is a file, a file that is a folder, a folder that
  cannot be created or written into, is one line naming the option, in milliseconds;
- **special outputs**: a link is followed and its target replaced, the link kept; a FIFO, a device
  or a descriptor's name is written straight into, never replaced;
- **one run at a time per set of entries**: a lock no link or file planted at its name can turn
  against the user (:mod:`.lock`);
- **all or nothing**: the run writes into a staging folder private to it, and its files are
  moved into place together, or, on any error or Ctrl-C, not at all (:mod:`.commit`); an
  earlier run's files this run does not write again are removed only when the manifest shows
  they are unchanged (:mod:`.manifest`).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from .commit import Commit, RollbackError
from .lock import EntryLock, OutputBusyError
from .manifest import read_manifest
from .signals import Caught
from .targets import file_target, folder_target, foreign_link, write_through

__all__ = ["OutputBusyError", "OutputFolder", "file_target", "folder_target", "write_file"]


class OutputFolder:
    """A context for a run's results in ``folder``: entering checks the folder, takes the lock
    and returns the private staging folder to write into; leaving moves what was written there
    into place (or, on an exception, removes it, the folder as it was).

    Parameters
    ----------
    folder : path
        Where the results go; created (with its parents) if missing; a link to a folder is
        followed.
    key : str
        What the run writes there (``"study"``, a paper's name): runs of one key into one
        folder exclude each other, and the manifest is kept per key.
    option : str
        How the user named ``folder`` (``"--out"``, ``"out"``), for the errors.
    files, folders : sequence of str, optional
        Entries the run may write, checked before any work to be of the right kind.
    manifest : bool, default False
        Keep a manifest, so that the next run of ``key`` removes the files of this one that it
        does not write again (for a command whose files change from run to run).
    removable : callable, optional
        ``removable(name)``: whether an earlier run's entry of this top-level name may be removed
        as the manifest lists it (default: the names of ``files`` and ``folders``).
    shown : str, optional
        What the user named, for the errors (default: ``folder``).
    """

    def __init__(
        self,
        folder,
        key: str,
        option: str,
        *,
        files=(),
        folders=(),
        manifest: bool = False,
        removable=None,
        shown: str | None = None,
    ):
        self.given = folder
        if shown is None:
            shown = os.fspath(folder) if isinstance(folder, (str, os.PathLike)) else repr(folder)
        self.shown = shown
        self.key, self.option = key, option
        self.files, self.folders = tuple(files), tuple(folders)
        self.manifest = manifest
        self.removable = removable or (lambda name: name in self.files or name in self.folders)
        self.staging: Path | None = None
        self._lock: EntryLock | None = None
        self._created: list[Path] = []

    def refuse(self, why: str):
        raise ValueError(f"{self.option} {self.shown}: {why}")

    # -- entering: the checks, the lock, the staging folder -----------------------------------------

    def __enter__(self) -> Path:
        self.folder = folder_target(self.given, self.option)
        self._check_kinds()
        try:
            self._make_folder()
            self._lock = EntryLock(self.folder, self.key, self.option, self.shown)
            stale = self._lock.acquire(", ".join(self.files + self.folders) or self.key)
            self._lock.remove_stale(self.folder, stale)
            self._old = read_manifest(self._manifest_path, self._refuse_manifest) if self.manifest else None
            prefix = f".textsel-{self._lock.slug}-"
            self.staging = Path(tempfile.mkdtemp(prefix=prefix, suffix=".partial", dir=self.folder))
            self._lock.record(self.staging.name)
            (self.staging / "new").mkdir()
        except (OutputBusyError, ValueError):
            self._abandon()
            raise
        except OSError as exc:
            self._abandon()
            raise OSError(f"{self.option} {self.shown}: cannot write there ({exc.strerror or exc})") from None
        except BaseException:
            self._abandon()
            raise
        return self.staging / "new"

    @property
    def _manifest_path(self) -> Path:
        return self.folder / f".textsel-{self._lock.slug}.manifest"

    def _refuse_manifest(self, why: str):
        self.refuse(
            f"{self._manifest_path.name} there {why}, so it is not textsel's manifest; "
            "remove it if it is not yours, or give another folder"
        )

    def _check_kinds(self) -> None:
        """The entries the run will write, of the right kind, and writable where they are links."""
        for name in self.files + self.folders:
            entry = self.folder / name
            if foreign_link(entry):
                self.refuse(
                    f"{name} there is another user's link in a shared folder; textsel does not follow it"
                )
            try:
                found = os.stat(entry)
            except FileNotFoundError:
                found = None
            except OSError as exc:  # a link that loops, a folder on the way that cannot be read
                self.refuse(f"{name} there cannot be followed ({exc.strerror or exc})")
            if found is None and entry.is_symlink() and name in self.folders:
                self.refuse(f"{name} there is a link to nothing, where textsel writes a folder")
            if name in self.files and entry.is_symlink() and (found is None or stat.S_ISREG(found.st_mode)):
                real = Path(os.path.realpath(entry))  # the file replaced, in the link's target folder
                if not real.parent.is_dir() or not os.access(real.parent, os.W_OK | os.X_OK):
                    self.refuse(f"{name} there is a link to {real}, whose folder cannot be written into")
            if found is None:
                continue
            if name in self.files and stat.S_ISDIR(found.st_mode):
                self.refuse(f"{name} there is a folder, where textsel writes a file")
            if name in self.folders and not stat.S_ISDIR(found.st_mode):
                self.refuse(f"{name} there is not a folder, where textsel writes a folder")

    def _make_folder(self) -> None:
        missing = [p for p in (self.folder, *self.folder.parents) if not os.path.lexists(p)]
        self.folder.mkdir(parents=True, exist_ok=True)
        self._created = missing  # removed again if the run fails, deepest first

    # -- leaving: into place, or away ------------------------------------------------------------

    def __exit__(self, kind, error, traceback) -> None:
        try:
            if kind is None:
                manifest = self._manifest_path if self.manifest else None
                commit = Commit(self.folder, self.option, self.shown, self.removable)
                commit.run(self.staging / "new", self._old, manifest, self.staging)
        except RollbackError as failed:
            self.staging = None  # it holds what could not be put back: the error says where
            self._abandon()
            failed.act_on_signal()
            raise
        except Caught as caught:  # a signal ending the process: once the folder is let go
            self._abandon()
            caught.act()
        except BaseException:
            self._abandon()
            raise
        if kind is not None:
            self._abandon()
        else:
            self._close()

    def _close(self) -> None:
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def _abandon(self) -> None:
        """Staging and lock gone, and the folders this run created removed again if empty."""
        self._close()
        for path in self._created:
            try:
                path.rmdir()  # only if still empty
            except OSError:
                break


def write_file(target, text: str, option: str) -> None:
    """Write ``text`` (UTF-8) to the output file ``target`` (:func:`file_target`): a stream
    straight into, else through an :class:`OutputFolder` beside the file, replaced whole."""
    data = text.encode("utf-8")
    if target.stream:
        write_through(target, data, option)
        return
    # the lock and the staging folder go beside the file itself (a link's target): moving is a rename
    key = f"select:{target.path.name}"
    with OutputFolder(
        target.path.parent, key, option, files=(target.path.name,), shown=target.shown
    ) as staging:
        (staging / target.path.name).write_bytes(data)
