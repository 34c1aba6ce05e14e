"""Dasgupta, Drineas, Harb, Josifovski and Mahoney (2007), "Feature selection methods for text
classification" (KDD), reproduced on 20 Newsgroups and Reuters-21578 (for Reuters RCV2).

Regularized least-squares classification (:class:`~textsel.RLSClassifier`, one-vs-rest) on the
terms kept by subspace sampling (SS, k = 1500 and k = 100), weighted sampling (WS), uniform
sampling (US), and the top-r terms by document frequency (DF) and information gain (IG);
micro- and macro-F1 relative to all terms, lambda tuned on all terms for the best test micro-F1
as in the paper, each sampling strategy averaged over five draws
(:func:`textsel.study.sampling_curves`).  On 20 Newsgroups the relative curves are averaged
over five random 4:1 train/test splits, as the paper averages five of Rennie's splits; Reuters
has its one standard split, as in the paper.
"""

from __future__ import annotations

import time

import numpy as np

from .claims import DASGUPTA as CLAIMS
from .report import Report

__all__ = ["run"]

BUDGETS = (250, 500, 1000, 2000, 5000, 10000)
LAMBDAS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
STRATEGIES = (("ss", 1500), ("ss", 100), ("ws", None), ("us", None))
UNSUPERVISED = ("ss k=1500", "ss k=100", "ws", "us", "dfreq")
SPLITS = 5
TEST_SHARE = 0.2  # the paper's 1:4 test to training documents
MEASURES = {"relative_f1": "micro-F1", "relative_macro_f1": "macro-F1"}


def run(
    data_home=None, out=None, quick=False, n_jobs=None, progress=False, figures=True, corpora=None
) -> Report:
    """Run the reproduction and return its :class:`Report` (written to ``out`` when given).

    ``corpora`` (name to ``(X, y, X_test, y_test)`` or a list of such train/test splits, unit-length
    tf-idf rows; the first is the 20 Newsgroups stand-in, the second the Reuters one) replaces the
    data home's; ``quick`` uses k = 150 / 20 for SS, two draws, three budgets and two splits."""
    start = time.perf_counter()
    if corpora is None:
        corpora = _corpora(data_home, 2 if quick else SPLITS)
    corpora = {
        name: [splits] if isinstance(splits, tuple) else list(splits) for name, splits in corpora.items()
    }
    (news_name, news), (reuters_name, reuters) = list(corpora.items())[:2]
    strategies = (("ss", 150), ("ss", 20), ("ws", None), ("us", None)) if quick else STRATEGIES
    budgets = (500, 2000, 5000) if quick else BUDGETS
    samples = 2 if quick else 5
    report = Report(
        claims=CLAIMS,
        key="dasgupta",
        title="Dasgupta et al. (2007): subspace sampling for feature selection",
        citation="A. Dasgupta, P. Drineas, B. Harb, V. Josifovski and M. W. Mahoney, *Feature selection "
        "methods for text classification*, KDD 2007.",
        quick=quick,
        corpus="The paper used TechTC-100, 20 Newsgroups (five of Rennie's 4:1 train/test splits, "
        f"stemmed, ltc) and Reuters RCV2 (one split).  Here: {news_name} ({_splits_text(news)}) and "
        f"{reuters_name} (for RCV2, {_splits_text(reuters)}), sublinear tf-idf fitted on each training "
        "part, unit-length rows, words in fewer than 2 training documents dropped.  RLSC "
        f"(`RLSClassifier`, one-vs-rest), each sampling strategy averaged over {samples} draws, "
        f"lambda tuned on all terms from {', '.join(f'{v:g}' for v in LAMBDAS)}.  The paper's SS "
        f"ranks are {STRATEGIES[0][1]} and {STRATEGIES[1][1]}"
        + (f" (the quick run uses {strategies[0][1]} and {strategies[1][1]})." if quick else "."),
    )
    _lambda_sweep(report, *news[0])
    curves = {}
    for name, splits in ((news_name, news), (reuters_name, reuters)):
        curves[name] = _curves(splits, budgets, strategies, samples)
        if progress:
            print(f"textsel reproduce dasgupta: {name} done", flush=True)
    labels = [f"{s} k={k}" if k else s for s, k in strategies]
    _newsgroups_claims(report, curves[news_name], labels, budgets)
    _hellinger(report, news[0][0], (10, 20, 40, 100) if not quick else (5, 10, 20))
    _reuters_claims(report, curves[reuters_name], labels, budgets)
    _reuters_claims(report, curves[reuters_name], labels, budgets, measure="relative_macro_f1")
    for name, records in curves.items():
        for measure in MEASURES if name == reuters_name else ("relative_f1",):
            report.sections.append((
                f"Relative {MEASURES[measure]} on {name} (Dasgupta et al.'s Fig. 5)",
                _table(records, budgets, measure),
            ))  # fmt: skip
    folder = report.figure_folder(out, figures)
    if folder is not None:
        _figures(report, curves, folder)
    return report.finish(start, out)


