"""Macro-averaged tables of a Forman study's per-trial records, as the reproduction reads them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import study
from ..metrics import METRICS

__all__ = [
    "NAMES",
    "Tasks",
    "f1_markdown",
    "macro_table",
    "nearest_k",
    "pair_name",
    "paired_ttest",
    "paper_name",
    "ranked_at",
    "table_ks",
    "task_table",
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


@dataclass
class Tasks:
    """A Forman study per task, the unit his macro-averages average over: ``trials[(measure,
    metric, k)]`` holds each task's per-trial values (tasks x trials; the all-terms SVM is metric
    and k ``"all"``), ``skew`` each task's negatives per positive."""

    names: list
    skew: np.ndarray
    trials: dict
    ks: list

    @property
    def over(self) -> str:
        """What a bootstrap over these tasks resamples."""
        return f"{len(self.names)} tasks"

    @property
    def metrics(self) -> list:
        """The metrics of the study, in textsel's order (the all-terms SVM left out)."""
        have = {metric for _, metric, _ in self.trials}
        return [m for m in METRICS if m in have]

    def at(self, measure, metric, k) -> np.ndarray:
        """Each task's ``measure`` for ``metric`` at ``k``, averaged over the trials."""
        return self.trials[(measure, metric, k)].mean(axis=1)

    def curve(self, measure, metric) -> np.ndarray:
        """Each task's ``measure`` at each k (tasks x ks), averaged over the trials."""
        return np.column_stack([self.at(measure, metric, k) for k in self.ks])

    def best(self, measure, metric) -> np.ndarray:
        """Forman's "average maximum": each task's best ``measure`` over k within a trial, averaged
        over the trials."""
        stacked = np.stack([self.trials[(measure, metric, k)] for k in self.ks], axis=2)
        return stacked.max(axis=2).mean(axis=1)

    def within(self, measure, tolerance) -> dict:
        """{metric: whether each task's average maximum is within ``tolerance`` (relative) of the
        best any metric reached on it}, as 0/1 floats."""
        best = {m: self.best(measure, m) for m in self.metrics}
        top = np.max(list(best.values()), axis=0)
        return {m: (v >= (1 - tolerance) * top).astype(np.float64) for m, v in best.items()}

    def subset(self, mask) -> Tasks:
        """The tasks where ``mask`` is true."""
        mask = np.asarray(mask, dtype=bool)
        names = [n for n, keep in zip(self.names, mask, strict=True) if keep]
        return Tasks(names, self.skew[mask], {key: v[mask] for key, v in self.trials.items()}, self.ks)


def task_table(records) -> Tasks:
    """The :class:`Tasks` of a study's records (per-trial records, or records of one trial)."""
    from ..protocol import MEASURES

    names = sorted({(r["dataset"], r["class"]) for r in records}, key=str)
    index = {name: i for i, name in enumerate(names)}
    trial_ids = sorted({r.get("trial", 0) for r in records})
    column = {t: j for j, t in enumerate(trial_ids)}
    skew = np.zeros(len(names))
    trials = {}
    for r in records:
        i, j = index[(r["dataset"], r["class"])], column[r.get("trial", 0)]
        skew[i] = r["skew"]
        for measure in MEASURES:
            slot = trials.setdefault(
                (measure, r["metric"], r["k"]), np.full((len(names), len(trial_ids)), np.nan)
            )
            slot[i, j] = r[measure]
    complete = {key: v for key, v in trials.items() if not np.isnan(v).any()}
    ks = sorted({k for _, _, k in complete if k != "all"})
    return Tasks(names, skew, complete, ks)
