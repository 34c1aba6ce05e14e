"""Labelled raw text as practitioners keep it: CSV, JSON Lines, or a folder per class."""

from __future__ import annotations

import codecs
import csv
import json
import stat
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from .._checks import plain
from .._names import TEXT_FORMATS

#: file endings read as each layout
TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t"}
JSONL_SUFFIXES = (".jsonl", ".ndjson")


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
    if fmt == "folder":
        found = _folder(path, encoding)
        return (found.texts, found.y) if return_X_y else found
    if fmt == "jsonl":
        positions = [c for c in (text_column, label_column) if _is_position(c)]
        if positions:
            raise ValueError(f"{path}: JSON Lines records are read by key; a column position "
                             f"({positions[0]}) applies to CSV/TSV only (name the keys)")  # fmt: skip
        texts, labels = _jsonl(path, text_column, label_column, encoding)
    else:
        header = _has_header(header, text_column, label_column)
        texts, labels = _table(path, TABLE_SUFFIXES[f".{fmt}"], text_column, label_column, encoding, header)
        if label_separator:
            labels = [[part.strip() for part in label.split(label_separator) if part.strip()]
                      for label in labels]  # fmt: skip
    if not texts:
        raise ValueError(f"{path}: no documents")
    found = _assemble(texts, labels, path, sources=None)
    return (found.texts, found.y) if return_X_y else found


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
    return Bunch(texts=texts, y=y, target_names=names, multilabel=multilabel, sources=sources)


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
        return _read_table(path, delimiter, text_column, label_column, encoding, header, csv.QUOTE_MINIMAL)
    except _Quoting:
        # a tab-separated file whose quotes are not CSV quoting (SMS messages starting with ")
        # is tab-separated values as IANA defines them: one row a line, no quoting
        return _read_table(path, delimiter, text_column, label_column, encoding, header, csv.QUOTE_NONE)


class _Quoting(Exception):
    """A TSV file's quotes are not CSV quoting."""


def _read_table(path, delimiter, text_column, label_column, encoding, header, quoting):
    texts, labels = [], []
    strict = delimiter == "\t" and quoting != csv.QUOTE_NONE
    try:
        with _no_field_limit(), path.open(newline="", encoding=encoding) as fh:
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
                texts.append(text)
                labels.append(label)
    except UnicodeDecodeError as exc:
        raise _undecodable_line(path, exc) from None
    except csv.Error as exc:
        if strict:
            raise _Quoting from None
        raise ValueError(f"{path}: not a readable CSV file ({exc})") from None
    return texts, labels


def _column_index(path, names, column):
    """The position of a named (or numbered) column in the header row, or None when absent."""
    if _is_position(column):
        return int(column) if column < len(names) else None
    if names.count(column) > 1:
        raise ValueError(f"{path}: the header names the column {column!r} {names.count(column)} times; "
                         "which one holds it is ambiguous")  # fmt: skip
    return names.index(column) if column in names else None


def _jsonl(path, text_column, label_column, encoding):
    texts, labels = [], []
    try:
        with path.open(encoding=encoding) as fh:
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
                texts.append(text)
                labels.append(label)
    except UnicodeDecodeError as exc:
        raise _undecodable_line(path, exc) from None
    return texts, labels


def _folder(path, encoding):
    """One class per non-hidden sub-folder, one document per regular, non-hidden file in it;
    anything else (hidden folders such as .git or .ipynb_checkpoints, nested folders, named pipes,
    sockets) is skipped, and a warning says what."""
    skipped = []
    classes = []
    for entry in sorted(path.iterdir()):
        if entry.name.startswith("."):
            skipped.append(entry.name + ("/" if entry.is_dir() else ""))
        elif entry.is_dir():
            classes.append(entry)
    if not classes:
        raise ValueError(f"{path}: no sub-folders; a folder of texts holds one sub-folder per class")
    texts, labels, sources = [], [], []
    for folder in classes:
        for entry in sorted(folder.iterdir()):
            relative = f"{folder.name}/{entry.name}"
            if entry.name.startswith("."):
                skipped.append(relative)
                continue
            try:
                mode = entry.stat().st_mode  # follows a link to what it names
            except OSError:
                skipped.append(relative)
                continue
            if not stat.S_ISREG(mode):  # a folder, a named pipe (reading one would block), a socket
                skipped.append(relative + ("/" if stat.S_ISDIR(mode) else ""))
                continue
            raw = entry.read_bytes()
            try:
                texts.append(raw.decode(encoding))
            except UnicodeDecodeError as exc:
                raise _decode_error(entry, "the document", exc) from None
            labels.append(folder.name)
            sources.append(str(entry))
    if skipped:
        shown = ", ".join(skipped[:5]) + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")
        warnings.warn(f"{path}: skipped {len(skipped)} entries that are hidden or not regular files: {shown}",
                      UserWarning, stacklevel=3)  # fmt: skip
    if not texts:
        raise ValueError(f"{path}: the class sub-folders hold no files")
    return _assemble(texts, labels, path, sources=sources)
