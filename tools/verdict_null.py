"""How often each reproduction row says "differs" in worlds where its claim's quantity sits exactly
at its margin.  A row judging its units fairly says "differs" in at most about 5% of such worlds
(the goal allows 7%).

    python tools/verdict_null.py [--worlds 200] [--datasets 8] [--rows high_f1,high_precision,...]
    python tools/verdict_null.py --others [--worlds 200] [--papers dasgupta,li-sun,kolcz,zhuang]

The first form judges Forman's comparison rows, in worlds where every metric is equally good, with
his tasks' structure here: tasks nested in datasets that move their tasks' values together.  The
second judges every untimed row of the other four papers the way the row judges, at its number of
units, comparisons and cells (textsel.reproduce.calibration.ROWS).  Prints, per row, its rate with
a 95% Wilson interval over the worlds, and how the row is judged.
"""

from __future__ import annotations

import argparse
import time

#: the rows comparing metrics with a margin of 0: "equal metrics" is their null world.  (Not the
#: all-terms row: there the best over k of equal metrics beats the SVM on all terms by chance, so
#: its quantity is off its margin in these worlds, and "differs" is right.)
ROWS = ("high_f1", "high_precision", "wide_margin", "low_f1", "low_precision", "small_k", "acc2", "ig_chi",
        "t_test", "recall", "precision")  # fmt: skip


def main():
    from scipy.stats import binomtest

    from textsel.reproduce.calibration import false_differs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=200)
    parser.add_argument("--datasets", type=int, default=8)
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--others", action="store_true", help="the other four papers' rows")
    parser.add_argument("--papers", default="dasgupta,li-sun,kolcz,zhuang")
    args = parser.parse_args()
    if args.others:
        return others(args.worlds, args.papers.split(","))
    keys = args.rows.split(",")
    began = time.perf_counter()
    rates = false_differs(keys, worlds=args.worlds, datasets=args.datasets)
    print(f"{args.worlds} null worlds, 40 tasks (16 high-skew) from {args.datasets} datasets, "
          f"{time.perf_counter() - began:.0f} s")  # fmt: skip
    for key in keys:
        rate, unjudged, how = rates[key]
        low, high = binomtest(round(rate * args.worlds), args.worlds).proportion_ci(method="wilson")
        print(f"{key:>16}: differs in {rate:6.1%} [{low:.1%}, {high:.1%}], too few to judge in "
              f"{unjudged:6.1%}  ({how})")  # fmt: skip


def others(worlds, papers):
    from scipy.stats import binomtest

    from textsel.reproduce.calibration import ROWS, mechanism_rates

    began = time.perf_counter()
    rates = mechanism_rates([key for key in ROWS if key[0] in papers], worlds=worlds)
    print(f"{worlds} worlds per row, every comparison at its margin, {time.perf_counter() - began:.0f} s")
    for (paper, key), (rate, (how, n, m, cells)) in rates.items():
        low, high = binomtest(round(rate * worlds), worlds).proportion_ci(method="wilson")
        print(f"{paper:>8} {key:>13}: differs in {rate:6.1%} [{low:.1%}, {high:.1%}]  ({how} over {n} units, "
              f"{m} comparison{'s' * (m > 1)}, {cells} cell{'s' * (cells > 1)})")  # fmt: skip


if __name__ == "__main__":
    main()
