"""``textsel demo``, the main job: what BNS and chi2 pick on a real corpus, what keeping only the
best terms does to a classifier on held-out documents, and how fast textsel computes the scores
against the same scores computed with scikit-learn, numpy and scipy."""

from __future__ import annotations

import statistics
import time

from ..names import CORPORA
from .inputs import DATA_HOME_HELP, metric_list, positive_int

DEFAULT_METRICS = ("bns", "chi2")
#: classes listed when --classes is not given (every class of the default corpus)
DEFAULT_CLASSES = 6
#: the numbers of terms kept in the held-out comparison: the largest three up to half the vocabulary
KS = (100, 300, 1000, 3000, 10000)
#: the skewed training set of a binary task: the positive class cut to this share, over this many draws
SKEW_SHARE, SKEW_DRAWS = 0.02, 5
#: timing: at least this many interleaved calls of each function, and more until this many seconds pass
MIN_CALLS, TIME_BUDGET_S = 20, 1.0


def add_parser(subparsers) -> None:
    """The ``demo`` sub-command and its options."""
    demo = subparsers.add_parser(
        "demo",
        help="show what BNS and chi2 pick on a real corpus, what selection does to a classifier, "
        "and how fast textsel scores",
        description="Vectorize a corpus (tf-idf, min_df=2) and print (1) the terms each metric ranks "
        "highest for each class, (2) the F1 of a linear SVM on held-out documents with all terms, "
        "with scikit-learn's SelectKBest(chi2) and with textsel's TermSelector by BNS at a few "
        "numbers of terms (and, for a binary task, with the positive class cut to 2% of the "
        "training set), and (3) textsel's chi2 and BNS timed against the same scores from "
        "scikit-learn and from plain numpy/scipy on the same presence matrix, checked equal. "
        "The default corpus, the SMS Spam Collection (5,574 messages, 13% spam), ships inside "
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
        help=f"comma-separated metrics whose top terms are listed (default: {','.join(DEFAULT_METRICS)})",
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


#: the demo's line on the SMS Spam Collection (its DESCR is the long description with the attribution)
SMS_SPAM = "SMS Spam Collection (Almeida et al. 2011, CC BY 4.0): 5,574 messages, 13.4% spam"


def load_corpus(name: str, data_home=None):
    """Texts, labels (1-D or indicator), class names, a description and the held-out test texts
    and labels: the corpus's own test split, or None where it has none (the demo then holds out a
    stratified quarter)."""
    from ..datasets import load_20newsgroups, load_reuters21578, load_sms_spam, make_synthetic_corpus

    if name == "sms-spam":
        b = load_sms_spam()
        return b.data, b.target, b.target_names, SMS_SPAM, None, None
    if name == "synthetic":
        b = make_synthetic_corpus()
        return b.data, b.target, b.target_names, b.DESCR, None, None
    if name == "reuters21578":
        b = load_reuters21578(data_home)
        return b.data_train, b.target_train, b.target_names, b.DESCR + " (train)", b.data_test, b.target_test
    if name == "20newsgroups":
        b = load_20newsgroups(data_home)
        return (b.data_train, b.target_train, b.target_names, b.DESCR + " (train)",
                b.data_test, b.target_test)  # fmt: skip
    raise ValueError(f"corpus must be one of {CORPORA}, got {name!r}")


# -- the same scores, computed the straightforward way with numpy and scipy


def _indicator(y, classes):
    """(documents x columns) float64 indicator of the columns textsel's score functions report: the
    positive (second) class of a binary task, every class otherwise, ``y`` itself if multi-label."""
    import numpy as np

    if y.ndim == 2:
        return np.asarray(y, dtype=np.float64)
    if len(classes) == 2:
        return (y == classes[1]).astype(np.float64)[:, None]
    return (y[:, None] == classes[None, :]).astype(np.float64)


def _counts(B, y):
    """tp, fp (columns x terms), pos, neg (columns x 1) from a 0/1 CSR matrix and the labels, the
    class counts as scikit-learn's chi2 takes them: a sparse indicator's transpose times the matrix."""
    import numpy as np
    import scipy.sparse as sp

    y = np.asarray(y)
    Y = _indicator(y, np.unique(y) if y.ndim == 1 else None)
    tp = (sp.csr_matrix(Y.T) @ B).toarray()
    df = np.asarray(B.sum(axis=0))
    pos = Y.sum(axis=0)[:, None]
    return tp, df - tp, pos, B.shape[0] - pos


def numpy_chi2(B, y):
    """Forman's chi2 (the full 2x2 table of document counts, one-vs-rest, the maximum over the
    indicator's columns), written directly in numpy."""
    import numpy as np

    tp, fp, pos, neg = _counts(B, y)
    fn, tn = pos - tp, neg - fp
    num = (pos + neg) * (tp * tn - fp * fn) ** 2
    den = (tp + fp) * (fn + tn) * pos * neg
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / den, 0.0).max(axis=0)


