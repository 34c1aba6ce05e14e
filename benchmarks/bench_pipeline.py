"""A user's whole pipeline, text to predictions: textsel's pieces against scikit-learn's.

On 20 Newsgroups (bydate: 11,314 training and 7,532 test documents), the pipeline
``TfidfVectorizer(sublinear_tf=True)`` -> select ``--k`` terms -> scikit-learn's ``LinearSVC()``
is fitted on the training texts and predicts the test texts:

- scikit-learn: its ``TfidfVectorizer`` and ``SelectKBest(chi2)``;
- textsel: ``textsel.text.TfidfVectorizer`` (scikit-learn's output, counted by textsel's
  kernel) and ``TermSelector("bns")``.

The classifier is the same class with the same settings in both.  Each of ``--processes`` fresh
processes times both pipelines (best of ``--repeat`` calls of ``fit`` + ``predict``) with one
thread and with two (``TEXTSEL_NUM_THREADS``), and prints each step's time, the ratio and the
test accuracy of both.

    python benchmarks/bench_pipeline.py [--data-home DATA] [--k 10000] [--processes 3] [--repeat 3]
"""

from __future__ import annotations

import time

from corpora import argument_parser, in_fresh_processes


def pipelines(k):
    from sklearn.feature_extraction import text as sk
    from sklearn.feature_selection import SelectKBest, chi2
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    from textsel import TermSelector
    from textsel import text as ts

    return {
        "scikit-learn": make_pipeline(
            sk.TfidfVectorizer(sublinear_tf=True), SelectKBest(chi2, k=k), LinearSVC()
        ),
        "textsel": make_pipeline(
            ts.TfidfVectorizer(sublinear_tf=True), TermSelector("bns", k=k), LinearSVC()
        ),
    }


def timed(pipeline, train, y, test):
    """Seconds of each step of fit (vectorizer, selector, classifier) and of predict, and the
    predictions."""
    from sklearn.base import clone

    model = clone(pipeline)
    vectorizer, selector, classifier = (step for _, step in model.steps)
    t = [time.perf_counter()]
    X = vectorizer.fit_transform(train)
    t.append(time.perf_counter())
    Xk = selector.fit_transform(X, y)
    t.append(time.perf_counter())
    classifier.fit(Xk, y)
    t.append(time.perf_counter())
    predicted = model.predict(test)
    t.append(time.perf_counter())
    return [b - a for a, b in zip(t[:-1], t[1:], strict=True)], predicted


def one_process(data_home, k, repeat):
    import numpy as np

    from textsel.datasets import load_20newsgroups

    news = load_20newsgroups(data_home)
    results = {}
    for name, pipeline in pipelines(k).items():
        best = None
        for _ in range(repeat):
            steps, predicted = timed(pipeline, news.data_train, news.target_train, news.data_test)
            if best is None or sum(steps) < sum(best):
                best = steps
        results[name] = (best, float(np.mean(predicted == news.target_test)))
    (sk_steps, sk_acc), (ts_steps, ts_acc) = results["scikit-learn"], results["textsel"]
    steps = ("vectorize", "select", "LinearSVC", "predict")
    cells = [f"{label} {a:.3f} / {b:.3f} s" for label, a, b in zip(steps, sk_steps, ts_steps, strict=True)]
    whole = sum(sk_steps), sum(ts_steps)
    print(f"  {'; '.join(cells)}; whole pipeline {whole[0]:.3f} / {whole[1]:.3f} s = "
          f"{whole[0] / whole[1]:.2f}x; test accuracy {sk_acc:.4f} / {ts_acc:.4f}", flush=True)  # fmt: skip


def main():
    parser = argument_parser(__doc__.splitlines()[0], repeat=3)
    parser.add_argument("--k", type=int, default=10_000)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--child", action="store_true", help="(internal) time in this process")
    args = parser.parse_args()
    if args.child:
        one_process(args.data_home, args.k, args.repeat)
        return
    print(f"scikit-learn / textsel, k = {args.k}, best of {args.repeat} fits + predictions")
    in_fresh_processes(
        __file__, ["--data-home", args.data_home, "--k", args.k, "--repeat", args.repeat], args.processes
    )


if __name__ == "__main__":
    main()
