"""term_stats against the brute-force product X_bin' Y, in every supported layout."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_corpus
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import class_df as ref_class_df
from reference import indicator

import textsel


def check_against_reference(stats, X, Y):
    cdf, df = ref_class_df(X, Y)
    np.testing.assert_array_equal(stats.class_df, cdf)
    np.testing.assert_array_equal(stats.df, df)
    np.testing.assert_array_equal(stats.class_sizes, Y.sum(axis=0))
    assert stats.n_docs == X.shape[0]
    assert stats.class_df.dtype == np.int64 and stats.df.dtype == np.int64


@st.composite
def corpora(draw):
    n_docs = draw(st.integers(2, 40))
    n_terms = draw(st.integers(1, 30))
    n_classes = draw(st.integers(2, 5))
    seed = draw(st.integers(0, 2**31 - 1))
    density = draw(st.floats(0.0, 1.0))
    rng = np.random.default_rng(seed)
    X = sp.random(n_docs, n_terms, density=density, format="csr", random_state=rng)
    y = rng.integers(0, n_classes, n_docs)
    y[:2] = [0, 1]  # at least two classes
    return X, y


@settings(max_examples=150, deadline=None)
@given(corpora(), st.sampled_from([np.float32, np.float64]), st.sampled_from([np.int32, np.int64]))
def test_matches_brute_force_on_random_corpora(data, dtype, idx):
    """Every fused (data, index) instantiation counts exactly what X_bin' Y counts."""
    X, y = data
    X = sp.csr_matrix((X.data.astype(dtype), X.indices.astype(idx), X.indptr.astype(idx)), X.shape)
    stats = textsel.term_stats(X, y)
    check_against_reference(stats, X, indicator(y, stats.classes))
    np.testing.assert_array_equal(stats.classes, np.unique(y))


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_multilabel_indicator_dense_and_sparse(seed, sparse_y):
    """A 2-D indicator y (documents may have several classes or none) is counted per column."""
    rng = np.random.default_rng(seed)
    X, _ = random_corpus(seed=seed % 1000)
    Y = (rng.random((X.shape[0], 4)) < 0.3).astype(np.int8)
    stats = textsel.term_stats(X, sp.csr_matrix(Y) if sparse_y else Y)
    assert stats.multilabel
    check_against_reference(stats, X, Y.astype(np.int64))
    np.testing.assert_array_equal(stats.classes, np.arange(4))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 40), st.integers(0, 2**31 - 1), st.sampled_from([np.int8, np.uint8, np.bool_, np.float64])
)
def test_dense_indicator_of_any_width(n_classes, seed, dtype):
    """A dense indicator is read eight cells at a time plus a tail: every class position, rows
    with no label, one label or all of them, give the counts of X_bin' Y and of the sparse path."""
    rng = np.random.default_rng(seed)
    X, _ = random_corpus(seed=seed % 1000)
    Y = rng.random((X.shape[0], n_classes)) < rng.choice([0.05, 0.3, 0.9])
    Y[0] = True
    Y[1] = False
    stats = textsel.term_stats(X, Y.astype(dtype))
    check_against_reference(stats, X, Y.astype(np.int64))
    assert stats == textsel.term_stats(X, sp.csr_matrix(Y.astype(np.int8)))


def test_duplicate_marks_survive_many_documents():
    """Duplicate indices are caught by per-visit 16-bit stamps, which wrap after 65,535 visits.

    70,000 documents visited in order, each holding term 0 twice; term 1 only in documents 0 and
    65,536 and term 2 only in document 65,535, the visits where a stamp without its reset would
    repeat an old one or equal the initial marks.  Every term is still counted once per document.
    """
    n_docs = 70_000
    extra = {0: 1, 65_536: 1, 65_535: 2}
    cols, indptr = [], [0]
    for i in range(n_docs):
        cols += [0, 0] + ([extra[i]] if i in extra else [])
        indptr.append(len(cols))
    X = sp.csr_matrix((np.ones(len(cols)), cols, indptr), shape=(n_docs, 3))
    assert not X.has_canonical_format
    y = np.zeros(n_docs, dtype=int)
    y[-1] = 1
    stats = textsel.term_stats(X, y)
    np.testing.assert_array_equal(stats.class_df, [[n_docs - 1, 2, 1], [1, 0, 0]])
    np.testing.assert_array_equal(stats.df, [n_docs, 2, 1])


