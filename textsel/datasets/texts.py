"""Labelled raw text as practitioners keep it: CSV, JSON Lines, or a folder per class."""

from __future__ import annotations

import codecs
import csv
import json
import stat
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .._checks import plain
from .._errors import warn
from ..names import TEXT_FORMATS
from ._results import LoaderBunch

#: file endings read as each layout
TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t"}
JSONL_SUFFIXES = (".jsonl", ".ndjson")
#: characters of text a file is read in, chunk by chunk (the chunk's strings, their lowercased
#: copies and counts take about 10 bytes a character while it is counted)
CHUNK_CHARS = 6 << 20


def text_format(path) -> str | None:
    """The layout ``path`` is read as (``"csv"``, ``"tsv"``, ``"jsonl"``, ``"folder"``), or None."""
    path = Path(path)
    if path.is_dir():
        return "folder"
    suffix = "".join(path.suffixes[-1:]).lower()
    if suffix in TABLE_SUFFIXES:
        return suffix[1:]
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    return None


def load_texts(path, *, text_column="text", label_column="label", label_separator=None,
               fmt="auto", encoding="utf-8", header="auto", return_X_y=False):  # fmt: skip
    """Read documents and their labels from a CSV/TSV file, a JSON Lines file, or a folder with
    one sub-folder per class.

    Parameters
    ----------
    path : path
        ``.csv`` / ``.tsv`` (with or without a header row), ``.jsonl`` / ``.ndjson`` (one JSON
        object per line), or a folder whose sub-folders are the classes and hold one document
        per file (read with scikit-learn's ``load_files``).
    text_column, label_column : str or int
        The columns (CSV/TSV) or keys (JSON Lines) holding the text and the label: a name from the
        header row, or an int, the column's 0-based position (CSV/TSV only), as pandas'
        ``read_csv(header=None)`` numbers columns.  In JSON Lines the label may be a list: several
        labels for one document.
    header : bool or "auto", default "auto"
        Whether the first row of a CSV/TSV file names the columns.  "auto": it does, unless both
        columns are given by position (``text_column=1, label_column=0`` reads a headerless file
        such as the SMS Spam Collection's ``label<TAB>text`` lines).  ``header=True`` with
        positions skips the first row.  A TSV file whose quotes are not CSV quoting (a message that
        merely starts with ``"``) is read one row a line, quotes kept, as pandas reads it with
        ``quoting=csv.QUOTE_NONE``.
    return_X_y : bool, default False
        Return ``(texts, y)`` instead of a Bunch, as scikit-learn's loaders do.
    label_separator : str, optional
        Split every CSV label on this string (e.g. ``";"``): several labels per row.
    fmt : {"auto", "csv", "tsv", "jsonl", "folder"}
        The layout; "auto" decides by the file ending.
    encoding : str, default "utf-8"
        Undecodable bytes are a ValueError naming the file and the row or document.  A UTF-8
        byte-order mark (what Excel writes) is skipped.

    Returns
    -------
    Bunch
        ``texts`` (list of str); ``y``: a 1-D array of label strings, or for multi-label data
        an (n_documents, n_labels) 0/1 indicator matrix; ``target_names`` (the labels, sorted);
        ``multilabel`` (bool); ``sources`` (the file of each document, for a folder).  With
        ``return_X_y``: ``(texts, y)``.
    """
    path, fmt, encoding, header = _layout(path, fmt, encoding, header, text_column, label_column)
    if fmt == "folder":
        found = _folder(path, encoding)
        return (found.data, found.target) if return_X_y else found
    if fmt == "jsonl":
        texts, labels = _unzip(_jsonl(path, text_column, label_column, encoding, []))
    else:
        texts, labels = _table(path, TABLE_SUFFIXES[f".{fmt}"], text_column, label_column, encoding, header)
        labels = _separated(labels, label_separator)
    if not texts:
        raise ValueError(f"{path}: no documents")
    found = _assemble(texts, labels, path, sources=None)
    return (found.data, found.target) if return_X_y else found