def numpy_bns(B, y):
    """Forman's BNS, |F^-1(tpr) - F^-1(fpr)| with the rates clipped to [0.0005, 0.9995], one-vs-rest,
    the maximum over the indicator's columns, written directly in numpy and scipy."""
    import numpy as np
    from scipy.special import ndtri

    tp, fp, pos, neg = _counts(B, y)
    tpr = np.clip(tp / pos, 0.0005, 0.9995)
    fpr = np.clip(fp / neg, 0.0005, 0.9995)
    return np.abs(ndtri(tpr) - ndtri(fpr)).max(axis=0)


def _time_calls(funcs: dict, min_calls: int, budget: float) -> dict:
    """Each function's best and median seconds per call, calling them in turn (so a change of load
    falls on all alike), at least ``min_calls`` times each and until ``budget`` seconds pass."""
    times = {name: [] for name in funcs}
    start = time.perf_counter()
    while True:
        for name, func in funcs.items():
            t = time.perf_counter()
            func()
            times[name].append(time.perf_counter() - t)
        calls = len(times[name])
        if calls >= min_calls and (time.perf_counter() - start > budget or calls >= 50 * min_calls):
            break
    return {name: (min(t), statistics.median(t), len(t)) for name, t in times.items()}


def _largest_difference(a, b) -> float:
    """The largest difference of two score vectors relative to the larger score's scale."""
    import numpy as np

    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


# -- the held-out comparison