def _corpora(data_home, n_splits):
    """20 Newsgroups as ``n_splits`` random 4:1 train/test splits of all its documents, and
    Reuters-21578's ModApte split."""
    from sklearn.model_selection import ShuffleSplit

    from ..datasets import load_20newsgroups, load_reuters21578

    news = load_20newsgroups(data_home)
    documents = list(news.data_train) + list(news.data_test)
    labels = np.concatenate([news.target_train, news.target_test])
    splitter = ShuffleSplit(n_splits=n_splits, test_size=TEST_SHARE, random_state=0)
    splits = [
        _vectorized([documents[i] for i in train], labels[train], [documents[i] for i in test], labels[test])
        for train, test in splitter.split(documents)
    ]
    reuters = load_reuters21578(data_home)
    return {
        "20 Newsgroups": splits,
        "Reuters-21578": [
            _vectorized(reuters.data_train, reuters.y_train, reuters.data_test, reuters.y_test)
        ],
    }


def _vectorized(train, y, test, y_test):
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
    return vectorizer.fit_transform(train), np.asarray(y), vectorizer.transform(test), np.asarray(y_test)


def _splits_text(splits) -> str:
    n_train, n_test = splits[0][0].shape[0], splits[0][2].shape[0]
    if len(splits) == 1:
        return f"one split, {n_train:,} training and {n_test:,} test documents"
    return f"{len(splits)} random splits of {n_train:,} training and {n_test:,} test documents"


def _lambda_sweep(report, X, y, X_test, y_test):
    from sklearn.metrics import f1_score

    from ..linear_model import RLSClassifier

    micro, macro = {}, {}
    for lam in LAMBDAS:
        predicted = RLSClassifier(alpha=lam).fit(X, y).predict(X_test)
        micro[lam] = f1_score(y_test, predicted, average="micro")
        macro[lam] = f1_score(y_test, predicted, average="macro", zero_division=0)
    best_micro, best_macro = max(micro, key=micro.get), max(macro, key=macro.get)
    report.claim(
        "lambda",
        f"RLSC on all terms, lambda from {LAMBDAS[0]:g} to {LAMBDAS[-1]:g}: the best micro / macro-F1",
        f"micro {micro[best_micro]:.4f} at lambda {best_micro:g}, macro {macro[best_macro]:.4f} at "
        f"lambda {best_macro:g}; at 0.4: {micro[0.4]:.4f} / {macro[0.4]:.4f}",
        best_micro == best_macro == 0.4,
        f"the optima are at {best_micro:g} / {best_macro:g}; micro-F1 varies by "
        f"{max(micro.values()) - min(micro.values()):.4f} over the sweep",
    )


