"""textsel: term selection and fast linear text classification on sparse matrices.

The data flow: a document-term matrix goes through :func:`term_stats` (one
pass over its CSR buffers), :func:`score` turns the statistics into a
(classes x terms) table with one of Forman's twelve :data:`METRICS`, and
:class:`TermSelector` picks terms from it inside a scikit-learn pipeline.
"""

import importlib

# eager, and before any lazy import: the submodule ``textsel.lsqr`` would otherwise shadow the function
from .lsqr import LSQRResult, lsqr

#: public name -> the module that defines it; imported on first use (PEP 562), so that
#: ``import textsel`` costs little and a Dask worker running textsel's block kernels never loads
#: scikit-learn or the estimators it does not call
_LAZY = {
    # the public submodules, reachable as attributes like numpy's and scipy's (``textsel.masking``)
    **dict.fromkeys(
        "datasets distributed masking metrics plots proximal sampling scalable selection study svm "
        "termstats".split()
    ),
    "DualLinearSVC": "svm",
    "METRICS": "metrics",
    "ProximalSVC": "proximal",
    "RLSClassifier": "proximal",
    "SRLSClassifier": "sampling",
    "ScalableTermSelector": "scalable",
    "TermSelector": "selection",
    "TermStats": "termstats",
    "WeightedProximalSVC": "proximal",
    "score": "metrics",
    "term_stats": "termstats",
    **dict.fromkeys(
        ["acc", "acc2", "bns", "chi2", "dfreq", "f1", "ig", "oddn", "odds", "pow", "pr", "rand"],
        "score_funcs",
    ),
}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'textsel' has no attribute {name!r}")
    module = importlib.import_module(f".{_LAZY[name] or name}", __name__)
    value = module if _LAZY[name] is None else getattr(module, name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "study",
    "DualLinearSVC",
    "LSQRResult",
    "METRICS",
    "ProximalSVC",
    "RLSClassifier",
    "SRLSClassifier",
    "ScalableTermSelector",
    "TermSelector",
    "TermStats",
    "WeightedProximalSVC",
    "lsqr",
    "score",
    "term_stats",
    "acc", "acc2", "bns", "chi2", "dfreq", "f1", "ig", "oddn", "odds", "pow", "pr", "rand",
]  # fmt: skip
