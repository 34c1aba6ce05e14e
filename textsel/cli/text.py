"""Raw text on the command line: scikit-learn's vectorizers, set from options, and the names of
hashed columns."""

from __future__ import annotations

import argparse
import warnings
from collections import Counter

#: vectorizer options that are refused: weights cannot change a selection by document counts
WEIGHTING = ("--tfidf", "--binary", "--sublinear-tf")
#: classes beyond which a label column is judged as a text file is read, not only at its end
_MANY_CLASSES = 1000
#: the columns read when --text-column and --label-column are not given: what a header names them
TEXT_COLUMN, LABEL_COLUMN = "text", "label"


def add_vectorizer_options(parser) -> None:
    """The options of ``select`` and ``study`` that say how raw text becomes a matrix."""
    group = parser.add_argument_group(
        "raw text (a .csv/.tsv/.jsonl file or a folder per class)",
        "vectorized by textsel.text's CountVectorizer, scikit-learn's with the words counted by textsel's "
        "kernel (scikit-learn's HashingVectorizer with --hashing).  CSV/TSV "
        "columns are named as pandas' read_csv names them: by the header row's names, or by 0-based "
        "position for a file without a header (as header=None numbers them): '--text-column 1 "
        "--label-column 0' reads 'label<TAB>text' lines such as the SMS Spam Collection's; a first "
        "row that names the two columns given by position 'text' and 'label' is taken for a header "
        "(said on stderr; --no-header reads it as a document).  A file whose name has no ending is "
        "recognized by its first lines.",
    )
    group.add_argument(
        "--text-column",
        type=_column,
        default=TEXT_COLUMN,
        help="column of the text: a header name, 0-based position or JSON Lines key (default: %(default)s)",
    )
    group.add_argument(
        "--label-column",
        type=_column,
        default=LABEL_COLUMN,
        help="column of the label, as --text-column (default: %(default)s)",
    )
    group.add_argument(
        "--header",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="whether a CSV/TSV file's first row names its columns (default: yes, unless both columns "
        "are given by position and the first row does not name them 'text' and 'label'; --header "
        "with positions skips the first row)",
    )
    group.add_argument(
        "--label-separator",
        default=None,
        help="split CSV labels on this string for several labels per row (default: one label)",
    )
    group.add_argument(
        "--encoding", type=_encoding, default="utf-8", help="text encoding (default: %(default)s)"
    )
    # Forman's metrics count the documents a term occurs in, and the study trains on Boolean features:
    # term weights cannot change what select or study give, so the weighting options are not offered;
    # given anyway, they are refused with the reason (see WEIGHTING)
    for option in WEIGHTING:
        group.add_argument(option, action="store_true", help=argparse.SUPPRESS)
    group.add_argument(
        "--min-df", type=_df, default=1, help="ignore terms in fewer documents (count or share; default: 1)"
    )
    group.add_argument(
        "--max-df",
        type=_df,
        default=1.0,
        help="ignore terms in more documents (count or share; default: 1.0)",
    )
    group.add_argument(
        "--ngram-range",
        type=_ngrams,
        default=(1, 1),
        metavar="MIN,MAX",
        help="word n-gram lengths (default: 1,1)",
    )
    group.add_argument(
        "--stop-words", choices=("english",), default=None, help="drop a stop-word list (default: none)"
    )
    group.add_argument(
        "--token-pattern",
        type=_pattern,
        default=r"(?u)\b\w\w+\b",
        help="regular expression of a token (default: %(default)s)",
    )
    group.add_argument(
        "--hashing",
        type=int,
        default=None,
        metavar="BITS",
        help="hash terms into 2^BITS columns (HashingVectorizer) for vocabularies that do not fit; a "
        "column is then a bucket of terms, named by its most frequent term and '(+n more)' for the rest",
    )


