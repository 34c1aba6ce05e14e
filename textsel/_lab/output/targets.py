"""What a name the user gives for an output stands for, decided before any work.

A name is a literal: it is never matched as a pattern, and any name the file system accepts
works (wildcards, brackets, a leading dot, up to the file system's own limit).  A name
following a link stands for the link's final target, which is replaced and the link kept; an
existing target that is not a regular file (a FIFO, a device such as ``/dev/null``) and a
descriptor's name (``-``, ``/dev/stdout``, ``/dev/fd/3``) are written straight into, never
replaced; a target of the wrong kind (a folder where a file goes, or the reverse) is refused.
Only the standard library is imported, so a command can check its output in milliseconds.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

__all__ = [
    "NO_HARD_LINKS",
    "FileTarget",
    "check_folder",
    "descriptor_of",
    "file_target",
    "folder_target",
    "foreign_link",
    "refuse_inputs",
    "write_through",
]

#: what a file system says when it makes no hard links, or none to a file of another owner
NO_HARD_LINKS = {
    errno.EPERM,
    errno.EACCES,
    errno.EXDEV,
    errno.EMLINK,
    errno.ENOSYS,
    errno.EOPNOTSUPP,
    getattr(errno, "ENOTSUP", errno.EOPNOTSUPP),
}

#: names of this process's open descriptors: written through the descriptor itself (a shell's
#: ``>> out`` keeps its offset), never opened anew or replaced
_DESCRIPTOR = re.compile(
    r"/dev/(?:(stdin)|(stdout)|(stderr)|fd/(\d+))|/proc/(self|thread-self|\d+)(?:/task/\d+)?/fd/(\d+)"
)


@dataclass(frozen=True)
class FileTarget:
    """Where one output file goes.

    Attributes
    ----------
    shown : str
        The name as the user gave it, for messages.
    path : Path or None
        The file to write: the name itself, or the final target of the link it names (None for
        a descriptor).
    stream : bool
        Written straight into (a FIFO, a device, a descriptor) rather than replaced.
    descriptor : int or None
        The open descriptor a name like ``/dev/stdout`` stands for.
    """

    shown: str
    path: Path | None
    stream: bool = False
    descriptor: int | None = None


def descriptor_of(name: str) -> int | None:
    """The descriptor a name like ``/dev/stdout``, ``//dev/fd/3`` or ``/proc/self/fd/3`` stands for."""
    match = _DESCRIPTOR.fullmatch(re.sub("^/+", "/", os.path.normpath(name)))
    if match is None or sys.platform == "win32":
        return None
    stdin, stdout, stderr, fd, process, proc_fd = match.groups()
    if process not in (None, "self", "thread-self", str(os.getpid())):
        return None  # another process's descriptor: an ordinary link to its file
    return 0 if stdin else 1 if stdout else 2 if stderr else int(fd if fd is not None else proc_fd)


def _open_descriptor(found: os.stat_result) -> int | None:
    """The lowest of this process's descriptors open on the file or pipe ``found`` (a name
    reaching it through a link to ``/dev/stdout`` or ``/dev/fd/3``, however spelled), if any."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            numbers = sorted(int(n) for n in os.listdir(folder) if n.isdigit())
            break
        except OSError:
            continue
    else:
        numbers = [0, 1, 2]
    for fd in numbers:
        try:
            open_file = os.fstat(fd)
        except OSError:
            continue
        if (open_file.st_dev, open_file.st_ino) == (found.st_dev, found.st_ino):
            return fd
    return None


def _descriptor_target(name: str, fd: int, option: str) -> FileTarget:
    try:
        flags = fcntl.fcntl(fd, fcntl.F_GETFL) if fcntl is not None else os.O_WRONLY
    except OSError:
        raise ValueError(f"{option} {name}: descriptor {fd} is not open") from None
    if flags & os.O_ACCMODE == os.O_RDONLY:
        what = "the standard input" if fd == 0 else f"descriptor {fd}, open for reading only"
        raise ValueError(f"{option} {name}: that is {what}; give a file name, or - for standard output")
    return FileTarget(name, None, stream=True, descriptor=fd)


FOREIGN = "goes through another user's link in a shared folder, which textsel does not follow"


def through_foreign_link(name) -> bool:
    """Whether ``name`` or a folder on its way is :func:`foreign_link`."""
    path = Path(os.path.abspath(name))
    return any(foreign_link(p) for p in (path, *path.parents))


def foreign_link(path) -> bool:
    """Whether ``path`` is a link of another user's in a folder anyone may write into and whose
    entries only their owners may remove (sticky, as ``/tmp``).  Linux refuses to follow such a
    link when a file is opened for writing (``fs.protected_symlinks``): a neighbour's link must
    not send a user's output over one of the user's files; textsel refuses it too."""
    if not hasattr(os, "geteuid"):
        return False
    try:
        link = os.lstat(path)
        folder = os.stat(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return False
    shared = folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
    return bool(stat.S_ISLNK(link.st_mode) and shared and link.st_uid not in (os.geteuid(), folder.st_uid))


def _check_name(name, option: str) -> str:
    if not isinstance(name, (str, os.PathLike)):
        raise TypeError(f"{option} must be a path, got {type(name).__name__}")
    name = os.fspath(name)
    if not name:
        raise ValueError(f"{option}: the name is empty; give a file or folder name")
    if "\0" in name:
        raise ValueError(f"{option} {name!r}: a name cannot hold a NUL character")
    return name


def _stat(path, shown: str, option: str) -> os.stat_result | None:
    """``os.stat`` following links; None where nothing is (a file in the way of a folder is
    found when its folder is checked); a loop or an unreadable path said in a line naming the
    option."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise OSError(f"{option} {shown}: {exc.strerror or exc}") from None


