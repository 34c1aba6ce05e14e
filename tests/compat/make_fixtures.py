"""Write the compatibility fixtures that tests/test_compat.py checks the package against.

Run once with the release whose surface is pinned (``python tests/compat/make_fixtures.py``):

- ``public_names.txt``: every public import path of that release, one ``module:name`` a line (the
  modules' ``__all__``, or the functions and classes they define, and every entry of docs/api.rst);
- ``pickles/``: fitted estimators and result objects pickled by that release, with the outputs
  they gave, so that a later layout is checked to load them and give the same answers.

The fixtures were made with textsel 0.1.0 before its modules were regrouped into sub-packages.
"""

from __future__ import annotations

import importlib
import inspect
import pickle
import re
from pathlib import Path

import numpy as np
from sklearn.feature_selection import SelectKBest
from sklearn.pipeline import make_pipeline

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
MODULES = ["textsel", "textsel.termstats", "textsel.metrics", "textsel.selection", "textsel.scalable",
           "textsel.sampling", "textsel.lsqr", "textsel.proximal", "textsel.svm", "textsel.masking",
           "textsel.study", "textsel.plots", "textsel.datasets", "textsel.distributed",
           "textsel.score_funcs"]  # fmt: skip


def public_names() -> list[str]:
    found = set()
    for name in MODULES:
        module = importlib.import_module(name)
        names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n, v in vars(module).items() if not n.startswith("_")
                     and (inspect.isfunction(v) or inspect.isclass(v)) and v.__module__ == name]  # fmt: skip
        found.update(f"{name}:{n}" for n in names)
    for entry in re.findall(r"^\s+(textsel[\w.]*)\s*$", (ROOT / "docs" / "api.rst").read_text(), re.M):
        module, _, attr = entry.rpartition(".")
        found.add(f"{module}:{attr}")
    return sorted(found)


def fitted():
    """(name, object, data, outputs) for every estimator and result type users keep."""
    import textsel
    from textsel.datasets import make_synthetic_corpus

    corpus = make_synthetic_corpus(n_docs=300, n_terms=800, n_classes=3, random_state=0)
    from sklearn.feature_extraction.text import TfidfVectorizer

    X = TfidfVectorizer().fit_transform(corpus.data)
    y = corpus.target
    binary = (y == 0).astype(int)
    out = {}
    for name, est, target in [
        ("term_selector", textsel.TermSelector("bns", k=50), y),
        ("scalable_term_selector", textsel.ScalableTermSelector(k=50), y),
        ("select_k_best_bns", SelectKBest(textsel.bns, k=50), y),
        ("rls", textsel.RLSClassifier(), y),
        ("proximal_svc", textsel.ProximalSVC(), y),
        ("weighted_proximal_svc", textsel.WeightedProximalSVC(), binary),
        ("dual_linear_svc", textsel.DualLinearSVC(), y),
        ("srls", textsel.SRLSClassifier(k=20, r=200, random_state=0), y),
        ("pipeline", make_pipeline(textsel.TermSelector("ig", k=100), textsel.DualLinearSVC()), y),
    ]:
        est.fit(X, target)
        outputs = (
            {"predict": est.predict(X)}
            if hasattr(est, "predict")
            else {"transform": est.transform(X).toarray()}
        )
        if hasattr(est, "decision_function"):
            outputs["decision_function"] = est.decision_function(X)
        out[name] = (est, outputs)
    stats = textsel.term_stats(X, y)
    out["term_stats"] = (stats, {"class_df": stats.class_df, "df": stats.df})
    info = textsel.lsqr(X, binary.astype(float), damp=0.1)
    out["lsqr_result"] = (info, {"x": info.x})
    return X, out


def main():
    (HERE / "public_names.txt").write_text("\n".join(public_names()) + "\n")
    X, objects = fitted()
    folder = HERE / "pickles"
    folder.mkdir(exist_ok=True)
    import scipy.sparse as sp

    sp.save_npz(folder / "X.npz", X)
    for name, (obj, outputs) in objects.items():
        (folder / f"{name}.pkl").write_bytes(pickle.dumps(obj, protocol=4))
        np.savez_compressed(folder / f"{name}.outputs.npz", **outputs)


if __name__ == "__main__":
    main()
