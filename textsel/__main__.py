"""Command line: ``textsel demo | select | study | datasets`` (also ``python -m textsel ...``)."""

from __future__ import annotations

import argparse
import sys
import warnings

from . import __version__
from .cli_select import INPUT_FORMATS, OUTPUT_FORMATS, run_datasets, run_select, run_study
from .cli_text import add_vectorizer_options
from .demo import CORPORA, DEFAULT_METRICS, run_demo
from .metrics import METRICS
from .selection import MULTICLASS


def _metric_list(text: str) -> list[str]:
    names = [m.strip() for m in text.split(",") if m.strip()]
    bad = [m for m in names if m not in METRICS]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"unknown metric(s) {bad}; choose from {', '.join(METRICS)}")
    return names


def _ks(text: str) -> list[int]:
    """``--ks``: comma-separated positive integers (argparse turns an error into exit code 2)."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"expected comma-separated positive integers, got {text!r}")
    return sorted({int(p) for p in parts})


DATA_HOME_HELP = "folder holding the corpus archives (default: $TEXTSEL_DATA, else ~/textsel_data)"
FORMAN_KS = "10,20,50,100,200,500,1000,2000"
LABELS_HELP = "a CLUTO matrix's row classes (default: the .rclass file beside it)"
TERMS_HELP = "a CLUTO matrix's column labels (default: the .clabel file beside it)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="textsel", description="Term selection for sparse document-term matrices."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo",
        help="rank a corpus's terms with several metrics and time textsel against scikit-learn",
        description="Vectorize a corpus (tf-idf, min_df=2), print each large class's top terms "
        "by several metrics, and time term_stats + BNS against scikit-learn's chi2 on the same "
        "matrix.  Without --corpus it uses an embedded SYNTHETIC corpus, so it runs anywhere.",
    )
    demo.add_argument(
        "--corpus", choices=CORPORA, default="synthetic", help="the corpus (default: synthetic)"
    )
    demo.add_argument("--data-home", default=None, help=DATA_HOME_HELP)
    demo.add_argument(
        "--metrics",
        type=_metric_list,
        default=",".join(DEFAULT_METRICS),
        help=f"comma-separated metrics (default: {','.join(DEFAULT_METRICS)})",
    )
    demo.add_argument("--top", type=int, default=8, help="terms shown per class and metric (default: 8)")
    demo.add_argument("--classes", type=int, default=4, help="classes shown, the largest (default: 4)")

    select = sub.add_parser(
        "select",
        help="rank the terms of a labelled matrix or of raw text and write the selected ones",
        description="Read a labelled matrix (ARFF, SVMlight, CLUTO) or raw text, score every term "
        "with a Forman metric and write the selected terms with their scores, overall and per "
        "class (to stdout or --output).",
    )
    select.add_argument(
        "input",
        help="a matrix file (.arff, .arff.gz, SVMlight, CLUTO .mat), raw text (.csv, .tsv, .jsonl, "
        "or a folder with one sub-folder per class), or - for standard input (with --input-format)",
    )
    select.add_argument("--input-format", choices=INPUT_FORMATS, default="auto",
                        help="how to read the input (default: auto, by its name)")  # fmt: skip
    select.add_argument("--labels", default=None, help=LABELS_HELP)
    select.add_argument("--terms", default=None, help=TERMS_HELP)
    select.add_argument("--metric", choices=METRICS, default="bns", help="the metric (default: bns)")
    select.add_argument("--k", default=None, help="terms to keep, or 'all' (default: 100)")
    select.add_argument("--percentile", type=float, default=None,
                        help="keep this share of the terms instead of --k (default: none)")  # fmt: skip
    select.add_argument("--multiclass", choices=MULTICLASS, default="round_robin",
                        help="how classes share the selection (default: round_robin)")  # fmt: skip
    select.add_argument("--format", choices=OUTPUT_FORMATS, default="tsv",
                        help="output: tab- or comma-separated lines with a score column per class, "
                        "or JSON (default: tsv)")  # fmt: skip
    select.add_argument("--output", default=None, help="write here instead of stdout")
    add_vectorizer_options(select)

    study = sub.add_parser(
        "study",
        help="run Forman's feature-selection study on your datasets",
        description="Forman's protocol: every class one-vs-rest, stratified cross-validation, each "
        "metric and k selecting on the training folds only, a linear SVM on Boolean features.  "
        "Prints the macro-averaged F1 table; with --out also writes the records (CSV, JSON), the "
        "summary, tolerance, best-pair and skew tables, and four PNG figures (F1 against k, "
        "tolerance, precision against recall, the metrics' decision boundaries).",
    )
    study.add_argument("inputs", nargs="*", help="labelled matrix files (ARFF, SVMlight, CLUTO) or raw text "
                       "(.csv, .tsv, .jsonl, a folder per class)")  # fmt: skip
    study.add_argument("--forman-sets", action="store_true", help="add the ARFF sets of the data home")
    study.add_argument("--data-home", default=None, help=DATA_HOME_HELP)
    study.add_argument("--labels", default=None, help=LABELS_HELP)
    study.add_argument("--metrics", type=_metric_list, default=",".join(METRICS),
                       help="comma-separated metrics (default: all twelve)")  # fmt: skip
    study.add_argument(
        "--ks", type=_ks, default=FORMAN_KS, help=f"comma-separated numbers of terms (default: {FORMAN_KS})"
    )
    study.add_argument(
        "--trials", type=int, default=5, help="repetitions of the cross-validation (default: 5)"
    )
    study.add_argument("--folds", type=int, default=4, help="cross-validation folds (default: 4)")
    study.add_argument("--n-jobs", type=int, default=None, help="parallel workers (default: one)")
    study.add_argument("--seed", type=int, default=0, help="random seed of the folds (default: 0)")
    study.add_argument("--out", default=None, help="folder for the tables and figures (default: none)")
    study.add_argument("--no-plots", action="store_true", help="write the tables only")
    study.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="report progress on stderr (default: when stderr is a terminal)",
    )
    add_vectorizer_options(study)

    datasets = sub.add_parser("datasets", help="list the corpora in the data home")
    datasets.add_argument("--data-home", default=None, help=DATA_HOME_HELP)
    datasets.add_argument(
        "--fetch",
        action="append",
        default=[],
        metavar="ARCHIVE",
        help="first download a canonical archive (reuters21578.tar.gz, 20news-bydate.tar.gz, or 'all') "
        "into the data home, checksummed; needs the network",
    )
    return parser


def main(argv=None) -> int:
    """Run a subcommand.  Exit codes: 0 done, 1 bad data or options, 2 usage or missing file."""
    args = build_parser().parse_args(argv)

    def one_line(message, category, filename, lineno, file=None, line=None):
        # a user's warning is one line naming the command, not a source location
        print(f"textsel {args.command}: warning: {message}", file=sys.stderr)

    try:
        with warnings.catch_warnings():
            warnings.showwarning = one_line
            return _run(args)
    except FileNotFoundError as exc:
        print(f"textsel {args.command}: {exc}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, OSError) as exc:  # OSError: a download that failed
        print(f"textsel {args.command}: {exc}", file=sys.stderr)
        return 1


def _run(args) -> int:
    if args.command == "demo":
        run_demo(args.corpus, args.data_home, args.metrics, args.top, args.classes)
    elif args.command == "select":
        run_select(args)
    elif args.command == "datasets":
        run_datasets(args)
    elif args.command == "study":
        run_study(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