def _df(text: str):
    """A document count ("5": an int) or a share of the documents ("0.5", "1.0": a float in
    [0, 1]), as scikit-learn's min_df and max_df read them."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a count or a share in [0, 1], got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a share is in [0, 1] (a count has no decimal point), got {text}")
    return value


def _encoding(text: str) -> str:
    import codecs

    try:
        codecs.lookup(text)
    except LookupError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a text encoding Python knows (e.g. utf-8, latin-1)"
        ) from None
    return text


def _pattern(text: str) -> str:
    import re

    try:
        re.compile(text)
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"not a regular expression ({exc}): {text!r}") from None
    return text


def _ngrams(text: str):
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"expected MIN,MAX (e.g. 1,2), got {text!r}")
    low, high = (int(p) for p in parts)
    if not 1 <= low <= high:
        raise argparse.ArgumentTypeError(f"expected 1 <= MIN <= MAX, got {text!r}")
    return low, high


def _column(text: str):
    """A column option: a 0-based position (digits, as pandas numbers a headerless file's columns)
    or a name."""
    text = text.strip()
    if not text:
        raise argparse.ArgumentTypeError("expected a column name or a 0-based position, got ''")
    return int(text) if text.isdigit() else text


def table_header(args, path, fmt) -> bool | str:
    """``--header`` as :func:`textsel.datasets.load_texts` takes it.

    Given, it is kept.  Not given, with both columns given by position in a CSV/TSV file, a first
    row whose cells at those positions are ``text`` and ``label`` (the names textsel reads by
    default, in any case) is the header a user wrote for those columns, not a document of class
    "label": it is read as the header and a warning says so.  Otherwise "auto".
    """
    header = getattr(args, "header", None)
    if header is not None:
        return header
    columns = (getattr(args, "text_column", TEXT_COLUMN), getattr(args, "label_column", LABEL_COLUMN))
    if not all(isinstance(column, int) for column in columns):
        return "auto"
    from ..datasets.texts import text_format

    layout = text_format(path) if fmt == "auto" else fmt
    if layout not in ("csv", "tsv"):
        return "auto"
    row = _first_row(path, "," if layout == "csv" else "\t", getattr(args, "encoding", "utf-8"))
    cells = [row[column].strip().casefold() if column < len(row) else None for column in columns]
    if cells != [TEXT_COLUMN, LABEL_COLUMN]:
        return "auto"
    warnings.warn(f"{path}: its first row names columns {columns[0]} and {columns[1]} {TEXT_COLUMN!r} and "
                  f"{LABEL_COLUMN!r}: read as the header, not as a document (--no-header reads it as "
                  "one)", UserWarning, stacklevel=2)  # fmt: skip
    return True


def _first_row(path, delimiter: str, encoding: str) -> list[str]:
    """The fields of a table's first line (up to 64 KiB of it: a header is short), or none where
    it cannot be read; the reader says why when it reads the file."""
    import codecs
    import csv

    try:
        codec = "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding
        with open(path, newline="", encoding=codec) as fh:
            line = fh.readline(64 * 1024)
    except (OSError, LookupError, UnicodeDecodeError):
        return []
    return next(csv.reader([line], delimiter=delimiter), [])


def check_weighting(args) -> None:
    """Refuse --tfidf, --binary and --sublinear-tf, saying why."""
    given = [option for option in WEIGHTING if getattr(args, option.lstrip("-").replace("-", "_"), False)]
    if given:
        raise ValueError(
            f"{'/'.join(given)}: not offered: Forman's metrics count the documents each term occurs in "
            "(and the study trains on Boolean features), so term weights cannot change the result; "
            "weight the selected terms in your own pipeline (TfidfVectorizer, then TermSelector)"
        )


def make_vectorizer(args):
    """The vectorizer the options describe: counts (only whether a term occurs in a document
    matters to the metrics); textsel's CountVectorizer, whose output is scikit-learn's."""
    from sklearn.feature_extraction.text import HashingVectorizer

    from ..text import CountVectorizer

    check_weighting(args)
    common = dict(ngram_range=args.ngram_range, stop_words=args.stop_words, token_pattern=args.token_pattern)
    if args.hashing is not None:
        if not 1 <= args.hashing <= 30:
            raise ValueError(f"--hashing must be in [1, 30] bits, got {args.hashing}")
        # unsigned (alternate_sign=False): presence and counts stay non-negative for the metrics
        return HashingVectorizer(n_features=2**args.hashing, alternate_sign=False, norm=None, **common)
    return CountVectorizer(min_df=args.min_df, max_df=args.max_df, **common)


def vectorize(texts, args):
    """(X, feature names or None, vectorizer): names are None for hashed columns (see
    :func:`hashed_names`)."""
    vectorizer = make_vectorizer(args)
    if args.hashing is None:
        _check_document_bounds(args.min_df, args.max_df, len(texts))
    try:
        X = vectorizer.fit_transform(texts)
    except ValueError as exc:  # "empty vocabulary", or min_df/max_df leaving nothing
        raise ValueError(f"vectorizing the texts: {exc}") from None
    names = None if args.hashing is not None else vectorizer.get_feature_names_out()
    return X.tocsr(), names, vectorizer


def streams_text(args) -> bool:
    """Whether the options let raw text be counted chunk by chunk (:class:`textsel.text.TermCounter`):
    words as textsel's kernel reads them, and named columns (not hashed ones)."""
    from ..text import DEFAULT_TOKEN_PATTERN

    return args.hashing is None and args.token_pattern == DEFAULT_TOKEN_PATTERN


def count_texts(args, path, fmt, header, check_label_column):
    """Raw text counted chunk by chunk, as a Bunch: ``stats`` (TermStats), ``names`` (the
    vocabulary), ``class_names`` (a multi-label corpus's labels, else None).  The terms and their
    statistics are those of :func:`vectorize`'s matrix; memory grows with the vocabulary only.
    Progress goes to stderr with ``args.progress`` (default: when stderr is a terminal)."""
    import sys
    import time

    from sklearn.utils import Bunch

    from ..datasets.texts import iter_texts
    from ..text import TermCounter

    vectorizer = make_vectorizer(args)
    progress = getattr(args, "progress", None)
    progress = sys.stderr is not None and sys.stderr.isatty() if progress is None else progress
    started, shown = time.perf_counter(), False
    counter, seen = TermCounter(vectorizer), set()
    for chunk in iter_texts(path, text_column=args.text_column, label_column=args.label_column,
                            label_separator=args.label_separator, fmt=fmt, encoding=args.encoding,
                            header=header):  # fmt: skip
        if chunk is None:  # the file is read again another way (a TSV's quotes are not CSV quoting)
            counter, seen = TermCounter(vectorizer), set()
            continue
        texts, labels, (done, total) = chunk
        # an id or text column named as the label is refused before its classes fill the tables
        # (thousands of classes, most of a document each); otherwise judged on the whole file below
        seen.update(label for entry in labels for label in (entry if isinstance(entry, list) else [entry]))
        n_docs = (counter.n_docs_ if hasattr(counter, "n_docs_") else 0) + len(texts)
        if len(seen) > _MANY_CLASSES:
            check_label_column(n_docs, len(seen), args.label_column)
        counter.partial_fit(texts, labels)
        if progress:
            rate = done / 1e6 / max(time.perf_counter() - started, 1e-9)
            share = 100 * done / max(total, 1)
            print(f"\rtextsel: read {done / 1e6:,.0f} of {total / 1e6:,.0f} MB ({share:.0f}%), {n_docs:,} "
                  f"documents, {rate:.0f} MB/s", end="", file=sys.stderr, flush=True)  # fmt: skip
            shown = True
    if shown:
        print(file=sys.stderr, flush=True)
    if not hasattr(counter, "n_docs_"):
        raise ValueError(f"{path}: no documents")
    check_label_column(counter.n_docs_, len(seen), args.label_column)
    _check_document_bounds(args.min_df, args.max_df, counter.n_docs_)
    try:
        stats = counter.stats_
    except ValueError as exc:  # "empty vocabulary", or min_df/max_df leaving nothing
        raise ValueError(f"vectorizing the texts: {exc}") from None
    class_names = stats.classes.tolist() if stats.multilabel else None
    return Bunch(X=None, y=None, stats=stats, names=counter.get_feature_names_out(), texts=None,
                 vectorizer=counter.vectorizer_, class_names=class_names)  # fmt: skip


def _check_document_bounds(min_df, max_df, n_docs) -> None:
    """--min-df and --max-df in documents, as the user's corpus has them, checked before
    scikit-learn reports "max_df corresponds to < documents than min_df"."""
    low = min_df if isinstance(min_df, int) else min_df * n_docs
    high = max_df if isinstance(max_df, int) else max_df * n_docs
    if low > n_docs:
        raise ValueError(
            f"--min-df {min_df} asks for terms in at least {low:g} documents, but there are {n_docs}"
        )
    if high < low:
        raise ValueError(
            f"--max-df {max_df} ({high:g} documents) is below --min-df {min_df} ({low:g} documents): "
            "no term can be kept"
        )


def hashed_names(vectorizer, texts, columns) -> dict[int, str]:
    """For hashed columns, the term that lands in each of ``columns`` most often (``a|b`` when
    several collide equally often), and ``(+n more)`` when other terms share the column: a hashed
    column is a bucket of terms, not one term.  Found by one pass of the vectorizer's analyzer;
    memory grows with the terms of those columns only."""

    from sklearn.utils import murmurhash3_32

    wanted = set(int(c) for c in columns)
    n = vectorizer.n_features
    analyze = vectorizer.build_analyzer()
    counts: dict[int, Counter] = {c: Counter() for c in wanted}
    bucket_of: dict[str, int] = {}
    for text in texts:
        for term in analyze(text):
            col = bucket_of.get(term)
            if col is None:
                col = bucket_of[term] = _bucket(murmurhash3_32(term, seed=0), n)
            if col in wanted:
                counts[col][term] += 1
        if len(bucket_of) > 1_000_000:  # the cache only saves hashing again; keep it bounded
            bucket_of.clear()
    names = {}
    for col, counter in counts.items():
        if not counter:
            names[col] = ""
            continue
        top = counter.most_common()
        best = top[0][1]
        shown = sorted(term for term, c in top if c == best)[:3]
        others = len(counter) - len(shown)
        names[col] = "|".join(shown) + (f" (+{others} more)" if others else "")
    return names


def _bucket(h: int, n: int) -> int:
    """HashingVectorizer's column for hash ``h`` (abs(h) mod n, with abs(-2^31) taken as 2^31 - 1
    - (n - 1), as scikit-learn's hasher does)."""
    return (2**31 - 1 - (n - 1)) % n if h == -(2**31) else abs(h) % n


def column_names(names, vectorizer, texts, columns):
    """Names of ``columns``: the vocabulary's, or the most frequent term of each hashed column."""
    import numpy as np

    if names is not None:
        return np.asarray(names, dtype=object)[np.asarray(columns, dtype=np.int64)]
    found = hashed_names(vectorizer, texts, columns)
    return np.array([found[int(c)] for c in columns], dtype=object)
