"""The word kernel's own pieces, against Python's: the order it sorts terms in is ``sorted()``'s.

The vectorizers' tests (tests/test_text_vectorizers.py) prove the whole calls equal to
scikit-learn's; these reach the cases a corpus rarely holds: terms sharing long prefixes (past
the keys most comparisons are told by), Latin-1 and wider code points in one call, a term that
is a prefix of another, code point 0, a subset of the terms in any order; and a vocabulary whose
word n-grams were counted as pairs of ids, read, sorted, pickled, extended and used as a fixed
one as if they had been counted by their code points.
"""

import numpy as np
import pytest

from textsel._ext.tokens import Vocabulary


def adversarial_terms(rng, wide: bool) -> list:
    stems = ["", "a", "ab", "abcdefgh", "abcdefghijklmnop", "abcdefghijklmnopqrs", "zz", "ÿÿÿÿÿÿÿÿÿ"]
    alphabet = ["a", "b", " ", "ÿ", "\x00", "é"] + (["Ω", "中", "😀", "\ud800"] if wide else [])
    terms = set()
    while len(terms) < 3000:
        tail = "".join(rng.choice(alphabet) for _ in range(int(rng.integers(0, 20))))
        terms.add(rng.choice(stems) + tail)
    return sorted(terms, key=lambda _: rng.random())


