"""Forman's analyses of a study's records, and the records written out.

Every function takes the records :func:`textsel.study.forman` returns (one dict per dataset,
class, metric and k): macro-averages, the "best within x% tolerance" and residual-pair analyses,
the split by class skew, and CSV, JSON or pandas output.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np

from ..protocol import MEASURES

__all__ = ["average_trials", "best_pairs", "macro_average", "residual_curve", "skew_split", "to_dataframe",
           "tolerance_curve", "write_csv", "write_json"]  # fmt: skip

#: Forman's tolerances for the "best within x%" analysis (his Fig. 9a): 1% to 10%
FORMAN_TOLERANCES = tuple(t / 100 for t in range(1, 11))


def _order(value):
    """Sort key: numbers by value (k = 20 before 1000), everything else by its text after them."""
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, str(value))


def macro_average(records, by=("metric", "k")):
    """Average the measures over tasks (datasets and classes), one row per ``by`` group."""
    groups = {}
    for r in records:
        groups.setdefault(tuple(r[key] for key in by), []).append(r)
    rows = []
    for key, members in sorted(groups.items(), key=lambda item: tuple(map(_order, item[0]))):
        row = dict(zip(by, key, strict=True))
        row["tasks"] = len(members)
        for measure in MEASURES:
            row[measure] = float(np.mean([m[measure] for m in members]))
        rows.append(row)
    return rows


def average_trials(records):
    """Records of ``forman(..., per_trial=True)`` averaged over their trials: the records
    ``forman`` returns by default (records without ``trial`` pass through unchanged)."""
    groups = {}
    for r in records:
        key = tuple((name, value) for name, value in r.items() if name != "trial" and name not in MEASURES)
        groups.setdefault(key, []).append(r)
    return [{**dict(key), **{m: float(np.mean([r[m] for r in members])) for m in MEASURES}}
            for key, members in groups.items()]  # fmt: skip


def _best_per_task(records, measure):
    """{task: {metric: its best value}} with task = (dataset, class).

    Forman's "average maximum": with per-trial records (a ``trial`` key), the maximum over k
    within each trial, averaged over the trials (the all-terms baseline, k = "all", left out).
    Records already averaged over the trials give the maximum of those averages, a different and
    smaller number."""
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {MEASURES}, got {measure!r}")
    best = {}
    for r in records:
        if r["k"] == "all":
            continue  # the all-terms baseline is no metric's selection
        slot = best.setdefault((r["dataset"], r["class"]), {}).setdefault(r["metric"], {})
        trial = r.get("trial")
        slot[trial] = max(slot.get(trial, -math.inf), r[measure])
    return {task: {metric: float(np.mean(list(trials.values()))) for metric, trials in per_metric.items()}
            for task, per_metric in best.items()}  # fmt: skip


def tolerance_curve(records, measure="f1", tolerances=FORMAN_TOLERANCES):
    """Forman's "best within x% tolerance" analysis (his Fig. 9).

    For each task, each metric's best ``measure`` (the average maximum over k, see
    :func:`textsel.study.forman`'s ``per_trial``) is compared with the best any metric reached; a
    metric succeeds on the task when it is within the tolerance (relative).  Returns one row per
    (metric, tolerance) with the share of tasks it succeeds on.
    """
    best = _best_per_task(records, measure)
    metrics = sorted({m for per_task in best.values() for m in per_task})
    rows = []
    for metric in metrics:
        for tol in tolerances:
            hits = [per_task.get(metric, -math.inf) >= (1 - tol) * max(per_task.values())
                    for per_task in best.values()]  # fmt: skip
            rows.append({"metric": metric, "tolerance": tol, "share": float(np.mean(hits))})
    return rows


def best_pairs(records, measure="f1", tolerance=0.05):
    """Forman's residual pair analysis: which two metrics together most often come within
    ``tolerance`` of the best, taking the better of the two per task.  Rows sorted best first."""
    best = _best_per_task(records, measure)
    metrics = sorted({m for per_task in best.values() for m in per_task})
    rows = []
    for i, a in enumerate(metrics):
        for b in metrics[i + 1 :]:
            hits = [
                max(per_task.get(a, -math.inf), per_task.get(b, -math.inf))
                >= (1 - tolerance) * max(per_task.values())
                for per_task in best.values()
            ]
            rows.append({"pair": (a, b), "share": float(np.mean(hits))})
    return sorted(rows, key=lambda r: (-r["share"], r["pair"]))


def residual_curve(records, lead="ig", measure="precision", tolerances=FORMAN_TOLERANCES):
    """Forman's residual win analysis (his Fig. 10b): each other metric as ``lead``'s backup.

    For each metric and tolerance: ``share``, the share of tasks on which ``lead`` or the metric
    comes within the tolerance of the best (the better of the two per task), ``residual``, the
    share of the tasks ``lead`` fails on that the metric rescues (NaN when ``lead`` fails on none),
    ``rescued`` and ``failures``, the two counts behind it.  A backup whose failures are
    correlated with the lead's rescues few of them.
    """
    best = _best_per_task(records, measure)
    metrics = sorted({m for per_task in best.values() for m in per_task} - {lead})
    if best and not any(lead in per_task for per_task in best.values()):
        raise ValueError(f"lead must be one of the records' metrics {metrics}, got {lead!r}")
    rows = []
    for tol in tolerances:
        within = [{m: v >= (1 - tol) * max(per_task.values()) for m, v in per_task.items()}
                  for per_task in best.values()]  # fmt: skip
        failed = [hits for hits in within if not hits.get(lead, False)]
        for metric in metrics:
            share = np.mean([hits.get(lead, False) or hits.get(metric, False) for hits in within])
            rescued = sum(hits.get(metric, False) for hits in failed)
            rows.append({"metric": metric, "tolerance": tol, "share": float(share),
                         "residual": rescued / len(failed) if failed else math.nan,
                         "rescued": rescued, "failures": len(failed)})  # fmt: skip
    return rows


def skew_split(records, threshold=67.0, by=("metric", "k")):
    """Macro-averages for high-skew tasks (more than ``threshold`` negatives per positive; Forman's
    90th percentile was 1:67) and for the rest, one row per group and ``by`` value."""
    rows = []
    for group, members in (("high", [r for r in records if r["skew"] > threshold]),
                           ("low", [r for r in records if r["skew"] <= threshold])):  # fmt: skip
        for row in macro_average(members, by) if members else []:
            rows.append({"skew": group, **row})
    return rows


def write_csv(records, path):
    """Write records (dicts sharing keys) as CSV with a header row."""
    records = list(records)
    if not records:
        raise ValueError("no records to write")
    with Path(path).open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(records[0]))
        writer.writeheader()
        writer.writerows(records)


def write_json(records, path):
    """Write records as a JSON array (NaN as null)."""

    def clean(value):
        return None if isinstance(value, float) and math.isnan(value) else value

    with Path(path).open("w") as fh:
        json.dump([{k: clean(v) for k, v in r.items()} for r in records], fh, indent=1)


def to_dataframe(records):
    """The records as a pandas DataFrame (pandas is optional)."""
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("to_dataframe needs pandas: pip install pandas") from exc
    return pd.DataFrame.from_records(list(records))
