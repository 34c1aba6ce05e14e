"""``textsel select`` on a text file larger than the corpus it repeats: time, MB/s, peak memory.

Writes the training split of 20 Newsgroups (bydate, 11,314 documents), repeated ``--copies``
times, as a TSV file (``text`` and ``label`` columns, CSV quoting) into a temporary folder (or
``--folder``), then runs ``textsel select FILE --k 1000`` in a fresh process with one thread and
with two (``TEXTSEL_NUM_THREADS``).  Each line gives the wall time, the file's MB over it and the
process's peak resident memory (its ``ru_maxrss``).  The anchor, run on ``--anchor-copies``
copies (memory grows with the file): the matrix route, in one process, as ``textsel select``
read text before it counted in chunks: ``load_texts``, scikit-learn's ``CountVectorizer``, then
``TermSelector.fit``.  Before timing, the selections of both routes on the file of one copy are
checked equal, term for term.

    python benchmarks/bench_stream_select.py [--data-home DATA] [--copies 40] [--anchor-copies 10]
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpora import argument_parser

#: the in-memory route, as a script run in a fresh process: the terms, one a line
MATRIX_ROUTE = """
import sys
from sklearn.feature_extraction.text import CountVectorizer
from textsel import TermSelector
from textsel.datasets import load_texts
corpus = load_texts(sys.argv[1])
vectorizer = CountVectorizer()
selector = TermSelector("bns", k=1000).fit(vectorizer.fit_transform(corpus.data), corpus.target)
sys.stdout.write("\\n".join(vectorizer.get_feature_names_out()[selector.ranking_]) + "\\n")
"""


def write_corpus(data_home, path: Path, copies: int) -> int:
    """The training split, ``copies`` times, as a TSV file; its size in bytes."""
    from textsel.datasets import load_20newsgroups

    news = load_20newsgroups(data_home)
    labels = [news.target_names[t] for t in news.target_train]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, delimiter="\t")
        writer.writerow(["text", "label"])
        for _ in range(copies):
            writer.writerows(zip(news.data_train, labels, strict=True))
    return path.stat().st_size


def measured(command, threads=1):
    """(seconds, peak resident MB, stdout) of ``command`` run in a fresh process."""
    env = {**os.environ, "TEXTSEL_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(command, env=env, stdout=out)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - started
        if process.returncode != 0:
            raise RuntimeError(f"{command[:4]} failed ({process.returncode})")
        out.seek(0)
        text = out.read().decode()
    return seconds, usage.ru_maxrss / 1024, text  # ru_maxrss is in KiB on Linux


def select_command(path):
    return [sys.executable, "-m", "textsel", "select", str(path), "--k", "1000", "--no-progress"]


def main():
    parser = argument_parser(__doc__.splitlines()[0], repeat=1)
    parser.add_argument("--copies", type=int, default=40)
    parser.add_argument("--anchor-copies", type=int, default=10)
    parser.add_argument("--folder", default=None, help="where the TSV files go (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        one = Path(folder) / "20ng_x1.tsv"
        write_corpus(args.data_home, one, 1)
        _, _, streamed = measured(select_command(one))
        _, _, in_memory = measured([sys.executable, "-c", MATRIX_ROUTE, str(one)])
        terms = [line.split("\t")[2] for line in streamed.splitlines()[1:]]
        assert terms == in_memory.split(), "the streamed selection differs from the matrix route's"
        print("one copy: the 1000 terms of both routes are the same, in the same order")
        for copies, route in ((args.anchor_copies, "matrix"), (args.copies, "streamed")):
            path = Path(folder) / f"20ng_x{copies}.tsv"
            megabytes = write_corpus(args.data_home, path, copies) / 1e6
            for threads in (1, 2):
                if route == "matrix":
                    command = [sys.executable, "-c", MATRIX_ROUTE, str(path)]
                else:
                    command = select_command(path)
                seconds, peak, _ = measured(command, threads)
                print(f"{route} route, {copies} copies ({megabytes:,.0f} MB), {threads} thread(s): "
                      f"{seconds:.1f} s, {megabytes / seconds:.1f} MB/s, peak {peak:,.0f} MB",
                      flush=True)  # fmt: skip
            path.unlink()


if __name__ == "__main__":
    main()
