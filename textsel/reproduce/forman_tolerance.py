"""Forman's "best within tolerance" analyses (his Figs. 9 and 10): the share of tasks on which a
metric comes within x% of the best any metric reached, IG's backups for precision and the best
pairs; their rows judged on the tasks, their tables and figures from the per-trial records (the
"average maximum")."""

from __future__ import annotations

import numpy as np

from .. import study
from ..metrics import METRICS
from .claims import FORMAN_PAIRS
from .forman_compare import ABOVE, BELOW, cell, datasets, differences, leads, ranked
from .forman_tables import pair_name, paper_name
from .intervals import bootstrap, simultaneous
from .verdicts import equivalent

__all__ = ["goals", "pairs", "precision_tolerance", "residual", "tolerance", "tolerance_sections"]

#: "as bad as Rand": Chi's rescued share within this share of IG's failures of Rand's
AS_BAD = 0.1
#: the tolerances of "higher tolerances" in his Fig. 10a
HIGHER_TOLERANCES = (0.05, 0.06, 0.07, 0.08, 0.09, 0.1)


def tolerance_sections(report, records, figures):
    """Figs. 9a, 10a and 10b: their tables, and their figures (into the ``figures`` folder, when
    not None)."""
    rows = study.tolerance_curve(records, "f1")
    share = {(r["metric"], r["tolerance"]): r["share"] for r in rows}
    precision = study.tolerance_curve(records, "precision")
    tols = sorted({r["tolerance"] for r in rows})
    table = [
        "| metric | " + " | ".join(f"{100 * t:.0f}%" for t in tols) + " |",
        "|---" * (len(tols) + 1) + "|",
    ]
    for metric in METRICS:
        table.append(
            f"| {paper_name(metric)} | " + " | ".join(f"{100 * share[(metric, t)]:.0f}" for t in tols) + " |"
        )
    text = "Percentage of tasks on which each metric's average maximum F1 comes within x% of the best "
    report.sections.append(
        ("Best within tolerance (Forman's Fig. 9a)", text + "any metric reached:\n\n" + "\n".join(table))
    )
    if figures is not None:
        from ..study import plots

        plots.plot_tolerance(rows, figures / "tolerance_f1.png", title="F1 within tolerance of the best")
        title = "precision within tolerance of the best"
        plots.plot_tolerance(precision, figures / "tolerance_precision.png", title=title)
        report.figures += [
            ("tolerance_f1.png", "Tasks within x% of the best F1 (Forman's Fig. 9a)"),
            ("tolerance_precision.png", "The same for precision (Forman's Fig. 10a)"),
        ]
    _residual(report, records, figures)


def _residual(report, records, figures):
    """Fig. 10b: each metric as IG's backup for precision."""
    rows = study.residual_curve(records, lead="ig", measure="precision")
    count = {r["metric"]: r["rescued"] for r in rows if r["tolerance"] == 0.01}
    ranked = sorted(count, key=lambda m: (-count[m], m))
    tols = sorted({r["tolerance"] for r in rows})
    cell = {(r["metric"], r["tolerance"]): r for r in rows}
    table = [
        "| backup | " + " | ".join(f"{100 * t:.0f}%" for t in tols) + " |",
        "|---" * (len(tols) + 1) + "|",
    ]
    for metric in ranked:
        table.append(
            f"| IG+{paper_name(metric)} | "
            + " | ".join(
                f"{100 * cell[(metric, t)]['share']:.0f} ({100 * cell[(metric, t)]['residual']:.0f})"
                for t in tols
            )
            + " |"
        )
    text = (
        "Percentage of tasks on which IG or the backup comes within x% of the best precision, and in "
        "brackets the percentage of IG's failures the backup rescues:\n\n"
    )
    report.sections.append(
        ("IG and a backup metric, for precision (Forman's Fig. 10b)", text + "\n".join(table))
    )
    if figures is not None:
        curves = [{**r, "metric": f"IG+{paper_name(r['metric'])}"} for r in rows]
        from ..study import plots

        plots.plot_tolerance(
            curves, figures / "residual_precision.png", title="precision: IG or a backup within tolerance"
        )
        report.figures.append(
            ("residual_precision.png", "IG with each backup metric, precision (Forman's Fig. 10b)")
        )


# -- the rows of Figs. 9 and 10, judged on the tasks (see forman_judge)


def _percent(value) -> str:
    return f"{100 * value:.0f}%"


def _shares(within, keys) -> str:
    return ", ".join(f"{paper_name(m)} {_percent(within[m].mean())}" for m in keys)


def tolerance(report, tasks, **_):
    within = tasks.within("f1", 0.01)
    report.judge(
        "tolerance",
        "share of tasks whose average maximum F1 is within 1% of the best any metric reached: BNS - IG",
        _shares(within, ["bns", "ig"]),
        [differences([within["bns"] - within["ig"]], ["BNS - IG"], tasks.over, clusters=datasets(tasks))],
    )


