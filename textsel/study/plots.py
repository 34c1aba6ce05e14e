"""Figures of the study results (matplotlib, an optional dependency: python -m pip install matplotlib)."""

from __future__ import annotations


def _pyplot():
    try:
        import matplotlib
    except ImportError as exc:
        raise ImportError("plots need matplotlib: python -m pip install matplotlib") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


#: twelve colours no two of which are shades of one hue (tab20's pairs put acc/acc2, bns/chi2 and
#: dfreq/f1 in light and dark of the same colour, hard to tell apart where the curves sit together)
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf", "#000000", "#b8860b")  # fmt: skip
LINESTYLES = ("-", "--", "-.", ":")
#: the boundary lines' colours: none grey like the words' dots, none black like BNS's line
LINE_COLORS = tuple(c for c in PALETTE if c not in ("#7f7f7f", "#000000"))


def _styles(names):
    """A distinct colour, marker and dash per name (12 metrics outrun the default 10-colour cycle)."""
    markers = "osd^v<>pP*Xh"
    return {name: {"color": PALETTE[i % len(PALETTE)], "marker": markers[i % len(markers)],
                   "linestyle": LINESTYLES[i % len(LINESTYLES)], "linewidth": 2.8 if name == "bns" else 1.3}
            for i, name in enumerate(sorted(names))}  # fmt: skip


def _legend_outside(ax, **kwargs):
    """The legend to the right of the axes, where it can cover no curve."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize="small", **kwargs)


#: how a record's measure reads on an axis
_MEASURE_LABELS = {
    "f1": "F1",
    "auc": "AUC",
    "best_f1": "best F1 (threshold tuned)",
    "cosine": "cosine with the re-trained weights",
    "pearson": "correlation with the re-trained weights",
    "sv_overlap": "SV overlap with re-training (Jaccard)",
    "sv_containment": "share of the re-trained SVs kept",
    "precision": "precision",
    "recall": "recall",
    "accuracy": "accuracy",
}


def _measure_label(measure: str) -> str:
    """A record's measure as an axis reads it (``"best_f1"`` -> "best F1 (threshold tuned)")."""
    return _MEASURE_LABELS.get(measure, measure.replace("_", " "))


def _save(fig, path):
    fig.savefig(path, dpi=110, bbox_inches="tight")  # keeps the outside legend in the picture


