"""How often a row says "differs" when its claim's quantity sits exactly at its margin.

A verdict's interval should leave the claim's side by chance in about 2.5% of worlds (one tail of
a 95% interval) and the other side as often; a row whose rule says "differs" much more often
than that in worlds where nothing differs judges noise.  :func:`null_tasks` draws such worlds for
Forman's rows: every metric equal in expectation, with the structure his tasks have here (tasks
nested in datasets, each dataset moving its tasks' values together, trials of one task alike),
and :func:`false_differs` counts each row's "differs" over many of them.
``tools/verdict_null.py`` prints the rates.
"""

from __future__ import annotations

import numpy as np

from .._names import FORMAN_KS
from ..metrics import METRICS
from ..study.protocol import MEASURES
from .forman_tables import Tasks

__all__ = ["false_differs", "null_tasks"]


def null_tasks(rng, tasks=40, high=16, datasets=8, trials=2, dataset_sd=0.03, task_sd=0.03, trial_sd=0.01):
    """A world of ``tasks`` tasks (the first ``high`` high-skew) from ``datasets`` datasets (task t
    in dataset t mod ``datasets``) in which every metric is equally good: each (dataset, metric,
    measure) and each (task, metric, measure, k) adds a normal deviate of mean 0, each trial a
    smaller one."""
    names = [(f"d{t % datasets}", t) for t in range(tasks)]
    dataset = np.arange(tasks) % datasets
    skew = np.where(np.arange(tasks) < high, 100.0, 5.0)
    base = 0.6 + 0.05 * rng.standard_normal(tasks)
    table = {}
    for measure in MEASURES:
        table[(measure, "all", "all")] = base[:, None] + trial_sd * rng.standard_normal((tasks, trials))
        for metric in METRICS:
            shared = dataset_sd * rng.standard_normal(datasets)[dataset]
            for k in FORMAN_KS:
                own = task_sd * rng.standard_normal(tasks)
                value = base + shared + own
                table[(measure, metric, k)] = value[:, None] + trial_sd * rng.standard_normal((tasks, trials))
    return Tasks(names, skew, table, list(FORMAN_KS))


def false_differs(keys, worlds=200, seed=0, **world) -> dict:
    """{row key: (the share of ``worlds`` null worlds (:func:`null_tasks`) in which it says
    "differs", the share too few to judge, how it was judged)}, for Forman's rows ``keys``."""
    from .claims import FORMAN
    from .forman_judge import judge
    from .report import Report

    rng = np.random.default_rng(seed)
    differs, unjudged, how = dict.fromkeys(keys, 0), dict.fromkeys(keys, 0), {}
    for _ in range(worlds):
        tasks = null_tasks(rng, **world)
        report = Report(key="forman", title="", citation="", corpus="", claims=FORMAN)
        judge(report, tasks, keys=list(keys))
        for key, row in zip(keys, report.rows, strict=True):
            differs[key] += row.word == "differs"
            unjudged[key] += row.word == "too few to judge"
            if row.word != "too few to judge":
                how[key] = (
                    "t over datasets"
                    if "t-interval" in row.interval
                    else ("bootstrap over datasets" if "clusters" in row.interval else "bootstrap over tasks")
                )
    return {key: (differs[key] / worlds, unjudged[key] / worlds, how.get(key, "not judged")) for key in keys}
