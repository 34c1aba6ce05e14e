"""Inputs that can be read only once: standard input (``-``, ``/dev/stdin``), a pipe given by
name (``<(command)``, ``/dev/fd/3``), a FIFO, a device.

Such an input is copied into a private temporary file, so that every reader works on it as on a
file; its format is ``--input-format``, else its name's ending (a FIFO named ``docs.csv``), else
what its first lines show: ARFF's ``@relation``, SVMlight's ``label index:value`` lines, CLUTO's
``rows columns nonzeros`` header, a JSON object per line, or a CSV/TSV header naming the text
column.  gzip and bzip2, told by their magic numbers, are undone a piece at a time, the format told
from the first piece: the memory a stream takes does not grow with its size, and one that fits no
format (or holds NUL bytes, which no text format does) is refused before the rest is undone, in
one line naming ``--input-format``.  An error about the private copy names what the user gave.
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import os
import re
import stat
import sys
import warnings
import zlib
from contextlib import contextmanager
from pathlib import Path

from .._lab.output.targets import descriptor_of

__all__ = ["as_given", "compression_of", "given_name", "is_stream", "read_stream", "sniff"]

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
_PIECE = 1 << 20  # bytes undone and copied at a time: what a stream holds in memory, whatever its size
#: bzip2: "BZh", the block size (a digit 1-9), then a block's magic number (pi) or the end of the
#: stream's (sqrt(pi)); gzip: its two magic bytes and deflate, the only method defined
_BZIP2_BLOCKS = (bytes.fromhex("314159265359"), bytes.fromhex("177245385090"))
_MAGIC = 10  # bytes that tell bzip2 for sure


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


def given_name(path) -> str:
    """How errors name an input: ``standard input (-)``, else the name the user gave."""
    name = os.fspath(path)
    return "standard input (-)" if name == "-" else name


def read_stream(
    path, fmt: str, folder: Path, text_column: str | int = "text", encoding: str = "utf-8"
) -> Path:
    """Copy the stream ``path`` into ``folder``, gzip or bzip2 undone; the saved file, named for
    its format.  The format is told from the first piece, before the rest is read."""
    name, shown = os.fspath(path), given_name(path)
    if fmt == "folder":
        raise ValueError(f"{name}: --input-format folder names a folder of files; a stream is one file")
    with _opened(name) as raw:
        head = _read_up_to(raw.read, _MAGIC)
        kind = compression_of(head)
        source = _Prefixed(head, raw)
        if kind == "gzip":
            source = gzip.GzipFile(fileobj=source, mode="rb")
        elif kind == "bzip2":
            source = bz2.BZ2File(source, mode="rb")
        read = _undoing(source.read, kind, shown)
        first = _read_up_to(read, _SHOWN)
        if fmt == "auto":
            fmt = _format_by_name(name) or sniff(first, text_column)
        if fmt not in SUFFIX:
            reason = "it is empty" if not first.strip() else "its first lines fit no format textsel reads"
            raise ValueError(
                f"{shown}: cannot tell the format ({reason}); give --input-format, one of {', '.join(SUFFIX)}"
            )
        _check_text(first, fmt, shown, encoding)
        saved = folder / f"input{SUFFIX[fmt]}"
        try:
            with open(saved, "wb") as out:
                out.write(first)
                for piece in iter(lambda: read(_PIECE), b""):
                    out.write(piece)
        except OSError as exc:  # the temporary folder is full: said as such, not as the output's fault
            raise OSError(
                f"{shown}: cannot keep a copy in the temporary folder {folder.parent} "
                f"({exc.strerror or exc}); set TMPDIR to a folder with room"
            ) from None
    return saved


@contextmanager
def _opened(name: str):
    """The stream as a binary file object: standard input's, or the named pipe, FIFO or file."""
    if name == "-":
        if sys.stdin is None or sys.stdin.closed:
            raise ValueError("standard input (-) is closed: pipe the data in, or name a file")
        yield sys.stdin.buffer
        return
    with open(name, "rb") as stream:
        mode = os.fstat(stream.fileno()).st_mode
        device = stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        if device and descriptor_of(name) is None and not stream.isatty():
            raise ValueError(f"{name}: is a device; textsel reads files, pipes, FIFOs and standard input")
        yield stream


def compression_of(head: bytes) -> str | None:
    """The compression whose magic numbers the first bytes of an input are, "gzip" or "bzip2",
    else None: text that merely begins with ``BZh`` (a label, a word) is text."""
    if head[:3] == b"\x1f\x8b\x08":
        return "gzip"
    if len(head) >= _MAGIC and head[:3] == b"BZh" and head[3] in b"123456789" and head[4:10] in _BZIP2_BLOCKS:
        return "bzip2"
    return None


class _Prefixed:
    """A stream with the bytes already read from it (to tell its compression) put back in front."""

    def __init__(self, head: bytes, stream):
        self._head, self._stream = head, stream

    def read(self, size: int = -1) -> bytes:
        if not self._head:
            return self._stream.read(size)
        cut = len(self._head) if size is None or size < 0 else size
        piece, self._head = self._head[:cut], self._head[cut:]
        return piece


def _undoing(read, kind: str | None, shown: str):
    """``read``, with compressed data that cannot be undone (cut short, corrupt) said in one line
    naming the input; only reads are caught, so that a full disk stays the OSError it is."""
    if kind is None:
        return read

    def undone(size: int) -> bytes:
        try:
            return read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise ValueError(f"{shown}: {kind} data that cannot be undone: {exc}") from None

    return undone


def _read_up_to(read, size: int) -> bytes:
    """``size`` bytes, fewer only at the end of the stream (a pipe may give fewer at a time)."""
    pieces, got = [], 0
    while got < size:
        piece = read(size - got)
        if not piece:
            break
        pieces.append(piece)
        got += len(piece)
    return b"".join(pieces)


def _check_text(first: bytes, fmt: str, shown: str, encoding: str) -> None:
    """Refuse a stream whose first piece holds NUL bytes: no format textsel reads is binary, and
    the rest (a compression bomb's zeros, an archive) would be copied whole and then read as one
    line.  UTF-16 and UTF-32 text holds NUL bytes, so a table in those encodings is let through."""
    try:
        wide = codecs.lookup(encoding).name.startswith(("utf-16", "utf-32"))
    except LookupError:
        wide = False
    if b"\0" in first and not (wide and fmt in ("csv", "tsv", "jsonl")):
        raise ValueError(
            f"{shown}: not {fmt} text: its first {len(first):,} bytes hold NUL bytes (binary data, or "
            "compression other than gzip and bzip2); give --input-format for another format, or "
            "--encoding for UTF-16 or UTF-32 text"
        )


@contextmanager
def as_given(saved: Path, shown: str):
    """Errors and warnings raised while ``saved``, the private copy of an input, is read name
    ``shown``, what the user gave, instead: the copy is gone by the time the message is read."""
    private = str(saved)
    caught = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            yield
    except (ValueError, TypeError, OSError) as exc:
        message = str(exc)
        if private not in message:
            raise
        try:
            renamed = type(exc)(message.replace(private, shown))
        except Exception:  # a kind of exception that takes more than a message: keep its family
            renamed = (OSError if isinstance(exc, OSError) else ValueError)(message.replace(private, shown))
        raise renamed from None
    finally:
        for warning in caught:  # said again, after the recording, under the user's name
            warnings.warn(str(warning.message).replace(private, shown), warning.category, stacklevel=3)


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