def _curves(splits, budgets, strategies, samples):
    """The records of :func:`textsel.study.sampling_curves` by (method, budget), each measure and
    the terms kept averaged over the splits (the paper's RelMIF(r): relative to each split's own
    best all-terms fit, then averaged)."""
    from ..study import sampling_curves

    per_split = []
    for X, y, X_test, y_test in splits:
        usable = [r for r in budgets if r < X.shape[1]]
        records = sampling_curves(
            X, y, X_test, y_test, usable, strategies=strategies, samples=samples, alphas=LAMBDAS
        )
        per_split.append({(r["method"], r["budget"]): r for r in records})
    keys = [key for key in per_split[0] if all(key in records for records in per_split)]
    return {
        key: {
            field: float(np.mean([records[key][field] for records in per_split]))
            for field in ("kept", "relative_f1", "relative_macro_f1")
        }
        for key in keys
    }


def _at(curves, method, budget, measure="relative_f1"):
    return curves[(method, budget)][measure]


def _newsgroups_claims(report, curves, labels, budgets):
    budgets = sorted({b for _, b in curves})
    ss_big, ss_small = labels[0], labels[1]
    near5k = min(budgets, key=lambda b: abs(b - 5000))
    values = {m: _at(curves, m, near5k) for m in (ss_big, "ig")}
    report.claim(
        "ninety",
        f"relative micro-F1 at r = {near5k} (about 90%: 0.85-0.95)",
        f"{ss_big} {values[ss_big]:.3f} (kept {curves[(ss_big, near5k)]['kept']:.0f} terms), "
        f"IG {values['ig']:.3f}",
        all(0.85 <= v <= 0.95 for v in values.values()),
        "; ".join(
            f"{m.upper() if m == 'ig' else m} keeps {v:.3f} of the all-terms micro-F1, "
            f"{'above' if v > 0.95 else 'below'} the band"
            for m, v in values.items()
            if not 0.85 <= v <= 0.95
        ),
    )
    methods = sorted({m for m, _ in curves})
    lead = {b: max(methods, key=lambda m: _at(curves, m, b)) for b in budgets}
    smallest = budgets[0]
    margin = _at(curves, "ig", smallest) - max(_at(curves, m, smallest) for m in methods if m != "ig")
    report.claim(
        "ig_dominates",
        "the best method at each r, and IG's margin at the smallest r",
        ", ".join(f"{b}: {lead[b]}" for b in budgets) + f"; IG's margin at {smallest}: {margin:+.3f}",
        all(m == "ig" for m in lead.values()),
        ", ".join(f"{lead[b]} leads at {b}" for b in budgets if lead[b] != "ig"),
    )
    unsupervised = [m for m in methods if m != "ig"]
    best_unsup = max(unsupervised, key=lambda m: _at(curves, m, smallest))
    report.claim(
        "ss100",
        f"the best unsupervised method at the smallest r = {smallest}",
        ", ".join(f"{m} {_at(curves, m, smallest):.3f}" for m in unsupervised),
        best_unsup == ss_small,
        f"{best_unsup} is best there",
    )
    larger = [b for b in budgets if b >= 1000]
    wins = [b for b in larger if _at(curves, ss_big, b) >= max(_at(curves, m, b) for m in unsupervised)]
    gap = max(_at(curves, ss_big, b) - max(_at(curves, m, b) for m in ("ws", "dfreq")) for b in larger)
    us_gap = min(_at(curves, ss_big, b) - _at(curves, "us", b) for b in larger)
    report.claim(
        "ss1500",
        f"r >= 1000 where {ss_big} is the best unsupervised method; its largest lead over WS and DF; its "
        "smallest lead over US",
        f"{wins} of {larger}; lead over WS/DF at most {gap:+.3f}; over US at least {us_gap:+.3f}",
        len(wins) == len(larger) and gap <= 0.03 and us_gap > 0.05,
        ", ".join(
            f"at {b} {max(unsupervised, key=lambda m, b=b: _at(curves, m, b))} leads"
            for b in larger
            if b not in wins
        )
        or f"lead over WS/DF {gap:+.3f}, over US {us_gap:+.3f}",
    )


