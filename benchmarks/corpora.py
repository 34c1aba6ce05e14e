"""The benchmark matrices, built one way for every benchmark script.

TfidfVectorizer(sublinear_tf=True, min_df=2) fitted on a corpus's training split; the test
split goes through the same vocabulary.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.utils import Bunch

from textsel.datasets import load_20newsgroups, load_reuters21578


def argument_parser(description: str, repeat: int) -> argparse.ArgumentParser:
    """--data-home (default $TEXTSEL_DATA or ../shared/data; made absolute, since some benchmarks
    run their configurations in child processes started from ``benchmarks/``) and --repeat."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--data-home", type=os.path.abspath, default=os.environ.get("TEXTSEL_DATA", "../shared/data")
    )
    parser.add_argument("--repeat", type=int, default=repeat)
    return parser


def benchmark_corpora(data_home, boolean=False):
    """Yield Reuters-21578 (multi-label) and 20 Newsgroups (multi-class) as matrices.

    ``boolean``: Boolean unit-length rows (a term's presence, each document scaled to length 1,
    as Kolcz & Chowdhury represent documents) instead of sublinear tf-idf.  Each corpus is a
    Bunch with ``name``, ``X``, ``X_test``, ``y``, ``y_test`` (labels as the loader gives them:
    an indicator matrix or class indices) and ``Y`` (documents x classes, 0/1 float).
    """
    reuters = load_reuters21578(data_home)
    news = load_20newsgroups(data_home)
    for name, train, test, y, y_test in (
        ("Reuters-21578", reuters.data_train, reuters.data_test, reuters.target_train, reuters.target_test),
        ("20 Newsgroups", news.data_train, news.data_test, news.target_train, news.target_test),
    ):
        if boolean:
            vectorizer = TfidfVectorizer(binary=True, use_idf=False, min_df=2)
        else:
            vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
        X = vectorizer.fit_transform(train)
        Y = y if y.ndim == 2 else (y[:, None] == np.arange(y.max() + 1)[None, :])
        yield Bunch(
            name=name, X=X, X_test=vectorizer.transform(test), y=y, y_test=y_test,
            Y=np.asarray(Y, dtype=np.float64),
        )  # fmt: skip


def best_of(func, repeat):
    """The best wall time of ``repeat`` calls of ``func`` and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    return best, result


def in_fresh_processes(script, child_args, processes, end="\n"):
    """Run ``script --child *child_args`` in ``processes`` fresh processes with one thread, then
    as many with two (``TEXTSEL_NUM_THREADS``, textsel's default ``n_jobs``, and
    ``OMP_NUM_THREADS``), each announced by a line."""
    import subprocess
    import sys

    for threads in (1, 2):
        env = {**os.environ, "TEXTSEL_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
        for process in range(1, processes + 1):
            print(f"{threads} thread(s), process {process}:", end=end, flush=True)
            subprocess.run([sys.executable, script, "--child", *map(str, child_args)], env=env, check=True)