def file_target(name, option: str) -> FileTarget:
    """The target of an output file named ``name`` (``--output``): refused before any work when
    it is a folder, when its folder cannot be written into, or when it is standard input."""
    name = _check_name(name, option)
    if name == "-":
        return _descriptor_target(name, 1, option)
    descriptor = descriptor_of(name)
    if descriptor is not None:
        return _descriptor_target(name, descriptor, option)
    if name.endswith(("/", os.sep)):
        raise ValueError(f"{option} {name}: names a folder; give a file name")
    if through_foreign_link(name):
        raise ValueError(f"{option} {name}: {FOREIGN}")
    found = _stat(name, name, option)  # through every link, /proc's descriptor links included
    if found is not None and stat.S_ISDIR(found.st_mode):
        raise ValueError(f"{option} {name}: is a folder; give a file name")
    device = found is not None and (stat.S_ISCHR(found.st_mode) or stat.S_ISBLK(found.st_mode))
    descriptor = None if found is None or device else _open_descriptor(found)
    if descriptor is not None:
        return _descriptor_target(name, descriptor, option)
    if found is not None and not stat.S_ISREG(found.st_mode):
        return FileTarget(name, Path(name), stream=True)  # a FIFO, a device: opened by the name given
    real = Path(os.path.realpath(name))  # through every link; a dangling one: where it points
    if found is None and real.parts[:2] == ("/", "proc"):
        raise ValueError(f"{option} {name}: names a descriptor that is not open")
    check_folder(real.parent, option, shown=None if real.parent == Path(name).parent else str(real.parent))
    return FileTarget(name, real)


def folder_target(name, option: str) -> Path:
    """The folder an output folder named ``name`` (``--out``) stands for, links followed;
    refused before any work when it is a file, or cannot be created or written into."""
    name = _check_name(name, option)
    if through_foreign_link(name):
        raise ValueError(f"{option} {name}: {FOREIGN}")
    check_folder(name, option)
    return Path(os.path.realpath(name))


def check_folder(folder, option: str, shown: str | None = None) -> None:
    """Refuse a folder that is a file, or whose nearest existing parent cannot be written into,
    with one line naming ``option``."""
    folder = Path(folder)
    shown = str(folder) if shown is None else shown
    found = _stat(folder, shown, option)
    if found is not None and not stat.S_ISDIR(found.st_mode):
        raise ValueError(f"{option} {shown}: exists and is not a folder; give a folder")
    if found is None and folder.is_symlink():
        raise ValueError(f"{option} {shown}: is a link to {os.readlink(folder)}, which does not exist")
    existing = next(p for p in (folder, *folder.parents) if _stat(p, shown, option) is not None)
    if not existing.is_dir():
        raise ValueError(f"{option} {shown}: {existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OSError(f"{option} {shown}: cannot write there (Permission denied)")


def refuse_inputs(written, inputs, option: str, shown: str) -> None:
    """Refuse, before any work, an output that would replace one of the run's ``inputs``: an
    entry of ``written`` (paths, or open descriptors) that is an input file under any name or
    link, or lies inside an input folder (by its path as given or with its links followed).
    Inputs that are not files or folders (a terminal, a pipe) are read once and never replaced."""
    for given in inputs:
        if not isinstance(given, (str, os.PathLike)) or os.fspath(given) in ("", "-"):
            continue
        try:
            source = os.stat(given)
        except (OSError, ValueError):
            continue  # a missing input is said by the reader, in its own words
        folder = stat.S_ISDIR(source.st_mode)
        if not (folder or stat.S_ISREG(source.st_mode)):
            continue
        inside = {Path(os.path.realpath(given)), Path(os.path.abspath(given))} if folder else set()
        for entry in written:
            try:
                found = os.fstat(entry) if isinstance(entry, int) else os.stat(entry)
            except (OSError, ValueError):
                found = None
            if found is not None and (found.st_dev, found.st_ino) == (source.st_dev, source.st_ino):
                raise ValueError(
                    f"{option} {shown}: is the input {os.fspath(given)}; writing there would replace it "
                    "(give another name)"
                )
            if inside and not isinstance(entry, int):
                paths = {Path(os.path.realpath(entry)), Path(os.path.abspath(entry))}
                if any(p == top or top in p.parents for p in paths for top in inside):
                    raise ValueError(
                        f"{option} {shown}: lies inside the input folder {os.fspath(given)}, where it "
                        "would become part of the corpus (give a place outside it)"
                    )


def write_through(target: FileTarget, data: bytes, option: str) -> None:
    """Write ``data`` straight into a stream target: an open descriptor, or an existing FIFO or
    device opened for writing as it is (never created, never truncated, never replaced)."""
    try:
        if target.descriptor is not None:
            if target.descriptor in (1, 2):  # what Python buffered for it goes first
                stream = sys.stdout if target.descriptor == 1 else sys.stderr
                if stream is not None:
                    stream.flush()
            fd = os.dup(target.descriptor)
        else:
            fd = os.open(target.path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise OSError(f"{option} {target.shown}: cannot write there ({exc.strerror or exc})") from None
    with open(fd, "wb") as stream:
        stream.write(data)
