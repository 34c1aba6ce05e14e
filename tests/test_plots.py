"""The figures are written as PNG files, and their inputs are checked."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from conftest import random_corpus  # noqa: E402

import textsel  # noqa: E402
from textsel.masking import evaluate_subsets  # noqa: E402
from textsel.plots import plot_decision_boundaries, plot_masking_curves  # noqa: E402

PNG = b"\x89PNG"


def test_decision_boundaries_written(tmp_path):
    X, y = random_corpus(n_docs=120, n_terms=80, n_classes=2, seed=3)
    stats = textsel.term_stats(X, y)
    path = tmp_path / "boundaries.png"
    plot_decision_boundaries(stats, path, label=stats.classes[1], k=10)
    assert path.read_bytes()[:4] == PNG


def test_decision_boundaries_reject_bad_label_and_k(tmp_path):
    X, y = random_corpus(n_docs=60, n_terms=30, n_classes=2, seed=4)
    stats = textsel.term_stats(X, y)
    with pytest.raises(ValueError, match="label"):
        plot_decision_boundaries(stats, tmp_path / "a.png", label="nope")
    with pytest.raises(ValueError, match="k must be"):
        plot_decision_boundaries(stats, tmp_path / "a.png", label=stats.classes[0], k=31)


def test_masking_curves_written(tmp_path):
    from sklearn.preprocessing import normalize

    X, y = random_corpus(n_docs=200, n_terms=60, n_classes=2, seed=5)
    X = normalize(X)  # masking's norm="l2" setting: unit-length documents
    y = (np.asarray(y) == np.asarray(y).max()).astype(int)
    model = textsel.DualLinearSVC(random_state=0).fit(X[:150], y[:150])
    records = evaluate_subsets(model, X[:150], y[:150], X[150:], y[150:], [0.2, 0.5, 1.0])
    path = tmp_path / "masking.png"
    plot_masking_curves(records, path)
    assert path.read_bytes()[:4] == PNG


def test_masking_curves_reject_empty_records(tmp_path):
    with pytest.raises(ValueError, match="records is empty"):
        plot_masking_curves([], tmp_path / "m.png")


def test_metric_styles_are_distinct_and_legends_outside():
    """Issue 15: the twelve metrics get twelve different colours (no light/dark pairs of one hue),
    and legends sit outside the axes, so they cover no curve."""
    import matplotlib.colors as mcolors

    from textsel.plots import _styles

    styles = _styles(textsel.METRICS)
    colours = [mcolors.to_rgb(s["color"]) for s in styles.values()]
    assert len(set(colours)) == 12
    hues = [mcolors.rgb_to_hsv(c)[0] for c in colours if max(c) - min(c) > 0.2]  # leave out greys
    pairs = {("acc", "acc2"), ("bns", "chi2"), ("dfreq", "f1")}
    for a, b in pairs:
        assert styles[a]["color"] != styles[b]["color"] and styles[a]["linestyle"] != styles[b]["linestyle"]
    assert len(hues) == len(set(np.round(hues, 2)))


def test_legends_do_not_overlap_the_axes(tmp_path, monkeypatch):
    import textsel.plots as plots

    saved = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: saved.append(fig))
    monkeypatch.setattr(plots._pyplot(), "close", lambda fig: None)
    rows = [{"metric": m, "k": k, "f1": 0.5} for m in textsel.METRICS for k in (10, 100)]
    plots.plot_measure_vs_k(rows, tmp_path / "a.png")
    X, y = random_corpus(n_docs=80, n_terms=40, n_classes=2, seed=1)
    plots.plot_decision_boundaries(textsel.term_stats(X, y), tmp_path / "b.png", label=1, k=5)
    for fig in saved:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        for ax in fig.axes:
            legend = ax.get_legend()
            if legend is not None:
                assert legend.get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1


def test_masking_curves_draw_coinciding_methods_once_and_name_measures_in_words(tmp_path, monkeypatch):
    """Where two methods' curves coincide (mask and the SV set keep the same support vectors,
    so their SV containment is one curve) the panel draws one line named for both instead of one
    line hiding the other, and axes read "best F1", not "mean best_f1"."""
    import matplotlib.pyplot as plt

    drawn = {}
    monkeypatch.setattr(plt, "close", lambda fig: drawn.setdefault("fig", fig))
    records = [
        {"method": m, "fraction": f, "cosine": c, "sv_containment": 0.7 + 0.3 * f}
        for f in (0.01, 0.1, 1.0)
        for m, c in (("mask", 0.9 + 0.1 * f), ("svset", 0.8 + 0.2 * f))
    ]
    plot_masking_curves(records, tmp_path / "a.png", ("cosine", "sv_containment"), n_sizes=3)
    left, right = drawn["fig"].axes[:2]
    assert [line.get_label() for line in left.get_lines()] == ["mask", "svset"]
    assert [line.get_label() for line in right.get_lines()] == ["mask = svset (identical)"]
    assert left.get_ylabel() == "cosine with the re-trained weights, mean over tasks"
    assert "_" not in right.get_ylabel()
    legend = [t.get_text() for t in right.get_legend().get_texts()]
    assert legend == ["mask", "svset", "mask = svset (identical)"]
