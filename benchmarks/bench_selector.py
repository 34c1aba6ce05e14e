"""The default TermSelector fit against SelectKBest(chi2), whole calls, in fresh processes.

20 Newsgroups bydate training split through scikit-learn's default ``TfidfVectorizer()``
(11,314 documents x 130,107 terms, 20 classes): ``TermSelector("bns", k).fit(X, y)`` with its
defaults (round-robin over the classes) against ``SelectKBest(chi2, k=k).fit(X, y)``, best of
``--repeat`` calls each, k = 1,000 and 10,000.  Each of ``--processes`` fresh processes runs with
one thread and with two (``TEXTSEL_NUM_THREADS`` / ``OMP_NUM_THREADS``); every line is one
process, textsel and scikit-learn timed in it on the same matrix.

    python benchmarks/bench_selector.py [--data-home DATA] [--processes 3] [--repeat 7]
"""

from __future__ import annotations

from corpora import argument_parser, best_of, in_fresh_processes

KS = (1000, 10000)


def one_process(data_home, repeat):
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.feature_selection import SelectKBest, chi2

    import textsel
    from textsel.datasets import load_20newsgroups

    news = load_20newsgroups(data_home)
    X, y = TfidfVectorizer().fit_transform(news.data_train), news.target_train
    cells = []
    for k in KS:
        anchor, _ = best_of(lambda k=k: SelectKBest(chi2, k=k).fit(X, y), repeat)
        ours, _ = best_of(lambda k=k: textsel.TermSelector("bns", k=k).fit(X, y), repeat)
        cells.append(
            f"k={k}: chi2 {anchor * 1e3:6.1f} ms, TermSelector {ours * 1e3:6.1f} ms, {anchor / ours:4.2f}x"
        )
    print("; ".join(cells), flush=True)


def main():
    parser = argument_parser(__doc__.splitlines()[0], repeat=7)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--child", action="store_true", help="(internal) time in this process")
    args = parser.parse_args()
    if args.child:
        one_process(args.data_home, args.repeat)
        return
    in_fresh_processes(
        __file__, ["--data-home", args.data_home, "--repeat", args.repeat], args.processes, end=" "
    )


if __name__ == "__main__":
    main()
