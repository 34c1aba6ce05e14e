"""How Forman's claims compare metrics: task by task, each row one family of comparisons
bootstrapped over the tasks (see :mod:`textsel.reproduce.forman_judge`)."""

from __future__ import annotations

import numpy as np

from .forman_tables import paper_name
from .intervals import MIN_CLUSTERS_BOOTSTRAP, clustered_t_family, family, median_family
from .verdicts import ABOVE, BELOW, TOO_FEW, Judged, too_few
from .verdicts import cell as judged  # this module's cell() builds the family first
from .worlds import rates, too_often

__all__ = ["ABOVE", "BELOW", "HIGH_SKEW", "TOO_FEW", "at", "cell", "datasets", "differences", "group",
           "leader_rows", "leads", "means", "nearest", "ranked", "std", "unjudged"]  # fmt: skip

#: Forman's high-skew threshold: 1:67, the 90th percentile of his tasks' skews
HIGH_SKEW = 67.0


def cell(statistics, n, labels, sides, over, clusters=None):
    """The cell of one family of statistics of the ``n`` tasks (:func:`verdicts.cell`); with
    ``clusters`` (each task's dataset) the datasets are resampled, too few to judge under
    MIN_CLUSTERS_BOOTSTRAP of them."""
    comparisons = family(statistics, n, labels, over, clusters=clusters)
    if comparisons is None:
        count = len(set(clusters))
        return too_few(f"{over} in {count} datasets", count, "datasets", MIN_CLUSTERS_BOOTSTRAP)
    return judged(comparisons, sides)


def differences(columns, labels, over, sides=None, clusters=None):
    """The family "each column's mean above 0" (or its ``sides``), columns being per-task values:
    bootstrapped over the tasks, or with ``clusters`` (each task's dataset) judged by Student's t
    over the datasets, corrected for the family's size (too few to judge under MIN_UNITS); where
    that design says "differs" too often in the worlds from its own datasets
    (:func:`~textsel.reproduce.worlds.too_often`), on the median dataset instead, if its design
    says it less often there."""
    table = np.column_stack(columns)
    sides = sides or [(ABOVE, 0.0)] * len(labels)
    if clusters is None:
        return cell(lambda rows: table[rows].mean(axis=1), table.shape[0], labels, sides, over)
    comparisons = clustered_t_family(table, clusters, labels, over)
    if comparisons is None:
        return too_few(f"{over} in {len(set(clusters))} datasets", len(set(clusters)), "datasets")
    on_means = judged(comparisons, sides)
    false = too_often(on_means[2].tests)
    if false is None:
        return on_means
    # one dataset carries the means: the median dataset, whose interval holds however the datasets
    # are spread, where its design says "differs" less often in the worlds from the same datasets
    number = {name: g for g, name in enumerate(dict.fromkeys(clusters))}
    ids = np.array([number[name] for name in clusters])
    per_dataset = np.vstack([table[ids == g].mean(axis=0) for g in range(len(number))])
    label, interval, (word, reason) = on_medians = judged(
        median_family(per_dataset, labels, f"{len(number)} datasets (each its tasks' mean)"), sides
    )
    false_medians, _ = rates(on_medians[2].tests)
    if false_medians is None or false_medians >= false:
        return on_means
    reason += (f"; judged on the median dataset: on the means, Student's t says “differs” in {false:.1%} of "
               f"the worlds from its datasets, on the medians in {false_medians:.1%}")  # fmt: skip
    return label, interval, Judged(word, reason, on_medians[2].tests)


def leads(groups, over, name=paper_name, clusters=None):
    """The family "the leader is ahead of each rival": ``groups`` of ``(prefix, leader, values,
    rivals)``, ``values`` a {name: per-task values}."""
    columns, labels = [], []
    for prefix, leader, values, rivals in groups:
        for rival in rivals:
            columns.append(values[leader] - values[rival])
            labels.append(f"{prefix}{name(leader)} - {name(rival)}")
    return differences(columns, labels, over, clusters=clusters)


def nearest(tasks, k):
    """The k of the run nearest to the paper's (a small vocabulary stops below 1000)."""
    return min(tasks.ks, key=lambda have: abs(have - k))


def at(tasks, measure, k, metrics=None):
    return {m: tasks.at(measure, m, k) for m in metrics or tasks.metrics}


def means(values, keys) -> str:
    return ", ".join(f"{paper_name(m)} {values[m].mean():.3f}" for m in keys)


def ranked(values, top=3, shown=lambda v: f"{v:.3f}") -> list:
    """The ``top`` names by mean value, and any more whose value prints as the last one's
    (``shown``): a number column never drops a tie."""
    order = sorted(values, key=lambda m: -values[m].mean())
    if len(order) <= top:
        return order
    last = shown(values[order[top - 1]].mean())
    return order[:top] + [m for m in order[top:] if shown(values[m].mean()) == last]


def leader_rows(report, key, measure_text, tasks, measure, leader, ks, metrics=None, skip=(), clusters=None):
    """A row "``leader(k)`` is ahead of every other metric at each k": one family, judged over the
    tasks' datasets (``clusters``, by default :func:`datasets`; see :func:`differences`)."""
    groups, ours = [], []
    for k in ks:
        values = at(tasks, measure, k, metrics)
        others = [m for m in values if m != leader(k) and (k, m) not in skip]
        groups.append((f"k = {k}: ", leader(k), values, others))
        ours.append(f"{k}: {means(values, ranked(values, 2))}")
    clusters = datasets(tasks) if clusters is None else clusters
    report.judge(key, measure_text, "; ".join(ours), [leads(groups, tasks.over, clusters=clusters)])


def std(values, weights):
    """The standard deviation of ``values`` over the last axis, counting each as its 0/1 weight."""
    count = np.maximum(weights.sum(axis=-1, keepdims=True), 1.0)
    mean = (values * weights).sum(axis=-1, keepdims=True) / count
    return np.sqrt((weights * (values - mean) ** 2).sum(axis=-1) / count[..., 0])


def group(tasks, high):
    return tasks.subset(tasks.skew > HIGH_SKEW if high else tasks.skew <= HIGH_SKEW)


def unjudged(report, key, measure, which, tasks):
    """A skew row with (almost) no tasks in its group (``which``: "high" or "low"): too few to
    judge."""
    n = len(group(tasks, high=which == "high").names)
    report.judge(key, measure, f"{n} of the {len(tasks.names)} tasks are {which}-skew",
                 [too_few(f"{which} skew", n, "tasks")])  # fmt: skip


def datasets(tasks) -> list:
    """Each task's dataset: the clusters its tasks are nested in (one dataset's classes share its
    documents and its vocabulary, so they are not independent)."""
    return [name[0] if isinstance(name, tuple) else name for name in tasks.names]
