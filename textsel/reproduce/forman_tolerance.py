"""Forman's "best within tolerance" analyses (his Figs. 9 and 10): the share of tasks on which a
metric comes within x% of the best any metric reached, by goal, IG's best backup for precision,
and the best pairs of metrics; computed on per-trial records (the "average maximum")."""

from __future__ import annotations

from .. import study
from ..metrics import METRICS
from .claims import FORMAN_PAIRS as PAPER_PAIRS
from .forman_tables import pair_name, paper_name

__all__ = ["tolerance_claims"]


def tolerance_claims(report, records, figures):
    """Figs. 9a, 9b, 10a and 10b: their rows, the Fig. 9a table and the figures (into the
    ``figures`` folder, when not None)."""
    rows = study.tolerance_curve(records, "f1")
    share = {(r["metric"], r["tolerance"]): r["share"] for r in rows}
    bns, ig = share[("bns", 0.01)], share[("ig", 0.01)]
    by_dataset = ", ".join(
        f"{name} {100 * a:.0f}/{100 * b:.0f}% ({n} tasks)"
        for name, (a, b, n) in _shares_by_dataset(records).items()
    )
    report.claim(
        "tolerance",
        "share of tasks within 1% of the best average maximum F1 (best k within each trial, then the mean)",
        f"BNS {100 * bns:.0f}%, IG {100 * ig:.0f}%",
        abs(100 * bns - 65) <= 10 and abs(100 * ig - 40) <= 10,
        f"{100 * bns - 65:+.0f} / {100 * ig - 40:+.0f} points from 65 / 40; "
        f"BNS / IG by dataset: {by_dataset}",
    )
    goals = {"recall": 0.01, "precision": 0.01, "accuracy": 0.001}
    leaders = {}
    for measure, tol in goals.items():
        curve = study.tolerance_curve(records, measure, (tol,))
        leaders[measure] = sorted(((r["share"], r["metric"]) for r in curve), reverse=True)
    report.claim(
        "goals",
        "share of tasks within the tolerance, top three per goal",
        "; ".join(
            f"{m} ({100 * goals[m]:g}%): " + ", ".join(f"{paper_name(x)} {100 * v:.0f}%" for v, x in r[:3])
            for m, r in leaders.items()
        ),
        leaders["recall"][0][1] == "bns"
        and leaders["accuracy"][0][1] == "bns"
        and leaders["precision"][0][1] != "bns",
        ", ".join(f"{paper_name(r[0][1])} leads {m}" for m, r in leaders.items()),
    )
    precision = study.tolerance_curve(records, "precision")
    lead = {
        t: max((r["share"], r["metric"]) for r in precision if r["tolerance"] == t)[1] for t in FIVE_TO_TEN
    }
    report.claim(
        "precision_tolerance",
        "metric within tolerance of the best precision most often, tolerances 5-10%",
        ", ".join(f"{100 * t:.0f}%: {paper_name(m)}" for t, m in lead.items()),
        all(m == "ig" for m in lead.values()),
        ", ".join(f"{paper_name(m)} leads at {100 * t:.0f}%" for t, m in lead.items() if m != "ig"),
    )
    _residual(report, records, figures)
    found = {}
    for measure in PAPER_PAIRS:
        found[measure] = study.best_pairs(records, measure, 0.001 if measure == "accuracy" else 0.01)[0]
    differ = [m for m, pair in PAPER_PAIRS.items() if sorted(found[m]["pair"]) != sorted(pair)]
    report.claim(
        "pairs",
        "pair most often within 1% of the best (0.1% for accuracy), the better of the two per task",
        "; ".join(f"{m}: {pair_name(b['pair'])} {100 * b['share']:.0f}%" for m, b in found.items()),
        not differ,
        ", ".join(
            f"{m} {pair_name(found[m]['pair'])} where the paper has {pair_name(PAPER_PAIRS[m])}"
            for m in differ
        ),
    )
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


def _tasks(records):
    return {(r["dataset"], r["class"]) for r in records}


def _residual(report, records, figures):
    """Fig. 10b: each metric as IG's backup for precision."""
    rows = study.residual_curve(records, lead="ig", measure="precision")
    at1 = {r["metric"]: r["residual"] for r in rows if r["tolerance"] == 0.01}
    count = {r["metric"]: r["rescued"] for r in rows if r["tolerance"] == 0.01}
    failures = next(r["failures"] for r in rows if r["tolerance"] == 0.01)
    top = max(count.values())
    best = [m for m in sorted(count, key=lambda m: (-count[m], m)) if count[m] == top]
    reasons = []
    if not failures:
        reasons.append("IG is within 1% of the best precision on every task")
    elif "bns" not in best:
        reasons.append(f"{paper_name(best[0])} is IG's best backup ({top} tasks, BNS {count['bns']})")
    rescue_less = [paper_name(m) for m in count if m not in ("chi2", "rand") and count[m] < count["chi2"]]
    if rescue_less:
        reasons.append("Chi rescues more than " + ", ".join(rescue_less))
    if at1["chi2"] > at1["rand"] + 0.05:
        reasons.append(f"Chi rescues {count['chi2'] - count['rand']} more tasks than Rand")
    leaders = " and ".join(paper_name(m) for m in best)
    ranked = sorted(count, key=lambda m: (-count[m], m))
    report.claim(
        "residual",
        "precision within 1% of the best, on the tasks where IG is not: how many each metric rescues "
        "(the best three, Chi and Rand)",
        f"IG misses {failures} of {len(_tasks(records))} tasks; "
        + ", ".join(f"{paper_name(m)} rescues {count[m]}" for m in ranked[:3])
        + f"; Chi {count['chi2']}, Rand {count['rand']}"
        + (f" ({leaders} tie for the most)" if len(best) > 1 else ""),
        not reasons,
        "; ".join(reasons),
    )
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


#: the tolerances of "higher tolerances" in Forman's Fig. 10a
FIVE_TO_TEN = (0.05, 0.06, 0.07, 0.08, 0.09, 0.1)


def _shares_by_dataset(records):
    """{dataset: (BNS's share, IG's share within 1%, tasks)}."""
    out = {}
    for name in sorted({r["dataset"] for r in records}):
        rows = study.tolerance_curve([r for r in records if r["dataset"] == name], "f1", (0.01,))
        share = {r["metric"]: r["share"] for r in rows}
        tasks = len({r["class"] for r in records if r["dataset"] == name})
        out[name] = (share.get("bns", 0.0), share.get("ig", 0.0), tasks)
    return out