def goals(report, tasks, **_):
    groups, ours = [], []
    for measure, tolerance in (("accuracy", 0.001), ("f1", 0.01), ("recall", 0.01)):
        within = tasks.within(measure, tolerance)
        groups.append((f"{measure}: ", "bns", within, [m for m in within if m != "bns"]))
        ours.append(f"{measure} ({100 * tolerance:g}%): {_shares(within, ranked(within, shown=_percent))}")
    within = tasks.within("precision", 0.01)
    groups.append(("precision: ", "ig", within, ["bns"]))
    ours.append(f"precision (1%): {_shares(within, ranked(within, shown=_percent))}")
    report.judge(
        "goals",
        "share of tasks within the tolerance of the best, per goal",
        "; ".join(ours),
        [leads(groups, tasks.over, clusters=datasets(tasks))],
    )


def precision_tolerance(report, tasks, **_):
    groups, ours = [], []
    for tolerance in HIGHER_TOLERANCES:
        within = tasks.within("precision", tolerance)
        groups.append((f"{100 * tolerance:g}%: ", "ig", within, [m for m in within if m != "ig"]))
        ours.append(f"{100 * tolerance:g}%: {_shares(within, ranked(within, 2, shown=_percent))}")
    report.judge(
        "precision_tolerance",
        "share of tasks within 5% ... 10% of the best precision, IG against each other",
        "; ".join(ours),
        [leads(groups, tasks.over, clusters=datasets(tasks))],
    )


def residual(report, tasks, **_):
    within = tasks.within("precision", 0.01)
    failed = 1.0 - within["ig"]
    backups = [m for m in tasks.metrics if m != "ig"]
    counts = {m: int((failed * within[m]).sum()) for m in backups}
    columns, labels, sides = [], [], []
    for rival in (m for m in backups if m not in ("chi2", "rand")):  # Chi rescues the fewest
        columns.append(failed * (within["chi2"] - within[rival]))
        labels.append(f"Chi - {paper_name(rival)}")
        sides.append((BELOW, 0.0))
    for rival in (m for m in backups if m != "bns"):  # BNS the most
        columns.append(failed * (within["bns"] - within[rival]))
        labels.append(f"BNS - {paper_name(rival)}")
        sides.append((ABOVE, 0.0))
    table = np.column_stack([failed, *columns])

    def shares(rows):  # rescued less the rival's rescues, as a share of IG's failures in the resample
        sums = table[rows].sum(axis=1)
        return sums[:, 1:] / np.maximum(sums[:, :1], 1.0)

    with simultaneous(2):
        rand = bootstrap(
            np.column_stack([failed, failed * (within["chi2"] - within["rand"])]),
            tasks.over,
            vectorized=True,
            statistic=lambda t: t[..., 1].sum(axis=-1) / np.maximum(t[..., 0].sum(axis=-1), 1.0),
        )
        order = sorted(backups, key=lambda m: -counts[m])
        shown = (
            order[:3] + [m for m in order[3:] if counts[m] == counts[order[2]]] if len(order) > 3 else order
        )
        report.judge(
            "residual",
            "precision within 1% of the best, on the tasks where IG is not: rescues as a share of IG's "
            f"failures, Chi against each backup and against Rand (as bad: within {AS_BAD:g}), BNS against "
            "each backup",
            f"IG misses {int(failed.sum())} of {len(tasks.names)} tasks; rescued: "
            + ", ".join(f"{paper_name(m)} {counts[m]}" for m in shown)
            + f", Chi {counts['chi2']}, Rand {counts['rand']}",
            [
                cell(shares, len(failed), labels, sides, tasks.over, datasets(tasks)),
                ("Chi - Rand", rand, equivalent(rand, AS_BAD)),
            ],
        )


def pairs(report, tasks, **_):
    groups, ours = [], []
    for measure, pair in FORMAN_PAIRS.items():
        within = tasks.within(measure, 0.001 if measure == "accuracy" else 0.01)
        metrics = list(within)
        shares = {
            (a, b): np.maximum(within[a], within[b]) for i, a in enumerate(metrics) for b in metrics[i + 1 :]
        }
        paper = tuple(sorted(pair, key=metrics.index))
        groups.append((f"{measure}: ", paper, shares, [p for p in shares if p != paper]))
        best = max(shares, key=lambda p: shares[p].mean())
        ours.append(
            f"{measure}: {pair_name(paper)} {100 * shares[paper].mean():.0f}% (most: {pair_name(best)} "
            f"{100 * shares[best].mean():.0f}%)"
        )
    report.judge(
        "pairs",
        "share of tasks where the better of a pair is within 1% of the best (0.1% for accuracy), the "
        "paper's pair against each of the other 65",
        "; ".join(ours),
        [leads(groups, tasks.over, pair_name, clusters=datasets(tasks))],
    )