@pytest.mark.parametrize("wide", [False, True], ids=["latin-1", "wide"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_terms_are_ordered_as_python_sorts_them(seed, wide):
    rng = np.random.default_rng(seed)
    terms = adversarial_terms(rng, wide)
    vocabulary = Vocabulary()
    vocabulary.add(terms)
    order = vocabulary.order()
    assert [terms[i] for i in order] == sorted(terms)
    subset = rng.permutation(len(terms))[:1000]
    order = vocabulary.order(subset)
    assert [terms[subset[i]] for i in order] == sorted(terms[i] for i in subset)


def test_a_term_given_twice_keeps_its_positions_in_order():
    vocabulary = Vocabulary()
    vocabulary.add(["b", "a", "abcdefghijklmnopqrstu", "abcdefghijklmnopqrst"])
    ids = np.array([3, 0, 2, 0, 1, 3, 1], dtype=np.int64)
    np.testing.assert_array_equal(vocabulary.order(ids), [4, 6, 0, 5, 2, 1, 3])


def test_terms_added_from_strings_of_every_width_come_back_the_same():
    terms = ["ab", "é", "Ωmega", "中文", "😀x", "\ud800", "", "a" * 40, "ÿ" * 20]
    vocabulary = Vocabulary()
    np.testing.assert_array_equal(vocabulary.add(terms), np.arange(len(terms)))
    np.testing.assert_array_equal(vocabulary.add(terms[::-1]), np.arange(len(terms))[::-1])  # found again
    assert vocabulary.terms() == terms
    with pytest.raises(TypeError, match="bytes, not str"):
        vocabulary.add([b"ab"])


def test_rows_remapped_in_runs_equal_the_rows_remapped_at_once():
    from textsel._ext.ccore import Interrupt
    from textsel._ext.tokens import count_terms, remap_rows

    docs = ["the cat sat on the mat", "", "a dog and the cat", "mat dog cat sat the on and"] * 5
    _, indptr, ids, counts = count_terms(docs, Vocabulary(), None, 1, 2, False, Interrupt())
    mapping = np.random.default_rng(0).permutation(ids.max() + 1).astype(np.int64)
    whole_ids, whole_counts = ids.copy(), counts.copy()
    remap_rows(indptr, whole_ids, whole_counts, mapping)
    for first, end in ((0, 7), (7, 7), (7, 20)):
        remap_rows(indptr, ids, counts, mapping, first, end)
    np.testing.assert_array_equal(ids, whole_ids)
    np.testing.assert_array_equal(counts, whole_counts)
    for row in range(20):  # each row sorted by its new ids
        assert np.all(np.diff(ids[indptr[row] : indptr[row + 1]]) > 0)
    with pytest.raises(IndexError):
        remap_rows(indptr, ids, counts, mapping, 5, 21)


def test_n_grams_counted_as_pairs_behave_as_terms_of_code_points():
    import pickle

    from textsel._ext.ccore import Interrupt
    from textsel._ext.tokens import count_terms

    docs = ["the cat sat on the mat", "Ωmega cat_1 the cat", "", "mat on the cat sat the Ωmega"] * 3
    by_pairs = Vocabulary()  # fresh: its n-grams (ngram_min 1) are kept as pairs
    by_code_points = Vocabulary()
    by_code_points.add(["x y"])  # holds an n-gram of code points: counts by them
    rows = count_terms(docs, by_pairs, None, 1, 3, False, Interrupt())
    rows_cp = count_terms(docs, by_code_points, None, 1, 3, False, Interrupt())
    terms = by_pairs.terms()
    assert terms == by_code_points.terms()[1:] and "the cat sat" in terms and "ωmega cat_1" not in terms
    np.testing.assert_array_equal(rows[1], rows_cp[1])
    np.testing.assert_array_equal(rows[2] + 1, rows_cp[2])
    np.testing.assert_array_equal(rows[3], rows_cp[3])
    assert [terms[i] for i in by_pairs.order()] == sorted(terms)
    assert pickle.loads(pickle.dumps(by_pairs)).terms() == terms
    # an n-gram given as a string is the one counted; a new one is added after it
    n = len(terms)
    np.testing.assert_array_equal(by_pairs.add(["on the mat", "cat on"]), [terms.index("on the mat"), n])
    # counted again through it as a fixed vocabulary: the same rows
    fixed = count_terms(docs, by_pairs, None, 1, 3, True, Interrupt())
    np.testing.assert_array_equal(fixed[2], rows[2])


@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("value", [np.int64, np.float64, np.float32, np.int16])
def test_columns_kept_renumbered_and_counted_are_numpys(index, value):
    """The pruning's kernels against numpy: the entries a map keeps, renumbered, in their rows'
    order with their values (8-byte values moved in the pass, others by a mask), each column's
    number of entries as bincount counts them, and columns renumbered in place (in runs) as
    fancy indexing renumbers them; a column outside the range is an error."""
    from textsel._ext.submatrix import column_counts, map_in_place, mapped_columns

    rng = np.random.default_rng(3)
    indptr = np.concatenate([[0], np.cumsum(rng.integers(0, 30, 200))]).astype(index)
    indices = rng.integers(0, 500, indptr[-1]).astype(index)
    data = rng.integers(-9, 9, indptr[-1]).astype(value)
    mapping = np.where(rng.random(500) < 0.4, -1, rng.permutation(500)).astype(index)
    out_data, out_indices, out_indptr = mapped_columns(data, indices, indptr, mapping)
    kept = mapping[indices] >= 0
    np.testing.assert_array_equal(out_indices, mapping[indices][kept])
    assert out_data.dtype == value
    np.testing.assert_array_equal(out_data, data[kept])
    np.testing.assert_array_equal(out_indptr, np.concatenate([[0], np.cumsum(kept)])[indptr])
    np.testing.assert_array_equal(column_counts(indices, 500), np.bincount(indices, minlength=500))
    with pytest.raises(IndexError, match="column 500 of 500"):
        column_counts(np.array([1, 500], dtype=index), 500)
    renumbered, order = indices.copy(), rng.permutation(500).astype(index)
    map_in_place(renumbered, order, 0, 100)  # in runs, as the threads map them
    map_in_place(renumbered, order, 100)
    np.testing.assert_array_equal(renumbered, order[indices])
    with pytest.raises(IndexError, match="column 500 of 500"):
        map_in_place(np.array([1, 500], dtype=index), order)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_counts_recast_in_their_own_memory_are_astypes(dtype):
    """The kernel's int64 arrays rewritten as the matrix's dtype in place equal numpy's cast of
    them (each value read before a narrower one lands on it); another dtype, or an array that
    is read-only or not contiguous, is left to numpy (None)."""
    from textsel._ext.tokens import recast

    values = np.random.default_rng(5).integers(-(2**31), 2**31, 10_001)
    expected = values.astype(dtype)
    cast = recast(values.copy(), dtype)
    assert cast.dtype == dtype and cast.shape == expected.shape
    np.testing.assert_array_equal(cast, expected)
    assert recast(values.copy(), np.int16) is None and recast(values[::2], dtype) is None
    frozen = values.copy()
    frozen.flags.writeable = False
    assert recast(frozen, dtype) is None and recast(np.empty(0, dtype=np.int64), dtype).shape == (0,)
