"""Where corpora are looked for."""

from __future__ import annotations

import gzip
import os
import tarfile
import zlib
from contextlib import contextmanager
from pathlib import Path

DEFAULT_DATA_HOME = Path("~/textsel_data")


def get_data_home(data_home=None) -> Path:
    """The folder holding the corpus archives.

    ``data_home`` if given, else the ``TEXTSEL_DATA`` environment variable,
    else ``~/textsel_data``.
    """
    if data_home is None:
        data_home = os.environ.get("TEXTSEL_DATA") or DEFAULT_DATA_HOME
    return Path(data_home).expanduser()


def find_archive(data_home, filename: str) -> Path:
    """Path of ``filename`` in the data home, or FileNotFoundError saying where it looked."""
    home = get_data_home(data_home)
    path = home / filename
    if not path.is_file():
        raise FileNotFoundError(
            f"{filename} not found in data home {home} "
            "(name the folder that holds it: --data-home on the command line, data_home= in Python, "
            "or the TEXTSEL_DATA environment variable)"
        )
    return path


#: what a truncated or corrupt gzip or tar file raises while it is read
CORRUPT_ARCHIVE = (tarfile.TarError, gzip.BadGzipFile, EOFError, zlib.error)


@contextmanager
def reading_archive(path, kind: str = "gzip-compressed tar archive"):
    """Turn the errors of a corrupt or truncated archive, met while ``path`` is read, into one
    ValueError naming the file."""
    try:
        yield
    except CORRUPT_ARCHIVE as exc:
        raise ValueError(f"{path} is not a readable {kind} ({type(exc).__name__}: {exc})") from exc
