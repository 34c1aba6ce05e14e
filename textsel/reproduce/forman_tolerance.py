"""The tables and figures of Forman's "best within tolerance" analyses (his Figs. 9a, 10a and
10b): the share of tasks on which a metric comes within x% of the best any metric reached, and
IG's backups for precision; computed on per-trial records (the "average maximum").  Their claims
are judged in :mod:`textsel.reproduce.forman_judge`."""

from __future__ import annotations

from .. import study
from ..metrics import METRICS
from .forman_tables import paper_name

__all__ = ["tolerance_sections"]


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
