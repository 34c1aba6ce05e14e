"""textsel.text's vectorizers against scikit-learn's, whole calls, in fresh processes.

On the training split of 20 Newsgroups (bydate, 11,314 documents) and Reuters-21578 (ModApte)
from the data home, and the SMS Spam Collection (5,574 messages, shipped inside textsel):
``fit_transform`` of ``CountVectorizer()``, ``TfidfVectorizer(sublinear_tf=True, min_df=2)`` and
``CountVectorizer(ngram_range=(1, 2), min_df=2, stop_words="english")`` and ``HashingVectorizer()``,
and ``transform`` of the
test split by the first, textsel's class against scikit-learn's with the same parameters, best of
``--repeat`` calls each, after the outputs are checked equal.  Each of ``--processes`` fresh
processes runs with one thread and with two (``TEXTSEL_NUM_THREADS``, textsel's default
``n_jobs``); every line is one process, both libraries timed in it on the same documents.  MB/s
is the documents' UTF-8 size over textsel's time.

    python benchmarks/bench_text.py [--data-home DATA] [--processes 3] [--repeat 3]
"""

from __future__ import annotations

from corpora import argument_parser, best_of, in_fresh_processes

SETTINGS = {
    "Count()": ("CountVectorizer", {}),
    "Tfidf(sublinear, min_df=2)": ("TfidfVectorizer", {"sublinear_tf": True, "min_df": 2}),
    "Count(1-2 grams, min_df=2, english)": (
        "CountVectorizer",
        {"ngram_range": (1, 2), "min_df": 2, "stop_words": "english"},
    ),
    "Hashing()": ("HashingVectorizer", {}),
}


def corpora(data_home):
    from textsel.datasets import load_20newsgroups, load_reuters21578, load_sms_spam

    news = load_20newsgroups(data_home)
    yield "20 Newsgroups", news.data_train, news.data_test
    reuters = load_reuters21578(data_home)
    yield "Reuters-21578", reuters.data_train, reuters.data_test
    sms = list(load_sms_spam().data)
    yield "SMS", sms[:4000], sms[4000:]


def same(A, B) -> bool:
    return (
        A.shape == B.shape
        and A.dtype == B.dtype
        and (A.indptr == B.indptr).all()
        and (A.indices == B.indices).all()
        and (A.data == B.data).all()
    )


def one_process(data_home, repeat):
    from sklearn.feature_extraction import text as sk

    from textsel import text as ts

    for corpus, train, test in corpora(data_home):
        megabytes = sum(len(d.encode("utf-8")) for d in train) / 1e6
        cells = []
        for label, (kind, settings) in SETTINGS.items():
            anchor, theirs = best_of(
                lambda k=kind, s=settings, t=train: getattr(sk, k)(**s).fit_transform(t), repeat
            )
            ours_time, ours = best_of(
                lambda k=kind, s=settings, t=train: getattr(ts, k)(**s).fit_transform(t), repeat
            )
            assert same(ours, theirs), f"{corpus} {label}: the outputs differ"
            cells.append(f"{label} {anchor:.3f} / {ours_time:.3f} s = {anchor / ours_time:.1f}x "
                         f"({megabytes / ours_time:.0f} MB/s)")  # fmt: skip
        fitted_sk, fitted_ts = sk.CountVectorizer().fit(train), ts.CountVectorizer().fit(train)
        anchor, theirs = best_of(lambda f=fitted_sk, t=test: f.transform(t), repeat)
        ours_time, ours = best_of(lambda f=fitted_ts, t=test: f.transform(t), repeat)
        assert same(ours, theirs), f"{corpus} transform: the outputs differ"
        cells.append(f"Count().transform(test) {anchor:.3f} / {ours_time:.3f} s = {anchor / ours_time:.1f}x")
        print(f"  {corpus} ({megabytes:.1f} MB): " + "; ".join(cells), flush=True)


def main():
    parser = argument_parser(__doc__.splitlines()[0], repeat=3)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--child", action="store_true", help="(internal) time in this process")
    args = parser.parse_args()
    if args.child:
        one_process(args.data_home, args.repeat)
        return
    print("scikit-learn / textsel, best of", args.repeat, "calls")
    in_fresh_processes(__file__, ["--data-home", args.data_home, "--repeat", args.repeat], args.processes)


if __name__ == "__main__":
    main()
