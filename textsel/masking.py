"""Judging top-n feature subsets of a linear SVM without re-training (Kolcz & Chowdhury 2007).

Features are ranked by the magnitude of the trained SVM's weights.  For each subset size n,
three models over the top-n features M:

- ``exact``: re-train the SVM on the documents restricted to M (and re-normalised as the
  caller's pipeline normalised them), warm-started from the previous size's multipliers;
- ``mask``: the original model with the other weights zeroed, f(x) = sum_{i in M} w_i x_i + b;
- ``svset``: the original support vectors and multipliers, each support vector restricted to M
  and re-normalised, w_M = sum_j alpha_j y_j d_j|M / ||d_j|M||, scoring test documents restricted
  to M and re-normalised.

The mask curve over all sizes comes from prefix sums in rank order: every stored value of the test
matrix is visited once for the whole curve; so do the svset curve's norms, while its weight vector,
which changes in every coordinate with the size, is rebuilt per size (``textsel/_ext/curves.pyx``).
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.preprocessing import normalize
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight

from ._checks import as_csr, plain
from ._ext import curves as _curves
from ._ext.curves import ranked_auc_f1
from ._labels import label_positions
from ._products import row_norms
from ._ranked import rank_columns, top_columns
from .names import MASKING_METHODS
from .svm import DualLinearSVC, fit_binary

__all__ = ["METHODS", "evaluate_subsets", "mask_scores", "ranked_features", "subset_sizes", "svset_scores"]

METHODS = MASKING_METHODS


def subset_sizes(sizes, n_ranked: int) -> np.ndarray:
    """Subset sizes as feature counts: ints in [1, n_ranked], or fractions in (0, 1] of ``n_ranked``.

    Returns the distinct counts, ascending.
    """
    arr = np.asarray(sizes)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("sizes must be a non-empty 1-D sequence")
    if arr.dtype.kind == "f":
        if not ((arr > 0) & (arr <= 1)).all():
            raise ValueError("fractional sizes must be in (0, 1]")
        counts = np.ceil(arr * n_ranked).astype(np.int64)
    elif arr.dtype.kind in "iu":
        counts = arr.astype(np.int64)
        if counts.min() < 1 or counts.max() > n_ranked:
            raise ValueError(f"sizes must be in [1, {n_ranked}] (the features with nonzero weight)")
    else:
        raise TypeError(f"sizes must be integers or fractions, got dtype {arr.dtype}")
    return np.unique(np.maximum(counts, 1))


def _similarity(a, b):
    """Cosine and Pearson similarity of two weight vectors (NaN where undefined)."""
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    cosine = float(a @ b / (na * nb)) if na > 0 and nb > 0 else float("nan")
    ca, cb = a - a.mean(), b - b.mean()
    nca, ncb = np.linalg.norm(ca), np.linalg.norm(cb)
    pearson = float(ca @ cb / (nca * ncb)) if nca > 0 and ncb > 0 else float("nan")
    return cosine, pearson


def _sv_agreement(support, reference):
    """Jaccard overlap of two support-vector sets, and the share of ``reference`` inside ``support``."""
    support, reference = set(support.tolist()), set(reference.tolist())
    union = support | reference
    both = len(support & reference)
    overlap = both / len(union) if union else 1.0
    containment = both / len(reference) if reference else 1.0
    return overlap, containment


def evaluate_subsets(model, X_train, y_train, X_test, y_test, sizes, methods=METHODS, norm="l2"):
    """Evaluate the top-n subsets of a trained binary DualLinearSVC three ways.

    Parameters
    ----------
    model : DualLinearSVC
        Fitted on ``X_train``, ``y_train`` with two classes.
    X_train, y_train, X_test, y_test
        The training data the model was fitted on, and held-out data.
    sizes : sequence of int or float
        Subset sizes: counts of features, or fractions of the features with nonzero weight
        (features whose weight is exactly zero are never ranked).
    methods : subset of ("exact", "mask", "svset")
    norm : {"l2", None}, default "l2"
        How the caller's pipeline normalised document vectors; restricted documents are
        re-normalised the same way (Kolcz & Chowdhury use unit-length binary vectors).

    Returns
    -------
    list of dict
        One record per (size, method) with ``size`` (feature count), ``fraction`` (of the ranked
        features), ``method``, ``auc``, ``best_f1`` (with the threshold tuned on the test
        scores), ``cosine`` and ``pearson`` (the method's weight vector over the subset against
        the re-trained one; NaN without "exact"), ``sv_overlap`` (Jaccard) and
        ``sv_containment`` (share of the re-trained model's support vectors that the method
        keeps), and ``seconds``: the record's share of this call's wall time, so that the
        records of a call add up to it.  A share is the record's own work (exact: its
        re-training and scoring; mask and svset: their whole curve's time divided evenly over
        the sizes), plus an even share of the work common to all records (the checks, the
        ranking, AUC and F1 of every curve at once, assembling the records).
    """
    call_start = time.perf_counter()
    _check_binary_model(model)
    methods = tuple(methods)
    bad = [m for m in methods if m not in METHODS]
    if bad or not methods:
        raise ValueError(f"methods must be drawn from {METHODS}, got {plain(methods)!r}")
    if norm not in ("l2", None):
        raise ValueError(f"norm must be 'l2' or None, got {plain(norm)!r}")
    X_train = as_csr(X_train, "X_train")
    X_test = as_csr(X_test, "X_test")
    n_features = model.coef_.shape[1]
    for name, M in (("X_train", X_train), ("X_test", X_test)):
        if M.shape[1] != n_features:
            raise ValueError(f"{name} has {M.shape[1]} features but the model was fitted on {n_features}")
    signs = _training_signs(model, X_train, y_train)
    y_test = np.asarray(y_test)
    if y_test.shape != (X_test.shape[0],):
        raise ValueError(f"y_test has shape {y_test.shape} but X_test has {X_test.shape[0]} documents")
    if norm == "l2":
        for name, M in (("X_train", X_train), ("X_test", X_test)):
            _check_unit_rows(M, name)
    truth = _signs(model, y_test, "y_test") > 0
    if truth.min() == truth.max():
        raise ValueError("y_test must hold both classes (AUC and F1 are undefined otherwise)")

    rank = ranked_features(model)
    counts = subset_sizes(sizes, rank.size)
    support = np.flatnonzero(model.alpha_[0] > 0)
    w = model.coef_[0]

    curves = {}  # method -> (test scores of every size, weight vectors, support sets, seconds per size)
    if "exact" in methods:
        curves["exact"] = _exact(model, X_train, signs, X_test, rank, counts, norm)
    if "mask" in methods or "svset" in methods:
        test = _by_size(X_test, rank, counts)  # shared by both curves: common work
    if "mask" in methods:
        start = time.perf_counter()
        scores = _mask_curve(model, test, rank, counts)
        seconds = np.full(counts.size, (time.perf_counter() - start) / counts.size)
        curves["mask"] = (scores, [w[rank[:n]] for n in counts], [support] * counts.size, seconds)
    if "svset" in methods:
        start = time.perf_counter()
        scores, weights = _svset_curve(model, X_train, signs, test, rank, counts, norm)
        seconds = np.full(counts.size, (time.perf_counter() - start) / counts.size)
        curves["svset"] = (scores, weights, [support] * counts.size, seconds)
    # AUC and best F1 of every size of every curve: one sort per column
    auc, best_f1 = auc_best_f1(truth, np.hstack([curves[m][0] for m in methods]))
    out = []
    for s, n in enumerate(counts):
        for j, method in enumerate(methods):
            _, weights, supports, seconds = curves[method]
            cosine = pearson = overlap = containment = float("nan")
            if "exact" in curves:
                cosine, pearson = _similarity(weights[s], curves["exact"][1][s])
                overlap, containment = _sv_agreement(supports[s], curves["exact"][2][s])
            out.append({
                "size": int(n), "fraction": float(n / rank.size), "method": method,
                "auc": float(auc[j * counts.size + s]), "best_f1": float(best_f1[j * counts.size + s]),
                "cosine": cosine, "pearson": pearson, "sv_overlap": overlap,
                "sv_containment": containment, "seconds": float(seconds[s]),
            })  # fmt: skip
    # the common work, shared evenly, so that the records add up to the call's wall time
    common = (time.perf_counter() - call_start - sum(r["seconds"] for r in out)) / len(out)
    for r in out:
        r["seconds"] += common
    return out


def _check_unit_rows(M, name):
    """norm="l2" re-normalises restricted documents, which only matches a model trained on
    unit-length rows (Kolcz & Chowdhury's setting): other rows make exact, mask and svset
    disagree even with every feature kept, so they are refused."""
    lengths = row_norms(M)
    off = np.abs(lengths[lengths > 0] - 1.0)
    tolerance = 1e-4 if M.dtype == np.float32 else 1e-8
    if off.size and off.max() > tolerance:
        worst = int(np.flatnonzero(lengths > 0)[off.argmax()])
        raise ValueError(
            f"norm='l2' but {name}'s rows are not unit length (row {worst} has length "
            f"{lengths[worst]:.6g}): pass norm=None to take the rows as they are, or train and "
            "evaluate on sklearn.preprocessing.normalize(X)"
        )


def ranked_features(model) -> np.ndarray:
    """Indices of the features with nonzero weight, by decreasing ``abs(w)`` (ties: lower index first)."""
    w = model.coef_[0]
    nonzero = np.flatnonzero(w)
    if nonzero.size == 0:
        raise ValueError("the model has no nonzero weight to rank")
    return nonzero[np.argsort(-np.abs(w[nonzero]), kind="stable")]


def mask_scores(model, X_test, sizes) -> np.ndarray:
    """Decision values of the masked model, f(x) = sum_{i in top n} w_i x_i + b, for every size.

    One pass over the stored values of ``X_test`` for all sizes (prefix sums in rank order).
    Returns an array of shape (n_test, n_sizes), sizes as :func:`subset_sizes` orders them.
    """
    _check_binary_model(model)
    X_test = as_csr(X_test, "X_test")
    rank = ranked_features(model)
    bounds = subset_sizes(sizes, rank.size)
    return _mask_curve(model, _by_size(X_test, rank, bounds), rank, bounds)


def svset_scores(model, X_train, y_train, X_test, sizes, norm="l2"):
    """Decision values of the SV-set models for every size, and their weight vectors.

    For the top-n features M: w_M = sum_j alpha_j y_j d_j|M / ||d_j|M|| over the original support
    vectors d_j, and a test document x scores w_M . x|M / ||x|M|| + b (``norm=None``: no
    re-normalisation, which makes it the masked model).  The restricted norms come from prefix
    sums in rank order; w_M and the dot products are rebuilt per size (textsel/_ext/curves.pyx).

    Returns
    -------
    scores : ndarray of shape (n_test, n_sizes)
    weights : list of ndarray
        w_M in rank order, one per size.
    """
    _check_binary_model(model)
    X_train = as_csr(X_train, "X_train")
    X_test = as_csr(X_test, "X_test")
    rank = ranked_features(model)
    signs = _training_signs(model, X_train, y_train)
    bounds = subset_sizes(sizes, rank.size)
    return _svset_curve(model, X_train, signs, _by_size(X_test, rank, bounds), rank, bounds, norm)


def _mask_curve(model, test, rank, bounds):
    """:func:`mask_scores` on the test matrix already grouped by :func:`_by_size`."""
    weights = np.ascontiguousarray(model.coef_[0][rank[: bounds[-1]]], dtype=np.float64)
    return float(model.intercept_[0]) + _curves.prefix_row_sums(*test, weights, bounds, False)


def _svset_curve(model, X_train, signs, test, rank, bounds, norm):
    """:func:`svset_scores` on the test matrix already grouped by :func:`_by_size`."""
    support = np.flatnonzero(model.alpha_[0] > 0)
    coeffs = model.alpha_[0][support] * signs[support]
    sv = _by_size(X_train[support], rank, bounds)
    n_test = test[2].shape[0] - 1
    if norm == "l2":
        sv_norms = _restricted_norms(sv, bounds)
        test_norms = _restricted_norms(test, bounds)
    else:
        sv_norms = np.ones((support.size, bounds.size))
        test_norms = np.ones((n_test, bounds.size))
    scale = np.divide(coeffs[:, None], sv_norms, out=np.zeros_like(sv_norms), where=sv_norms > 0)
    raw, weights = _curves.svset_curve(*sv, scale, *test, bounds)
    scores = float(model.intercept_[0]) + np.divide(
        raw, test_norms, out=np.zeros_like(raw), where=test_norms > 0
    )
    return scores, weights


def _by_size(X, rank, bounds):
    """(data, indices, indptr) of ``X`` over its top ``bounds[-1]`` ranked columns, relabelled by
    rank, each row grouped by size (see ``textsel/_ext/curves.pyx``); repeated columns summed."""
    rank_of = np.full(X.shape[1], -1, dtype=np.int64)
    rank_of[rank[: bounds[-1]]] = np.arange(bounds[-1])
    *buffers, duplicates = _curves.group_by_size(X.data, X.indices, X.indptr, rank_of, bounds)
    if duplicates:
        # a repeated column stores parts of one value: add them up (on a copy) before squaring
        X = X.copy()
        X.sum_duplicates()
        *buffers, _ = _curves.group_by_size(X.data, X.indices, X.indptr, rank_of, bounds)
    return tuple(buffers)


def _restricted_norms(M, bounds):
    """Norm of every row of :func:`_by_size` buffers over the top ``bounds[s]`` ranks, per size."""
    return np.sqrt(_curves.prefix_row_sums(*M, np.empty(0), bounds, True))


def _check_binary_model(model):
    if not isinstance(model, DualLinearSVC) or not hasattr(model, "alpha_"):
        raise TypeError("model must be a fitted textsel.DualLinearSVC")
    if model.coef_.shape[0] != 1:
        raise ValueError("model must be a binary classifier (two classes)")


def _training_signs(model, X_train, y_train):
    """The training documents' signs, once ``X_train`` and ``y_train`` are checked to be what the
    model was fitted on (as many documents as it has multipliers, labels among its classes_)."""
    y_train = np.asarray(y_train)
    if y_train.shape != (X_train.shape[0],) or len(model.alpha_[0]) != X_train.shape[0]:
        raise ValueError("X_train and y_train must be the data the model was fitted on")
    return _signs(model, y_train, "y_train")


def _signs(model, y, name):
    """+1 for the model's positive class (``classes_[1]``), -1 for the other; labels the model
    was not fitted on (0/1 for "neg"/"pos") are a ValueError naming ``name``."""
    return np.where(label_positions(y, model.classes_, name, "the model's classes_") == 1, 1.0, -1.0)


def _exact(model, X_train, signs, X_test, rank, counts, norm):
    """Re-train on each top-n subset, warm-started from the previous subset's multipliers.

    Returns the test scores of every size, the weight vectors, the support sets and each size's
    seconds (re-training and scoring)."""
    C = model.C
    weights = np.ones(2)
    if model.class_weight is not None:
        labels = np.where(signs > 0, model.classes_[1], model.classes_[0])
        weights = compute_class_weight(model.class_weight, classes=model.classes_, y=labels)
    alpha = model.alpha_[0]
    seed = int(check_random_state(model.random_state).randint(np.iinfo(np.int32).max)) + 1
    scaling = model.intercept_scaling
    train_ranked = rank_columns(X_train, rank[: counts.max()])
    test_ranked = rank_columns(X_test, rank[: counts.max()])
    scores = np.empty((X_test.shape[0], counts.size))
    coefs, supports, seconds = [], [], np.empty(counts.size)
    for s, n in enumerate(counts):
        start = time.perf_counter()
        train = top_columns(train_ranked, n)
        test = top_columns(test_ranked, n)
        if norm == "l2":
            train, test = normalize(train), normalize(test)
        w_n, b, alpha, _, _ = fit_binary(
            train, signs, C_pos=C * weights[1], C_neg=C * weights[0], loss=model.loss, tol=model.tol,
            max_iter=model.max_iter, fit_intercept=model.fit_intercept, intercept_scaling=scaling,
            seed=seed, alpha0=alpha,
        )  # fmt: skip
        scores[:, s] = np.asarray(test @ w_n).ravel() + b
        coefs.append(w_n)
        supports.append(np.flatnonzero(alpha > 0))
        seconds[s] = time.perf_counter() - start
    return scores, coefs, supports, seconds


# AUC and best F1 of many score columns against one truth, one sort per column: scikit-learn's
# roc_auc_score and precision_recall_curve validate and build a curve per call (about 5 ms on 3,000
# documents), which dominated model masking's whole call (two metrics per size and method); here
# both measures come from the same cumulative counts, ties treated as scikit-learn treats them.
def auc_best_f1(truth, scores) -> tuple[np.ndarray, np.ndarray]:
    """ROC AUC and the best F1 over all thresholds, for every column of ``scores``.

    Parameters
    ----------
    truth : array-like of shape (n_docs,)
        1 (or True) for positives; both classes must be present.
    scores : array-like of shape (n_docs,) or (n_docs, n_columns)
        Finite decision values; higher means more positive.

    Returns
    -------
    auc : ndarray of shape (n_columns,)
        As ``sklearn.metrics.roc_auc_score``: the probability that a positive outscores a
        negative, ties counting one half (the trapezoid under the ROC curve).
    best_f1 : ndarray of shape (n_columns,)
        The largest F1 over the thresholds of ``sklearn.metrics.precision_recall_curve`` (each
        distinct score, predicting positive at and above it): 2 TP / (TP + FP + P).
    """
    truth = np.asarray(truth).astype(bool, copy=False)
    S = np.asarray(scores, dtype=np.float64)
    S = S[:, None] if S.ndim == 1 else S
    if truth.ndim != 1 or S.ndim != 2 or S.shape[0] != truth.shape[0]:
        raise ValueError(f"scores has shape {S.shape} but truth has {truth.shape[0]} entries")
    n = truth.shape[0]
    n_pos = int(truth.sum())
    n_neg = n - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError("truth must hold both classes (AUC and F1 are undefined otherwise)")
    if not np.isfinite(S).all():
        raise ValueError("scores contains NaN or infinity")
    # one row per column of scores, contiguous: each sort and scan runs along memory; any order
    # within a tie group gives the same counts at the group's end, so no stable sort is needed
    S = np.ascontiguousarray(S.T)
    order = np.argsort(-S, axis=1)
    ranked = np.take_along_axis(S, order, axis=1)
    positive = truth.view(np.uint8)[order]
    return ranked_auc_f1(ranked, positive, n_pos)
