"""How far each reading of Kolcz & Chowdhury's SV-set model lands from exact re-training.

The paper's text is garbled where it defines the SV-set output (NOTES.md section 4).  This script
measures every reading of it against exact re-training, on the tasks and the 20 subset sizes of
bench_svm.py, for both losses, for tf-idf rows and the paper's binary unit-length rows, and for
several regularisation constants:

- ``svset``: SV-set as textsel implements it (each support vector restricted to the top-n
  features and re-normalised; test documents restricted and re-normalised);
- ``svset, raw test``: the same weights, test documents restricted but not re-normalised (the
  formula as the extracted text prints it);
- ``mask, renormed test``: the original weights restricted, test documents re-normalised;
- ``mask``: the original weights restricted, test documents as they are.

Prints the mean absolute test-AUC difference from exact re-training of each, and its mean over
the sizes below 10% of the ranked features; then the same for tf-idf rows and the squared hinge
at other regularisation constants C.  For tf-idf rows, the squared hinge and C = 1 it also prints
the median norm of the support vectors restricted to the top 1%, 5% and 20% of the features
(the factor the SV-set re-normalisation divides by).

    python benchmarks/bench_svset_readings.py [--data-home ../shared/data]
"""

from __future__ import annotations

import numpy as np
from corpora import argument_parser, benchmark_corpora
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import normalize

import textsel
from textsel._ranked import rank_columns, top_columns
from textsel.masking import evaluate_subsets, ranked_features

READINGS = ("svset", "svset, raw test", "mask, renormed test", "mask")


def binary_unit_rows(X):
    B = X.copy()
    B.data[:] = 1.0
    return normalize(B)


def reading_aucs(model, X, y, X_test, truth, counts):
    """Test AUC of the readings that evaluate_subsets does not compute, for every size."""
    rank = ranked_features(model)
    signs = np.where(y == model.classes_[1], 1.0, -1.0)
    support = np.flatnonzero(model.alpha_[0] > 0)
    coeffs = model.alpha_[0][support] * signs[support]
    sv_ranked = rank_columns(X[support], rank[: counts.max()])
    test_ranked = rank_columns(X_test, rank[: counts.max()])
    w_ranked = model.coef_[0][rank]
    out = {"svset, raw test": [], "mask, renormed test": []}
    for n in counts:
        sv, test = top_columns(sv_ranked, n), top_columns(test_ranked, n)
        sv_norms = np.sqrt(np.asarray(sv.multiply(sv).sum(axis=1)).ravel())
        scale = np.divide(coeffs, sv_norms, out=np.zeros_like(coeffs), where=sv_norms > 0)
        w_sv = np.asarray(sv.T @ scale).ravel()
        out["svset, raw test"].append(roc_auc_score(truth, test @ w_sv))
        out["mask, renormed test"].append(roc_auc_score(truth, normalize(test) @ w_ranked[:n]))
    return out


def restricted_sv_norms(model, X, fractions=(0.01, 0.05, 0.2)):
    """Median norm of the (nonempty) support vectors restricted to the top fraction of the features."""
    rank = ranked_features(model)
    support = np.flatnonzero(model.alpha_[0] > 0)
    medians = []
    for f in fractions:
        sv = X[support][:, rank[: int(np.ceil(f * rank.size))]]
        norms = np.sqrt(np.asarray(sv.multiply(sv).sum(axis=1)).ravel())
        medians.append(float(np.median(norms[norms > 0])))
    return medians


# (rows, loss, C): both losses and both representations at the benchmarks' C = 1, then the
# regularisation swept for tf-idf rows and the squared hinge
CONFIGS = [
    (rows, loss, 1.0) for rows in ("tf-idf", "binary unit-length") for loss in ("squared_hinge", "hinge")
]
CONFIGS += [("tf-idf", "squared_hinge", C) for C in (0.01, 0.1, 10.0)]


def measure(corpus, tasks, X, X_test, loss, C, fractions):
    """Mean |AUC - exact| of every reading (all sizes, sizes below 10%), and restricted SV norms."""
    gaps = {r: [] for r in READINGS}
    small = {r: [] for r in READINGS}
    norms = []
    for k in tasks:
        y = corpus.Y[:, k].astype(int)
        y_test = corpus.y_test[:, k] if corpus.y_test.ndim == 2 else corpus.y_test == k
        truth = np.asarray(y_test, dtype=int)
        model = textsel.DualLinearSVC(C=C, loss=loss, random_state=0, n_jobs=1).fit(X, y)
        records = evaluate_subsets(model, X, y, X_test, truth, fractions)
        counts = np.array(sorted({r["size"] for r in records}))
        frac = {r["size"]: r["fraction"] for r in records}
        auc = {(r["size"], r["method"]): r["auc"] for r in records}
        extra = reading_aucs(model, X, y, X_test, truth, counts)
        norms.append(restricted_sv_norms(model, X))
        for s, n in enumerate(counts):
            for reading in READINGS:
                value = extra[reading][s] if reading in extra else auc[(n, reading)]
                gaps[reading].append(abs(value - auc[(n, "exact")]))
                if frac[n] < 0.1:
                    small[reading].append(abs(value - auc[(n, "exact")]))
    return gaps, small, np.mean(norms, axis=0)


def main():
    args = argument_parser(__doc__.splitlines()[0], repeat=1).parse_args()
    fractions = np.geomspace(0.005, 1.0, 20)
    for corpus in benchmark_corpora(args.data_home):
        sizes = corpus.Y.sum(axis=0)
        n_tasks = 10 if corpus.name.startswith("Reuters") else len(sizes)
        tasks = np.argsort(-sizes, kind="stable")[:n_tasks]
        print(
            f"\n{corpus.name}: {n_tasks} binary tasks x 20 sizes; "
            "mean |AUC - exact AUC| (all sizes / sizes below 10%)"
        )
        print(f"{'rows, loss, C':<40}" + "".join(f"{r:>24}" for r in READINGS))
        binary = (binary_unit_rows(corpus.X), binary_unit_rows(corpus.X_test))
        for rows, loss, C in CONFIGS:
            X, X_test = (corpus.X, corpus.X_test) if rows == "tf-idf" else binary
            gaps, small, norms = measure(corpus, tasks, X, X_test, loss, C, fractions)
            cells = "".join(f"{np.mean(gaps[r]):>15.4f} / {np.mean(small[r]):.4f}" for r in READINGS)
            print(f"{f'{rows}, {loss}, {C:g}':<40}{cells}")
            if (rows, loss, C) == ("tf-idf", "squared_hinge", 1.0):
                shown = " / ".join(f"{m:.2f}" for m in norms)
                print(f"{'':<40}median restricted SV norm at 1% / 5% / 20% of the features: {shown}")


if __name__ == "__main__":
    main()