def test_non_canonical_csr_counts_presence_once():
    """Duplicate and unsorted column indices, and stored zeros, change nothing."""
    data = np.array([1.0, 2.0, 0.0, 5.0, 1.0, 3.0])
    indices = np.array([2, 2, 0, 1, 0, 1])  # row 0: term 2 twice, explicit zero at term 0
    indptr = np.array([0, 3, 6])
    X = sp.csr_matrix((data, indices, indptr), shape=(2, 3))
    assert not X.has_canonical_format
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    stats = textsel.term_stats(X, [0, 1])
    np.testing.assert_array_equal(stats.class_df, [[0, 0, 1], [1, 1, 0]])
    np.testing.assert_array_equal(stats.df, [1, 1, 1])
    for a, b in zip(before, (X.data, X.indices, X.indptr), strict=True):
        np.testing.assert_array_equal(a, b)


def test_other_input_formats_give_the_same_stats(corpus):
    """Dense, COO, CSC, integer and Boolean inputs are converted, not rejected."""
    X, y = corpus
    expected = textsel.term_stats(X, y)
    for variant in (X.toarray(), X.tocoo(), X.tocsc(), X.astype(np.int32), X.astype(bool),
                    sp.csr_array(X), X.toarray().tolist()):  # fmt: skip
        assert textsel.term_stats(variant, y) == expected


def test_string_labels_and_column_vector_y(corpus):
    X, y = corpus
    names = np.array(["alpha", "beta", "gamma"])[y]
    stats = textsel.term_stats(X, names)
    np.testing.assert_array_equal(stats.classes, ["alpha", "beta", "gamma"])
    assert textsel.term_stats(X, y.reshape(-1, 1)) == textsel.term_stats(X, y)


def test_chunks_add_up_to_the_whole():
    """term_stats(A) + term_stats(B) == term_stats(A stacked on B), even when a chunk misses a class."""
    X, y = random_corpus(n_docs=90, n_classes=4, seed=3)
    order = np.argsort(y, kind="stable")  # first chunk holds classes 0 and 1 only
    X, y = X[order], y[order]
    a = textsel.term_stats(X[:45], y[:45], classes=[0, 1, 2, 3])
    b = textsel.term_stats(X[45:], y[45:], classes=[0, 1, 2, 3])
    whole = textsel.term_stats(X, y)
    assert a + b == whole
    # without a shared class list the classes are aligned by label
    a2 = textsel.term_stats(X[:45], y[:45])
    b2 = textsel.term_stats(X[45:], y[45:])
    assert set(a2.classes) != set(b2.classes)
    assert a2 + b2 == whole


def test_multilabel_chunks_add_up():
    X, _ = random_corpus(n_docs=50, seed=4)
    Y = (np.random.default_rng(4).random((50, 3)) < 0.4).astype(int)
    assert textsel.term_stats(X[:20], Y[:20]) + textsel.term_stats(X[20:], Y[20:]) == textsel.term_stats(X, Y)


@pytest.mark.parametrize("multilabel", [False, True])
def test_count_blocks_adds_chunks_into_one_table(multilabel):
    """count_blocks(into=...) counts each further chunk straight into the first chunk's table
    (the kernel's accumulate mode): the result equals term_stats of the stacked chunks, and no
    new table."""
    from textsel.termstats import count_blocks

    X, y = random_corpus(n_docs=120, n_classes=4, seed=5)
    if multilabel:
        y = (np.random.default_rng(5).random((120, 3)) < 0.4).astype(int)
    order = np.argsort(y if y.ndim == 1 else y[:, 0], kind="stable")  # chunks miss classes
    X, y = X[order], y[order]
    classes = None if multilabel else [0, 1, 2, 3]
    total = textsel.term_stats(X[:30], y[:30], classes=classes)
    table = total.class_df
    for a, b in ((30, 75), (75, 120)):
        total = count_blocks([X[a:b]], y[a:b], n_jobs=2, into=total)
    assert total == textsel.term_stats(X, y)
    assert total.class_df is table


def test_count_blocks_refuses_chunks_that_do_not_fit(corpus):
    from textsel.termstats import count_blocks

    X, y = corpus
    with pytest.raises(ValueError, match="terms"):
        count_blocks([X[:, :10]], y, into=textsel.term_stats(X, y))
    with pytest.raises(ValueError, match="multi-label"):
        count_blocks([X], indicator(y), into=textsel.term_stats(X, y))


def _cut(X, bounds, rng):
    """X cut into row blocks at ``bounds``, each block's value and index types drawn at random."""
    blocks = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        part = X[a:b]
        index = rng.choice([np.int32, np.int64])
        block = sp.csr_matrix(part.shape, dtype=rng.choice([np.float32, np.float64]))
        block.data = part.data.astype(block.dtype)
        block.indices, block.indptr = part.indices.astype(index), part.indptr.astype(index)
        blocks.append(block)
    return blocks