def _ks(n_terms: int) -> list[int]:
    """The numbers of terms kept: the largest three of ``KS`` up to half the vocabulary."""
    return [k for k in KS if k <= n_terms / 2][-3:] or [max(1, n_terms // 4)]


def _held_out_f1(train, y_train, test, y_test, ks, positive):
    """F1 on the test documents of a linear SVM on tf-idf with all terms, with SelectKBest(chi2) and
    with TermSelector('bns') at each k (None: :func:`_ks` of the vocabulary):
    {("none", n_terms) | (method, k): F1}."""
    from sklearn.feature_selection import SelectKBest
    from sklearn.feature_selection import chi2 as sklearn_chi2
    from sklearn.metrics import f1_score
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import LinearSVC

    from ..selection import TermSelector
    from ..text import TfidfVectorizer

    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
    X_train = vectorizer.fit_transform(train)
    X_test = vectorizer.transform(test)
    multilabel = y_train.ndim == 2

    def f1(X_tr, X_te):
        model = OneVsRestClassifier(LinearSVC()) if multilabel else LinearSVC()
        predicted = model.fit(X_tr, y_train).predict(X_te)
        if positive is not None:
            return f1_score(y_test, predicted, pos_label=positive)
        return f1_score(y_test, predicted, average="micro" if multilabel else "macro")

    scores = {("none", X_train.shape[1]): f1(X_train, X_test)}
    for k in _ks(X_train.shape[1]) if ks is None else ks:
        for method, selector in (("chi2", SelectKBest(sklearn_chi2, k=k)), ("bns", TermSelector("bns", k=k))):
            selector.fit(X_train, y_train)
            scores[method, k] = f1(selector.transform(X_train), selector.transform(X_test))
    return scores


def _skewed(y_train, positive, share, seed):
    """Indices of a training set holding every other document and the positive class cut to
    ``share`` of it (drawn with ``seed``)."""
    import numpy as np

    rest = np.flatnonzero(y_train != positive)
    kept = np.random.default_rng(seed).choice(
        np.flatnonzero(y_train == positive), round(share * len(rest) / (1 - share)), replace=False
    )
    return np.sort(np.concatenate([rest, kept]))


def _f1_table(scores, ks, out) -> None:
    """The held-out F1 per number of terms kept: all terms, then chi2 and BNS at each k."""
    (n_terms,) = [k for method, k in scores if method == "none"]
    out(f"    {'terms kept':<16} {'all terms':>9}   {'SelectKBest(chi2)':>17}   {'TermSelector(bns)':>17}")
    out(f"    {f'all {n_terms:,}':<16} {scores['none', n_terms]:>9.3f}")
    for k in sorted(ks, reverse=True):
        share = k / n_terms
        kept = f"{k:,} ({share:.0%})" if share >= 0.01 else f"{k:,} ({share:.1%})"
        out(f"    {kept:<16} {'':>9}   {scores['chi2', k]:>17.3f}   {scores['bns', k]:>17.3f}")


def _f1_verdict(scores, ks, tie: float) -> str:
    """What the table shows, in words: the best selection against all terms, and BNS against chi2;
    differences under ``tie`` (about one test document's worth) count as ties."""
    ((_, n_terms),) = [key for key in scores if key[0] == "none"]
    everything = scores["none", n_terms]
    method, k = max((key for key in scores if key[0] != "none"), key=lambda key: (scores[key], -key[1]))
    best = scores[method, k]
    name = "SelectKBest(chi2)" if method == "chi2" else "TermSelector(bns)"
    if best >= everything + tie:
        first = f"{name} at {k:,} terms beats all terms by {best - everything:.3f}"
    elif best > everything - tie:
        first = f"{name} at {k:,} terms ties with all terms ({best:.3f} against {everything:.3f})"
    else:
        first = f"every selection costs F1: the best, {name} at {k:,} terms, is {everything - best:.3f} below"
    wins = sum(scores["bns", k] >= scores["chi2", k] + tie for k in ks)
    losses = sum(scores["bns", k] <= scores["chi2", k] - tie for k in ks)
    ties = len(ks) - wins - losses
    return (f"{first}; BNS is above chi2 at {wins} of the {len(ks)} k, below at {losses}, tied at {ties} "
            f"(a difference under {tie:.2g}, about one test document, is a tie).")  # fmt: skip


def _held_out(texts, y, names, test_texts, y_test, out) -> None:
    """Section 2: what selection does to a classifier on held-out documents."""
    import numpy as np
    from sklearn.model_selection import train_test_split

    y = np.asarray(y)
    if test_texts is None:
        texts, test_texts, y, y_test = train_test_split(
            list(texts), y, test_size=0.25, stratify=y, random_state=0
        )
        where = f"a held-out quarter ({len(test_texts):,} documents, stratified, seed 0)"
    else:
        where = f"the corpus's own test split ({len(test_texts):,} documents)"
    y_test = np.asarray(y_test)
    positive = None
    if y.ndim == 1 and len(names) == 2:
        positive = int(np.argmin(np.bincount(y, minlength=2)))
        measure, tie = f"F1 of {names[positive]!r}", 1 / np.sum(y_test == positive)
    elif y.ndim == 2:
        measure, tie = "micro-F1 over the labels", 1 / y_test.sum()
    else:
        measure, tie = "macro-F1 over the classes", 1 / len(y_test)

    out("")
    _say(f"2. What selection does to a classifier: {measure} on {where}; LinearSVC on tf-idf, "
         "SelectKBest(chi2) as scikit-learn users call it, on the tf-idf matrix:", out, first="")  # fmt: skip
    scores = _held_out_f1(texts, y, test_texts, y_test, None, positive)
    ks = [k for method, k in scores if method == "bns"]
    _f1_table(scores, ks, out)
    _say(f"Here {_f1_verdict(scores, ks, tie)}", out)

    if positive is not None and np.mean(y == positive) > 2 * SKEW_SHARE:
        drawn = [_skewed(y, positive, SKEW_SHARE, seed) for seed in range(SKEW_DRAWS)]
        runs = [
            _held_out_f1([texts[i] for i in keep], y[keep], test_texts, y_test, ks, positive)
            for keep in drawn
        ]
        scores = {key: float(np.mean([r[key] for r in runs])) for key in runs[0] if key[0] != "none"}
        everything = [next(v for key, v in r.items() if key[0] == "none") for r in runs]
        n_terms = round(np.mean([next(key[1] for key in r if key[0] == "none") for r in runs]))
        scores["none", n_terms] = float(np.mean(everything))
        out("")
        _say(f"Skewed: {names[positive]!r} cut to {SKEW_SHARE:.0%} of the training set "
             f"({len(drawn[0]) - np.sum(y != positive):,} of {len(drawn[0]):,} documents), the same test "
             f"documents, mean of {SKEW_DRAWS} draws:", out)  # fmt: skip
        _f1_table(scores, ks, out)
        _say(f"Here {_f1_verdict(scores, ks, tie)}", out)
    out("")
    _say("These are one split's numbers (the skewed ones a mean of draws), with no interval: a "
         "difference of a few test documents is noise. Selection buys a smaller model (k weights, "
         "not one per term) and faster training and prediction on large vocabularies; whether it "
         "also buys F1 depends on the corpus. Forman (2003) reports BNS ahead under high class skew; "
         "`textsel study` runs his protocol (repeated cross-validation, every metric and k) on your "
         "own corpus.", out)  # fmt: skip


def _say(text: str, out, first: str = "   ", rest: str = "   ", width: int = 100) -> None:
    """A paragraph wrapped to ``width``, its first line indented by ``first``, the others by ``rest``."""
    import textwrap

    for line in textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest):
        out(line)


# -- the demo


def _terms(vocab, ranked, present) -> str:
    """Ranked terms, each one whose absence (not presence) marks the class written ``-term``."""
    return " ".join(str(vocab[j]) if present[j] else f"-{vocab[j]}" for j in ranked)


def _ranked(tables, vocab, present, top, sizes, names, classes, metrics, out) -> None:
    """Section 1: the top terms per class and metric."""
    import numpy as np

    from ..selection import top_k

    named = [m.upper() if m == "bns" else m for m in metrics]
    listed = " and ".join(named) if len(named) <= 2 else ", ".join(named[:-1]) + " and " + named[-1]
    width = max(5, *map(len, metrics))
    lines, absent = [], False

    def ranked(c):
        nonlocal absent
        for m in metrics:
            terms = _terms(vocab, top_k(tables[m][c], top), present[c])
            absent = absent or any(term.startswith("-") for term in terms.split())
            lines.append(f"  {m:>{width}}: {terms}")

    if len(names) == 2 and all(np.array_equal(t[0], t[1]) for t in tables.values()):
        # a symmetric metric gives both classes of a binary task the same scores: one list each
        c = int(np.argmin(sizes))
        lines.append(f"{repr(names[c])} against {repr(names[1 - c])} (these metrics score both "
                     f"classes alike: one list per metric, for {repr(names[c])})")  # fmt: skip
        ranked(c)
    else:
        shown = np.argsort(-sizes, kind="stable")[:classes]
        if len(shown) < len(names):
            lines.append(
                f"(the {len(shown)} largest of {len(names)} classes; --classes {len(names)} lists them all)"
            )
        for c in shown:
            lines += ["", f"class {repr(names[c])} ({sizes[c]:,} documents)"]
            ranked(c)
    out("")
    out(f"1. What {listed} rank highest: the top {top} terms per class")
    if absent:
        out("   ('-term': the term's absence, not its presence, indicates the class)")
    for line in lines:
        out(line)


def _speed(X, y, min_calls, budget, out) -> dict:
    """Section 3: textsel's chi2 and BNS against the same scores by scikit-learn and numpy/scipy."""
    import numpy as np
    from sklearn.feature_selection import chi2 as sklearn_chi2

    from ..score_funcs import bns as textsel_bns
    from ..score_funcs import chi2 as textsel_chi2

    B = (X > 0).astype(np.float64)  # the presence matrix all of them are given
    y = np.asarray(y)
    binary = y.ndim == 1 and len(np.unique(y)) == 2
    funcs = {
        "textsel_chi2": lambda: textsel_chi2(B, y),
        "numpy_chi2": lambda: numpy_chi2(B, y),
        "textsel_bns": lambda: textsel_bns(B, y),
        "numpy_bns": lambda: numpy_bns(B, y),
    }
    if binary:
        funcs["sklearn_chi2"] = lambda: sklearn_chi2(B, y)
    # the same numbers first: textsel against numpy/scipy, and scikit-learn's chi2, which sums
    # only the two cells of the 2x2 table where the term is present, against textsel's x (1 - df/N)
    ours = {"chi2": textsel_chi2(B, y), "bns": textsel_bns(B, y)}
    agree = {"numpy_chi2": _largest_difference(ours["chi2"], numpy_chi2(B, y)),
             "numpy_bns": _largest_difference(ours["bns"], numpy_bns(B, y))}  # fmt: skip
    if binary:
        df = np.asarray(B.sum(axis=0)).ravel()
        agree["sklearn_chi2"] = _largest_difference(
            ours["chi2"] * (1 - df / B.shape[0]), sklearn_chi2(B, y)[0]
        )
    timed = _time_calls(funcs, min_calls, budget)

    calls = min(n for _, _, n in timed.values())
    out("")
    out("3. Speed, like for like: the same scores from the same presence matrix (X > 0), each figure")
    out(f"   one whole public call, best of {calls}+ calls made in turn (median beside it):")
    out(f"    {'':<43} {'best':>8} {'median':>9}   {'textsel faster':>14}   same scores?")
    rows = [
        ("chi2", "textsel_chi2", "textsel.chi2(B, y)"),
        (None, "numpy_chi2", "numpy/scipy, the 2x2 formula"),
        (None, "sklearn_chi2", "sklearn.feature_selection.chi2(B, y)"),
        ("bns", "textsel_bns", "textsel.bns(B, y)"),
        (None, "numpy_bns", "numpy/scipy, ndtri of the rates"),
    ]
    for metric, key, label in rows:
        if key not in timed:
            continue
        best, median, _ = timed[key]
        head = f"{metric or '':<5} {label:<37} {best * 1e3:6.2f} ms {median * 1e3:6.2f} ms"
        if metric:
            out(f"    {head}")
            ours_key = key
            continue
        ratio = timed[key][0] / timed[ours_key][0]
        if ratio >= 1.05:
            faster = f"{ratio:.1f}x"
        else:
            faster = f"same ({ratio:.2f}x)" if ratio > 1 / 1.05 else f"{1 / ratio:.1f}x slower"
        close = "exactly" if agree[key] == 0 else f"to {agree[key]:.0e}"
        same = f"yes, {close}" if key != "sklearn_chi2" else f"x (1 - df/N), {close} (a)"
        out(f"    {head}   {faster:>14}   {same}")
    if binary:
        out("    (a) scikit-learn's chi2 counts the two cells of the 2x2 table where the term is present,")
        out("        Forman's (textsel's) all four; on a presence matrix they differ by exactly the factor")
        out("        1 - df/N (df: the term's documents, N: all documents), checked above.")
    else:
        out("    (scikit-learn's chi2 of several classes or labels tests them all in one table, a different")
        out("    score from Forman's one-vs-rest maximum, so it is not timed here.)")
    return {key: best for key, (best, _, _) in timed.items()}


def run_demo(corpus="sms-spam", data_home=None, metrics=DEFAULT_METRICS, top=10, classes=DEFAULT_CLASSES,
             repeat=MIN_CALLS, out=print, *, held_out=True, budget=TIME_BUDGET_S):  # fmt: skip
    """Rank terms per class with ``metrics``, compare selections on held-out documents, and time
    textsel's scores against the same scores from scikit-learn and numpy/scipy.

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
        The fewest timed calls of each function (best of them; more are made until ``budget``
        seconds have passed).
    out : callable
        Where lines go.
    held_out : bool
        Whether to run section 2, the classifier on held-out documents.
    budget : float
        Seconds of timing, at the least.

    Returns
    -------
    dict
        The best time in seconds of one whole public call on the same presence matrix:
        ``textsel_chi2`` (:func:`textsel.chi2`), ``numpy_chi2`` (:func:`numpy_chi2`), ``textsel_bns``
        (:func:`textsel.bns`), ``numpy_bns`` (:func:`numpy_bns`) and, for a binary task,
        ``sklearn_chi2`` (:func:`sklearn.feature_selection.chi2`).
    """
    import numpy as np

    from ..metrics import score
    from ..selection import present_in_class
    from ..termstats import term_stats
    from ..text import TfidfVectorizer

    texts, y, names, description, test_texts, y_test = load_corpus(corpus, data_home)
    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
    X = vectorizer.fit_transform(texts)
    vocab = vectorizer.get_feature_names_out()
    stats = term_stats(X, y)
    sizes = stats.class_sizes
    out(f"corpus: {description}")
    out(f"matrix: {X.shape[0]:,} documents x {X.shape[1]:,} terms (tf-idf, min_df=2), {X.nnz:,} nonzeros")
    out(f"{len(names)} classes: " + ", ".join(
        f"{repr(names[c])} {sizes[c]:,} ({sizes[c] / stats.n_docs:.1%})"
        for c in np.argsort(-sizes, kind="stable")[:8]) + (", ..." if len(names) > 8 else ""))  # fmt: skip

    tables = {m: score(stats, m, random_state=0) for m in metrics}
    _ranked(tables, vocab, present_in_class(stats), top, sizes, names, classes, metrics, out)
    if held_out:
        _held_out(texts, y, names, test_texts, y_test, out)
    timings = _speed(X, y, repeat, budget, out)
    out("")
    out("Next: keep the best terms in a pipeline, TermSelector('bns', k=1000) before LinearSVC; or rank")
    out("your own texts with `textsel select docs.csv --metric bns` (a CSV/TSV with text and label).")
    return timings
