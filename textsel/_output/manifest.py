"""The record of what a run put in an output folder, so that the next run of the same command
removes exactly its own earlier files and nothing else.

A command whose files change from run to run (a study with one metric writes no pair table; a
run without matplotlib draws no figures) keeps ``.textsel-<slug>.manifest`` in its folder: the
files it placed, each with its identity (device, inode, size, modification time), and the
folders it created.  The next run removes an earlier file it does not write again only if the
name still holds that very file, unchanged and not a link: a file the user edited, replaced,
moved in or linked is the user's, and stays.  The manifest is read without following links and
only if it is a regular file of the user's own in textsel's format; anything else at its name is
refused.  Even then, a file it lists is removed only where the command could have written it (a
name the command writes, the user's own file, unchanged): a manifest cannot name the way to
anything else.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

__all__ = ["Manifest", "identity", "read_manifest"]

_KIND = "textsel output manifest"
_OPEN = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
_LARGEST = 1 << 24  # bytes: far beyond any command's list of files


def identity(found: os.stat_result) -> list[int]:
    """What tells one file from another, and from the same file changed."""
    return [found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns]


class Manifest:
    """Files (relative paths as tuples of names, with their identities) and folders a run placed."""

    def __init__(self, files=None, folders=()):
        self.files: dict[tuple[str, ...], list[int]] = dict(files or {})
        self.folders: set[tuple[str, ...]] = set(folders)

    def dumps(self) -> str:
        files = [[list(rel), *ident] for rel, ident in sorted(self.files.items())]
        return (
            json.dumps(
                {"kind": _KIND, "version": 1, "files": files, "folders": sorted(map(list, self.folders))},
                indent=0,
            )
            + "\n"
        )


def read_manifest(path: Path, refuse) -> Manifest | None:
    """The manifest at ``path`` (None if there is none); ``refuse(why)`` raises for anything at
    that name that is not a manifest textsel wrote."""
    try:
        fd = os.open(path, os.O_RDONLY | _OPEN)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            refuse("is a link")
        raise
    with open(fd, "rb") as stream:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or found.st_nlink != 1:
            refuse("is not a regular file of one link")
        if hasattr(os, "geteuid") and found.st_uid != os.geteuid():
            refuse("belongs to another user")
        data = stream.read(_LARGEST + 1)
    try:
        content = json.loads(data)
        _need(len(data) <= _LARGEST and content["kind"] == _KIND and content["version"] == 1)
        files = {_rel(entry[0]): [int(v) for v in entry[1:]] for entry in content["files"]}
        _need(all(len(ident) == 4 for ident in files.values()))
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