def plot_measure_vs_k(rows, path, measure="f1", title=None, ylabel=None):
    """One curve per metric of a macro-averaged ``measure`` against k (Forman's Fig. 4).

    ``rows`` are :func:`textsel.study.macro_average` rows (keys ``metric``, ``k``, ``measure``);
    a row with k = "all" (the all-terms baseline) is drawn as a horizontal line.
    """
    plt = _pyplot()
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for r in rows:
        if r["k"] == "all":
            ax.axhline(r[measure], color="#7f7f7f", linestyle=(0, (1, 1)), linewidth=1.5, label="all terms")
    rows = [r for r in rows if r["k"] != "all"]
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
        xlabel="terms selected (k)",
        ylabel=ylabel or f"macro-averaged {_measure_label(measure)}",
        title=title or f"{_measure_label(measure)} against k",
    )
    ax.grid(alpha=0.3)
    _legend_outside(ax)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def plot_tolerance(rows, path, title=None):
    """Share of tasks on which each metric comes within x of the best (Forman's Fig. 9).

    ``rows`` are :func:`textsel.study.tolerance_curve` rows.
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for metric, style in _styles({r["metric"] for r in rows}).items():
        points = sorted((r["tolerance"], r["share"]) for r in rows if r["metric"] == metric)
        tol, share = zip(*points, strict=True)
        ax.plot([100 * t for t in tol], share, label=metric, **style)
    ax.set(xlabel="tolerance (% below the best)", ylabel="share of tasks within tolerance",
           title=title or "best within tolerance")  # fmt: skip
    ax.grid(alpha=0.3)
    _legend_outside(ax)
    fig.tight_layout()
    _save(fig, path)
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
    _legend_outside(ax)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def plot_masking_curves(records, path, measures=("auc", "best_f1"), n_sizes=20, title=None):
    """Exact re-training, masking and the SV set against the share of ranked features kept
    (Kolcz & Chowdhury's Figs. 1-4), each measure averaged over the tasks.

    ``records`` are :func:`textsel.masking.evaluate_subsets` records (or
    :func:`textsel.study.masking_curves`' with a ``class`` key), several tasks pooled.
    ``n_sizes`` is the number of subset sizes each task was evaluated at.
    """
    plt = _pyplot()
    import numpy as np

    records = list(records)
    if not records:
        raise ValueError("records is empty: nothing to plot")
    fig, axes = plt.subplots(1, len(measures), figsize=(5.2 * len(measures), 4.2), squeeze=False)
    methods = [m for m in ("exact", "mask", "svset") if any(r["method"] == m for r in records)]
    styles = {"exact": ("k", "o", "-"), "mask": ("tab:orange", "s", "--"), "svset": ("tab:blue", "^", ":")}
    # each task turns the same requested fractions into slightly different ones (its own count of
    # ranked features), so the records are pooled by the nearest of n_sizes geometric bins
    fractions = np.array([r["fraction"] for r in records])
    centres = np.geomspace(fractions.min(), fractions.max(), n_sizes) if n_sizes > 1 else fractions[:1]
    bins = np.abs(np.log(fractions)[:, None] - np.log(centres)[None, :]).argmin(axis=1)
    for ax, measure in zip(axes[0], measures, strict=True):
        values = np.array([r[measure] for r in records])
        curves = []  # (methods, used bins, means): methods whose curves coincide share one line
        for method in methods:
            chosen = np.array([r["method"] == method for r in records])
            used = sorted(set(bins[chosen]))
            means = [values[chosen & (bins == b)].mean() for b in used]
            same = next((c for c in curves if c[1] == used and np.array_equal(c[2], means)), None)
            if same is None:
                curves.append(([method], used, means))
            else:  # drawn once, named for both, so that no line hides another
                same[0].append(method)
        for names, used, means in curves:
            # a shared line gets a style of its own: it is neither method's line alone
            color, marker, line = styles[names[0]] if len(names) == 1 else ("tab:purple", "D", "-.")
            label = names[0] if len(names) == 1 else " = ".join(names) + " (identical)"
            ax.plot(
                centres[used], means, color=color, marker=marker, linestyle=line, markersize=4, label=label
            )
        ax.set_xscale("log")
        ax.set(
            xlabel="share of the ranked features kept", ylabel=f"{_measure_label(measure)}, mean over tasks"
        )
        ax.grid(alpha=0.3)
    # one legend for all panels: a panel whose methods coincide has entries the others lack
    entries = {}
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    _legend_outside(axes[0][-1], handles=list(entries.values()), labels=list(entries))
    fig.suptitle(title or "re-training against masking and the SV set")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


BOUNDARY_METRICS = ("bns", "ig", "chi2", "acc2", "odds", "pr", "f1", "dfreq")


def plot_decision_boundaries(stats, path, *, label=1, k=100, metrics=BOUNDARY_METRICS, title=None):
    """The metrics' decision boundaries in tp-fp space over a corpus's own words (Forman's Fig. 2).

    Each word of ``stats`` is a dot at (documents of the other classes containing it, documents
    of class ``label`` containing it); each metric's line is the level set of its score through
    its k-th best word, so the words beyond a line (away from the diagonal) are the ones the
    metric selects.

    Parameters
    ----------
    stats : TermStats
        Counts of the corpus (one-vs-rest for ``label``).
    path : str or Path
    label : class label in ``stats.classes``
    k : int
        The selection size whose boundary is drawn.
    metrics : sequence of str
    """
    plt = _pyplot()
    import numpy as np

    from ..metrics import score
    from ..termstats import TermStats

    where = np.flatnonzero(np.asarray(stats.classes) == label)
    if where.size != 1:
        raise ValueError(
            f"label {np.asarray(label).tolist()!r} is not one of the classes {stats.classes.tolist()}"
        )
    c = int(where[0])
    tp = stats.class_df[c]
    fp = stats.df - tp
    pos = int(stats.class_sizes[c])
    neg = int(stats.n_docs - pos)
    if not 1 <= k <= stats.n_terms:
        raise ValueError(f"k must be in [1, {stats.n_terms}], got {k}")
    # a grid of every reachable (fp, tp) cell, thinned to at most 400 steps per axis
    tp_axis = np.unique(np.linspace(0, pos, min(pos + 1, 400)).round().astype(np.int64))
    fp_axis = np.unique(np.linspace(0, neg, min(neg + 1, 400)).round().astype(np.int64))
    FP, TP = np.meshgrid(fp_axis, tp_axis)
    sizes = {"class_sizes": np.array([neg, pos]), "n_docs": pos + neg, "classes": np.array([0, 1])}
    grid = TermStats(class_df=np.stack((FP.ravel(), TP.ravel())), df=(FP + TP).ravel(), **sizes)
    words = TermStats(class_df=np.stack((fp, tp)), df=stats.df, **sizes)
    fig, ax = plt.subplots(figsize=(7, 5.5))
    ax.scatter(fp, tp, s=5, color="0.55", label=f"words ({stats.n_terms})", zorder=1)
    reach_fp, reach_tp = 1, 1  # the extent of every metric's selected words, to zoom on them
    for i, metric in enumerate(metrics):
        word_scores = score(words, metric)[1]
        chosen = np.argsort(-word_scores, kind="stable")[:k]
        reach_fp, reach_tp = max(reach_fp, fp[chosen].max()), max(reach_tp, tp[chosen].max())
        surface = score(grid, metric)[1].reshape(TP.shape)
        color, width = ("k", 2.6) if metric == "bns" else (LINE_COLORS[i % len(LINE_COLORS)], 1.3)
        level = [word_scores[chosen[-1]]]
        ax.contour(FP, TP, surface, levels=level, colors=[color], linewidths=width, zorder=2)
        ax.plot([], [], color=color, linewidth=width, label=metric)
    ax.plot([0, neg], [0, pos], color="0.3", linewidth=0.8, linestyle="--", label="tp rate = fp rate")
    xlim, ylim = min(neg, 1.25 * reach_fp), min(pos, 1.1 * reach_tp)
    ax.set(xlim=(0, xlim), ylim=(0, ylim), xlabel=f"false positives: other documents with it (of {neg})",
           ylabel=f"true positives: class documents with it (of {pos})",
           title=title or f"decision boundaries of the top {k} words")  # fmt: skip
    _legend_outside(ax)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def plot_measure_vs_skew(records, path, measure="f1", threshold=None, title=None):
    """One point per task: its ``measure`` against its class skew, log scale (Forman's Fig. 6).

    ``records`` hold one metric and one k (keys ``skew`` and ``measure``); ``threshold`` draws a
    vertical line (Forman's 1:67, his tasks' 90th percentile)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    ax.scatter([r["skew"] for r in records], [r[measure] for r in records], s=14, color=PALETTE[0])
    if threshold is not None:
        ax.axvline(threshold, color="#7f7f7f", linestyle=":", label=f"skew 1:{threshold:g}")
        ax.legend(fontsize="small")
    ax.set_xscale("log")
    ax.set(
        xlabel="class skew (negatives per positive)",
        ylabel=_measure_label(measure),
        title=title or f"{_measure_label(measure)} against skew",
    )
    ax.grid(alpha=0.3)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def plot_measures_vs_cutoff(rows, path, measures=("f1", "precision", "recall"), title=None):
    """Measures against the rare-word cutoff (Forman's Fig. 11); ``rows`` have ``cutoff`` and the
    measures."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for i, measure in enumerate(measures):
        ax.plot([r["cutoff"] for r in rows], [r[measure] for r in rows], label=measure,
                color=PALETTE[i], marker="osd"[i % 3])  # fmt: skip
    ax.set(xlabel="rare-word cutoff (words in fewer documents dropped)", ylabel="macro-average",
           title=title or "measures against the rare-word cutoff")  # fmt: skip
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def plot_measure_by_frequency(per_class, frequency, path, measure="F1", title=None):
    """Per-class ``measure`` of several methods against the classes' training frequency, each
    curve a moving mean over neighbouring classes (Zhuang et al.'s Fig. 5).

    ``per_class`` maps a method's name to its values, one per class; ``frequency`` holds the
    classes' training documents."""
    import numpy as np

    plt = _pyplot()
    frequency = np.asarray(frequency)
    order = np.argsort(frequency, kind="stable")
    window = max(3, len(order) // 8)
    fig, ax = plt.subplots(figsize=(7, 4.3))
    for i, (name, values) in enumerate(per_class.items()):
        smooth = np.convolve(np.asarray(values)[order], np.ones(window) / window, mode="valid")
        centres = frequency[order][window // 2 : window // 2 + len(smooth)]
        ax.plot(
            centres, smooth, label=name, color=PALETTE[i % len(PALETTE)], marker="osd^v"[i % 5], markersize=3
        )
    ax.set_xscale("log")
    ax.set(xlabel="training documents of the class",
           ylabel=f"{_measure_label(measure)} (moving mean of {window} classes)",
           title=title or f"{_measure_label(measure)} against class frequency")  # fmt: skip
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
