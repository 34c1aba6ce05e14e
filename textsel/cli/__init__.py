"""The command line: ``textsel demo | select | study | reproduce | datasets`` (also ``python -m textsel``).

One module per sub-command, each with ``add_parser(subparsers)`` and ``run(args)``;
``inputs`` reads what they read and ``text`` holds the raw-text options.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import warnings

from .. import __version__
from . import datasets, demo, reproduce, select, study

#: sub-command name -> its module
COMMANDS = {"demo": demo, "select": select, "study": study, "reproduce": reproduce, "datasets": datasets}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="textsel", description="Term selection for sparse document-term matrices."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS.values():
        module.add_parser(subparsers)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: the run stops as on Ctrl-C (the kernels at their next check, a fit
    rolled back, an output left as it was), then exits with 128 + the signal's number."""

    def __init__(self, number: int):
        super().__init__(number)
        self.number = number


def _terminate(number, frame):
    raise Terminated(number)


@contextlib.contextmanager
def _termination_as_interruption():
    """Where the handlers are the defaults (so nobody else wants these signals), turn them into
    :class:`Terminated` for the command's run, so that it ends as cleanly as on Ctrl-C."""
    before = {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGTERM", "SIGHUP"):
            number = getattr(signal, name, None)
            if number is not None and signal.getsignal(number) == signal.SIG_DFL:
                before[number] = signal.signal(number, _terminate)
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


def main(argv=None) -> int:
    """Run a subcommand.  Exit codes: 0 done, 1 bad data or options, 2 usage or missing file,
    130 interrupted, 143 terminated (SIGTERM); output into a closed pipe stops quietly, as Unix
    tools do."""
    args = build_parser().parse_args(argv)
    shown = set()

    def one_line(message, category, filename, lineno, file=None, line=None):
        # a user's warning is one line naming the command, not a source location, and once
        if str(message) not in shown:
            shown.add(str(message))
            print(f"textsel {args.command}: warning: {message}", file=sys.stderr)

    def fail(message, code):
        print(f"textsel {args.command}: {message}", file=sys.stderr)
        return code

    try:
        with warnings.catch_warnings(), _termination_as_interruption():
            warnings.showwarning = one_line
            COMMANDS[args.command].run(args)
            if sys.stdout is not None:  # None when started with standard output closed (``>&-``)
                sys.stdout.flush()  # a closed pipe is found here, inside the handlers below
            return 0
    except BrokenPipeError:
        # the reader went away (``| head``): no message, and no second error when Python
        # flushes standard output at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a tool stopped by SIGPIPE
    except Terminated as exc:
        return fail("terminated", 128 + exc.number)
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except FileNotFoundError as exc:
        return fail(exc, 2)
    except (ValueError, TypeError, OSError) as exc:  # OSError: a download that failed
        return fail(exc, 1)
    except MemoryError:
        return fail("out of memory (a smaller input, --hashing or --min-df keep fewer terms)", 1)
    except RecursionError:
        return fail("the input is nested too deeply to read", 1)
    except Exception as exc:  # a fault of textsel's: still one line, the traceback on request
        if os.environ.get("TEXTSEL_TRACEBACK"):
            raise
        return fail(f"internal error ({type(exc).__name__}: {exc}); set TEXTSEL_TRACEBACK=1 to see where", 1)
