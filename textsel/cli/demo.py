"""``textsel demo``, the main job: what BNS and chi2 pick on a real corpus, and how fast textsel
scores it against scikit-learn."""

from __future__ import annotations

import time

from .._names import CORPORA
from .inputs import DATA_HOME_HELP, metric_list, positive_int

DEFAULT_METRICS = ("bns", "chi2")
#: classes listed when --classes is not given (every class of the default corpus)
DEFAULT_CLASSES = 6


def add_parser(subparsers) -> None:
    """The ``demo`` sub-command and its options."""
    demo = subparsers.add_parser(
        "demo",
        help="show what BNS and chi2 pick on a real corpus and time textsel against scikit-learn",
        description="Vectorize a corpus (tf-idf, min_df=2), print the terms each metric ranks "
        "highest for each class (marking the terms whose absence, not presence, indicates the "
        "class), and time textsel's chi2 score function against scikit-learn's on the same matrix. "
        "The default corpus, the SMS Spam Collection (5,574 messages, 13%% spam), ships inside "
        "textsel, so the demo needs no data home.",
    )
    demo.add_argument(
        "--corpus", choices=CORPORA, default=CORPORA[0], help=f"the corpus (default: {CORPORA[0]})"
    )
    demo.add_argument("--data-home", default=None, help=DATA_HOME_HELP)
    demo.add_argument(
        "--metrics",
        type=metric_list,
        default=",".join(DEFAULT_METRICS),
        help=f"comma-separated metrics (default: {','.join(DEFAULT_METRICS)})",
    )
    demo.add_argument("--top", type=positive_int, default=10, help="terms per class and metric (default: 10)")
    demo.add_argument(
        "--classes",
        type=positive_int,
        default=DEFAULT_CLASSES,
        help=f"the largest classes shown (default: {DEFAULT_CLASSES})",
    )


def run(args) -> None:
    run_demo(args.corpus, args.data_home, args.metrics, args.top, args.classes)


def load_corpus(name: str, data_home=None):
    """Training texts, labels (1-D or indicator), class names and a description."""
    from ..datasets import load_20newsgroups, load_reuters21578, load_sms_spam, make_synthetic_corpus

    if name == "sms-spam":
        b = load_sms_spam()
        return b.data, b.target, b.target_names, b.description
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


def _terms(vocab, ranked, present) -> str:
    """Ranked terms, each one whose absence (not presence) marks the class written ``-term``."""
    return " ".join(str(vocab[j]) if present[j] else f"-{vocab[j]}" for j in ranked)


def run_demo(corpus="sms-spam", data_home=None, metrics=DEFAULT_METRICS, top=10, classes=DEFAULT_CLASSES,
             repeat=5, out=print):  # fmt: skip
    """Rank terms per class with ``metrics``, print the best, and time textsel against scikit-learn.

    Parameters
    ----------
    corpus : {"sms-spam", "synthetic", "reuters21578", "20newsgroups"}
        The embedded SMS Spam Collection or synthetic corpus, or a real one read from ``data_home``.
    metrics : sequence of str
        Metrics to rank with.
    top : int
        Terms shown per class and metric.
    classes : int
        Classes shown (the largest ones); the output says when some are left out.
    repeat : int
        Timing repetitions (best of).
    out : callable
        Where lines go.

    Returns
    -------
    dict
        The timings in seconds, each of one whole public call on the same matrix:
        ``textsel_chi2`` (:func:`textsel.chi2`), ``sklearn_chi2``
        (:func:`sklearn.feature_selection.chi2`) and ``textsel_bns`` (:func:`textsel.bns`).
    """
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.feature_selection import chi2 as sklearn_chi2

    from .._labels import label_repr
    from ..metrics import score
    from ..score_funcs import bns as textsel_bns
    from ..score_funcs import chi2 as textsel_chi2
    from ..selection import present_in_class, top_k
    from ..termstats import term_stats

    texts, y, names, description = load_corpus(corpus, data_home)
    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
    X = vectorizer.fit_transform(texts)
    vocab = vectorizer.get_feature_names_out()
    stats = term_stats(X, y)
    sizes = stats.class_sizes
    out(f"corpus: {description}")
    out(f"matrix: {X.shape[0]:,} documents x {X.shape[1]:,} terms (tf-idf, min_df=2), {X.nnz:,} nonzeros")
    out(f"{len(names)} classes: " + ", ".join(
        f"{label_repr(names[c])} {sizes[c]:,} ({sizes[c] / stats.n_docs:.1%})"
        for c in np.argsort(-sizes, kind="stable")[:8]) + (", ..." if len(names) > 8 else ""))  # fmt: skip

    tables = {m: score(stats, m, random_state=0) for m in metrics}
    present = present_in_class(stats)
    named = [m.upper() if m == "bns" else m for m in metrics]
    listed = " and ".join(named) if len(named) <= 2 else ", ".join(named[:-1]) + " and " + named[-1]
    out("")
    out(f"What {listed} rank highest: the top {top} terms per class; '-term' marks a term whose")
    out("absence, not presence, indicates the class.")
    if len(names) == 2 and all(np.array_equal(t[0], t[1]) for t in tables.values()):
        # a symmetric metric gives both classes of a binary task the same scores: one list each
        c = int(np.argmin(sizes))
        out("")
        out(f"{label_repr(names[c])} against {label_repr(names[1 - c])} (with two classes these metrics "
            f"score both alike: one list each, as it marks {label_repr(names[c])})")  # fmt: skip
        for m in metrics:
            out(f"  {m:>5}: " + _terms(vocab, top_k(tables[m][c], top), present[c]))
    else:
        shown = np.argsort(-sizes, kind="stable")[:classes]
        if len(shown) < len(names):
            out(f"(the {len(shown)} largest of {len(names)} classes; --classes {len(names)} lists them all)")
        for c in shown:
            out("")
            out(f"class {label_repr(names[c])} ({sizes[c]:,} documents)")
            for m in metrics:
                out(f"  {m:>5}: " + _terms(vocab, top_k(tables[m][c], top), present[c]))

    # like for like: the same job (a chi-squared score per term, for SelectKBest) on the same matrix,
    # each timed as the whole public call
    t_textsel = _best_time(lambda: textsel_chi2(X, y), repeat)
    t_sklearn = _best_time(lambda: sklearn_chi2(X, y), repeat)
    t_bns = _best_time(lambda: textsel_bns(X, y), repeat)
    out("")
    out(f"Speed, like for like: a chi-squared score for every term, as SelectKBest calls it, on this "
        f"matrix (best of {repeat}):")  # fmt: skip
    out(f"  scikit-learn  sklearn.feature_selection.chi2(X, y) : {t_sklearn * 1e3:8.2f} ms")
    out(f"  textsel       textsel.chi2(X, y)                   : {t_textsel * 1e3:8.2f} ms"
        f"  ({t_sklearn / t_textsel:.1f}x faster)")  # fmt: skip
    out(f"  textsel       textsel.bns(X, y)                    : {t_bns * 1e3:8.2f} ms")
    out("  (scikit-learn's chi2 sums the tf-idf values of the documents holding a term; textsel's is")
    out("  Forman's chi-squared of the term's document counts, all four cells of the 2x2 table.)")
    out("")
    out("Next: keep the best terms in a pipeline, TermSelector('bns', k=1000) before LinearSVC; or rank")
    out("your own texts with `textsel select docs.csv --metric bns` (a CSV/TSV with text and label).")
    return {"textsel_chi2": t_textsel, "sklearn_chi2": t_sklearn, "textsel_bns": t_bns}
