"""Forman's (2003) feature-selection study, and the other papers' experiments, on your corpora.

- :func:`forman` runs Forman's protocol (every class one-vs-rest, repeated stratified
  cross-validation, every metric and k, a linear SVM per fit) and returns one record per
  (dataset, class, metric, k); the library module ``textsel.protocol`` holds it.
- ``textsel.study.analysis``: the analyses of those records (macro-averages, best within
  tolerance, residual pairs, class skew) and CSV / JSON / pandas output.
- ``textsel.study.experiments``: Dasgupta et al.'s sampling curves, Li & Sun's selection curves,
  Zhuang et al.'s classifiers by skew and Kolcz & Chowdhury's masking curves.
- ``textsel.study.plots`` (also ``textsel.plots``): their figures, with matplotlib.
"""

from ..protocol import FORMAN_KS, forman
from .analysis import (
    FORMAN_TOLERANCES,
    average_trials,
    best_pairs,
    macro_average,
    residual_curve,
    skew_split,
    to_dataframe,
    tolerance_curve,
    write_csv,
    write_json,
)
from .experiments import masking_curves, proximal_by_skew, sampling_curves, selection_curves

__all__ = [
    "FORMAN_KS",
    "FORMAN_TOLERANCES",
    "average_trials",
    "best_pairs",
    "forman",
    "macro_average",
    "masking_curves",
    "proximal_by_skew",
    "residual_curve",
    "sampling_curves",
    "selection_curves",
    "skew_split",
    "to_dataframe",
    "tolerance_curve",
    "write_csv",
    "write_json",
]


def __getattr__(name):
    # ``textsel.study.plots`` after a bare ``import textsel``: imported on first use, since it
    # needs matplotlib, which the rest of the study does not
    if name == "plots":
        import importlib

        return importlib.import_module(".plots", __name__)
    raise AttributeError(f"module 'textsel.study' has no attribute {name!r}")
