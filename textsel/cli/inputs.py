"""What every sub-command reads: a labelled matrix file or raw text, and the options naming them."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from ..names import MATRIX_FORMATS, METRICS, TEXT_FORMATS
from .streams import _SHOWN, as_given, given_name, is_stream, read_stream, sniff

FORMATS = MATRIX_FORMATS
INPUT_FORMATS = FORMATS + tuple(f for f in TEXT_FORMATS if f != "auto")
DATA_HOME_HELP = "folder holding the corpus archives (default: $TEXTSEL_DATA, else ~/textsel_data)"
LABELS_HELP = "a CLUTO matrix's row classes (default: the .rclass file beside it)"
TERMS_HELP = "a CLUTO matrix's column labels (default: the .clabel file beside it)"


def metric_list(text: str) -> list[str]:
    names = [m.strip() for m in text.split(",") if m.strip()]
    bad = [m for m in names if m not in METRICS]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"unknown metric(s) {bad}; choose from {', '.join(METRICS)}")
    return names


def positive_int(text: str) -> int:
    """An option that counts something: an integer >= 1 (argparse turns an error into exit code 2)."""
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def seed(text: str) -> int:
    """``--seed``: an integer in [0, 2**32), the seeds numpy's and scikit-learn's generators take;
    checked as the options are read, so that no sub-command reads data to fail on it."""
    value = text.strip()
    if not value.isdigit() or int(value) >= 2**32:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, 2**32), got {text!r}")
    return int(value)


def command_mode(flag) -> str | None:
    """The mode of a command's ``--progress`` / ``--no-progress`` (None when neither is given):
    none with ``--no-progress``, else a bar where stderr is a terminal and a line per stage where
    it is not (a log, a pipe, a CI job), so that a long run is never silent until it ends."""
    if flag is False:
        return None
    return "bar" if sys.stderr is not None and sys.stderr.isatty() else "lines"


#: ``--n-jobs``'s help, the same for every sub-command having it
N_JOBS_HELP = ("-1 (the default): every core this process may use; a count above those cores is "
               "capped at them; 0 and other negative counts are refused")  # fmt: skip


def n_jobs(text: str) -> int:
    """``--n-jobs``: -1 or a count, checked and capped at the cores as the library's ``n_jobs``
    is (:func:`textsel.check_n_jobs`), as the options are read."""
    from .. import check_n_jobs
    from ..names import N_JOBS_RULE

    try:
        return check_n_jobs(int(text.strip()), "--n-jobs")
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {N_JOBS_RULE}, got {text!r}") from None


def ks_list(text: str) -> list[int]:
    """``--ks``: comma-separated positive integers (argparse turns an error into exit code 2)."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"expected comma-separated positive integers, got {text!r}")
    return sorted({int(p) for p in parts})


#: endings that say SVMlight; ".txt", ".dat", ".data" and no ending say nothing sure (text uses them too)
SVMLIGHT_SUFFIXES = (".svm", ".svmlight", ".libsvm", ".scale", ".t")
UNTOLD_SUFFIXES = (".txt", ".dat", ".data")
SUPPORTED = ("ARFF (.arff, .arff.gz), SVMlight (.svm, .svmlight, .libsvm), CLUTO (.mat) and raw text "
             "(.csv, .tsv, .jsonl, a folder with one sub-folder per class); a file whose name has no "
             "ending (or .txt, .dat, .data) is recognized by its first lines")  # fmt: skip
FORMAT_CHOICES = ", ".join(f for f in INPUT_FORMATS if f != "auto")


def matrix_format(path) -> str | None:
    """The matrix format a file name says (compressed SVMlight included), None where the name
    says nothing sure (no ending, .txt, .dat, .data: see :func:`input_format`), or a ValueError
    naming the formats textsel reads."""
    name = Path(path).name.lower()
    if name.endswith((".arff", ".arff.gz")):
        return "arff"
    if name.endswith(".mat"):
        return "cluto"
    stem = name.removesuffix(".gz").removesuffix(".bz2")
    if stem.endswith(SVMLIGHT_SUFFIXES):
        return "svmlight"
    if "." not in stem or stem.endswith(UNTOLD_SUFFIXES):
        return None
    raise ValueError(f"{path}: unsupported format; textsel reads {SUPPORTED} (or give --input-format, "
                     f"one of {FORMAT_CHOICES})")  # fmt: skip


def input_format(path, text_column="text") -> str:
    """The format of ``path`` when --input-format is auto: what its name says, else what its first
    lines show (``label<TAB>text`` lines are TSV, ``label index:value`` lines SVMlight), else
    SVMlight (textsel's reading before the content was looked at), whose failure names
    --input-format."""
    from ..datasets.texts import text_format

    by_name = text_format(path) or _compressed_text(path) or matrix_format(path)
    if by_name is not None:
        return by_name
    return sniff(_head(path), text_column) or "svmlight?"


def _compressed_text(path) -> str | None:
    """The text layout a compressed file's name says (``docs.csv.gz``: "csv"), or None."""
    from ..datasets.texts import JSONL_SUFFIXES, TABLE_SUFFIXES

    name = Path(path).name.lower()
    if not name.endswith((".gz", ".bz2")):
        return None
    suffix = Path(name.removesuffix(".gz").removesuffix(".bz2")).suffix
    return suffix[1:] if suffix in TABLE_SUFFIXES else "jsonl" if suffix in JSONL_SUFFIXES else None


