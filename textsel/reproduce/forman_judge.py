"""Forman's claims judged against the noise: each row compares metrics task by task (his unit, the
229 one-vs-rest problems; here the tasks of the data home's sets) and bootstraps the tasks.

Forman states no margin for "best", "dominates" or "outperformed", and gives "wide" and
"substantially" no number: a comparison here judges the sign of the mean per-task difference.  A
row's comparisons form one family (BNS against each of 11 rivals at two k is 22): the row
reproduces when every comparison's interval lies on the claim's side, differs when some
comparison's *simultaneous* interval lies wholly on the other side (so that one chance miss among
many does not decide it), and is within noise otherwise, naming the comparisons that tie.  A
sentence that names no number of features ("outperformed") is judged on the mean over the
figure's numbers of features; one that says "at every size" or "for any number" at each.
"""

from __future__ import annotations

import numpy as np

from .forman_compare import (
    ABOVE,
    BELOW,
    HIGH_SKEW,
    at,
    cell,
    datasets,
    differences,
    group,
    leader_rows,
    leads,
    means,
    nearest,
    ranked,
    std,
    unjudged,
)
from .forman_tables import Tasks, paper_name
from .forman_tolerance import goals, pairs, precision_tolerance, residual, tolerance
from .worlds import remade

__all__ = ["FIGURE_7", "HIGH_SKEW", "JUDGES", "judge"]

#: the metrics his Figs. 7 and 8 draw ("we omitted Rand, DFreq, and PR")
FIGURE_7 = ("acc", "acc2", "bns", "chi2", "f1", "ig", "oddn", "odds", "pow")
#: "reaches the performance of using all features": within this much of it, or above
REACHES = 0.01
#: "poor" DFreq: under this share of BNS's macro-F1; "risen": above this share
POOR, RISEN = 0.5, 0.9


# -- Fig. 4 and the accuracy and precision-recall paragraphs after it


def _wide_margin(report, tasks, **_):
    ks = sorted({nearest(tasks, 500), nearest(tasks, 1000)})
    leader_rows(
        report,
        "wide_margin",
        "macro-F1 at 500 and 1000 features, BNS against each other metric",
        tasks,
        "f1",
        lambda k: "bns",
        ks,
    )


def _all_terms(report, tasks, **_):
    baseline = tasks.at("f1", "all", "all")
    metrics = tasks.metrics
    gains = np.stack(
        [tasks.curve("f1", m) - baseline[:, None] for m in metrics], axis=1
    )  # tasks x metrics x ks

    def peaks(rows):  # each metric's best mean gain over k, the best k chosen in the resample
        return gains[rows].mean(axis=1).max(axis=-1)

    sides = [(ABOVE if m in ("bns", "ig") else BELOW, 0.0) for m in metrics]
    best = peaks(np.arange(len(tasks.names))[None, :])[0]
    order = np.argsort(-best)
    report.judge(
        "all_terms",
        f"best macro-F1 over k minus the SVM on all terms ({baseline.mean():.3f}; the best k chosen again in "
        "each resample): above 0 for BNS and IG, not above for the others",
        ", ".join(f"{paper_name(metrics[j])} {best[j]:+.3f}" for j in order[:5]),
        [cell(peaks, len(tasks.names), [paper_name(m) for m in metrics], sides, tasks.over, datasets(tasks))],
    )


