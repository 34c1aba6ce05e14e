"""Labelled raw text as practitioners keep it: CSV, JSON Lines, or a folder per class."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

#: file endings read as each layout
TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t"}
JSONL_SUFFIXES = (".jsonl", ".ndjson")
TEXT_FORMATS = ("auto", "csv", "tsv", "jsonl", "folder")


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
               fmt="auto", encoding="utf-8"):  # fmt: skip
    """Read documents and their labels from a CSV/TSV file, a JSON Lines file, or a folder with
    one sub-folder per class.

    Parameters
    ----------
    path : path
        ``.csv`` / ``.tsv`` (a header row naming the columns), ``.jsonl`` / ``.ndjson`` (one JSON
        object per line), or a folder whose sub-folders are the classes and hold one document
        per file (read with scikit-learn's ``load_files``).
    text_column, label_column : str
        The columns (CSV) or keys (JSON Lines) holding the text and the label.  In JSON Lines the
        label may be a list: several labels for one document.
    label_separator : str, optional
        Split every CSV label on this string (e.g. ``";"``): several labels per row.
    fmt : {"auto", "csv", "tsv", "jsonl", "folder"}
        The layout; "auto" decides by the file ending.
    encoding : str, default "utf-8"
        Undecodable bytes are a ValueError naming the file and the row or document.

    Returns
    -------
    Bunch
        ``texts`` (list of str); ``y``: a 1-D array of label strings, or for multi-label data
        an (n_documents, n_labels) 0/1 indicator matrix; ``target_names`` (the labels, sorted);
        ``multilabel`` (bool); ``sources`` (the file of each document, for a folder).
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    if fmt == "auto":
        fmt = text_format(path)
        if fmt is None:
            raise ValueError(
                f"{path}: unsupported format; raw text is read from .csv, .tsv, .jsonl/.ndjson or a "
                "folder with one sub-folder per class"
            )
    if fmt not in TEXT_FORMATS[1:]:
        raise ValueError(f"fmt must be one of {TEXT_FORMATS}, got {fmt!r}")
    if fmt == "folder":
        return _folder(path, encoding)
    if fmt == "jsonl":
        texts, labels = _jsonl(path, text_column, label_column, encoding)
    else:
        texts, labels = _table(path, TABLE_SUFFIXES[f".{fmt}"], text_column, label_column, encoding)
        if label_separator:
            labels = [[part.strip() for part in label.split(label_separator) if part.strip()]
                      for label in labels]  # fmt: skip
    if not texts:
        raise ValueError(f"{path}: no documents")
    return _assemble(texts, labels, path, sources=None)


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


def _decode_error(path, where, exc):
    return ValueError(f"{path}: {where}: bytes that are not {exc.encoding} at position {exc.start} "
                      "(pass encoding=, e.g. latin-1)")  # fmt: skip


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


def _table(path, delimiter, text_column, label_column, encoding):
    texts, labels = [], []
    try:
        with path.open(newline="", encoding=encoding) as fh:
            reader = csv.DictReader(fh, delimiter=delimiter)
            header = reader.fieldnames or []
            missing = [c for c in (text_column, label_column) if c not in header]
            if missing:
                raise ValueError(
                    f"{path}: no column {', '.join(map(repr, missing))}; the header has {header}"
                )
            for row in reader:
                text, label = row[text_column], row[label_column]
                if text is None or label is None:
                    raise ValueError(f"{path}: row {reader.line_num}: fewer fields than the header")
                label = label.strip()
                if not label:
                    raise ValueError(f"{path}: row {reader.line_num}: the label is empty")
                texts.append(text)
                labels.append(label)
    except UnicodeDecodeError as exc:
        raise _undecodable_line(path, exc) from None
    except csv.Error as exc:
        raise ValueError(f"{path}: not a readable CSV file ({exc})") from None
    return texts, labels


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
    from sklearn.datasets import load_files

    if not any(p.is_dir() for p in path.iterdir()):
        raise ValueError(f"{path}: no sub-folders; a folder of texts holds one sub-folder per class")
    # bytes first, decoded here, so that an undecodable file is named
    bunch = load_files(str(path), load_content=True, encoding=None, shuffle=False)
    if not bunch.filenames.size:
        raise ValueError(f"{path}: the class sub-folders hold no files")
    texts = []
    for raw, name in zip(bunch.data, bunch.filenames, strict=True):
        try:
            texts.append(raw.decode(encoding))
        except UnicodeDecodeError as exc:
            raise _decode_error(name, "the document", exc) from None
    labels = [bunch.target_names[t] for t in bunch.target]
    return _assemble(texts, labels, path, sources=[str(f) for f in bunch.filenames])
