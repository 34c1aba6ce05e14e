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

import functools

import numpy as np

from ..metrics import METRICS
from ..names import FORMAN_KS
from ..protocol import MEASURES
from .forman_tables import Tasks

__all__ = ["ROWS", "false_differs", "mechanism_rates", "null_tasks"]


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
        report = Report(key="forman", title="", citation="", corpus="", claims=FORMAN, designs=False)
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


#: the other papers' rows (not their timed ones): how each is judged, over how many units, with
#: how many comparisons in its family and how many cells (corpora, sizes, parts) it combines.
#: Documents are simulated 3,000 to a test set: a bootstrap over thousands is as accurate at 3,000
#: as at 19,000, and the worlds stay quick.
ROWS = {
    ("dasgupta", "lambda"): ("bootstrap", 3000, 2, 1),
    ("dasgupta", "ninety"): ("bootstrap and draws", 3000, 2, 1),
    ("dasgupta", "ig_dominates"): ("bootstrap and draws", 3000, 15, 1),
    ("dasgupta", "ss100"): ("bootstrap and draws", 3000, 8, 1),
    ("dasgupta", "ss1500"): ("bootstrap and draws", 3000, 6, 1),
    ("dasgupta", "hellinger"): ("t", 5, 1, 1),
    ("dasgupta", "reuters_gain"): ("bootstrap and draws", 3000, 1, 1),
    ("dasgupta", "reuters_ig"): ("bootstrap and draws", 3000, 7, 2),
    ("li-sun", "fig8"): ("bootstrap", 3000, 1, 8),
    ("li-sun", "formula"): ("bootstrap", 3000, 1, 6),
    ("li-sun", "sensitivity"): ("bootstrap", 3000, 1, 2),
    ("li-sun", "avl_k"): ("bootstrap", 3000, 1, 1),
    ("li-sun", "lambda_k"): ("bootstrap", 3000, 1, 1),
    ("li-sun", "gamma"): ("bootstrap", 3000, 1, 1),
    ("li-sun", "spearman"): ("bootstrap", 3000, 3, 1),
    ("kolcz", "svset_auc"): ("t", 10, 1, 2),
    ("kolcz", "mask_auc"): ("median", 10, 1, 2),
    ("kolcz", "cosine"): ("t", 10, 1, 4),
    ("kolcz", "overlap"): ("t", 10, 1, 4),
    ("kolcz", "containment"): ("t", 10, 1, 2),
    ("zhuang", "macro_order"): ("t", 90, 8, 1),
    ("zhuang", "micro_close"): ("bootstrap", 3000, 4, 1),
    ("zhuang", "balanced"): ("t", 19, 20, 1),
    ("zhuang", "unbalanced"): ("t", 45, 8, 1),
    ("zhuang", "extreme"): ("t", 26, 2, 1),
    ("zhuang", "psvm_falls"): ("welch", 19, 1, 1),
}
#: a sampling strategy's draws per (method, size), as the Dasgupta page averages them
DRAWS = 5


@functools.cache
def _median() -> float:
    """The median of :func:`_units`' values (their mean is 0; a right-skewed law's median lies
    below it), from a million draws."""
    a, b = np.random.default_rng(1).gamma(4.0, 1.0, 10**6), np.random.default_rng(2).gamma(4.0, 1.0, 10**6)
    return float(np.median((a + b - 8.0) / np.sqrt(8.0)))


def _units(rng, n, m):
    """Per-unit values of ``m`` comparisons, mean 0, correlated 0.5 across comparisons and skewed
    (a centred gamma of shape 4: a category's F1 differences are not normal)."""
    shared = rng.gamma(4.0, 1.0, size=(n, 1)) - 4.0
    own = rng.gamma(4.0, 1.0, size=(n, m)) - 4.0
    return (shared + own) / np.sqrt(8.0)


def _family(rng, how, n, m):
    """One cell's comparisons, every one's quantity exactly at its margin (0), made ``how``."""
    from .dasgupta_relative import draw_mean
    from .intervals import RESAMPLES, band, clustered_t_family, median_family

    labels = [str(j) for j in range(m)]
    if how == "welch":  # two bands' means, the second band 45 categories (Zhuang's unbalanced)
        from scipy.stats import ttest_ind

        from .intervals import Comparison, Interval, level

        a, b = _units(rng, n, 1)[:, 0], _units(rng, 45, 1)[:, 0]
        low, high = ttest_ind(a, b, equal_var=False).confidence_interval(level())
        interval = Interval(float(a.mean() - b.mean()), float(low), float(high), f"{n} and 45 units")
        return [Comparison("0", interval, interval)]
    if how == "t":
        return clustered_t_family(_units(rng, n, m), None, labels, f"{n} units")
    if how == "median":  # the units' median, not their mean, at the margin
        return median_family(_units(rng, n, m) - _median(), labels, f"{n} units")
    values = _units(rng, n, m)
    rows = rng.integers(0, n, size=(RESAMPLES, n)) + (np.arange(RESAMPLES) * n)[:, None]
    weights = np.bincount(rows.ravel(), minlength=RESAMPLES * n).reshape(RESAMPLES, n).astype(np.float64)
    estimate, draws = values.mean(axis=0), weights @ values / n
    if how == "bootstrap and draws":  # each comparison's quantity a mean over DRAWS draws, which scatter
        offsets = 0.5 * rng.standard_normal((DRAWS, m)) * values.std(axis=0) / np.sqrt(n) * 3
        per_draw = draws[:, None, :] + offsets[None, :, :]  # resamples x draws x comparisons
        # each comparison's draws picked apart, as the page picks each (method, size)'s apart
        draws = np.stack([draw_mean(per_draw[:, :, j], rng.integers(0, DRAWS, size=(RESAMPLES, DRAWS)))
                          for j in range(m)], axis=1)  # fmt: skip
        estimate = estimate + offsets.mean(axis=0)
    return band(estimate, draws, labels, f"{n} units")


def mechanism_rates(keys=None, worlds=200, seed=0) -> dict:
    """{(paper, row): (the share of ``worlds`` in which it says "differs", its :data:`ROWS` entry)}:
    each row's family made as the row makes it, at its number of units, comparisons and cells,
    in worlds where every comparison sits exactly at its margin."""
    from .intervals import simultaneous
    from .verdicts import DIFFERS, every

    rng = np.random.default_rng(seed)
    out = {}
    for key in keys or ROWS:
        how, n, m, cells = ROWS[key]
        found = 0
        for _ in range(worlds):
            with simultaneous(cells):
                found += any(
                    every(_family(rng, how, n, m), [(1, 0.0)] * m)[0] == DIFFERS for _ in range(cells)
                )
        out[key] = (found / worlds, ROWS[key])
    return out