def _hellinger(report, X, ks):
    from ..sampling import feature_probabilities, hellinger

    ws = feature_probabilities(X, "ws")
    distances = [(k, hellinger(ws, feature_probabilities(X, "ss", k, random_state=0))) for k in ks]
    falling = all(b[1] < a[1] for a, b in zip(distances, distances[1:], strict=False))
    report.claim(
        "hellinger",
        "Hellinger distance between the WS and SS probabilities at each k (20 Newsgroups for TechTC)",
        ", ".join(f"k = {k}: {d:.3f}" for k, d in distances),
        falling,
        "the distance does not fall at every step of k",
    )


def _reuters_claims(report, curves, labels, budgets, measure="relative_f1"):
    """Fig. 5b's two claims on relative micro-F1, or Fig. 5c's (the same statements) on
    macro-F1, which the paper adds because Reuters' classes are skewed."""
    budgets = sorted({b for _, b in curves})
    methods = sorted({m for m, _ in curves})
    name = MEASURES[measure]
    macro = measure == "relative_macro_f1"
    best = max((_at(curves, m, b, measure), m, b) for m in methods for b in budgets)

    def lead(method, b, others):
        return _at(curves, method, b, measure) - max(_at(curves, m, b, measure) for m in others)

    ig_best = [b for b in budgets if lead("ig", b, methods) >= 0]
    df_over = [b for b in budgets if lead("dfreq", b, labels[:2]) > 0]
    if macro:
        report.claim(
            "reuters_macro",
            f"on relative {name}: the largest value of any method and r; r where IG is the best method; r "
            "where DF is above both SS",
            f"{best[1]} at r = {best[2]}: {best[0]:.3f}; IG best at {ig_best} of {budgets}; DF above SS "
            f"at {df_over}",
            len(ig_best) >= len(budgets) / 2 and len(df_over) >= len(budgets) / 2,
            f"IG best at {len(ig_best)} of {len(budgets)} r, DF above SS at {len(df_over)}",
        )
        return
    report.claim(
        "reuters_gain",
        f"the largest relative {name} of any method and r",
        f"{best[1]} at r = {best[2]}: {best[0]:.3f}",
        best[0] > 1.0,
        f"no selection reaches the full set's {name} (best {best[0]:.3f})",
    )
    report.claim(
        "reuters_ig",
        "r where IG is the best method; r where DF is above both SS",
        f"IG best at {ig_best} of {budgets}; DF above SS at {df_over}",
        len(ig_best) >= len(budgets) / 2 and len(df_over) >= len(budgets) / 2,
        f"IG best at {len(ig_best)} of {len(budgets)} r, DF above SS at {len(df_over)}",
    )


def _table(curves, budgets, measure="relative_f1"):
    budgets = sorted({b for _, b in curves})
    methods = sorted({m for m, _ in curves})
    lines = [
        "| method | " + " | ".join(f"r = {b}" for b in budgets) + " |",
        "|---" * (len(budgets) + 1) + "|",
    ]
    for m in methods:
        lines.append(f"| {m} | " + " | ".join(f"{_at(curves, m, b, measure):.3f}" for b in budgets) + " |")
    return "\n".join(lines)


def _figures(report, curves, folder):
    from ..study.plots import plot_measure_vs_k

    for index, (name, records) in enumerate(curves.items()):
        for measure in MEASURES if index == 1 else ("relative_f1",):
            rows = [{"metric": m, "k": b, measure: r[measure]} for (m, b), r in records.items()]
            slug = "".join(ch for ch in name.lower() if ch.isalpha()) + (
                "_macro" if measure != "relative_f1" else ""
            )
            plot_measure_vs_k(
                rows,
                folder / f"{slug}.png",
                measure=measure,
                ylabel=f"{MEASURES[measure]} / all terms",
                title=f"{name}: relative {MEASURES[measure]} against r",
            )
            report.figures.append(
                (f"{slug}.png", f"Relative {MEASURES[measure]} against r, {name} (Dasgupta et al.'s Fig. 5)")
            )