def iter_texts(path, *, text_column="text", label_column="label", label_separator=None, fmt="auto",
               encoding="utf-8", header="auto", chunk_chars=CHUNK_CHARS):  # fmt: skip
    """The documents and labels :func:`load_texts` reads, a chunk at a time: ``(texts, labels,
    (bytes read, bytes in all))`` for about ``chunk_chars`` characters of text each (labels one
    per document, or a list of labels per document where the file gives several).  A ``None`` in
    place of a chunk says the reading starts over from the first document: a TSV file whose quotes
    turn out not to be CSV quoting is read again one row a line (see :func:`load_texts`)."""
    path, fmt, encoding, header = _layout(path, fmt, encoding, header, text_column, label_column)
    if fmt == "folder":
        files = _folder_files(path)
        total = sum(size for _, _, size in files)
        where = [0]
        yield from _chunked(_folder_records(files, encoding, where), where, total, chunk_chars)
        return
    total = path.stat().st_size
    if fmt == "jsonl":
        where = []
        yield from _chunked(
            _jsonl(path, text_column, label_column, encoding, where), where, total, chunk_chars
        )
        return
    delimiter = TABLE_SUFFIXES[f".{fmt}"]
    for quoting in (csv.QUOTE_MINIMAL, csv.QUOTE_NONE):
        where = []
        records = _read_table(path, delimiter, text_column, label_column, encoding, header, quoting, where)
        try:
            yield from _chunked(records, where, total, chunk_chars, label_separator)
            return
        except _Quoting:
            yield None


def _chunked(records, where, total, chunk_chars, label_separator=None):
    """``(texts, labels, (bytes read, total))`` of about ``chunk_chars`` characters each."""
    texts, labels, size = [], [], 0
    for text, label in records:
        texts.append(text)
        labels.append(label)
        size += len(text)
        if size >= chunk_chars:
            yield texts, _separated(labels, label_separator), (_position(where), total)
            texts, labels, size = [], [], 0
    if texts:
        yield texts, _separated(labels, label_separator), (total, total)


def _position(where) -> int:
    """Bytes read so far of the file ``where`` holds (its raw file, once opened)."""
    try:
        return where[0].tell() if where and hasattr(where[0], "tell") else (where[0] if where else 0)
    except (OSError, ValueError):
        return 0


def _unzip(records):
    texts, labels = [], []
    for text, label in records:
        texts.append(text)
        labels.append(label)
    return texts, labels


def _separated(labels, label_separator):
    """Each label split on ``label_separator`` (several labels per row), or as it is."""
    if not label_separator:
        return labels
    return [[part.strip() for part in label.split(label_separator) if part.strip()] for label in labels]


def _layout(path, fmt, encoding, header, text_column, label_column):
    """(path, layout, codec, whether a table has a header) for ``load_texts``' arguments, checked."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    encoding = _checked_encoding(encoding)
    if fmt == "auto":
        fmt = text_format(path)
        if fmt is None:
            raise ValueError(
                f"{path}: unsupported format; raw text is read from .csv, .tsv, .jsonl/.ndjson or a "
                "folder with one sub-folder per class"
            )
    if fmt not in TEXT_FORMATS[1:]:
        raise ValueError(f"fmt must be one of {TEXT_FORMATS}, got {plain(fmt)!r}")
    if fmt == "jsonl":
        positions = [c for c in (text_column, label_column) if _is_position(c)]
        if positions:
            raise ValueError(f"{path}: JSON Lines records are read by key; a column position "
                             f"({positions[0]}) applies to CSV/TSV only (name the keys)")  # fmt: skip
    elif fmt != "folder":
        header = _has_header(header, text_column, label_column)
    return path, fmt, encoding, header


def _opened(path, encoding, where, newline=None):
    """``path`` as text; its raw file put in ``where``, to say how far the reading is."""
    import io

    raw = open(path, "rb", buffering=0)  # noqa: SIM115 (closed with the text file wrapping it)
    where[:] = [raw]
    return io.TextIOWrapper(io.BufferedReader(raw, 1 << 20), encoding=encoding, newline=newline)


def _assemble(texts, labels, path, sources):
    multilabel = any(isinstance(label, list) for label in labels)
    if multilabel:
        from sklearn.preprocessing import MultiLabelBinarizer

        binarizer = MultiLabelBinarizer()
        y = binarizer.fit_transform([label if isinstance(label, list) else [label] for label in labels])
        names = [str(c) for c in binarizer.classes_]
        if not names:
            raise ValueError(f"{path}: no document has a label")
    else:
        y = np.asarray(labels, dtype=str)
        names = sorted(set(y.tolist()))
    return LoaderBunch(data=texts, target=y, target_names=names, multilabel=multilabel, sources=sources)


def _checked_encoding(encoding) -> str:
    """The codec to read with: a known one, and UTF-8 as "utf-8-sig" so that a byte-order mark
    is not read as part of the first header name or document."""
    try:
        name = codecs.lookup(encoding).name
    except (LookupError, TypeError):
        raise ValueError(
            f"encoding: {encoding!r} is not a text encoding Python knows (e.g. utf-8, latin-1)"
        ) from None
    return "utf-8-sig" if name == "utf-8" else encoding


def _decode_error(path, where, exc):
    encoding = "utf-8" if exc.encoding == "utf-8-sig" else exc.encoding
    return ValueError(f"{path}: {where}: bytes that are not {encoding} at position {exc.start} "
                      "(name the file's encoding, e.g. latin-1: --encoding on the command line, "
                      "encoding= in Python)")  # fmt: skip


@contextmanager
def _no_field_limit():
    """Lift the csv module's 131,072-character field limit while a table is read (a document
    may be a whole book), and put the caller's limit back afterwards."""
    previous = csv.field_size_limit()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _undecodable_line(path, exc):
    """The error for a text file that does not decode, naming the line of the first bad byte (a
    text stream decodes ahead in blocks, so the row being read when it fails is not that line)."""
    raw = Path(path).read_bytes()
    try:
        raw.decode(exc.encoding)
    except UnicodeDecodeError as first:
        line = raw[: first.start].count(b"\n") + 1
        return _decode_error(path, f"line {line}", first)
    return _decode_error(path, "a line", exc)


