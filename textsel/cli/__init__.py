"""The command line: ``textsel demo | select | study | datasets`` (also ``python -m textsel``).

One module per sub-command, each with ``add_parser(subparsers)`` and ``run(args)``;
``inputs`` reads what they read and ``text`` holds the raw-text options.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from .. import __version__
from . import datasets, demo, select, study

#: sub-command name -> its module
COMMANDS = {"demo": demo, "select": select, "study": study, "datasets": datasets}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="textsel", description="Term selection for sparse document-term matrices."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS.values():
        module.add_parser(subparsers)
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
            COMMANDS[args.command].run(args)
            return 0
    except FileNotFoundError as exc:
        print(f"textsel {args.command}: {exc}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, OSError) as exc:  # OSError: a download that failed
        print(f"textsel {args.command}: {exc}", file=sys.stderr)
        return 1
