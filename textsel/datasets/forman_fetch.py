"""Forman's nineteen sets downloaded as he published them (one zip archive of Weka's data sets) and
kept only once every set is his table's: no checksum was ever published for the archive."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import tempfile
import zipfile
from pathlib import Path

from ._home import get_data_home
from .fetch import download
from .forman import _ARFF_FOLDER, _SPARSE_FOLDER, FORMAN_SETS, load_forman

#: the archive of Forman's sets on Weka's data set page ("19 multi-class (1-of-n) text datasets
#: donated by Dr George Forman", 14,084,828 bytes)
FORMAN_ARCHIVE = "19MclassTextWc.zip"
FORMAN_URL = "https://sourceforge.net/projects/weka/files/datasets/text-datasets/19MclassTextWc.zip/download"


def fetch_forman(data_home=None, url=None, timeout=60) -> list[Path]:
    """Download Forman's archive and keep each of his 19 sets in the data home, checked.

    The archive goes to a temporary file in the data home.  Every set is taken from it (the ARFF
    layout ``<name>.wc.arff``, or the sparse text layout ``sparse_<name>.txt`` with
    ``<name>_correct.txt``, in any folder of the archive), written to a private staging folder and
    read there by :func:`~textsel.datasets.load_forman`, which checks its documents, words and
    class sizes against Forman's Appendix A.  Only when all 19 pass are they moved into
    ``forman-arff/`` (gzip-compressed) or ``forman-cluto/<name>/``; otherwise nothing is kept and
    the error names the set and what differs.  A set already in the data home is left as it is.

    Parameters
    ----------
    data_home : path, optional
        Where the sets go (default: ``TEXTSEL_DATA``, else ``~/textsel_data``).
    url : str, optional
        Another address for the same archive (a mirror, or a local ``file://`` copy).
    timeout : float, default 60
        Seconds to wait for the server.

    Returns
    -------
    list of Path
        Each set's file in the data home (the ARFF file, or the sparse matrix's), by set name.
    """
    home = get_data_home(data_home)
    home.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(dir=home, prefix=".forman-fetch."))
    try:
        archive = stage / FORMAN_ARCHIVE
        download(url or FORMAN_URL, archive, FORMAN_ARCHIVE, home, timeout)
        staged = _staged_sets(archive, stage)
        for name in sorted(FORMAN_SETS):
            try:
                load_forman(name, data_home=stage)
            except ValueError as exc:
                raise ValueError(f"{FORMAN_ARCHIVE}: {exc}; nothing was kept") from None
        return [_kept(staged[name], stage, home) for name in sorted(FORMAN_SETS)]
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _staged_sets(archive: Path, stage: Path) -> dict:
    """Every set of the archive written under ``stage`` as the data home lays it out; by name, the
    files it wrote (relative to ``stage``).  A set missing from it is a ValueError."""
    try:
        zipped = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValueError(f"{FORMAN_ARCHIVE}: not a readable zip archive ({exc}; a download cut short?); "
                         "nothing was kept") from None  # fmt: skip
    staged = {}
    with zipped:
        members = {Path(info.filename).name: info for info in zipped.infolist() if not info.is_dir()}
        for name in FORMAN_SETS:
            arff = members.get(f"{name}.wc.arff") or members.get(f"{name}.wc.arff.gz")
            sparse, classes = members.get(f"sparse_{name}.txt"), members.get(f"{name}_correct.txt")
            if arff is not None:
                staged[name] = [_written_arff(zipped, arff, stage / _ARFF_FOLDER / f"{name}.wc.arff.gz")]
            elif sparse is not None and classes is not None:
                folder = stage / _SPARSE_FOLDER / name
                staged[name] = [_written(zipped, member, folder / Path(member.filename).name)
                                for member in (sparse, classes)]  # fmt: skip
            else:
                raise ValueError(f"{FORMAN_ARCHIVE} holds no {name}.wc.arff (nor sparse_{name}.txt with "
                                 f"{name}_correct.txt): not Forman's archive; nothing was kept")  # fmt: skip
    return {name: [path.relative_to(stage) for path in paths] for name, paths in staged.items()}


def _written(zipped, member, target: Path, compressed: bool = False) -> Path:
    """A member of the archive written to ``target`` (gzip-compressed where ``compressed``)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with zipped.open(member) as src, (gzip.open if compressed else open)(target, "wb") as out:
            shutil.copyfileobj(src, out, 1 << 20)
    except (zipfile.BadZipFile, EOFError, OSError) as exc:
        raise ValueError(f"{FORMAN_ARCHIVE}: {member.filename} cannot be read ({exc}); "
                         "nothing was kept") from None  # fmt: skip
    return target


def _written_arff(zipped, member, target: Path) -> Path:
    """An ARFF member gzip-compressed as the data home keeps it (a .gz member as it is)."""
    return _written(zipped, member, target, compressed=not member.filename.endswith(".gz"))


def _kept(files: list, stage: Path, home: Path) -> Path:
    """A checked set's files moved from the staging folder into the data home, except where the
    data home already holds the set; its main file in the data home."""
    first = home / files[0]
    if _held(home, first):
        return first
    for relative in files:
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        os.replace(stage / relative, home / relative)
    return first


def _held(home: Path, path: Path) -> bool:
    """Whether the data home already holds the set ``path`` would be (in either layout)."""
    name = re.sub(r"^sparse_|\.wc\.arff\.gz$|\.txt$", "", path.name)
    return any(p.is_file() for p in (home / _ARFF_FOLDER / f"{name}.wc.arff",
                                     home / _ARFF_FOLDER / f"{name}.wc.arff.gz",
                                     home / _SPARSE_FOLDER / name / f"sparse_{name}.txt"))  # fmt: skip
