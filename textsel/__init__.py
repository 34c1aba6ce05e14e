"""textsel: term selection and fast linear text classification on sparse matrices.

The data flow: a document-term matrix goes through :func:`term_stats` (one
pass over its CSR buffers), :func:`score` turns the statistics into a
(classes x terms) table with one of Forman's twelve :data:`METRICS`, and
:class:`TermSelector` picks terms from it inside a scikit-learn pipeline.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import types

#: modules of earlier releases that now live elsewhere: old path -> new.  Imports of the old path
#: and pickles that name it (a fitted ``textsel.proximal.RLSClassifier``) keep working.
_MOVED = {
    "textsel.lsqr": "textsel.least_squares",
    "textsel.proximal": "textsel.linear_model",
    "textsel.plots": "textsel.study.plots",
}


class _Package(types.ModuleType):
    """The package's module type: ``textsel.lsqr`` stays the function when the old module path
    ``textsel.lsqr`` is imported (the import system sets each imported submodule as an attribute
    of its package)."""

    def __setattr__(self, name, value):
        if name == "lsqr" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)

    def __reduce__(self):
        # pickled by name, as cloudpickle pickles a plain module: a function of the user's script
        # that names ``textsel`` can be sent to Dask workers
        return importlib.import_module, (self.__name__,)


sys.modules[__name__].__class__ = _Package


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers an import of a moved module's old path with the module at its new one."""

    def find_spec(self, fullname, path=None, target=None):
        return importlib.util.spec_from_loader(fullname, self) if fullname in _MOVED else None

    def create_module(self, spec):
        return importlib.import_module(_MOVED[spec.name])

    def exec_module(self, module):
        pass  # the module was executed at its new path


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())

#: public name -> the module that defines it; imported on first use (PEP 562), so that
#: ``import textsel`` costs little and a Dask worker running textsel's block kernels never loads
#: scikit-learn or the estimators it does not call
_LAZY = {
    # the public submodules, reachable as attributes like numpy's and scipy's (``textsel.masking``)
    **dict.fromkeys(
        "datasets distributed least_squares linear_model masking metrics names plots progress proximal "
        "sampling reproduce scalable selection study svm termstats".split()
    ),
    "DualLinearSVC": "svm",
    "check_n_jobs": "_parallel",
    "LSQRResult": "least_squares",
    "lsqr": "least_squares",
    "METRICS": "metrics",
    "ProximalSVC": "linear_model",
    "RLSClassifier": "linear_model",
    "SRLSClassifier": "sampling",
    "ScalableTermSelector": "scalable",
    "TermSelector": "selection",
    "TermStats": "termstats",
    "WeightedProximalSVC": "linear_model",
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
    # the public API and submodules: not the modules this file imports for itself, nor the
    # old module paths kept for earlier releases' imports and pickles
    old_paths = {name.rsplit(".", 1)[1] for name in _MOVED} - {"lsqr"}
    public = {n for n in globals() if n.startswith("__")} | set(__all__) | set(_LAZY)
    return sorted(public - old_paths)


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
    "check_n_jobs",
    "lsqr",
    "score",
    "term_stats",
    "acc", "acc2", "bns", "chi2", "dfreq", "f1", "ig", "oddn", "odds", "pow", "pr", "rand",
]  # fmt: skip