def _head(path) -> bytes:
    """The first bytes of a file, gzip or bzip2 undone."""
    import bz2
    import gzip

    name = str(path).lower()
    opener = gzip.open if name.endswith(".gz") else bz2.open if name.endswith(".bz2") else open
    try:
        with opener(path, "rb") as fh:
            return fh.read(_SHOWN)
    except (OSError, EOFError, ValueError):
        return b""


def _beside(path: Path, given, suffix: str):
    """A CLUTO companion file: the one given, else ``<matrix><suffix>`` when it exists."""
    if given is not None:
        return given
    candidate = path.with_name(path.name + suffix)
    return candidate if candidate.is_file() else None


def read_matrix(path, fmt="auto", labels=None, terms=None):
    """(X, y, feature names or None) from an ARFF, SVMlight or CLUTO file.  A CLUTO matrix's
    row classes and column labels default to the ``.rclass`` and ``.clabel`` files beside it."""
    from ..datasets import load_arff, load_cluto, load_svmlight

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    if fmt == "auto":
        fmt = matrix_format(path) or "svmlight?"
    if fmt == "arff":
        b = load_arff(path)
        return b.data, b.target, b.feature_names
    if fmt == "cluto":
        labels = _beside(path, labels, ".rclass")
        if labels is None:
            raise ValueError(f"a CLUTO matrix needs --labels (its .rclass file; none at {path}.rclass)")
        b = load_cluto(path, classes_path=labels, terms_path=_beside(path, terms, ".clabel"))
        return b.data, b.target, b.feature_names
    try:
        b = load_svmlight(path)
    except ValueError as exc:
        if fmt == "svmlight?":  # guessed: the name says nothing and the first lines show no format
            raise ValueError(f"{path}: cannot tell the format (its name has no ending textsel knows and "
                             f"its first lines fit no format; read as SVMlight: {exc}); give "
                             f"--input-format, one of {FORMAT_CHOICES}") from None  # fmt: skip
        raise ValueError(f"{path}: not readable as SVMlight ({exc}); if it is another format, give "
                         f"--input-format, one of {FORMAT_CHOICES}") from None  # fmt: skip
    return b.data, b.target, None


def is_text_input(path, fmt="auto") -> bool:
    """Whether ``path`` is raw text (CSV/TSV, JSON Lines, a folder per class), by ``fmt`` or name."""
    from ..datasets.texts import text_format

    if fmt != "auto":
        return fmt in TEXT_FORMATS
    return text_format(path) is not None


def read_dataset(args, path, fmt="auto", labels=None, terms=None, counted=False):
    """A matrix file, or raw text vectorized as the options say, as a Bunch: ``X``, ``y``,
    ``names`` (feature names, or None: hashed or unnamed columns), ``texts`` and ``vectorizer``
    (None for a matrix file) and ``class_names`` (the label of each indicator column of a
    multi-label ``y``, else None).

    With ``counted``, raw text that textsel's kernel reads (no ``--hashing``, the default
    ``--token-pattern``) is counted chunk by chunk instead, in memory bounded by its vocabulary:
    ``stats`` (its TermStats) in place of ``X`` and ``y``, ``names`` the vocabulary."""
    from sklearn.utils import Bunch

    from ..datasets.texts import load_texts
    from .text import check_weighting, count_texts, streams_text, table_header, vectorize

    check_weighting(args)  # before any reading: a refused option is the first thing said
    if is_stream(path):
        return _from_stream(args, path, fmt, labels, terms, counted)
    if fmt == "auto" and os.path.isfile(path):
        fmt = input_format(path, args.text_column)
    if fmt in ("csv", "tsv", "jsonl") and str(path).lower().endswith((".gz", ".bz2")):
        # undone into a temporary file, then read
        return _from_stream(args, path, fmt, labels, terms, counted)
    if not is_text_input(path, fmt):
        X, y, names = read_matrix(path, fmt, labels, terms)
        return Bunch(X=X, y=y, names=names, texts=None, vectorizer=None, class_names=None, stats=None)
    header = table_header(args, path, fmt)
    if counted and streams_text(args):
        return count_texts(args, path, fmt, header, check_label_column)
    b = load_texts(path, text_column=args.text_column, label_column=args.label_column,
                   label_separator=args.label_separator, fmt=fmt, encoding=args.encoding,
                   header=header)  # fmt: skip
    check_label_column(len(b.data), len(b.target_names), args.label_column)
    X, names, vectorizer = vectorize(b.data, args)
    return Bunch(X=X, y=b.target, names=names, texts=b.data, vectorizer=vectorizer, stats=None,
                 class_names=b.target_names if b.multilabel else None)  # fmt: skip


def check_label_column(n_docs: int, n_classes: int, column) -> None:
    """Refuse labels that make nearly every document its own class (a text or id column named
    as the label): no term can be selected for a class of one document."""
    if n_docs >= 20 and n_classes > n_docs / 2:
        raise ValueError(
            f"--label-column {column!r} gives {n_classes} classes for {n_docs} documents: nearly every "
            "document is its own class; name the column that holds the labels"
        )


def _from_stream(args, path, fmt, labels, terms, counted=False):
    """An input readable once (``-``, ``/dev/stdin``, a pipe, a FIFO) or compressed text, saved to
    a temporary file of the format ``--input-format`` names or its content shows; what is said
    about that file names ``path``."""
    with tempfile.TemporaryDirectory(prefix="textsel-input-") as folder:
        saved = read_stream(path, fmt, Path(folder), getattr(args, "text_column", "text"),
                            getattr(args, "encoding", "utf-8"))  # fmt: skip
        with as_given(saved, given_name(path)):
            # "auto": the saved file's ending says
            return read_dataset(args, saved, fmt, labels, terms, counted)
