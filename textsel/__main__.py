"""Command line: ``textsel demo`` (also ``python -m textsel demo``)."""

from __future__ import annotations

import argparse
import sys

from .demo import CORPORA, DEFAULT_METRICS, run_demo
from .metrics import METRICS


def _metric_list(text: str) -> list[str]:
    names = [m.strip() for m in text.split(",") if m.strip()]
    bad = [m for m in names if m not in METRICS]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"unknown metric(s) {bad}; choose from {', '.join(METRICS)}")
    return names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="textsel", description="Term selection for sparse document-term matrices."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser(
        "demo",
        help="rank a corpus's terms with several metrics and time textsel against scikit-learn",
        description="Vectorize a corpus (tf-idf, min_df=2), print each large class's top terms "
        "by several metrics, and time term_stats + BNS against scikit-learn's chi2 on the same "
        "matrix.  Without --corpus it uses an embedded SYNTHETIC corpus, so it runs anywhere.",
    )
    demo.add_argument("--corpus", choices=CORPORA, default="synthetic")
    demo.add_argument(
        "--data-home",
        default=None,
        help="folder holding the corpus archives (default: $TEXTSEL_DATA or ~/textsel_data)",
    )
    demo.add_argument(
        "--metrics",
        type=_metric_list,
        default=list(DEFAULT_METRICS),
        help="comma-separated metrics (default: %(default)s)",
    )
    demo.add_argument("--top", type=int, default=8, help="terms shown per class and metric")
    demo.add_argument("--classes", type=int, default=4, help="classes shown (the largest)")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        try:
            run_demo(args.corpus, args.data_home, args.metrics, args.top, args.classes)
        except FileNotFoundError as exc:
            print(f"textsel demo: {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
