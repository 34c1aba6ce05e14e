"""The command line's start: ``textsel --version``, ``textsel select --help`` and an argument error.

Each command runs ``--repeat`` times as a fresh process, with one thread and with two
(``OMP_NUM_THREADS`` / ``TEXTSEL_NUM_THREADS``); the anchor is a fresh interpreter importing
scikit-learn's text vectorizers, what a command line that imports scikit-learn up front pays
before doing anything, and the floor a bare ``python -c pass``.  Prints the median and best wall
time of each and the ratio anchor / command (medians).

    python benchmarks/bench_cli.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

ANCHOR = "import sklearn text (anchor)"


def commands():
    textsel = shutil.which("textsel")
    base = [textsel] if textsel else [sys.executable, "-m", "textsel"]
    return {
        "python -c pass (floor)": [sys.executable, "-c", "pass"],
        ANCHOR: [sys.executable, "-c", "import sklearn.feature_extraction.text"],
        "textsel --version": [*base, "--version"],
        "textsel select --help": [*base, "select", "--help"],
        "textsel select --k -5 (error)": [*base, "select", "corpus.csv", "--k", "-5"],
    }


def wall_times(command, env, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    for threads in (1, 2):
        env = {**os.environ, "OMP_NUM_THREADS": str(threads), "TEXTSEL_NUM_THREADS": str(threads)}
        medians = {}
        for name, command in commands().items():
            times = wall_times(command, env, args.repeat)
            medians[name] = statistics.median(times)
            line = f"{threads} thread(s), {name}: median {medians[name]:.3f} s, best {min(times):.3f} s"
            if name.startswith("textsel"):
                line += f", anchor / command {medians[ANCHOR] / medians[name]:.1f}x"
            print(line, flush=True)


if __name__ == "__main__":
    main()