def _t_test(report, tasks, **_):
    """Judged over the datasets, as every other row: the paper's own test (a paired t-test over
    task-trials, which move together within a task and within a dataset) is shown, not judged."""
    from scipy.stats import ttest_rel

    k = nearest(tasks, 100)
    a, b = tasks.trials[("f1", "bns", k)].ravel(), tasks.trials[("f1", "ig", k)].ravel()
    result = ttest_rel(a, b)
    paper = "no spread" if np.ptp(a - b) == 0 else f"t = {result.statistic:.2f}, p = {result.pvalue:.2g}"
    per_task = tasks.at("f1", "bns", k) - tasks.at("f1", "ig", k)
    report.judge(
        "t_test",
        f"F1 of BNS - IG at k = {k}, mean over the tasks: above 0, judged over the datasets like every row "
        f"here; the paper's own paired t-test over the {a.size} task-trials beside it (a task's trials, and "
        "a dataset's tasks, are not independent, so its p-value is not the verdict)",
        f"BNS - IG {per_task.mean():+.4f}; the paper's test over task-trials: {paper}",
        [differences([per_task], [f"k = {k}: BNS - IG"], tasks.over, clusters=datasets(tasks))],
    )


def _small_k(report, tasks, **_):
    ig, acc2, labels, ours = [], [], [], []
    for k in sorted({nearest(tasks, 20), nearest(tasks, 50)}):
        values = at(tasks, "f1", k)
        for rival in (m for m in values if m not in ("ig", "acc2")):
            ig.append(values["ig"] - values[rival])
            acc2.append(values["acc2"] - values[rival])
            labels.append(f"k = {k}: IG or Acc2 - {paper_name(rival)}")
        ours.append(f"{k}: {means(values, ranked(values))}")
    a, b = np.column_stack(ig), np.column_stack(acc2)

    def better(rows):  # the better of IG's and Acc2's mean lead over the rival
        return np.maximum(a[rows].mean(axis=1), b[rows].mean(axis=1))

    report.judge(
        "small_k",
        "macro-F1 at 20 and 50 features: the better of IG and Acc2 against each other metric",
        "; ".join(ours),
        [cell(better, a.shape[0], labels, [(ABOVE, 0.0)] * len(labels), tasks.over, datasets(tasks))],
    )


def _acc2(report, tasks, **_):
    a, b = tasks.curve("f1", "acc2").mean(axis=1), tasks.curve("f1", "acc").mean(axis=1)
    report.judge(
        "acc2",
        f"macro-F1 of Acc2 - Acc, mean over k = {tasks.ks[0]} ... {tasks.ks[-1]}",
        f"Acc2 {a.mean():.3f}, Acc {b.mean():.3f}",
        [differences([a - b], ["Acc2 - Acc"], tasks.over, clusters=datasets(tasks))],
    )


def _ig_chi(report, tasks, **_):
    columns = [tasks.at("f1", "ig", k) - tasks.at("f1", "chi2", k) for k in tasks.ks]
    behind = sum(c.mean() < 0 for c in columns)
    report.judge(
        "ig_chi",
        "macro-F1 of IG - Chi at each k",
        f"IG's mean below Chi's at {behind} of {len(columns)} k",
        [
            differences(
                columns, [f"k = {k}: IG - Chi" for k in tasks.ks], tasks.over, clusters=datasets(tasks)
            )
        ],  # fmt: skip
    )


def _dfreq(report, tasks, **_):
    lo, hi = tasks.ks[0], tasks.ks[-1]
    table = np.column_stack([tasks.at("f1", m, k) for k in (lo, hi) for m in ("dfreq", "bns")])

    def ratios(rows):  # DFreq's macro-F1 over BNS's, at lo and at hi
        means = table[rows].mean(axis=1)
        return means[:, [0, 2]] / np.maximum(means[:, [1, 3]], 1e-12)

    labels = [f"k = {lo}: DFreq / BNS", f"k = {hi}: DFreq / BNS"]
    report.judge(
        "dfreq",
        f"DFreq's macro-F1 as a share of BNS's: poor at k = {lo} (under {POOR:g}), risen by {hi} "
        f"(over {RISEN:g})",
        f"{tasks.at('f1', 'dfreq', lo).mean():.3f} -> {tasks.at('f1', 'dfreq', hi).mean():.3f} "
        f"(BNS {tasks.at('f1', 'bns', lo).mean():.3f} -> {tasks.at('f1', 'bns', hi).mean():.3f})",
        [cell(ratios, table.shape[0], labels, [(BELOW, POOR), (ABOVE, RISEN)], tasks.over, datasets(tasks))],
    )


