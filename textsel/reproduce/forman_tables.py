"""Macro-averaged tables of a Forman study's per-trial records, as the reproduction reads them."""

from __future__ import annotations

import numpy as np

from .. import study
from ..metrics import METRICS

__all__ = [
    "NAMES",
    "f1_markdown",
    "macro_table",
    "nearest_k",
    "pair_name",
    "paired_ttest",
    "paper_name",
    "ranked_at",
    "table_ks",
]

#: the paper's names for textsel's metric keys
NAMES = {"acc": "Acc", "acc2": "Acc2", "bns": "BNS", "chi2": "Chi", "dfreq": "DFreq", "f1": "F1", "ig": "IG",
         "oddn": "OddN", "odds": "Odds", "pow": "Pow", "pr": "PR", "rand": "Rand",
         "all": "all terms"}  # fmt: skip


def macro_table(records, measure="f1"):
    """{(metric, k): macro-average of ``measure``} over the trial-averaged records."""
    return {(r["metric"], r["k"]): r[measure] for r in study.macro_average(study.average_trials(records))}


def ranked_at(tab, k):
    """[(value, metric)] at k, best first (the baseline left out)."""
    return sorted(((v, m) for (m, kk), v in tab.items() if kk == k and m != "all"), reverse=True)


def paper_name(metric):
    """The paper's name for a metric key."""
    return NAMES.get(metric, metric)


def pair_name(metrics):
    """A pair of metrics as the paper writes it, BNS+IG."""
    return "+".join(paper_name(m) for m in metrics)


def table_ks(tab):
    """The numeric k of a macro table."""
    return sorted({k for _, k in tab if k != "all"})


def nearest_k(tab, k):
    """The k of the run nearest to the paper's (a small vocabulary stops below 1000)."""
    return min(table_ks(tab), key=lambda have: abs(have - k))


def paired_ttest(records, a, b, k, measure="f1"):
    """Paired t-test of ``measure`` between metrics a and b at k over (task, trial) runs."""
    from scipy.stats import ttest_rel

    values = {}
    for r in records:
        if r["k"] == k:
            values[(r["dataset"], r["class"], r.get("trial"), r["metric"])] = r[measure]
    keys = sorted({key[:3] for key in values}, key=str)
    x = np.array([values[(*key, a)] for key in keys])
    y = np.array([values[(*key, b)] for key in keys])
    result = ttest_rel(x, y)
    return float(result.statistic), float(result.pvalue), len(keys), float(np.mean(x - y))


def f1_markdown(f1, ks):
    """The macro-F1 table (metrics by k) as markdown, the best at each k in bold."""
    lines = ["| metric | " + " | ".join(str(k) for k in ks) + " |", "|---" * (len(ks) + 1) + "|"]
    for metric in METRICS:
        cells = []
        for k in ks:
            value = f"{f1[(metric, k)]:.3f}"
            cells.append(f"**{value}**" if ranked_at(f1, k)[0][1] == metric else value)
        lines.append(f"| {paper_name(metric)} | " + " | ".join(cells) + " |")
    if ("all", "all") in f1:
        lines += ["", f"The SVM on all terms: {f1[('all', 'all')]:.3f}.  Bold: the best metric at each k."]
    return "\n".join(lines)
