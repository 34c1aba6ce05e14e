"""Rank-relabelled column subsets equal scipy slicing; identical rows are grouped exactly."""

import numpy as np
import pytest
import scipy.sparse as sp

from textsel._ext.submatrix import group_sorted
from textsel._ranked import distinct_rows, rank_columns, top_columns


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_top_columns_equal_fancy_slicing(index_dtype):
    rng = np.random.default_rng(0)
    X = sp.random(60, 40, density=0.2, format="csr", random_state=1)
    X.indices = X.indices.astype(index_dtype)
    X.indptr = X.indptr.astype(index_dtype)
    order = rng.permutation(40)[:25]
    R = rank_columns(X, order)
    assert R.shape == (60, 25)
    np.testing.assert_array_equal(R.toarray(), X[:, order].toarray())
    for k in (0, 1, 7, 25):
        T = top_columns(R, k)
        assert T.shape == (60, k)
        np.testing.assert_array_equal(T.toarray(), X[:, order[:k]].toarray())


def test_empty_rows_and_unranked_documents():
    X = sp.csr_matrix(np.array([[0, 0, 0], [1, 0, 2], [0, 3, 0]], dtype=float))
    R = rank_columns(X, [2, 0])  # column 1 unranked: the last document keeps nothing
    np.testing.assert_array_equal(R.toarray(), [[0, 0], [2, 1], [0, 0]])
    np.testing.assert_array_equal(top_columns(R, 1).toarray(), [[0], [2], [0]])


def test_repeated_columns_are_summed():
    """A column stored twice in a row is one value split in two (scipy adds them): the ranked
    matrix holds the sum once, so its row norms are the values' norms."""
    X = sp.csr_matrix((np.array([1.0, 2.0, 0.5, 0.5, 3.0]), np.array([2, 0, 2, 1, 1]), np.array([0, 3, 5])),
                      shape=(2, 3))  # fmt: skip
    R = rank_columns(X, [2, 1, 0])
    np.testing.assert_array_equal(R.toarray(), [[1.5, 0, 2], [0, 3.5, 0]])
    assert R.has_canonical_format


def test_caller_matrix_untouched():
    X = sp.random(20, 10, density=0.3, format="csr", random_state=2)
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    top_columns(rank_columns(X, [3, 1, 4]), 2)
    for a, b in zip(before, (X.data, X.indices, X.indptr), strict=True):
        np.testing.assert_array_equal(a, b)


def _brute_force_groups(X, labels):
    """Rows (with their label) grouped by np.unique on the dense matrix."""
    dense = np.column_stack([X.toarray(), labels])
    _, inverse = np.unique(dense, axis=0, return_inverse=True)
    return inverse.ravel()


def _same_partition(a, b):
    # a[i] == a[j] exactly when b[i] == b[j]
    pairs = {(x, y) for x, y in zip(a.tolist(), b.tolist(), strict=True)}
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def test_distinct_rows_equal_brute_force_grouping():
    rng = np.random.default_rng(3)
    X = sp.csr_matrix((rng.random((300, 6)) < 0.25).astype(float))
    labels = rng.choice([0, 1], 300)
    first, inverse, counts = distinct_rows(X, labels, max_share=1.0)
    assert _same_partition(inverse, _brute_force_groups(X, labels))
    np.testing.assert_array_equal((X[first][inverse] != X).nnz, 0)
    np.testing.assert_array_equal(labels[first][inverse], labels)
    assert counts.sum() == 300 and (counts == np.bincount(inverse)).all()


def test_grouping_is_exact_even_when_every_hash_collides():
    """With every hash forced equal, rows are still told apart by comparison."""
    rng = np.random.default_rng(4)
    X = sp.csr_matrix(rng.integers(0, 3, (80, 5)).astype(float) * (rng.random((80, 5)) < 0.4))
    codes = rng.integers(0, 2, 80).astype(np.int64)
    hashes = np.zeros(80, dtype=np.uint64)
    inverse, first = group_sorted(X.data, X.indices, X.indptr, codes, hashes, np.arange(80), 5)
    assert _same_partition(inverse, _brute_force_groups(X, codes))
    assert (first == np.array([np.flatnonzero(inverse == g)[0] for g in range(first.size)])).all()


def test_distinct_rows_declines_when_rows_are_mostly_distinct():
    X = sp.identity(50, format="csr")
    assert distinct_rows(X, np.ones(50, dtype=int)) is None


def test_top_columns_refuses_unsorted_rows():
    R = sp.csr_matrix((np.ones(2), np.array([1, 0]), np.array([0, 2])), shape=(1, 2))
    R.has_sorted_indices = False
    with pytest.raises(ValueError, match="sorted"):
        top_columns(R, 1)


def test_prefix_rows_take_and_prefix_margins_match_scipy():
    """The study's raw-buffer path: a top-k prefix as Rows, a row gather (repeats and any order),
    and the test fold's margins on its ranked prefix must equal scipy's slicing and products."""
    from textsel._ext.submatrix import prefix_margins
    from textsel._ranked import Rows, prefix_rows

    rng = np.random.default_rng(4)
    X = sp.random(50, 80, density=0.2, format="csr", random_state=rng)
    order = rng.permutation(80)[:60]
    R = rank_columns(X, order)
    for k in (0, 1, 17, 60):
        rows = prefix_rows(R, k)
        assert isinstance(rows, Rows) and rows.shape == (50, k)
        expected = X[:, order[:k]].toarray()
        np.testing.assert_array_equal(sp.csr_matrix(rows[:3], shape=rows.shape).toarray(), expected)
        pick = np.array([3, 0, 3, 49], dtype=np.int64)
        taken = rows.take(pick)
        np.testing.assert_array_equal(sp.csr_matrix(taken[:3], shape=taken.shape).toarray(), expected[pick])
        w = rng.normal(size=k)
        np.testing.assert_allclose(prefix_margins(R.data, R.indices, R.indptr, w, 0.5), expected @ w + 0.5,
                                   rtol=1e-12, atol=1e-12)  # fmt: skip
    with pytest.raises(ValueError, match=r"rows must be in \[0, 50\), got 50"):
        prefix_rows(R, 5).take(np.array([50], dtype=np.int64))