def _is_position(column) -> bool:
    """Whether a column is given by position (an int, as pandas numbers a headerless file's)."""
    return isinstance(column, (int, np.integer)) and not isinstance(column, bool)


def _has_header(header, text_column, label_column) -> bool:
    """Whether a table's first row is its header: as said, or ("auto") unless both columns are
    given by position."""
    for column in (text_column, label_column):
        if _is_position(column) and column < 0:
            raise ValueError(f"a column position is 0 or more (the first column is 0), got {column}")
        if not _is_position(column) and not isinstance(column, str):
            raise ValueError(f"a column is a name (str) or a 0-based position (int), got {plain(column)!r}")
    if header == "auto":
        return not (_is_position(text_column) and _is_position(label_column))
    if not isinstance(header, (bool, np.bool_)):
        raise ValueError(f"header must be True, False or 'auto', got {plain(header)!r}")
    names = [c for c in (text_column, label_column) if not _is_position(c)]
    if not header and names:
        raise ValueError(f"the column {names[0]!r} is a name, but the file has no header row (header=False, "
                         "--no-header): give columns by 0-based position")  # fmt: skip
    return bool(header)


#: how a table's columns are named in errors: the options that name them, in Python and on the command line
_NAME_THEM = ("name the columns with --text-column/--label-column (text_column=/label_column= in Python): "
              "names from the header, or 0-based positions, which read a file without a header")  # fmt: skip


def _shown(fields, limit=8) -> str:
    cut = [f if len(f) <= 40 else f[:37] + "..." for f in fields[:limit]]
    return repr(cut)[:-1] + (f", ... ({len(fields)} columns)]" if len(fields) > limit else "]")


def _table(path, delimiter, text_column, label_column, encoding, header=True):
    try:
        return _unzip(
            _read_table(path, delimiter, text_column, label_column, encoding, header, csv.QUOTE_MINIMAL)
        )
    except _Quoting:
        # a tab-separated file whose quotes are not CSV quoting (SMS messages starting with ")
        # is tab-separated values as IANA defines them: one row a line, no quoting
        return _unzip(
            _read_table(path, delimiter, text_column, label_column, encoding, header, csv.QUOTE_NONE)
        )


class _Quoting(Exception):
    """A TSV file's quotes are not CSV quoting."""


def _read_table(path, delimiter, text_column, label_column, encoding, header, quoting, where=None):
    """Each row's (text, label)."""
    strict = delimiter == "\t" and quoting != csv.QUOTE_NONE
    try:
        with _no_field_limit(), _opened(path, encoding, [] if where is None else where, newline="") as fh:
            reader = csv.reader(fh, delimiter=delimiter, quoting=quoting, strict=strict)
            if header:
                names = next(reader, [])
                columns = [_column_index(path, names, c) for c in (text_column, label_column)]
                missing = [c for c, i in zip((text_column, label_column), columns, strict=True) if i is None]
                if missing:
                    raise ValueError(f"{path}: no column {', '.join(map(repr, missing))}; the header has "
                                     f"{_shown(names)}; {_NAME_THEM}")  # fmt: skip
            else:
                columns = [text_column, label_column]
            text_at, label_at = columns
            for row in reader:
                if not row:  # a blank line
                    continue
                if len(row) <= max(text_at, label_at):
                    wanted = "the header" if header else f"column {max(text_at, label_at)}"
                    raise ValueError(f"{path}: row {reader.line_num}: fewer fields than {wanted} "
                                     f"({len(row)}: {_shown(row, 4)}); {_NAME_THEM}")  # fmt: skip
                text, label = row[text_at], row[label_at].strip()
                if not label:
                    raise ValueError(f"{path}: row {reader.line_num}: the label is empty")
                yield text, label
    except UnicodeDecodeError as exc:
        raise _undecodable_line(path, exc) from None
    except csv.Error as exc:
        if strict:
            raise _Quoting from None
        raise ValueError(f"{path}: not a readable CSV file ({exc})") from None