def _accuracy(report, tasks, **_):
    leader_rows(
        report,
        "accuracy",
        "macro-accuracy at each k: IG (k <= 100) or BNS (above) against each other metric (Acc2 not at 20)",
        tasks,
        "accuracy",
        lambda k: "ig" if k <= 100 else "bns",
        tasks.ks,
        skip={(20, "acc2")},
    )


def _recall(report, tasks, **_):
    k = nearest(tasks, 1000)
    leader_rows(
        report,
        "recall",
        f"macro-recall at k = {k}, BNS against each other metric",
        tasks,
        "recall",
        lambda _: "bns",
        [k],
    )


def _precision(report, tasks, **_):
    k = nearest(tasks, 1000)
    values = at(tasks, "precision", k)
    groups = [("", m, values, [r for r in values if r not in ("ig", "chi2")]) for m in ("ig", "chi2")]
    report.judge(
        "precision",
        f"macro-precision at k = {k}: IG and Chi each against every metric but the other",
        means(values, ranked(values)),
        [leads(groups, tasks.over, clusters=datasets(tasks))],
    )


def _precision_small(report, tasks, **_):
    leader_rows(
        report,
        "precision_small",
        "macro-precision at each k <= 500, IG against each other metric",
        tasks,
        "precision",
        lambda _: "ig",
        [k for k in tasks.ks if k <= 500],
    )


# -- class skew (Figs. 6 to 8)


def _skew_spread(report, tasks, **_):
    k = nearest(tasks, 1000)
    f1, median = tasks.at("f1", "bns", k), float(np.median(tasks.skew))
    above = (tasks.skew > median).astype(np.float64)

    def spread(rows):  # sd of F1 above the median skew minus at or below, per resample
        return (std(f1[rows], above[rows]) - std(f1[rows], 1.0 - above[rows]))[:, None]

    low, high = f1[above == 0], f1[above == 1]
    report.judge(
        "skew_spread",
        f"BNS at k = {k}: standard deviation of the tasks' F1 above the median skew (1:{median:.0f}) "
        "minus at or below it",
        f"mean (sd) at or below: {low.mean():.3f} ({low.std():.3f}); above: {high.mean():.3f} "
        f"({high.std():.3f})",
        [cell(spread, len(f1), ["sd above - sd below"], [(ABOVE, 0.0)], tasks.over, datasets(tasks))],
    )


def _low_f1(report, tasks, **_):
    low = group(tasks, high=False)
    measure = f"macro-F1 of the {len(low.names)} low-skew tasks (1:{HIGH_SKEW:.0f} or less; Fig. 7's metrics)"
    if len(low.names) < 2:
        return unjudged(report, "low_f1", measure, "low", tasks)
    rivals = [m for m in FIGURE_7 if m != "bns"]
    curves = np.stack([low.curve("f1", m) for m in ("bns", *rivals)], axis=1)  # tasks x metrics x ks
    few = low.ks[:2]
    ig_lead = np.column_stack([low.at("f1", "ig", k) - low.at("f1", "bns", k) for k in few])

    def statistics(rows):  # BNS's best mean over k less each rival's; IG - BNS at the fewest features
        best = curves[rows].mean(axis=1).max(axis=-1)
        return np.hstack([best[:, :1] - best[:, 1:], ig_lead[rows].mean(axis=1)])

    labels = [f"best over k: BNS - {paper_name(m)}" for m in rivals] + [f"k = {k}: IG - BNS" for k in few]
    peak = curves.mean(axis=0).max(axis=-1)
    report.judge(
        "low_f1",
        measure + ": BNS's best over k against each other's best (the best k chosen again in each resample); "
        f"IG against BNS at k = {few[0]} and {few[1]}",
        "best over k: "
        + ", ".join(
            f"{paper_name(m)} {peak[j]:.3f}"
            for j, m in enumerate(("bns", *rivals))
            if round(peak[j], 3) >= round(np.sort(peak)[-3], 3)  # the top three and any tie
        ),
        [cell(statistics, len(low.names), labels, [(ABOVE, 0.0)] * len(labels), low.over, datasets(low))],
    )


