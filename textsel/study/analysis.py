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

from .protocol import MEASURES

__all__ = ["best_pairs", "macro_average", "skew_split", "to_dataframe", "tolerance_curve", "write_csv",
           "write_json"]  # fmt: skip


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


def _best_per_task(records, measure):
    """{task: {metric: best value over k}} with task = (dataset, class)."""
    best = {}
    for r in records:
        task = (r["dataset"], r["class"])
        slot = best.setdefault(task, {})
        slot[r["metric"]] = max(slot.get(r["metric"], -math.inf), r[measure])
    return best


def tolerance_curve(records, measure="f1", tolerances=(0.0, 0.01, 0.02, 0.05, 0.1, 0.2)):
    """Forman's "best within x% tolerance" analysis.

    For each task, each metric's best ``measure`` over k is compared with the best any metric
    reached; a metric succeeds on the task when it is within the tolerance (relative).  Returns
    one row per (metric, tolerance) with the share of tasks it succeeds on.
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
