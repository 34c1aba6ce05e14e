"""``textsel select``: rank the terms of a labelled matrix or of raw text and write the selected ones."""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys

from .._lab.output import FileOutput, file_target
from .._lab.output.targets import refuse_inputs
from ..names import METRICS, MULTICLASS, OUTPUT_FORMATS
from .inputs import INPUT_FORMATS, LABELS_HELP, TERMS_HELP
from .text import add_vectorizer_options


def add_parser(subparsers) -> None:
    """The ``select`` sub-command and its options."""
    select = subparsers.add_parser(
        "select",
        help="rank the terms of a labelled matrix or of raw text and write the selected ones",
        description="Read a labelled matrix (ARFF, SVMlight, CLUTO) or raw text, score every term "
        "with a Forman metric and write the selected terms with their scores: the one they were "
        "ranked by and, with more than two classes, each class's (to stdout or --output).  The "
        "metrics count the documents a term occurs in, so text is vectorized into counts: no term "
        "weighting (tf-idf) could change the selection.  BNS, IG and chi2 also pick terms whose "
        "absence marks a class (a word common everywhere but in one class); each term's 'class' "
        "and 'direction' columns say which class picked it and whether it is present in or absent "
        "from that class's documents, and --positive-only keeps only terms whose presence marks a "
        "class (Forman 2003 discusses both kinds).",
    )
    select.add_argument(
        "input",
        help="a matrix file (.arff, .arff.gz, SVMlight, CLUTO .mat), raw text (.csv, .tsv, .jsonl, "
        "or a folder with one sub-folder per class), or - for standard input (with --input-format)",
    )
    select.add_argument(
        "--input-format",
        choices=INPUT_FORMATS,
        default="auto",
        help="how to read the input (default: auto: by its name's ending, else by its first lines)",
    )
    select.add_argument("--labels", default=None, help=LABELS_HELP)
    select.add_argument("--terms", default=None, help=TERMS_HELP)
    select.add_argument("--metric", choices=METRICS, default="bns", help="the metric (default: bns)")
    select.add_argument("--k", default=None, help="terms to keep, or 'all' (default: 1000, as TermSelector)")
    select.add_argument(
        "--percentile",
        type=float,
        default=None,
        help="keep this share of the terms instead of --k (default: none)",
    )
    select.add_argument(
        "--multiclass",
        choices=MULTICLASS,
        default="round_robin",
        help="how classes share the selection (default: round_robin)",
    )
    select.add_argument(
        "--positive-only",
        action="store_true",
        help="keep only terms whose presence indicates a class (tpr > fpr)",
    )
    select.add_argument(
        "--format",
        choices=OUTPUT_FORMATS,
        default="tsv",
        help="output: tab- or comma-separated lines, or JSON (default: tsv).  'score' is what the terms "
        "were ranked by: for a binary task the positive class's (the later label in sorted order), the "
        "only score column; with more classes, also a score[class] column (JSON: class_scores) each",
    )
    select.add_argument(
        "--output",
        default=None,
        help="write here instead of stdout: a file (replaced whole when the run succeeds; "
        "a link's target is replaced, the link kept), a FIFO or device (written into), or -",
    )
    add_vectorizer_options(select)
    select.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="report how much of a text input is read on stderr (default: when stderr is a terminal)",
    )


def selection_records(selector, names, class_names=None):
    """One record per selected term: rank, column, term, the class that picked it and whether the
    term's presence or its absence indicates that class, and the score the terms were ranked by;
    with more than two classes (or labels), each class's score too (``class_scores``).  A binary
    task has the one score, the positive class's (its later label): the selection ranks by it, and
    a per-class column would repeat it (or, for an asymmetric metric, give a score nothing used)."""
    from ..selection import term_directions

    classes = [str(c) for c in (selector.classes_ if class_names is None else class_names)]
    binary = class_names is None and len(classes) == 2
    picked_by, present = term_directions(selector)
    position = {label: i for i, label in enumerate(selector.classes_.tolist())}
    records = []
    for rank, (column, term) in enumerate(zip(selector.ranking_, names, strict=True), 1):
        record = {
            "rank": rank,
            "column": int(column),
            "term": str(term),
            "class": classes[position[picked_by[rank - 1].item()]],
            "direction": "present" if present[rank - 1] else "absent",
            "score": float(selector.scores_[column]),
        }
        if not binary:
            record["class_scores"] = dict(
                zip(classes, map(float, selector.score_table_[:, column]), strict=True)
            )
        records.append(record)
    return records


