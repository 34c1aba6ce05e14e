"""The documents' side of the least-squares fits built block by block (textsel._rows).

A cluster builds the targets, class weights and sums of each row block on its worker; these
tests prove that cutting the documents into blocks changes nothing, against scikit-learn's own
functions on the whole corpus (LabelBinarizer, compute_sample_weight, type_of_target's errors)
and brute-force numpy sums.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils.class_weight import compute_sample_weight

from textsel._rows import (
    block_class_weights,
    block_row_weights,
    block_sums,
    block_targets,
    merge_summaries,
    resolve,
    summarize_labels,
)

CUTS = (0, 7, 7, 40, 41, 200)  # uneven blocks, an empty one and a one-row one


def label_sets():
    rng = np.random.default_rng(3)
    n = CUTS[-1]
    Y = (rng.random((n, 5)) < 0.3).astype(np.int64)
    Y[0], Y[1] = 1, 0  # every column has positives and negatives
    return {
        "binary": rng.integers(0, 2, n),
        "multiclass": rng.integers(0, 6, n) * 3 - 4,
        "strings": np.array(["sport", "news", "arts"])[rng.integers(0, 3, n)],
        "floats": rng.integers(0, 3, n).astype(float),
        "indicator": Y,
        "sparse indicator": sp.csr_matrix(Y),
    }


def blocks(y):
    return [y[a:b] for a, b in zip(CUTS[:-1], CUTS[1:], strict=True)]


def blockwise(func, y, *args):
    parts = [func(part, *args) for part in blocks(y)]
    return np.concatenate([p for p in parts])


@pytest.mark.parametrize("kind", list(label_sets()))
def test_blocks_give_the_targets_and_classes_of_the_whole(kind):
    """Merged block summaries resolve to the classes scikit-learn finds on the whole labels, and
    the blocks' targets stacked are LabelBinarizer's (or the indicator's sign) exactly."""
    y = label_sets()[kind]
    recipe = resolve(merge_summaries(summarize_labels(part) for part in blocks(y)))
    whole = resolve(summarize_labels(y))
    np.testing.assert_array_equal(recipe.classes, whole.classes)
    T = blockwise(block_targets, y, recipe)
    if "indicator" in kind:
        dense = y.toarray() if sp.issparse(y) else y
        expected, classes = np.where(dense > 0, 1.0, -1.0), np.arange(dense.shape[1])
    else:
        binarizer = LabelBinarizer(neg_label=-1, pos_label=1)
        expected, classes = binarizer.fit_transform(y).astype(float), binarizer.classes_
    np.testing.assert_array_equal(recipe.classes, classes)
    np.testing.assert_array_equal(T, expected)
    assert recipe.n_columns == expected.shape[1]


@pytest.mark.parametrize(
    "kind, class_weight",
    [
        ("binary", "balanced"),
        ("multiclass", "balanced"),
        ("multiclass", {-4: 3.0, 2: 0.5}),
        ("strings", {"news": 2.0}),
        ("strings", "balanced"),
        ("indicator", "balanced"),
        ("sparse indicator", "balanced"),
        ("indicator", [{0: 1.0, 1: 2.0}, {1: 3.0}, {0: 0.5}, {}, {1: 1.5}]),
    ],
)
def test_blocks_give_compute_sample_weight(kind, class_weight):
    """Each document's class weight from the merged counts is compute_sample_weight's on the whole
    labels ("balanced" counts every block's documents)."""
    y = label_sets()[kind]
    recipe = resolve(merge_summaries(summarize_labels(part) for part in blocks(y)), class_weight)
    got = blockwise(block_class_weights, y, recipe)
    expected = compute_sample_weight(class_weight, y.toarray() if sp.issparse(y) else y)
    np.testing.assert_allclose(got, expected, rtol=1e-15)


@pytest.mark.parametrize(
    "y, class_weight, message",
    [
        (np.zeros(20, dtype=int), None, r"y has 1 class \(0\)"),
        (np.linspace(0, 1, 20), None, "Unknown label type.*continuous"),
        (np.ones((20, 3), dtype=int), None, "class column 0 has every document"),
        (np.arange(40).reshape(20, 2) % 3, None, "Unknown label type.*multiclass-multioutput"),
        (np.eye(20, 3, dtype=int), {0: 1.0}, "For multi-output, class_weight should be a list of dicts"),
        (np.eye(20, 3, dtype=int), [{0: 1.0}], "number of elements in class_weight should match"),
        (np.arange(20) % 3, {7: 1.0}, r"classes, \[.*\], are not in class_weight"),
    ],
)
def test_labels_a_fit_refuses_are_refused_from_their_summary(y, class_weight, message):
    with pytest.raises(ValueError, match=message):
        resolve(merge_summaries(summarize_labels(part) for part in blocks(y)), class_weight)


def test_block_sums_add_up_to_the_whole():
    """Weighted class sizes and norm sums, block by block, equal brute-force numpy on the whole."""
    rng = np.random.default_rng(0)
    y = label_sets()["multiclass"]
    recipe = resolve(summarize_labels(y))
    s, norms = rng.random(y.size) * (rng.random(y.size) > 0.2), rng.random(y.size)
    total = None
    for a, b in zip(CUTS[:-1], CUTS[1:], strict=True):
        part = block_sums(block_targets(y[a:b], recipe), s[a:b], norms[a:b])
        total = part if total is None else total + part
    P = LabelBinarizer().fit_transform(y).astype(bool)
    assert total.total == pytest.approx(s.sum(), rel=1e-14)
    np.testing.assert_allclose(total.positives, s @ P, rtol=1e-14)
    assert total.n_weighted == np.count_nonzero(s)
    assert total.norms == pytest.approx(s @ norms, rel=1e-14)
    np.testing.assert_allclose(total.positive_norms, (s * norms) @ P, rtol=1e-14)


def test_row_weights_hold_out_a_fold():
    """delta on the positives, sqrt(s) on every row, 0 on the held-out rows; None when all are 1."""
    T = np.array([[1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    s = np.array([4.0, 1.0, 9.0])
    assert block_row_weights(T, None, None) is None
    W = block_row_weights(T, s, np.array([3.0, 5.0]), slice(2, 3))
    np.testing.assert_array_equal(W, [[6.0, 2.0], [1.0, 5.0], [0.0, 0.0]])


@pytest.mark.parametrize("n_docs, n_folds", [(10, 3), (9, 3), (3000, 5), (7, 7)])
def test_scut_folds_are_dealt_and_a_block_finds_its_rows(n_docs, n_folds):
    """SCut's folds deal the documents in turn: together they hold each document once, each is
    within one document of the others' size, and a row block starting at any row finds its rows of
    a fold from that row's number alone (the cluster's weights), the same rows as memory's."""
    from textsel._rows import dealt_folds

    folds = [np.arange(n_docs)[f] for f in dealt_folds(n_docs, n_folds)]
    assert sorted(np.concatenate(folds).tolist()) == list(range(n_docs))
    assert max(map(len, folds)) - min(map(len, folds)) <= 1
    for start in (0, 1, n_docs // 2):
        for f, rows in enumerate(folds):
            local = np.arange(start, n_docs)[slice((f - start) % n_folds, None, n_folds)]
            assert local.tolist() == rows[rows >= start].tolist()


def test_scut_on_a_corpus_sorted_by_class_still_sees_the_rare_class(monkeypatch):
    """Documents stored by class (a rare class's all together, as 20 Newsgroups comes): folds cut in
    runs (unshuffled KFold) hold that class out whole from the one model that scores it, and its
    held-out scores rank it no better than chance; dealt folds give every fold's model some of it,
    so the out-of-fold scores SCut reads rank the rare class's documents first (both shown)."""
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import KFold

    import textsel._rows as rows_module
    import textsel.linear_model as linear_model
    from textsel.linear_model import ProximalSVC

    rng = np.random.default_rng(0)
    n, d = 600, 200
    y = np.sort((rng.random(n) < 0.05).astype(int))  # the rare class's documents last, together
    X = (rng.random((n, d)) < 0.05).astype(float)
    X[y == 1, :10] += rng.random(((y == 1).sum(), 10)) < 0.5
    X = sp.csr_matrix(X)
    seen = []
    scut = linear_model.scut_thresholds
    monkeypatch.setattr(
        linear_model, "scut_thresholds", lambda scores, *a: seen.append(scores) or scut(scores, *a)
    )

    def held_out_auc():
        ProximalSVC(threshold="scut", cv=3).fit(X, y)
        return roc_auc_score(y, seen[-1][:, 0])

    assert held_out_auc() > 0.9
    monkeypatch.setattr(rows_module, "dealt_folds", lambda n, k: [t for _, t in KFold(k).split(np.empty(n))])
    assert held_out_auc() < 0.75
