"""Figures of the study results (matplotlib, an optional dependency: pip install textsel[plots])."""

from __future__ import annotations


def _pyplot():
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError("plots need matplotlib: pip install 'textsel[plots]'") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _styles(names):
    """A distinct colour and marker per name (12 metrics outrun the default 10-colour cycle)."""
    plt = _pyplot()
    cmap = plt.get_cmap("tab20")
    markers = "osd^v<>pP*Xh"
    return {name: {"color": cmap(i % 20), "marker": markers[i % len(markers)],
                   "linewidth": 2.8 if name == "bns" else 1.2}
            for i, name in enumerate(sorted(names))}  # fmt: skip


def plot_measure_vs_k(rows, path, measure="f1", title=None):
    """One curve per metric of a macro-averaged ``measure`` against k (Forman's Fig. 4).

    ``rows`` are :func:`textsel.study.macro_average` rows (keys ``metric``, ``k``, ``measure``).
    """
    plt = _pyplot()
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    fig, ax = plt.subplots(figsize=(7, 4.5))
    styles = _styles({r["metric"] for r in rows})
    for metric, style in styles.items():
        points = sorted((r["k"], r[measure]) for r in rows if r["metric"] == metric)
        ks, values = zip(*points, strict=True)
        ax.plot(ks, values, label=metric, **style)
    ks = sorted({r["k"] for r in rows})
    ax.set_xscale("log")
    ax.set_xticks(ks)
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set(
        xlabel="terms selected (k)", ylabel=f"macro-averaged {measure}", title=title or f"{measure} against k"
    )
    ax.grid(alpha=0.3)
    ax.legend(ncol=2, fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_tolerance(rows, path, title=None):
    """Share of tasks on which each metric comes within x of the best (Forman's Fig. 9).

    ``rows`` are :func:`textsel.study.tolerance_curve` rows.
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for metric in sorted({r["metric"] for r in rows}):
        points = sorted((r["tolerance"], r["share"]) for r in rows if r["metric"] == metric)
        tol, share = zip(*points, strict=True)
        ax.plot(
            [100 * t for t in tol], share, marker="o", label=metric, linewidth=2.5 if metric == "bns" else 1.2
        )
    ax.set(xlabel="tolerance (% below the best)", ylabel="share of tasks within tolerance",
           title=title or "best within tolerance")  # fmt: skip
    ax.grid(alpha=0.3)
    ax.legend(ncol=2, fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_precision_recall(rows, path, k, title=None):
    """Macro-averaged precision against recall, one point per metric at a fixed k (Forman's Fig. 5).

    ``rows`` are :func:`textsel.study.macro_average` rows.
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 5))
    at_k = [r for r in rows if r["k"] == k]
    if not at_k:
        raise ValueError(f"no rows at k = {k}")
    styles = _styles({r["metric"] for r in at_k})
    for r in at_k:
        style = dict(styles[r["metric"]])
        style.pop("linewidth")
        # a legend, not labels by the points: the good metrics cluster and their labels collide
        ax.scatter(
            r["recall"], r["precision"], s=90 if r["metric"] == "bns" else 45, label=r["metric"], **style
        )
    ax.set(xlabel="macro-averaged recall", ylabel="macro-averaged precision",
           title=title or f"precision against recall at k = {k}")  # fmt: skip
    ax.grid(alpha=0.3)
    ax.legend(ncol=2, fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