def format_selection(records, fmt: str) -> str:
    """The records as tab- or comma-separated lines (a ``score[class]`` column per class where the
    records carry each class's score) or JSON."""
    if fmt == "json":
        return json.dumps(records, indent=1) + "\n"
    buffer = io.StringIO()
    classes = list(records[0].get("class_scores", ())) if records else []
    writer = csv.writer(buffer, delimiter="\t" if fmt == "tsv" else ",", lineterminator="\n")
    writer.writerow(
        ["rank", "column", "term", "class", "direction", "score", *(f"score[{c}]" for c in classes)]
    )
    for r in records:
        writer.writerow(
            [
                r["rank"],
                r["column"],
                r["term"],
                r["class"],
                r["direction"],
                f"{r['score']:.6g}",
                *(f"{r['class_scores'][c]:.6g}" for c in classes),
            ]
        )
    return buffer.getvalue()


def run(args, out=None):
    """Select terms and write them with their scores (and, beyond two classes, each class's) as
    TSV, CSV or JSON."""
    # the options and the input's existence are checked before scikit-learn is imported (a second)
    if args.k is not None and args.percentile is not None:
        raise ValueError("give --k or --percentile, not both")
    k = 1000 if args.k is None else "all" if args.k == "all" else _int_option(args.k, "--k")
    if k != "all" and k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if args.percentile is not None and not 0 < args.percentile <= 100:
        raise ValueError(f"percentile must be in (0, 100], got {args.percentile}")
    # where the selection goes is settled before any work: a folder there is refused, a link
    # followed, a FIFO or device written into; a file is replaced whole or, on failure, not at all
    to_stdout = args.output is None or args.output == "-"
    target = None if to_stdout else file_target(args.output, "--output")
    if args.input != "-" and not os.path.exists(args.input):
        raise FileNotFoundError(f"{args.input}: no such file or folder")
    if to_stdout:
        out = out or sys.stdout
        if out is None:  # started with standard output closed (``>&-``)
            raise ValueError("standard output is closed: give --output FILE for the selection")
        if out is sys.stdout and args.input != "-":  # ``>> corpus.csv``: the terms would join the corpus
            refuse_inputs(_fileno(out), [args.input], "standard output", "(--output -)")
        out.write(_selection(args, k))
        return
    # the lock is taken and the output checked against the input before the work: a clash with
    # another run, or an output that is the corpus itself, is said at once
    with FileOutput(target, "--output", inputs=[args.input]) as write:
        write(_selection(args, k))


def _selection(args, k) -> str:
    """The selection of ``args.input``, formatted."""
    import numpy as np

    from ..selection import TermSelector
    from .inputs import read_dataset
    from .text import column_names

    # raw text is counted chunk by chunk: the statistics of the matrix, without the matrix
    data = read_dataset(args, args.input, args.input_format, args.labels, args.terms, counted=True)
    selector = TermSelector(
        args.metric,
        k=k,
        percentile=args.percentile,
        multiclass=args.multiclass,
        positive_only=args.positive_only,
    )
    if data.stats is not None:
        selector.fit_stats(data.stats)
        terms = np.asarray(data.names, dtype=object)[selector.ranking_]
    elif data.texts is not None:
        selector.fit(data.X, data.y)
        terms = column_names(data.names, data.vectorizer, data.texts, selector.ranking_)
    else:
        selector.fit(data.X, data.y)
        terms = [data.names[c] if data.names is not None else "" for c in selector.ranking_]
    return format_selection(selection_records(selector, terms, data.class_names), args.format)


def _fileno(stream) -> list[int]:
    try:
        return [stream.fileno()]
    except (OSError, ValueError, AttributeError):  # not a real file: nothing to compare
        return []


def _int_option(text, name):
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{name} must be an integer or 'all', got {text!r}") from None
