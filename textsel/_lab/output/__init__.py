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
  moved into place together, or, on any error or Ctrl-C, not at all (:mod:`.commit`); a run
  killed outright while moving them is undone by the next run into the folder
  (:mod:`.journal`); an earlier run's files this run does not write again are removed only when
  the manifest, kept outside the folder, shows they are unchanged (:mod:`.manifest`);
- **never over an input**: an output that is one of the run's inputs (by any name or link), or
  lies inside an input folder, is refused before any work.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat
from pathlib import Path

from .commit import Commit, RollbackError
from .lock import EntryLock, OutputBusyError
from .manifest import manifest_path, read_manifest, write_manifest, write_manifest_text
from .signals import Caught
from .targets import file_target, folder_target, foreign_link, refuse_inputs, write_through

__all__ = ["FileOutput", "OutputBusyError", "OutputFolder", "file_target", "folder_target"]

#: what a write says when the place it writes to cannot take the results
_NO_ROOM = {errno.ENOSPC, errno.EFBIG, errno.EROFS, getattr(errno, "EDQUOT", errno.ENOSPC)}


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
    inputs : sequence of path, optional
        The run's inputs: an entry it writes that is one of them, or lies inside one of them
        (a folder), is refused before any work.
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
        inputs=(),
    ):
        self.given = folder
        if shown is None:
            shown = os.fspath(folder) if isinstance(folder, (str, os.PathLike)) else repr(folder)
        self.shown = shown
        self.key, self.option = key, option
        self.files, self.folders = tuple(files), tuple(folders)
        self.manifest = manifest
        self.removable = removable or (lambda name: name in self.files or name in self.folders)
        self.inputs = tuple(inputs)
        self.staging: Path | None = None
        self._lock: EntryLock | None = None
        self._created: list[Path] = []
        self._private: str | None = None  # the staging folder's path, once made

    def refuse(self, why: str):
        raise ValueError(f"{self.option} {self.shown}: {why}")

    # -- entering: the checks, the lock, the staging folder -----------------------------------------

    def __enter__(self) -> Path:
        self.folder = folder_target(self.given, self.option)
        self._check_kinds()
        # by the names as given too: a link there may lead out of an input folder
        as_given = (
            Path(os.path.abspath(self.given)) if isinstance(self.given, (str, os.PathLike)) else self.folder
        )
        written = [top / name for top in (self.folder, as_given) for name in self.files] or [
            self.folder,
            as_given,
        ]
        refuse_inputs(written, self.inputs, self.option, self.shown)
        try:
            self._make_folder()
            self._lock = EntryLock(self.folder, self.key, self.option, self.shown)
            stale = self._lock.acquire(", ".join(self.files + self.folders) or self.key)
            finished = self._lock.remove_stale(self.folder, stale)
            if finished is not None and self.manifest:  # a killed run's, past its commit point
                write_manifest_text(self._manifest_path, finished)
            self._old = read_manifest(self._manifest_path, self._refuse_manifest) if self.manifest else None
            # named in the lock before it is made: a run killed in between leaves nothing unnamed
            name = f".textsel-{self._lock.slug}-{secrets.token_hex(4)}.partial"
            self._lock.record(name)
            self.staging = self.folder / name
            os.mkdir(self.staging, 0o700)
            self._private = os.fspath(self.staging)
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
        return manifest_path(self.folder, self._lock.slug)

    def _refuse_manifest(self, why: str):
        raise ValueError(
            f"{self.option} {self.shown}: textsel's record of the files written there, "
            f"{self._manifest_path}, {why}, so it is not textsel's manifest; remove it if it is "
            "not yours"
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
                self._check_written_against_inputs()
                commit = Commit(self.folder, self.option, self.shown, self.removable)
                placed = commit.run(self.staging / "new", self._old, self.staging, self.manifest)
                if self.manifest:
                    write_manifest(self._manifest_path, placed, self.folder)
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
            self._name_the_output(error)
        else:
            self._close()

    def _check_written_against_inputs(self) -> None:
        """Every file the run wrote, declared or not (a figure named for its k), checked against
        the inputs before any is put in place."""
        if not self.inputs:
            return
        new = self.staging / "new"
        written = [self.folder / os.path.relpath(os.path.join(top, name), new)
                   for top, _, names in os.walk(new) for name in names]  # fmt: skip
        refuse_inputs(written, self.inputs, self.option, self.shown)

    def _name_the_output(self, error) -> None:
        """An error writing into the staging folder (a full disk, a file size limit) names the
        option the user gave, not the private folder the run wrote into; one naming another
        file (a temporary copy of standard input elsewhere) is left as it is."""
        if not isinstance(error, OSError) or isinstance(error, FileNotFoundError):
            return
        where = getattr(error, "filename", None)
        inside = (
            where is not None and self._private is not None and os.fspath(where).startswith(self._private)
        )
        if inside or (where is None and error.errno in _NO_ROOM):
            raise OSError(
                f"{self.option} {self.shown}: cannot write the results there ({error.strerror or error}); "
                "the folder is as it was"
            ) from error

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


class FileOutput:
    """A context for one output file ``target`` (:func:`file_target`): entering checks it against
    the run's ``inputs`` and takes its lock (so a clash with another run is found before any
    work) and returns a function that takes the text (UTF-8); leaving writes it: straight into a
    stream, else replaced whole, or, on an exception, not at all."""

    def __init__(self, target, option: str, inputs=()):
        self.target, self.option, self.inputs = target, option, tuple(inputs)
        self._text: str | None = None
        self._folder: OutputFolder | None = None

    def _take(self, text: str) -> None:
        self._text = text

    def __enter__(self):
        target = self.target
        if target.stream:
            entry = target.descriptor if target.descriptor is not None else target.path
            refuse_inputs([entry], self.inputs, self.option, target.shown)
            return self._take
        refuse_inputs([Path(os.path.abspath(target.shown))], self.inputs, self.option, target.shown)
        # the lock and the staging folder go beside the file itself (a link's target): moving is a rename
        self._folder = OutputFolder(
            target.path.parent,
            f"select:{target.path.name}",
            self.option,
            files=(target.path.name,),
            shown=target.shown,
            inputs=self.inputs,
        )
        self._staging = self._folder.__enter__()
        return self._take

    def __exit__(self, kind, error, traceback) -> None:
        if self._folder is None:
            if kind is None and self._text is not None:
                write_through(self.target, self._text.encode("utf-8"), self.option)
            return
        if kind is None and self._text is not None:
            try:
                (self._staging / self.target.path.name).write_bytes(self._text.encode("utf-8"))
            except BaseException as exc:
                self._folder.__exit__(type(exc), exc, exc.__traceback__)
                raise
        self._folder.__exit__(kind, error, traceback)
