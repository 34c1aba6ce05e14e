"""Forman (2003), "An extensive empirical study of feature selection metrics for text
classification" (JMLR 3), reproduced on the ARFF sets of his benchmark found in the data home.

Every claim below is the paper's, quoted or summarised from its text (its figures give curves,
not tables; where the text states a number, the row gives it).  textsel's number comes from
:func:`textsel.study.forman` run the paper's way: Boolean features, 5 trials of stratified 4-fold
cross-validation, k = 10 ... 2000 and all terms, a linear SVM (C = 1), per-trial records for the
"average maximum".
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from .. import study
from .._names import FORMAN_KS
from ..metrics import METRICS, score
from ..selection import top_k
from ..termstats import term_stats
from .claims import FORMAN as CLAIMS
from .forman_tables import (
    f1_markdown,
    macro_table,
    nearest_k,
    paired_ttest,
    paper_name,
    ranked_at,
    table_ks,
)
from .forman_tolerance import tolerance_claims
from .report import Report

__all__ = ["run"]

#: Forman's high-skew threshold: 1:67, the 90th percentile of his tasks' skews
HIGH_SKEW = 67.0
#: rare-word cutoffs for his Fig. 11 (he went up to 25 occurrences)
CUTOFFS = (1, 2, 3, 5, 10, 15, 20, 25)


def run(
    data_home=None, out=None, quick=False, n_jobs=None, progress=False, figures=True, datasets=None
) -> Report:
    """Run the reproduction and return its :class:`Report` (written to ``out`` when given).

    ``datasets`` (name to ``(X, y)`` word counts) replaces Forman's ARFF sets from the data home;
    ``quick`` runs one trial and fewer cutoffs, for a test; ``figures`` draws the figures into
    ``<out>/forman/`` (matplotlib)."""
    start = time.perf_counter()
    if datasets is None:
        datasets = _forman_sets(data_home)
    trials = 1 if quick else 5
    records = study.forman(
        datasets, ks=(*FORMAN_KS, "all"), trials=trials, n_jobs=n_jobs, per_trial=True, progress=progress
    )
    tasks = len({(r["dataset"], r["class"]) for r in records})
    report = Report(
        claims=CLAIMS,
        key="forman",
        title="Forman (2003): twelve metrics, and BNS",
        citation="G. Forman, *An extensive empirical study of feature selection metrics for text "
        "classification*, JMLR 3 (2003) 1289-1305.",
        quick=quick,
        corpus=f"Forman ran 229 one-vs-rest tasks from 19 datasets.  Here: the {len(datasets)} of his "
        f"datasets in the data home ({', '.join(sorted(datasets))}), {tasks} tasks with at least "
        f"4 documents in and out of the class, {trials} trial(s) of stratified 4-fold "
        "cross-validation, Boolean features, `DualLinearSVC` (squared hinge, C = 1).  The paper's "
        "figures are curves; where its text gives a number, the row quotes it.",
    )
    figures = report.figure_folder(out, figures)
    _headline(report, records, figures)
    _skew(report, records, figures)
    tolerance_claims(report, records, figures)
    _cutoff(report, datasets, (1, 5, 25) if quick else CUTOFFS, trials, n_jobs, figures)
    _negative_features(report, datasets)
    return report.finish(start, out)


def _forman_sets(data_home):
    from ..datasets.arff import forman_set_paths, load_arff

    sets = {}
    for path in forman_set_paths(data_home):
        bunch = load_arff(path)
        sets[path.name.split(".")[0]] = (bunch.X, bunch.y)
    return sets


def _headline(report, records, figures):
    f1 = macro_table(records)
    ks = table_ks(f1)
    best = {k: ranked_at(f1, k) for k in ks}
    wide = [k for k in ks if 100 <= k <= 2000]
    lost = [k for k in wide if best[k][0][1] != "bns"]
    report.claim(
        "wide_margin",
        "macro-F1, best metric (runner-up) per k",
        "; ".join(
            f"k = {k}: {paper_name(best[k][0][1])} {best[k][0][0]:.3f} "
            f"({paper_name(best[k][1][1])} {best[k][1][0]:.3f})"
            for k in wide
        ),
        not lost,
        "; ".join(
            f"at k = {k} {paper_name(best[k][0][1])} leads BNS by {best[k][0][0] - f1[('bns', k)]:.3f}"
            + _by_skew(records, best[k][0][1], k)
            for k in lost
        ),
    )
    baseline = f1.get(("all", "all"))
    if baseline is not None:
        top = {m: max(v for (mm, _), v in f1.items() if mm == m) for m, _ in f1 if m != "all"}
        beat = sorted((m for m, v in top.items() if v > baseline), key=lambda m: -top[m])
        report.claim(
            "all_terms",
            f"metrics whose macro-F1 at some k exceeds the SVM on all terms ({baseline:.3f})",
            ", ".join(f"{paper_name(m)} {top[m]:.3f}" for m in beat) or "none",
            set(beat) <= {"bns", "ig"} and "bns" in beat,
            f"{len(beat)} metrics beat all terms on these sets",
        )
    k100 = nearest_k(f1, 100)
    t, p, n, diff = paired_ttest(records, "bns", "ig", k100)
    report.claim(
        "t_test",
        f"paired t-test of F1, BNS - IG at k = {k100} over {n} task-trials",
        f"mean difference {diff:+.3f}, t = {t:.2f}, p = {p:.2g}",
        diff > 0 and p < 0.01,
        f"BNS is ahead by {diff:.3f} but p = {p:.2g}" if diff > 0 else f"IG is ahead by {-diff:.3f}",
    )
    leaders = {k: best[k][0][1] for k in (20, 50) if k in best}
    report.claim(
        "small_k",
        "best macro-F1 at k = 20, 50",
        "; ".join(f"{k}: {paper_name(m)} {best[k][0][0]:.3f}" for k, m in leaders.items()),
        all(m in ("ig", "acc2") for m in leaders.values()),
        ", ".join(f"{paper_name(m)} leads at {k}" for k, m in leaders.items() if m not in ("ig", "acc2")),
    )
    for key, a, b in (("acc2", "acc2", "acc"), ("ig_chi", "ig", "chi2")):
        behind = [k for k in ks if f1[(a, k)] < f1[(b, k)]]
        report.claim(
            key,
            f"k where macro-F1 of {paper_name(a)} >= {paper_name(b)}",
            f"{len(ks) - len(behind)} of {len(ks)}",
            not behind,
            f"{paper_name(b)} is ahead at k = {behind}",
        )
    lo, hi = ks[0], ks[-1]
    report.claim(
        "dfreq",
        f"DFreq's macro-F1 at k = {lo} and {hi} against BNS's (poor: under half; risen: within 10%)",
        f"{f1[('dfreq', lo)]:.3f} -> {f1[('dfreq', hi)]:.3f} "
        f"(BNS {f1[('bns', lo)]:.3f} -> {f1[('bns', hi)]:.3f})",
        f1[("dfreq", lo)] < 0.5 * f1[("bns", lo)] and f1[("dfreq", hi)] > 0.9 * f1[("bns", hi)],
        "DFreq is not low at small k, or stays low",
    )
    accuracy = macro_table(records, "accuracy")
    leaders = {k: ranked_at(accuracy, k)[0][1] for k in ks}
    expected = {k: "ig" if k <= 100 else "bns" for k in ks}
    report.claim(
        "accuracy",
        "best macro-accuracy per k",
        ", ".join(f"{k}: {paper_name(m)}" for k, m in leaders.items()),
        leaders == expected,
        ", ".join(
            f"{paper_name(leaders[k])} leads at {k} ({accuracy[(leaders[k], k)]:.4f} against "
            f"{paper_name(expected[k])} {accuracy[(expected[k], k)]:.4f})"
            for k in ks
            if leaders[k] != expected[k]
        ),
    )
    k1000 = nearest_k(f1, 1000)
    recall, precision = macro_table(records, "recall"), macro_table(records, "precision")
    r_rank, p_rank = ranked_at(recall, k1000), ranked_at(precision, k1000)
    report.claim(
        "recall",
        f"macro-recall at k = {k1000}",
        f"{paper_name(r_rank[0][1])} {r_rank[0][0]:.3f}, next {paper_name(r_rank[1][1])} {r_rank[1][0]:.3f}",
        r_rank[0][1] == "bns",
        "BNS is not the recall leader",
    )
    report.claim(
        "precision",
        f"the best macro-precisions at k = {k1000}",
        ", ".join(f"{paper_name(m)} {v:.3f}" for v, m in p_rank[:3]),
        {p_rank[0][1], p_rank[1][1]} == {"ig", "chi2"},
        f"the best two are {paper_name(p_rank[0][1])} and {paper_name(p_rank[1][1])}",
    )
    below = [k for k in ks if k <= 500]
    lead = {k: ranked_at(precision, k)[0] for k in below}
    report.claim(
        "precision_small",
        "k <= 500 where IG has the best macro-precision",
        f"{[k for k in below if lead[k][1] == 'ig']} of {below}",
        all(lead[k][1] == "ig" for k in below),
        "; ".join(
            f"at {k} {paper_name(lead[k][1])} {lead[k][0]:.3f} against IG {precision[('ig', k)]:.3f}"
            for k in below
            if lead[k][1] != "ig"
        ),
    )
    if figures is not None:
        plots = _plots()
        summary = study.macro_average(study.average_trials(records))
        plots.plot_measure_vs_k(
            summary, figures / "f1_vs_k.png", title="macro-F1 against k (dotted: all terms)"
        )
        metric_rows = [r for r in summary if r["k"] != "all"]
        plots.plot_precision_recall(metric_rows, figures / f"precision_recall_k{k1000}.png", k1000)
        report.figures += [
            ("f1_vs_k.png", "Macro-F1 against k, with the SVM on all terms (Forman's Fig. 4)"),
            (
                f"precision_recall_k{k1000}.png",
                f"Macro-precision against recall at k = {k1000} (Forman's Fig. 5)",
            ),
        ]
    report.sections.append(("Macro-F1 against k (Forman's Fig. 4)", f1_markdown(f1, ks)))


def _by_skew(records, leader, k):
    """BNS's macro-F1 minus ``leader``'s at k, on the high-skew tasks and on the rest: where
    Forman finds BNS strongest, and how many such tasks these sets hold."""
    parts = []
    for name, high in (("above 1:67", True), ("at or below", False)):
        group = [r for r in records if r["k"] == k and (r["skew"] > HIGH_SKEW) == high]
        if group:
            tab = macro_table(group)
            tasks = len({(r["dataset"], r["class"]) for r in group})
            parts.append(f"{tab[('bns', k)] - tab[(leader, k)]:+.3f} on the {tasks} tasks {name}")
    return f" (BNS - {paper_name(leader)}: {', '.join(parts)}; Forman had 23 of 229 tasks above 1:67)"


def _skew(report, records, figures):
    averaged = study.average_trials(records)
    f1 = macro_table(records)
    ks = table_ks(f1)
    k1000 = nearest_k(f1, 1000)
    bns = [r for r in averaged if r["metric"] == "bns" and r["k"] == k1000]
    skews = np.array([r["skew"] for r in bns])
    values = np.array([r["f1"] for r in bns])
    median = float(np.median(skews))
    low, high = values[skews <= median], values[skews > median]
    report.claim(
        "skew_spread",
        f"BNS at k = {k1000}: F1 mean (sd) at and below / above the median skew 1:{median:.0f}",
        f"{low.mean():.3f} ({low.std():.3f}) / {high.mean():.3f} ({high.std():.3f})",
        low.mean() > high.mean() and high.std() > low.std(),
        "higher skew does not give lower and wider-spread F1 here",
    )
    counts = {"high": int((skews > HIGH_SKEW).sum()), "low": int((skews <= HIGH_SKEW).sum())}
    split = {}
    for row in study.skew_split([r for r in averaged if r["k"] != "all"], HIGH_SKEW):
        split[(row["skew"], row["metric"], row["k"])] = row
    # the leader each claim expects at k, and how many k must have it (Forman's "best overall")
    small = {k for k in ks if k <= 50}
    rules = {
        "low_f1": ("low", "f1", lambda k: "ig" if k in small else "bns", len(ks)),
        "high_f1": ("high", "f1", lambda k: "bns", len(ks)),
        "low_precision": ("low", "precision", lambda k: "ig", len(ks) // 2 + 1),
        "high_precision": ("high", "precision", None, None),
    }
    for key, (group, measure, expect, needed) in rules.items():
        measured = f"macro-{measure}, {group}-skew tasks (threshold 1:{HIGH_SKEW:.0f})"
        count = counts[group]
        if not count:
            report.claim(
                key,
                measured,
                "no such task here",
                False,
                f"none of the {len(bns)} tasks is {group}-skew",
            )
            continue
        lead = {k: max((split[(group, m, k)][measure], m) for m in METRICS)[1] for k in ks}
        few = (
            f"; only {count} tasks above 1:{HIGH_SKEW:.0f} here (Forman: 23 of 229)"
            if group == "high"
            else ""
        )
        if expect is None:
            behind = [k for k in ks if split[(group, "bns", k)][measure] <= split[(group, "ig", k)][measure]]
            ours = f"BNS above IG at {len(ks) - len(behind)} of {len(ks)} k ({count} tasks)"
            report.claim(key, measured, ours, not behind, f"IG is ahead at k = {behind}{few}")
        else:
            ours = f"{count} tasks; leader per k: " + ", ".join(
                f"{k}: {paper_name(m)}" for k, m in lead.items()
            )
            other = [k for k in ks if lead[k] != expect(k)]
            why = "; ".join(
                f"at {k} {paper_name(lead[k])} {split[(group, lead[k], k)][measure]:.3f} against "
                f"{paper_name(expect(k))} {split[(group, expect(k), k)][measure]:.3f}"
                for k in other
            )
            report.claim(key, measured, ours, len(ks) - len(other) >= needed, why + few)
    if figures is None:
        return
    plots = _plots()
    title = f"BNS at k = {k1000}: F1 of each task against its skew"
    plots.plot_measure_vs_skew(bns, figures / "f1_vs_skew.png", threshold=HIGH_SKEW, title=title)
    report.figures.append(("f1_vs_skew.png", f"F1 against class skew, BNS at k = {k1000} (Forman's Fig. 6)"))
    shown = [m for m in METRICS if m not in ("rand", "dfreq", "pr")]  # as his Figs. 7-8
    for measure, figure in (("f1", "Fig. 7"), ("precision", "Fig. 8")):
        for group in ("low", "high"):
            if not counts[group]:
                continue
            rows = [{"metric": m, "k": k, measure: split[(group, m, k)][measure]} for m in shown for k in ks]
            name = f"{measure}_{group}_skew.png"
            plots.plot_measure_vs_k(
                rows, figures / name, measure=measure, title=f"{measure}, {group}-skew tasks"
            )
            report.figures.append((name, f"Macro-{measure} of the {group}-skew tasks (Forman's {figure})"))


def _cutoff(report, datasets, cutoffs, trials, n_jobs, figures):
    rows = []
    counted = {}  # each word's occurrences in the whole dataset, counted once
    for name, (X, y) in datasets.items():
        X = sp.csr_matrix(X)
        counted[name] = (X, y, np.asarray(X.sum(axis=0)).ravel())
    for cutoff in cutoffs:
        kept = {
            name: (X[:, np.flatnonzero(occurrences >= cutoff)], y)
            for name, (X, y, occurrences) in counted.items()
        }
        k = min(1000, min(X.shape[1] for X, _ in kept.values()))
        records = study.forman(kept, metrics=("bns",), ks=(k,), trials=trials, n_jobs=n_jobs)
        summary = study.macro_average(records)[0]
        rows.append({"cutoff": cutoff, "k": k, **{m: summary[m] for m in study.protocol.MEASURES}})
    f1 = [r["f1"] for r in rows]
    report.claim(
        "cutoff",
        f"macro F1/precision/recall, BNS at k = {rows[0]['k']}, words occurring fewer than c times dropped",
        ", ".join(f"{r['cutoff']}: {r['f1']:.3f}/{r['precision']:.3f}/{r['recall']:.3f}" for r in rows),
        f1[-1] < f1[0],
        f"F1 rises from {f1[0]:.3f} to {f1[-1]:.3f}",
    )
    text = (
        "Forman's sets were prepared with a cutoff already (he reports words occurring fewer than 2-3 times "
        "removed), so the lowest cutoffs here change little.  Recall at each cutoff: "
        + ", ".join(f"{r['cutoff']}: {r['recall']:.3f}" for r in rows)
        + "."
    )
    report.sections.append(("The rare-word cutoff (Forman's Fig. 11)", text))
    if figures is not None:
        _plots().plot_measures_vs_cutoff(rows, figures / "cutoff.png", title="BNS at 1000 terms")
        report.figures.append(
            ("cutoff.png", "BNS at 1000 terms against the rare-word cutoff (Forman's Fig. 11)")
        )


def _negative_features(report, datasets):
    shares = {m: [] for m in METRICS if m != "rand"}
    for X, y in datasets.values():
        # one count per dataset: each class's row of a multi-class table is its one-vs-rest score
        stats = term_stats(X, y)
        tables = {metric: score(stats, metric) for metric in shares}
        k = min(100, X.shape[1])
        for c, size in enumerate(stats.class_sizes):
            if min(size, stats.n_docs - size) < 4:
                continue
            tpr = stats.class_df[c] / size
            fpr = (stats.df - stats.class_df[c]) / (stats.n_docs - size)
            for metric, table in tables.items():
                top = top_k(table[c], k)
                shares[metric].append(float(np.mean(tpr[top] < fpr[top])))
    ranked = sorted(((float(np.mean(v)), m) for m, v in shares.items() if v), reverse=True)
    report.claim(
        "negative",
        "share of each task's top 100 terms with tpr < fpr (their absence marks the class), mean over tasks",
        ", ".join(f"{paper_name(m)} {100 * v:.0f}%" for v, m in ranked[:4]),
        ranked[0][1] == "bns",
        f"{paper_name(ranked[0][1])} takes more than BNS",
    )


def _plots():
    from ..study import plots

    return plots
