"""Inputs that can be read only once: standard input (``-``, ``/dev/stdin``), a pipe given by
name (``<(command)``, ``/dev/fd/3``), a FIFO, a device.

Such an input is read whole into a private temporary file, so that every reader works on it as
on a file; its format is ``--input-format``, else its name's ending (a FIFO named ``docs.csv``),
else what its first lines show: ARFF's ``@relation``, SVMlight's ``label index:value`` lines,
CLUTO's ``rows columns nonzeros`` header, a JSON object per line, or a CSV/TSV header naming the
text column.  gzip and bzip2 are undone first.  What none of these fits is refused in one line
naming ``--input-format``.
"""

from __future__ import annotations

import bz2
import gzip
import os
import re
import stat
import sys
from pathlib import Path

from .._output.targets import descriptor_of

__all__ = ["is_stream", "read_stream", "sniff"]

#: the file ending a saved stream gets, for each format
SUFFIX = {
    "arff": ".arff",
    "svmlight": ".svm",
    "cluto": ".mat",
    "csv": ".csv",
    "tsv": ".tsv",
    "jsonl": ".jsonl",
}
_SVMLIGHT_LINE = re.compile(r"[-+]?[\w.,]+(?:\s+qid:\S+)?(?:\s+\d+:\S+)*\s*(?:#.*)?")
_SVMLIGHT_FEATURE = re.compile(r"\s\d+:\S")
_SHOWN = 64 * 1024  # bytes of a stream looked at to tell its format


def is_stream(path) -> bool:
    """Whether ``path`` names an input that can be read only once."""
    name = os.fspath(path)
    if name == "-" or descriptor_of(name) is not None:
        return True
    try:
        mode = os.stat(name).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def read_stream(path, fmt: str, folder: Path, text_column: str | int = "text") -> Path:
    """Read the stream ``path`` whole into ``folder``; the saved file, named for its format."""
    name = os.fspath(path)
    if fmt == "folder":
        raise ValueError(f"{name}: --input-format folder names a folder of files; a stream is one file")
    if name == "-":
        if sys.stdin is None or sys.stdin.closed:
            raise ValueError("standard input (-) is closed: pipe the data in, or name a file")
        data = sys.stdin.buffer.read()
    else:
        with open(name, "rb") as stream:
            mode = os.fstat(stream.fileno()).st_mode
            device = stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            if device and descriptor_of(name) is None and not stream.isatty():
                raise ValueError(f"{name}: is a device; textsel reads files, pipes, FIFOs and standard input")
            data = stream.read()
    data = _undo_compression(data)
    if fmt == "auto":
        fmt = _format_by_name(name) or sniff(data[:_SHOWN], text_column)
    if fmt not in SUFFIX:
        shown = "standard input (-)" if name == "-" else name
        reason = "it is empty" if not data.strip() else "its first lines fit no format textsel reads"
        raise ValueError(
            f"{shown}: cannot tell the format ({reason}); give --input-format, one of {', '.join(SUFFIX)}"
        )
    saved = folder / f"input{SUFFIX[fmt]}"
    saved.write_bytes(data)
    return saved


def _undo_compression(data: bytes) -> bytes:
    try:
        if data[:2] == b"\x1f\x8b":
            return gzip.decompress(data)
        if data[:3] == b"BZh":
            return bz2.decompress(data)
    except (OSError, EOFError, ValueError) as exc:
        raise ValueError(f"the input looks compressed but cannot be read: {exc}") from None
    return data


def _format_by_name(name: str) -> str | None:
    lower = Path(name).name.lower().removesuffix(".gz").removesuffix(".bz2")
    for fmt, suffix in SUFFIX.items():
        if lower.endswith(suffix) and "." in lower:
            return fmt
    return None


def sniff(head: bytes, text_column: str | int = "text") -> str | None:
    """The format the first bytes of an input show, or None where they show none for sure.

    A CSV/TSV file is one whose header names ``text_column``, or (no header) whose lines hold
    tab-separated fields, as many on every line (``label<TAB>text``), or, when the text column
    is given by position, comma-separated fields so."""
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    lines = [line.strip() for line in text.splitlines()]
    if len(head) >= _SHOWN and lines:
        lines.pop()  # cut short: the last line may be a piece of one
    lines = [line for line in lines if line]
    if not lines:
        return None
    content = [line for line in lines if not line.startswith("%")]
    if content and content[0].lower().startswith("@relation"):
        return "arff"
    if lines[0].startswith("{"):
        return "jsonl"
    first = lines[0].split()
    if len(first) == 3 and all(part.isdigit() for part in first) and len(lines) > 1:
        return "cluto"
    sample = lines[:50]
    if all(_SVMLIGHT_LINE.fullmatch(line) for line in sample) and any(
        _SVMLIGHT_FEATURE.search(line) for line in sample
    ):
        return "svmlight"
    for fmt, separator in (("tsv", "\t"), ("csv", ",")):
        header = [field.strip().strip('"') for field in lines[0].split(separator)]
        if len(header) > 1 and isinstance(text_column, str) and text_column in header:
            return fmt
    if _same_width(sample, "\t"):
        return "tsv"
    if not isinstance(text_column, str) and _same_width(sample, ","):
        return "csv"
    return None


def _same_width(lines, separator: str) -> bool:
    """Whether every line splits into the same number (two or more) of fields: a table's rows."""
    import csv

    try:  # tab-separated values have no quoting; CSV's quotes may hold commas
        rows = [line.split(separator) for line in lines] if separator == "\t" else csv.reader(lines)
        widths = {len(row) for row in rows}
    except csv.Error:
        return False
    return len(widths) == 1 and min(widths) >= 2
