"""Brute-force references, written from the papers' formulas with plain numpy.

Nothing here shares code with textsel: the metrics are evaluated from the
rates and counts the way Forman's Table 1 states them.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import ndtri


def indicator(y, classes=None):
    """Dense documents x classes 0/1 matrix for 1-D labels or an indicator."""
    if sp.issparse(y):
        return (y.toarray() != 0).astype(np.int64)
    y = np.asarray(y)
    if y.ndim == 2:
        return (y != 0).astype(np.int64)
    classes = np.unique(y) if classes is None else classes
    return (y[:, None] == classes[None, :]).astype(np.int64)


def class_df(X, Y):
    """class_df = Y' X_bin, df = column sums of X_bin, with X_bin the presence matrix."""
    Xb = sp.csr_matrix(X, copy=True)
    Xb.sum_duplicates()
    Xb.data = (Xb.data != 0).astype(np.int64)
    Xb.eliminate_zeros()
    return np.asarray((Xb.T @ Y).T), np.asarray(Xb.sum(axis=0)).ravel()


def _e(x, y):
    """Entropy (bits) of a two-way split x : y, 0 log 0 = 0."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    out = np.zeros(np.broadcast(x, y).shape)
    total = x + y
    for part in (x, y):
        with np.errstate(divide="ignore", invalid="ignore"):
            p = part / total
            term = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1)), 0.0)
        out += np.where(total > 0, term, 0.0)
    return out


def metric(name, tp, fp, pos, neg, *, invert=True, alpha=0.5, pow_k=5.0):
    """Forman's metric ``name`` for arrays of tp, fp with scalar pos, neg."""
    tp = np.asarray(tp, float)
    fp = np.asarray(fp, float)
    if invert and name in ("acc", "f1", "oddn", "odds", "pow", "pr"):
        negative = tp / pos < fp / neg
        tp = np.where(negative, pos - tp, tp)
        fp = np.where(negative, neg - fp, fp)
    tpr, fpr = tp / pos, fp / neg
    fn, tn = pos - tp, neg - fp
    if name == "acc":
        return tp - fp
    if name == "acc2":
        return np.abs(tpr - fpr)
    if name == "bns":
        zt = ndtri(np.clip(tpr, 0.0005, 0.9995))
        zf = ndtri(np.clip(fpr, 0.0005, 0.9995))
        weight = np.where(tpr > fpr, 2 * alpha, 2 * (1 - alpha))
        return np.abs(zt - zf) * weight
    if name == "chi2":
        n = pos + neg
        obs = [tp, fp, fn, tn]
        rows = [tp + fp, tp + fp, fn + tn, fn + tn]
        cols = [pos, neg, pos, neg]
        total = np.zeros_like(tp)
        for o, r, c in zip(obs, rows, cols, strict=True):
            expected = r * c / n
            with np.errstate(divide="ignore", invalid="ignore"):
                total += np.where(expected > 0, (o - expected) ** 2 / expected, 0.0)
        return np.where((tp + fp > 0) & (fn + tn > 0), total, 0.0)
    if name == "dfreq":
        return tp + fp
    if name == "f1":
        precision = np.divide(tp, tp + fp, out=np.zeros_like(tp), where=tp + fp > 0)
        recall = tpr
        with np.errstate(invalid="ignore"):
            f = 2 * precision * recall / (precision + recall)
        return np.nan_to_num(f)
    if name == "ig":
        pword = (tp + fp) / (pos + neg)
        return _e(pos, neg) - (pword * _e(tp, fp) + (1 - pword) * _e(fn, tn))
    if name == "oddn":
        return tpr * (1 - fpr)
    if name == "odds":
        # add one to any zero count in the denominator
        fn1 = np.where(fn == 0, 1.0, fn)
        fp1 = np.where(fp == 0, 1.0, fp)
        return (tp / pos) * (1 - fp / neg) / ((fn1 / pos) * (fp1 / neg))
    if name == "pow":
        return (1 - fpr) ** pow_k - (1 - tpr) ** pow_k
    if name == "pr":
        return tpr / np.where(fpr == 0, 1e-8, fpr)
    raise ValueError(name)
