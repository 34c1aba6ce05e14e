"""``textsel reproduce <paper>``: a founding paper's claims beside textsel's numbers, as a page."""

from __future__ import annotations

import argparse
import importlib.util
import sys
import warnings

from .._lab.output import folder_target
from ..names import REPRODUCTIONS
from .inputs import DATA_HOME_HELP, N_JOBS_HELP, command_mode, n_jobs, seed


def add_parser(subparsers) -> None:
    """The ``reproduce`` sub-command and its options."""
    reproduce = subparsers.add_parser(
        "reproduce",
        help="run a founding paper's experiments and write its claims beside textsel's numbers",
        description="Run one paper's experiments on the corpora of the data home and write "
        "<out>/<paper>.md: for each claim of the paper those corpora allow, the paper's words and "
        "numbers, textsel's number by the same measure, and a verdict; the figures go to "
        "<out>/<paper>/.  They replace an earlier run's when the run succeeds (its figures this run "
        "does not draw removed if unchanged; nothing else in --out is touched), and are left as they "
        "were when it fails.",
    )
    reproduce.add_argument("paper", choices=REPRODUCTIONS, help="the paper")
    reproduce.add_argument("--data-home", default=None, help=DATA_HOME_HELP)
    reproduce.add_argument(
        "--out", default="reproductions", help="folder for the page (default: reproductions)"
    )
    reproduce.add_argument(
        "--quick",
        action="store_true",
        help="fewer tasks, sizes and draws: a check that every experiment runs, not the paper's test "
        "(rows on too few units say so; rows with nothing to test say 'not tested').  On 2 busy "
        "cores a quick run took: forman 3 min, li-sun 4-5, kolcz 2, zhuang 5, dasgupta 13; a full "
        "run takes about 2, 3, 1.5, 11 and 24 min on the same cores when quiet",
    )
    reproduce.add_argument(
        "--n-jobs",
        type=n_jobs,
        default=-1,
        help=f"parallel workers: {N_JOBS_HELP}",
    )
    reproduce.add_argument(
        "--seed",
        type=seed,
        default=0,
        help="seed of every random choice: splits, folds, samples and the intervals' resamples, in "
        "[0, 2**32) (default: 0, the published pages' seed)",
    )
    reproduce.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="how far the run is, on stderr: a bar on a terminal, else a line per stage (the default); "
        "--no-progress: nothing",
    )


def run(args, out=None):
    """Run the reproduction, write its page and print how its claims came out."""
    folder_target(args.out, "--out")  # before any work: a file there, or no way to write, is said at once
    out = out or sys.stdout
    draw = importlib.util.find_spec("matplotlib") is not None
    if not draw:
        warnings.warn('the figures need matplotlib (python -m pip install matplotlib); writing the page only',
                      UserWarning, stacklevel=2)  # fmt: skip
    from ..reproduce import reproduce

    progress = command_mode(args.progress)
    report = reproduce(
        args.paper,
        args.data_home,
        args.out,
        quick=args.quick,
        n_jobs=args.n_jobs,
        progress=progress,
        figures=draw,
        seed=args.seed,
        _option="--out",
    )
    out.write(
        f"{args.paper}: {report.tally[0].lower()}{report.tally[1:]}; wrote {args.out}/{args.paper}.md\n"
    )
    for row in report.rows:
        if row.word != "reproduces":
            out.write(f"  {row.where}: {row.verdict}\n")
