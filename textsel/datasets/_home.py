"""Where corpora are looked for."""

from __future__ import annotations

import os
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
            "(pass data_home= or set TEXTSEL_DATA to the folder that holds it)"
        )
    return path