def _high_f1(report, tasks, **_):
    high = group(tasks, high=True)
    measure = (
        f"macro-F1 of the {len(high.names)} high-skew tasks (above 1:{HIGH_SKEW:.0f}; Forman: 23 of 229)"
    )
    if len(high.names) < 2:
        return unjudged(report, "high_f1", measure, "high", tasks)
    leader_rows(
        report,
        "high_f1",
        measure + ", BNS against each of Fig. 7's metrics at each k; Student's t over the tasks' datasets "
        "(a dataset's classes are not independent), Bonferroni over the comparisons",
        high,
        "f1",
        lambda _: "bns",
        high.ks,
        FIGURE_7,
        clusters=datasets(high),
    )


def _low_precision(report, tasks, **_):
    low = group(tasks, high=False)
    measure = f"macro-precision of the {len(low.names)} low-skew tasks"
    if len(low.names) < 2:
        return unjudged(report, "low_precision", measure, "low", tasks)
    # "IG performs best" names no number of features: the mean over the figure's (the page's rule)
    mean = {m: low.curve("precision", m).mean(axis=1) for m in FIGURE_7}
    columns = [mean["ig"] - mean[m] for m in FIGURE_7 if m != "ig"]
    labels = [f"mean over k: IG - {paper_name(m)}" for m in FIGURE_7 if m != "ig"]
    leaders = [f"{k}: {paper_name(ranked(at(low, 'precision', k, FIGURE_7), 1)[0])}" for k in low.ks]
    last = low.ks[-1]
    columns.append(low.at("precision", "ig", last) - low.at("precision", "all", "all"))
    labels.append(f"k = {last}: IG - all terms")
    sides = [(ABOVE, 0.0)] * (len(labels) - 1) + [(ABOVE, -REACHES)]
    report.judge(
        "low_precision",
        measure
        + f": IG against each of Fig. 8's metrics, mean over k; at k = {last} against all terms (reached: "
        f"within {REACHES:g} or above)",
        "best mean: " + ", ".join(leaders),
        [differences(columns, labels, low.over, sides, clusters=datasets(low))],
    )


def _high_precision(report, tasks, **_):
    high = group(tasks, high=True)
    measure = (
        f"macro-precision of the {len(high.names)} high-skew tasks, BNS - IG, mean over k; Student's t over "
        "the tasks' datasets"
    )
    if len(high.names) < 2:
        return unjudged(report, "high_precision", measure, "high", tasks)
    a, b = high.curve("precision", "bns").mean(axis=1), high.curve("precision", "ig").mean(axis=1)
    report.judge(
        "high_precision",
        measure,
        f"BNS {a.mean():.3f}, IG {b.mean():.3f}",
        [differences([a - b], ["BNS - IG"], high.over, clusters=datasets(high))],
    )


# -- the rare-word cutoff (Fig. 11) and negative features (Fig. 13)


