"""Rank-relabelled column subsets equal scipy slicing."""

import numpy as np
import pytest
import scipy.sparse as sp

from textsel._ranked import rank_columns, top_columns


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


def test_top_columns_refuses_unsorted_rows():
    R = sp.csr_matrix((np.ones(2), np.array([1, 0]), np.array([0, 2])), shape=(1, 2))
    R.has_sorted_indices = False
    with pytest.raises(ValueError, match="sorted"):
        top_columns(R, 1)
