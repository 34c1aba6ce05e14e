"""The record of what a run put in an output folder, so that the next run of the same command
removes exactly its own earlier files and nothing else.

A command whose files change from run to run (a study with one metric writes no pair table; a
run without matplotlib draws no figures) keeps a manifest: the files it placed, each with its
identity (device, inode, size, modification time), and the folders it created.  It is kept in
textsel's own state folder (``$XDG_STATE_HOME/textsel/outputs``, by default
``~/.local/state/textsel/outputs``), named by the output folder's device and inode, never among
the user's files; where that folder cannot be written, no manifest is kept, and the next run
removes nothing.  The next run removes an earlier file it does not write again only if the
name still holds that very file, unchanged and not a link: a file the user edited, replaced,
moved in or linked is the user's, and stays.  The manifest is read without following links and
only if it is a regular file of the user's own in textsel's format; anything else at its name is
refused.  Even then, a file it lists is removed only where the command could have written it (a
name the command writes, the user's own file, unchanged): a manifest cannot name the way to
anything else.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import stat
import sys
from pathlib import Path

__all__ = ["Manifest", "identity", "manifest_path", "read_manifest", "write_manifest", "write_manifest_text"]

_KIND = "textsel output manifest"
_OPEN = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
_LARGEST = 1 << 24  # bytes: far beyond any command's list of files


def identity(found: os.stat_result) -> list[int]:
    """What tells one file from another, and from the same file changed or put back (a copy
    restored with its times and, on some file systems, its old inode has a new ctime)."""
    return [found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns]


class Manifest:
    """Files (relative paths as tuples of names, with their identities) and folders a run placed."""

    def __init__(self, files=None, folders=()):
        self.files: dict[tuple[str, ...], list[int]] = dict(files or {})
        self.folders: set[tuple[str, ...]] = set(folders)

    def dumps(self, folder: Path) -> str:
        files = [[list(rel), *ident] for rel, ident in sorted(self.files.items())]
        content = {
            "kind": _KIND,
            "version": 2,
            "folder": os.fspath(folder),
            "files": files,
            "folders": sorted(map(list, self.folders)),
        }
        return json.dumps(content, indent=0) + "\n"


def state_folder() -> Path | None:
    """textsel's own folder for what it keeps between runs (never inside an output folder), or
    None where the environment names none that is absolute."""
    base = os.environ.get("XDG_STATE_HOME")
    if not base or not os.path.isabs(base):
        local = os.environ.get("LOCALAPPDATA") if sys.platform == "win32" else None
        base = local or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "textsel" / "outputs" if os.path.isabs(base) else None


def manifest_path(folder: Path, slug: str) -> Path | None:
    """Where the manifest of the runs of ``slug`` into ``folder`` is kept (None: nowhere)."""
    found, state = os.stat(folder), state_folder()
    return None if state is None else state / f"{found.st_dev}-{found.st_ino}-{slug}.json"


def write_manifest(path: Path | None, manifest: Manifest, folder: Path) -> None:
    """Replace the manifest at ``path`` whole (a temporary file renamed over it); one that cannot
    be written is no manifest, which costs only the next run's removal of this one's files.
    Manifests of output folders that no longer exist, or are another folder now, go too."""
    write_manifest_text(path, manifest.dumps(folder))


def write_manifest_text(path: Path | None, text: str) -> None:
    """:func:`write_manifest` of a manifest already written out (a killed run's)."""
    if path is None:
        return
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        return
    for other in path.parent.glob("*.json"):
        if other != path and not _still_its_folder(other):
            with contextlib.suppress(OSError):
                other.unlink()


def _still_its_folder(path: Path) -> bool:
    """Whether the folder a manifest names is still there as the folder it was kept for."""
    try:
        found = os.stat(json.loads(path.read_text(encoding="utf-8"))["folder"])
    except FileNotFoundError:
        return False
    except (OSError, ValueError, KeyError, TypeError):
        return True  # unreadable now: left alone
    return path.name.startswith(f"{found.st_dev}-{found.st_ino}-")


def read_manifest(path: Path | None, refuse) -> Manifest | None:
    """The manifest at ``path`` (None if there is none, or the state folder cannot be read: then
    the run removes nothing); ``refuse(why)`` raises for anything at that name that is not a
    manifest textsel wrote."""
    if path is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | _OPEN)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            refuse("is a link")
        return None
    with open(fd, "rb") as stream:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or found.st_nlink != 1:
            refuse("is not a regular file of one link")
        if hasattr(os, "geteuid") and found.st_uid != os.geteuid():
            refuse("belongs to another user")
        data = stream.read(_LARGEST + 1)
    try:
        content = json.loads(data)
        _need(len(data) <= _LARGEST and content["kind"] == _KIND and content["version"] == 2)
        files = {_rel(entry[0]): [int(v) for v in entry[1:]] for entry in content["files"]}
        _need(all(len(ident) == 5 for ident in files.values()))
        folders = {_rel(entry) for entry in content["folders"]}
    except (ValueError, KeyError, TypeError, IndexError):
        refuse("is not in textsel's format")
    return Manifest(files, folders)


def _rel(parts) -> tuple[str, ...]:
    """A relative path inside the folder, as names: none empty, none a way out of the folder."""
    _need(isinstance(parts, list) and len(parts) > 0)
    for name in parts:
        _need(isinstance(name, str) and name not in ("", ".", ".."))
        _need(not any(c in name for c in ("/", "\0", os.sep, os.altsep or "/")))
    return tuple(parts)


def _need(condition: bool) -> None:
    if not condition:
        raise ValueError("not a manifest")
