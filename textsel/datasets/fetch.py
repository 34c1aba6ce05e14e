"""Optional downloading of the canonical public archives into the data home, checksummed."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
from pathlib import Path

from ._home import get_data_home

#: name -> (canonical address, SHA-256 of the archive as this project's tests read it)
ARCHIVES = {
    "reuters21578.tar.gz": (
        "https://archive.ics.uci.edu/ml/machine-learning-databases/reuters21578-mld/reuters21578.tar.gz",
        "d98b42a0095e2481df73a66ff9e30229212b277f5d79758d9d9c96b96e9e7fe4",
    ),
    "20news-bydate.tar.gz": (
        "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz",
        "735afafb366bc4b5f2d46324a184057fdebe16a0a300f71170d0588522a919f6",
    ),
}


def fetch(name, data_home=None, url=None, sha256=None, timeout=60):
    """Download archive ``name`` into the data home unless it is already there and intact.

    The download goes to a temporary file in the data home, its SHA-256 is checked, and only
    then is it moved into place: a failed or corrupt download leaves nothing behind.

    Parameters
    ----------
    name : str
        One of :data:`ARCHIVES` (or any file name, with ``url`` and ``sha256`` given).
    url, sha256 : str, optional
        Override the canonical address and checksum (a mirror, or a local ``file://`` copy).

    Returns
    -------
    Path
        The archive in the data home.
    """
    if name in ARCHIVES:
        default_url, default_sum = ARCHIVES[name]
        url, sha256 = url or default_url, sha256 or default_sum
    if url is None or sha256 is None:
        raise ValueError(f"no canonical address for {name!r}: pass url= and sha256=")
    home = get_data_home(data_home)
    home.mkdir(parents=True, exist_ok=True)
    target = home / name
    if target.is_file() and file_sha256(target) == sha256:
        return target
    handle, tmp = tempfile.mkstemp(dir=home, prefix=f".{name}.", suffix=".part")
    os.close(handle)
    try:
        download(url, Path(tmp), name, home, timeout)
        got = file_sha256(tmp)
        if got != sha256:
            raise ValueError(f"{name}: checksum mismatch (expected {sha256}, got {got}); nothing was kept")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return target


def download(url: str, target: Path, name: str, home: Path, timeout) -> None:
    """``url`` copied into the file ``target``; an OSError saying from where, and how to do it by
    hand into ``home``, where it cannot be."""
    try:
        with target.open("wb") as out, urllib.request.urlopen(url, timeout=timeout) as response:
            shutil.copyfileobj(response, out)
    except OSError as exc:  # offline, refused, timed out: say where from, and the way by hand
        reason = getattr(exc, "reason", None) or exc
        raise OSError(f"could not download {name} from {url} ({reason}); download it by hand "
                      f"into {home}") from exc  # fmt: skip


def file_sha256(path) -> str:
    """The SHA-256 of a file, in hex, as ``sha256sum`` prints it: to check a corpus against the
    data home's ``SHA256SUMS`` (``textsel datasets`` does), read a megabyte at a time."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