@settings(max_examples=120, deadline=None)
@given(corpora(), st.integers(0, 2**31 - 1), st.booleans(), st.sampled_from([1, 2]))
def test_count_blocks_equals_the_stacked_matrix(data, seed, multilabel, n_jobs):
    """Row blocks counted together (uneven, empty ones included, each with its own value and
    index type) give exactly the statistics of the stacked matrix: one pass finds each
    document's row in whichever block holds it."""
    from textsel.termstats import count_blocks

    X, y = data
    rng = np.random.default_rng(seed)
    if multilabel:
        y = (rng.random((X.shape[0], 3)) < 0.4).astype(int)
    bounds = np.unique(np.r_[0, rng.integers(0, X.shape[0] + 1, rng.integers(0, 6)), X.shape[0]])
    bounds = np.sort(np.r_[bounds, rng.choice(bounds, rng.integers(0, 3))])  # repeated: empty blocks
    blocks = _cut(X, bounds, rng)
    stats = count_blocks(blocks, y, n_jobs=n_jobs)
    assert stats == textsel.term_stats(X, y)
    check_against_reference(stats, X, y if multilabel else indicator(y, stats.classes))


@pytest.mark.parametrize("fault", ["nan", "negative", "index", "indptr", "width"])
def test_count_blocks_names_the_faulty_block(fault):
    """A fault in one block of several raises BlockValueError naming that block's position."""
    from textsel.termstats import BlockValueError, count_blocks

    X, y = random_corpus(n_docs=90, seed=6)
    blocks = [X[:30].copy(), X[30:60].copy(), X[60:].copy()]
    bad = blocks[1]
    if fault == "nan":
        bad.data[3] = np.nan
    elif fault == "negative":
        bad.data[3] = -1.0
    elif fault == "index":
        bad.indices[3] = X.shape[1] + 5
    elif fault == "indptr":
        bad.indptr[5] = bad.indptr[-1] + 7
    else:
        blocks[1] = bad[:, :-1]
    with pytest.raises(BlockValueError) as caught:
        count_blocks(blocks, y)
    assert caught.value.block == 1
    # raised in a worker process (Dask, joblib), it reaches the caller as it was
    again = pickle.loads(pickle.dumps(caught.value))
    assert type(again) is type(caught.value) and again.block == 1 and str(again) == str(caught.value)
    assert isinstance(again, BlockValueError)


def test_count_blocks_refuses_a_single_matrix_and_names_a_block_of_the_wrong_type():
    """A matrix passed as ``blocks`` (rather than a list of them) is a TypeError naming
    ``blocks``, not read as a list of rows; a block of the wrong type is named by position."""
    from textsel.termstats import count_blocks

    X, y = random_corpus(n_docs=60, seed=7)
    for whole in (X, X.toarray()):
        with pytest.raises(TypeError, match="blocks must be a sequence"):
            count_blocks(whole, y)
    with pytest.raises(TypeError, match=r"blocks\[1\]"):
        count_blocks([X[:30], X[30:].astype(complex)], y)


def test_adding_mismatched_stats_raises(corpus):
    X, y = corpus
    a = textsel.term_stats(X, y)
    with pytest.raises(ValueError, match="terms"):
        a + textsel.term_stats(X[:, :10], y)
    with pytest.raises(ValueError, match="multi-label"):
        a + textsel.term_stats(X, indicator(y))


def test_wide_and_empty_rows():
    """Documents with no terms, and terms in no document, are counted as zeros."""
    X = sp.csr_matrix(([1.0], [999], [0, 0, 1, 1, 1]), shape=(4, 1000))
    stats = textsel.term_stats(X, [0, 1, 0, 1])
    assert stats.df.sum() == 1 and stats.class_df[1, 999] == 1


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["small", "negative", "large", "bool"]))
def test_label_positions_match_a_list_lookup(seed, kind):
    """label_positions (a table lookup for small non-negative integers, a binary search for any
    other labels) gives each label's index in classes, as list.index does, and refuses a label
    outside classes by name."""
    from textsel._labels import label_positions

    rng = np.random.default_rng(seed)
    if kind == "bool":
        classes = np.array([False, True])
        y = rng.random(20) < 0.5
    else:
        low, high = {"small": (0, 30), "negative": (-15, 15), "large": (0, 10**12)}[kind]
        classes = np.unique(rng.integers(low, high, 6))
        y = rng.choice(classes, 40)
    positions = label_positions(y, classes)
    assert positions.tolist() == [classes.tolist().index(v) for v in y.tolist()]
    if kind != "bool":
        outside = np.setdiff1d(np.arange(low, low + 50), classes)[:1]
        with pytest.raises(ValueError, match="y holds labels not in classes"):
            label_positions(np.r_[y, outside], classes)
