"""``textsel demo``, the main job: rank a corpus's terms with several metrics and time it against
scikit-learn."""

from __future__ import annotations

import time

from .._names import CORPORA
from .inputs import DATA_HOME_HELP, metric_list, positive_int

DEFAULT_METRICS = ("bns", "ig", "chi2", "odds")


def add_parser(subparsers) -> None:
    """The ``demo`` sub-command and its options."""
    demo = subparsers.add_parser(
        "demo",
        help="rank a corpus's terms with several metrics and time textsel against scikit-learn",
        description="Vectorize a corpus (tf-idf, min_df=2), print each large class's top terms "
        "by several metrics, and time term_stats + BNS against scikit-learn's chi2 on the same "
        "matrix.  Without --corpus it uses an embedded SYNTHETIC corpus, so it runs anywhere.",
    )
    demo.add_argument(
        "--corpus", choices=CORPORA, default="synthetic", help="the corpus (default: synthetic)"
    )
    demo.add_argument("--data-home", default=None, help=DATA_HOME_HELP)
    demo.add_argument(
        "--metrics",
        type=metric_list,
        default=",".join(DEFAULT_METRICS),
        help=f"comma-separated metrics (default: {','.join(DEFAULT_METRICS)})",
    )
    demo.add_argument("--top", type=positive_int, default=8, help="terms per class and metric (default: 8)")
    demo.add_argument(
        "--classes", type=positive_int, default=4, help="the largest classes shown (default: 4)"
    )


def run(args) -> None:
    run_demo(args.corpus, args.data_home, args.metrics, args.top, args.classes)


def load_corpus(name: str, data_home=None):
    """Training texts, labels (1-D or indicator), class names and a description."""
    from ..datasets import load_20newsgroups, load_reuters21578, make_synthetic_corpus

    if name == "synthetic":
        b = make_synthetic_corpus()
        return b.data, b.target, b.target_names, b.description
    if name == "reuters21578":
        b = load_reuters21578(data_home)
        return b.data_train, b.y_train, b.target_names, b.description + " (train)"
    if name == "20newsgroups":
        b = load_20newsgroups(data_home)
        return b.data_train, b.target_train, b.target_names, b.description + " (train)"
    raise ValueError(f"corpus must be one of {CORPORA}, got {name!r}")


def _best_time(func, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def run_demo(corpus="synthetic", data_home=None, metrics=DEFAULT_METRICS, top=8, classes=4,
             repeat=5, out=print):  # fmt: skip
    """Rank terms per class with ``metrics``, print the best, and time textsel against scikit-learn.

    Parameters
    ----------
    corpus : {"synthetic", "reuters21578", "20newsgroups"}
        The embedded synthetic corpus, or a real one read from ``data_home``.
    metrics : sequence of str
        Metrics to rank with.
    top : int
        Terms shown per class and metric.
    classes : int
        Classes shown (the largest ones).
    repeat : int
        Timing repetitions (best of).
    out : callable
        Where lines go.

    Returns
    -------
    dict
        The timings in seconds: ``textsel`` (term_stats + BNS for all classes)
        and ``sklearn_chi2``.
    """
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.feature_selection import chi2 as sklearn_chi2

    from .._labels import label_repr
    from ..metrics import score
    from ..selection import top_k
    from ..termstats import term_stats

    texts, y, names, description = load_corpus(corpus, data_home)
    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
    X = vectorizer.fit_transform(texts)
    vocab = vectorizer.get_feature_names_out()
    out(f"corpus: {description}")
    out(f"matrix: {X.shape[0]} documents x {X.shape[1]} terms, {X.nnz} nonzeros, "
        f"{len(names)} classes")  # fmt: skip
    stats = term_stats(X, y)
    shown = np.argsort(-stats.class_sizes, kind="stable")[:classes]
    tables = {m: score(stats, m, random_state=0) for m in metrics}
    for c in shown:
        out("")
        out(f"class {label_repr(names[c])} ({stats.class_sizes[c]} documents): top {top} terms")
        for m in metrics:
            out(f"  {m:>5}: " + " ".join(vocab[top_k(tables[m][c], top)]))
    t_textsel = _best_time(lambda: score(term_stats(X, y), "bns"), repeat)
    t_sklearn = _best_time(lambda: sklearn_chi2(X, y), repeat)
    out("")
    out(f"time, all {len(names)} classes (best of {repeat}):")
    out(f"  textsel term_stats + bns : {t_textsel * 1e3:8.2f} ms")
    out(f"  scikit-learn chi2        : {t_sklearn * 1e3:8.2f} ms")
    out(f"  ratio                    : {t_sklearn / t_textsel:8.1f}x")
    return {"textsel": t_textsel, "sklearn_chi2": t_sklearn}