def _column_index(path, names, column):
    """The position of a named (or numbered) column in the header row, or None when absent."""
    if _is_position(column):
        return int(column) if column < len(names) else None
    if names.count(column) > 1:
        raise ValueError(f"{path}: the header names the column {column!r} {names.count(column)} times; "
                         "which one holds it is ambiguous")  # fmt: skip
    return names.index(column) if column in names else None


def _jsonl(path, text_column, label_column, encoding, where):
    """Each line's (text, label or list of labels)."""
    try:
        with _opened(path, encoding, where) as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}: line {lineno}: not JSON ({exc.msg})") from None
                except RecursionError:
                    raise ValueError(f"{path}: line {lineno}: JSON nested too deeply to read") from None
                if not isinstance(record, dict):
                    raise ValueError(f"{path}: line {lineno}: expected a JSON object")
                missing = [c for c in (text_column, label_column) if c not in record]
                if missing:
                    raise ValueError(f"{path}: line {lineno}: no key {', '.join(map(repr, missing))}")
                text, label = record[text_column], record[label_column]
                if not isinstance(text, str):
                    raise ValueError(f"{path}: line {lineno}: {text_column!r} must be a string")
                if isinstance(label, list):
                    if not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in label):
                        raise ValueError(f"{path}: line {lineno}: labels must be strings or integers")
                    label = sorted({str(v).strip() for v in label if str(v).strip()})
                elif isinstance(label, (str, int)) and not isinstance(label, bool):
                    label = str(label).strip()
                    if not label:
                        raise ValueError(f"{path}: line {lineno}: the label is empty")
                else:
                    raise ValueError(f"{path}: line {lineno}: {label_column!r} must be a string, "
                                     "an integer or a list of them")  # fmt: skip
                yield text, label
    except UnicodeDecodeError as exc:
        raise _undecodable_line(path, exc) from None


def _folder(path, encoding):
    """One class per non-hidden sub-folder, one document per regular, non-hidden file in it (see
    :func:`_folder_files`)."""
    files = _folder_files(path)
    texts, labels = _unzip(_folder_records(files, encoding))
    return _assemble(texts, labels, path, sources=[str(entry) for entry, _, _ in files])


def _folder_files(path):
    """(file, class, size) of each document of a folder per class; anything else (hidden folders
    such as .git or .ipynb_checkpoints, nested folders, named pipes, sockets) is skipped, and a
    warning says what."""
    skipped = []
    classes = []
    for entry in sorted(path.iterdir()):
        if entry.name.startswith("."):
            skipped.append(entry.name + ("/" if entry.is_dir() else ""))
        elif entry.is_dir():
            classes.append(entry)
    if not classes:
        raise ValueError(f"{path}: no sub-folders; a folder of texts holds one sub-folder per class")
    files = []
    for folder in classes:
        for entry in sorted(folder.iterdir()):
            relative = f"{folder.name}/{entry.name}"
            if entry.name.startswith("."):
                skipped.append(relative)
                continue
            try:
                info = entry.stat()  # follows a link to what it names
            except OSError:
                skipped.append(relative)
                continue
            if not stat.S_ISREG(info.st_mode):  # a folder, a named pipe (reading one would block), a socket
                skipped.append(relative + ("/" if stat.S_ISDIR(info.st_mode) else ""))
                continue
            files.append((entry, folder.name, info.st_size))
    if skipped:
        shown = ", ".join(skipped[:5]) + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")
        warn(f"{path}: skipped {len(skipped)} entries that are hidden or not regular files: {shown}")
    if not files:
        raise ValueError(f"{path}: the class sub-folders hold no files")
    return files


def _folder_records(files, encoding, where=None):
    """Each file's (text, class); the bytes read so far in ``where[0]``."""
    for entry, label, size in files:
        if where is not None:
            where[0] += size
        raw = entry.read_bytes()
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as exc:
            raise _decode_error(entry, "the document", exc) from None
        yield text, label