def _cutoff(report, tasks, cutoffs=None, cutoff_k=1000, **_):
    """``cutoffs``: {cutoff: {measure: array over tasks}}, BNS at ``cutoff_k`` features."""
    if not cutoffs:
        return
    first, last = min(cutoffs), max(cutoffs)
    middle = min(cutoffs, key=lambda c: abs(c - 10))
    columns = [
        cutoffs[last]["f1"] - cutoffs[first]["f1"],
        cutoffs[last]["precision"] - cutoffs[first]["precision"],
        cutoffs[middle]["recall"] - cutoffs[first]["recall"],
    ]
    labels = [
        f"F1 at {last} - at {first}",
        f"precision at {last} - at {first}",
        f"recall at {middle} - at {first}",
    ]
    report.judge(
        "cutoff",
        f"macro F1 / precision / recall of BNS at {cutoff_k} features at every cutoff c"
        + ("" if cutoff_k == 1000 else " (the smallest vocabulary a cutoff leaves; the paper: 1000)")
        + ", words occurring fewer than c times dropped",
        _cutoff_values(cutoffs),
        [
            differences(
                columns,
                labels,
                f"{len(columns[0])} tasks",
                [(BELOW, 0.0), (BELOW, 0.0), (ABOVE, 0.0)],
                # the cutoffs' runs have the main study's tasks, in its order, when none was lost
                clusters=datasets(tasks) if len(columns[0]) == len(tasks.names) else None,
            )
        ],
    )


def _cutoff_values(cutoffs) -> str:
    """Each cutoff's F1/precision/recall; cutoffs that are one run (the same words kept) as one."""
    runs = {}
    for c in sorted(cutoffs):
        runs.setdefault(id(cutoffs[c]), []).append(c)
    return ", ".join(
        " = ".join(map(str, cs)) + (" (one run)" if len(cs) > 1 else "") + ": "
        + "/".join(f"{cutoffs[cs[0]][m].mean():.3f}" for m in ("f1", "precision", "recall"))
        for cs in runs.values()
    )  # fmt: skip


def _negative(report, tasks, negative=None, negative_datasets=None, **_):
    """``negative``: {metric: array over tasks of the share of its top 100 terms with tpr < fpr};
    ``negative_datasets``: each of those tasks' dataset (None: each task its own)."""
    if not negative:
        return
    n = len(next(iter(negative.values())))
    over = f"{n} tasks"
    clusters = negative_datasets if negative_datasets is not None else list(range(n))
    report.judge(
        "negative",
        "share of each task's top 100 terms with tpr < fpr (their absence marks the class), BNS against "
        "each metric",
        ", ".join(
            f"{paper_name(m)} {100 * negative[m].mean():.0f}%"
            for m in ranked(negative, 4, shown=lambda v: f"{100 * v:.0f}")
        ),
        [leads([("", "bns", negative, [m for m in negative if m != "bns"])], over, clusters=clusters)],
    )


#: each claim of :data:`textsel.reproduce.claims.FORMAN` and the function that judges it
JUDGES = {
    "wide_margin": _wide_margin,
    "all_terms": _all_terms,
    "t_test": _t_test,
    "small_k": _small_k,
    "acc2": _acc2,
    "ig_chi": _ig_chi,
    "dfreq": _dfreq,
    "accuracy": _accuracy,
    "recall": _recall,
    "precision": _precision,
    "precision_small": _precision_small,
    "skew_spread": _skew_spread,
    "low_f1": _low_f1,
    "high_f1": _high_f1,
    "low_precision": _low_precision,
    "high_precision": _high_precision,
    "tolerance": tolerance,
    "goals": goals,
    "precision_tolerance": precision_tolerance,
    "residual": residual,
    "pairs": pairs,
    "cutoff": _cutoff,
    "negative": _negative,
}


def judge(report, tasks: Tasks, cutoffs=None, negative=None, keys=None, cutoff_k=1000,
          negative_datasets=None):  # fmt: skip
    """Add the rows of ``keys`` (every claim by default) to ``report``, judged on ``tasks``;
    ``cutoffs`` were run at ``cutoff_k`` features; ``negative_datasets`` names the dataset of each
    task of ``negative``.  A report that measures no designs (one of a calibration's many worlds)
    judges every mean difference on the means (see :func:`~textsel.reproduce.worlds.remade`)."""
    with remade(report.designs):
        for key in keys or JUDGES:
            JUDGES[key](report, tasks, cutoffs=cutoffs, negative=negative, cutoff_k=cutoff_k,
                        negative_datasets=negative_datasets)  # fmt: skip
