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
    X, y = random_corpus(n_docs=200, n_terms=60, n_classes=2, seed=5)
    y = (np.asarray(y) == np.asarray(y).max()).astype(int)
    model = textsel.DualLinearSVC(random_state=0).fit(X[:150], y[:150])
    records = evaluate_subsets(model, X[:150], y[:150], X[150:], y[150:], [0.2, 0.5, 1.0])
    path = tmp_path / "masking.png"
    plot_masking_curves(records, path)
    assert path.read_bytes()[:4] == PNG


def test_masking_curves_reject_empty_records(tmp_path):
    with pytest.raises(ValueError, match="records is empty"):
        plot_masking_curves([], tmp_path / "m.png")
