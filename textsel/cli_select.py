"""``textsel select`` and ``textsel datasets``: the command line's file-based tools."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from .datasets import get_data_home, load_arff, load_cluto, load_svmlight
from .selection import TermSelector

FORMATS = ("auto", "arff", "svmlight", "cluto")
KNOWN_ARCHIVES = ("reuters21578.tar.gz", "20news-bydate.tar.gz")


def read_matrix(path, fmt="auto", labels=None):
    """(X, y, feature names or None) from an ARFF, SVMlight or CLUTO file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    if fmt == "auto":
        name = path.name.lower()
        fmt = "arff" if ".arff" in name else "cluto" if name.endswith(".mat") else "svmlight"
    if fmt == "arff":
        b = load_arff(path)
        return b.X, b.y, b.feature_names
    if fmt == "cluto":
        if labels is None:
            raise ValueError("a CLUTO matrix needs --labels (its .rclass file)")
        b = load_cluto(path, classes_path=labels)
        return b.X, b.y, b.feature_names
    b = load_svmlight(path)
    return b.X, b.y, None


def run_select(args, out=None):
    """Select terms and write 'rank, column, term, score' as tab-separated lines."""
    out = out or sys.stdout
    X, y, names = read_matrix(args.input, args.format, args.labels)
    k = "all" if args.k == "all" else int(args.k)
    selector = TermSelector(args.metric, k=k, percentile=args.percentile, multiclass=args.multiclass)
    selector.fit(X, y)
    lines = ["rank\tcolumn\tterm\tscore"]
    for rank, column in enumerate(selector.ranking_, 1):
        term = names[column] if names is not None else ""
        lines.append(f"{rank}\t{column}\t{term}\t{selector.scores_[column]:.6g}")
    text = "\n".join(lines) + "\n"
    if args.output:
        Path(args.output).write_text(text)
    else:
        out.write(text)


def _sha256(path):
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run_datasets(args, out=None):
    """List the corpora in the data home, checking SHA256SUMS where the data home has one."""
    out = out or sys.stdout
    home = get_data_home(args.data_home)
    out.write(f"data home: {home}{'' if home.is_dir() else ' (missing)'}\n")
    sums = {}
    if (home / "SHA256SUMS").is_file():
        for line in (home / "SHA256SUMS").read_text().splitlines():
            parts = line.split()
            if len(parts) == 2:
                sums[parts[1].lstrip("*")] = parts[0]
    candidates = [home / name for name in KNOWN_ARCHIVES]
    if home.is_dir():
        candidates += sorted(
            p for p in home.rglob("*") if p.is_file() and p.name.endswith((".arff", ".arff.gz"))
        )
    for path in candidates:
        rel = path.relative_to(home).as_posix()
        if not path.is_file():
            out.write(f"  {rel:<40} missing\n")
            continue
        check = ""
        if rel in sums:
            check = "  checksum ok" if _sha256(path) == sums[rel] else "  CHECKSUM MISMATCH"
        out.write(f"  {rel:<40} {path.stat().st_size / 2**20:8.1f} MB{check}\n")
    return 0
