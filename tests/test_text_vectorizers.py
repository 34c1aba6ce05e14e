"""``textsel.text``: scikit-learn's CountVectorizer, TfidfVectorizer and HashingVectorizer with the
words counted or hashed by textsel's kernel.

Proved here, against scikit-learn's own vectorizers run on the same documents (the reference):

- the vocabulary and the matrix are scikit-learn's exactly: the same dict, the same container
  type, dtype, index dtype, row pointers, column indices in the same order and values bit for
  bit (tf-idf included), for fit_transform, fit + transform and transform of unseen documents,
  over the settings the kernel covers (n-grams up to 3, stop words, min_df, max_df,
  max_features, binary, a fixed vocabulary, lowercase off, dtypes, bytes input);
- on generated text of every script: digits, underscores, combining marks, İ, ß, ligatures,
  Greek final sigma, lone surrogates and 1-, 2- and 4-byte strings mixed;
- on the SMS Spam Collection always, and on 20 Newsgroups and Reuters-21578 where the data home
  holds them;
- the same result on 1, 2, 3 and 8 threads;
- settings the kernel does not cover run scikit-learn's code (the kernel is not called);
- parameters, clone, pickling, a Pipeline in GridSearchCV, and clear errors for documents that
  are not text or do not decode.
"""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.feature_extraction import text as sk
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

import textsel.text as ts
from textsel.datasets import load_sms_spam
from textsel.text import words

SETTINGS = [
    {},
    {"min_df": 2},
    {"ngram_range": (1, 2), "min_df": 2, "stop_words": "english"},
    {"ngram_range": (1, 3), "max_df": 0.9},
    {"ngram_range": (2, 2)},
    {"max_features": 300},
    {"max_features": 300, "min_df": 2, "max_df": 0.5},
    {"binary": True, "stop_words": ["the", "to", "you", "a"]},
    {"lowercase": False},
    {"vocabulary": ["free", "call", "txt", "win", "now", "claim", "prize"]},
]
TFIDF = [
    {"sublinear_tf": True, "min_df": 2},
    {"norm": "l1", "use_idf": False},
    {"smooth_idf": False, "norm": None, "dtype": np.float32},
    {"min_df": 2, "max_df": 0.5, "dtype": np.float32},  # pruned values of 4 bytes: moved by a mask
]


def assert_same_matrix(ours, theirs):
    assert type(ours) is type(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    assert ours.indices.dtype == theirs.indices.dtype and ours.indptr.dtype == theirs.indptr.dtype
    np.testing.assert_array_equal(ours.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours.indices, theirs.indices)
    np.testing.assert_array_equal(ours.data, theirs.data)  # bit for bit, tf-idf included


def assert_same(kind, settings, train, test, **extra):
    ours = getattr(ts, kind)(**settings, **extra)
    theirs = getattr(sk, kind)(**settings)
    assert_same_matrix(ours.fit_transform(train), theirs.fit_transform(train))
    theirs_test = theirs.transform(test)
    if not ours.fixed_vocabulary_:  # transform from the counted terms, vocabulary_ not yet read
        assert_same_matrix(ours.transform(test), theirs_test)
    assert ours.vocabulary_ == theirs.vocabulary_ and type(ours.vocabulary_) is dict
    assert list(ours.vocabulary_) == list(theirs.vocabulary_)  # the terms in the same order
    np.testing.assert_array_equal(ours.get_feature_names_out(), theirs.get_feature_names_out())
    assert_same_matrix(ours.transform(test), theirs_test)  # from vocabulary_'s strings
    refit = getattr(ts, kind)(**settings, **extra).fit(train)
    assert refit.vocabulary_ == theirs.vocabulary_ and list(refit.vocabulary_) == list(theirs.vocabulary_)
    assert_same_matrix(refit.transform(test), theirs.transform(test))
    return ours


@pytest.fixture(scope="module")
def sms():
    b = load_sms_spam()
    texts = list(b.data)
    return texts[:4000], texts[4000:]


@pytest.mark.parametrize("settings", SETTINGS, ids=str)
@pytest.mark.parametrize("kind", ["CountVectorizer", "TfidfVectorizer"])
def test_the_sms_collection_is_vectorized_exactly_as_scikit_learn_does(sms, kind, settings):
    train, test = sms
    assert_same(kind, settings, train, test)


HASHING = [
    {},
    {"n_features": 2**10, "alternate_sign": False, "norm": None},
    {"ngram_range": (1, 3), "stop_words": "english", "binary": True, "norm": "l1"},
    {"n_features": 7, "dtype": np.float32, "lowercase": False},
]


def assert_same_hashing(settings, docs, **extra):
    ours = ts.HashingVectorizer(**settings, **extra)
    theirs = sk.HashingVectorizer(**settings)
    assert_same_matrix(ours.fit_transform(docs), theirs.fit_transform(docs))
    assert_same_matrix(ours.transform(docs[:50]), theirs.transform(docs[:50]))
    assert ours.transform(docs).has_canonical_format


@pytest.mark.parametrize("settings", HASHING, ids=str)
def test_hashed_columns_are_scikit_learns_exactly(sms, settings):
    """MurmurHash3 of each word's UTF-8 bytes, abs mod n_features, the sign, the sums of equal
    columns (a zero sum kept as an entry, as scipy's sum_duplicates keeps it), binary and norm."""
    train, _ = sms
    assert_same_hashing(settings, train)


@pytest.mark.parametrize("seed", [0, 1])
def test_hashed_text_of_every_script_is_scikit_learns(seed):
    docs = unicode_documents(seed)
    assert_same_hashing({"ngram_range": (1, 2)}, docs)
    assert_same_hashing({"n_features": 3, "norm": None}, docs)  # many words in each column, signs cancel


@pytest.mark.parametrize("settings", TFIDF, ids=str)
def test_tf_idf_weightings_are_scikit_learns_bit_for_bit(sms, settings):
    train, test = sms
    assert_same("TfidfVectorizer", settings, train, test)


def test_bytes_and_other_count_dtypes_are_read_as_scikit_learn_reads_them(sms):
    train, test = sms
    as_bytes = [t.encode("utf-8") for t in train]
    assert_same("CountVectorizer", {"dtype": np.float32}, as_bytes, [t.encode("utf-8") for t in test])
    latin = [t.encode("latin-1", "replace") for t in train]
    assert_same("CountVectorizer", {"encoding": "latin-1"}, latin, latin[:50])


def unicode_documents(seed, n_docs=300):
    """Documents drawn from every script and plane: letters, digits, underscores, marks,
    punctuation and spaces of many kinds, and the characters whose lowercase is longer or depends
    on context (İ, ß's capital, Σ, ligatures), so that 1-, 2- and 4-byte strings mix."""
    rng = np.random.default_rng(seed)
    special = list("İıßẞΣσςﬁﬀǅǄ_0123456789٣੩\u0301\u0307\u200b\u00a0 \t\n.,;'-")
    ranges = [(0x20, 0x7F), (0xA0, 0x250), (0x370, 0x3FF), (0x400, 0x4FF), (0x590, 0x6FF), (0x900, 0x97F),
              (0x3040, 0x30FF), (0x4E00, 0x4E80), (0xAC00, 0xAC80), (0x1D400, 0x1D4FF), (0x1F600, 0x1F64F),
              (0x20000, 0x20080), (0xD800, 0xDFFF)]  # fmt: skip
    docs = []
    for _ in range(n_docs):
        chars = []
        for _ in range(int(rng.integers(0, 60))):
            if rng.random() < 0.3:
                chars.append(special[rng.integers(len(special))])
            else:
                low, high = ranges[rng.integers(len(ranges))]
                chars.append(chr(int(rng.integers(low, high))))
            if rng.random() < 0.15:
                chars.append(" ")
        docs.append("".join(chars))
    docs.append("İSTANBUL STRASSE ẞ ΟΔΥΣΣΕΥΣ ﬁnal ǅemal __init__ x_1 ١٢٣ 𝐀𝐁𝐂 😀😀 ab")
    return docs


@pytest.mark.parametrize(
    "settings", [{}, {"lowercase": False}, {"ngram_range": (1, 3)}, {"min_df": 2}], ids=str
)
@pytest.mark.parametrize("seed", [0, 1])
def test_text_of_every_script_is_tokenized_as_pythons_re_tokenizes_it(seed, settings):
    docs = unicode_documents(seed)
    assert_same("CountVectorizer", settings, docs[:200], docs[200:])


def test_the_kernel_tokens_are_re_findall_of_the_default_pattern():
    """The tokens themselves, one document at a time, against re.findall on the same string."""
    import re

    pattern = re.compile(ts.DEFAULT_TOKEN_PATTERN)
    for doc in unicode_documents(2, 200):
        ours = ts.CountVectorizer(lowercase=False, n_jobs=1)
        expected = sorted(set(pattern.findall(doc)))
        if not expected:
            continue
        ours.fit([doc])
        assert sorted(ours.vocabulary_) == expected, doc


@pytest.mark.parametrize("n_jobs", [1, 2, 3, 8])
def test_the_result_does_not_depend_on_the_threads(sms, monkeypatch, many_cores, n_jobs):
    monkeypatch.setattr(words, "_MIN_CHARS_PER_THREAD", 1)
    train, test = sms
    for settings in ({}, {"ngram_range": (1, 2), "min_df": 2}, {"ngram_range": (1, 3)}):
        assert_same("CountVectorizer", settings, train, test, n_jobs=n_jobs)
    assert_same_hashing({"ngram_range": (1, 2)}, train, n_jobs=n_jobs)


@pytest.mark.parametrize(
    "settings",
    [
        {"analyzer": "char", "ngram_range": (2, 3)},
        {"tokenizer": str.split},
        {"strip_accents": "unicode"},
        {"token_pattern": r"(?u)\b\w+\b"},
        {"preprocessor": str.upper},
    ],  # fmt: skip
    ids=str,
)
def test_settings_the_kernel_does_not_cover_run_scikit_learns_code(sms, monkeypatch, settings):
    import textsel._ext.tokens as kernel

    monkeypatch.setattr(kernel, "count_terms", lambda *a: pytest.fail("the kernel ran"))
    monkeypatch.setattr(kernel, "hash_terms", lambda *a: pytest.fail("the kernel ran"))
    train, test = sms
    assert_same("CountVectorizer", {**settings, "min_df": 2}, train[:500], test[:100])
    assert_same_hashing(settings, train[:500])


def test_parameters_clone_pickle_and_a_grid_search(sms):
    train, _ = sms
    y = np.array([len(t) > 60 for t in train])
    vectorizer = ts.TfidfVectorizer(min_df=2, n_jobs=2)
    assert (
        vectorizer.get_params()["n_jobs"] == 2 and clone(vectorizer).get_params() == vectorizer.get_params()
    )
    vectorizer.fit(train)
    again = pickle.loads(pickle.dumps(vectorizer))
    assert_same_matrix(again.transform(train[:100]), vectorizer.transform(train[:100]))
    search = GridSearchCV(
        make_pipeline(ts.CountVectorizer(), LogisticRegression(max_iter=200)),
        {"countvectorizer__ngram_range": [(1, 1), (1, 2)], "countvectorizer__min_df": [1, 2]},
        cv=2,
    )
    search.fit(train[:600], y[:600])
    reference = GridSearchCV(
        make_pipeline(sk.CountVectorizer(), LogisticRegression(max_iter=200)),
        {"countvectorizer__ngram_range": [(1, 1), (1, 2)], "countvectorizer__min_df": [1, 2]},
        cv=2,
    ).fit(train[:600], y[:600])
    np.testing.assert_array_equal(
        search.cv_results_["mean_test_score"], reference.cv_results_["mean_test_score"]
    )


def test_vocabulary_is_filled_when_first_read_and_behaves_as_a_plain_attribute(sms):
    """fit_transform leaves vocabulary_ to be filled from the counted terms when first read:
    fitted as scikit-learn sees it (vars, check_is_fitted), transform counts without filling it,
    and a read, a pickle, a copy, threads reading at once, an assignment or a deletion each see
    scikit-learn's dict or the one assigned, never the empty one."""
    import copy
    from concurrent.futures import ThreadPoolExecutor

    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    train, test = sms
    theirs = sk.CountVectorizer(min_df=2).fit(train)

    def fitted():
        vectorizer = ts.CountVectorizer(min_df=2)
        vectorizer.fit_transform(train)
        return vectorizer

    ours = fitted()
    check_is_fitted(ours)
    assert "vocabulary_" in vars(ours) and len(vars(ours)["vocabulary_"]) == 0
    assert_same_matrix(ours.transform(test), theirs.transform(test))
    assert len(vars(ours)["vocabulary_"]) == 0  # counted by the kernel's terms, not the dict's
    assert ours.vocabulary_ is vars(ours)["vocabulary_"] and list(ours.vocabulary_.items()) == list(
        theirs.vocabulary_.items()
    )
    for again in (pickle.loads(pickle.dumps(fitted())), copy.deepcopy(fitted()), copy.copy(fitted())):
        assert list(again.vocabulary_.items()) == list(theirs.vocabulary_.items())
        assert_same_matrix(again.transform(test), theirs.transform(test))
    shared = fitted()
    with ThreadPoolExecutor(4) as pool:
        seen = list(pool.map(lambda _: (shared.vocabulary_, len(shared.vocabulary_)), range(8)))
    assert all(v is shared.vocabulary_ and n == len(theirs.vocabulary_) for v, n in seen)
    assigned = fitted()
    assigned.vocabulary_ = {"free": 0, "call": 1}
    assert assigned.vocabulary_ == {"free": 0, "call": 1}
    assert_same_matrix(
        assigned.transform(test), sk.CountVectorizer(vocabulary=["free", "call"]).fit_transform(test)
    )
    deleted = fitted()
    del deleted.vocabulary_
    assert not hasattr(deleted, "vocabulary_")
    with pytest.raises(NotFittedError):
        deleted.transform(test)
    with pytest.raises(AttributeError):
        ts.CountVectorizer().vocabulary_  # noqa: B018


def test_documents_that_are_not_text_or_do_not_decode_are_clear_errors():
    with pytest.raises(TypeError, match="document 1 is NoneType, not str or bytes"):
        ts.CountVectorizer().fit(["some text", None])
    with pytest.raises(ValueError, match="np.nan is an invalid document"):
        ts.CountVectorizer().fit(["some text", np.nan])
    with pytest.raises(UnicodeDecodeError, match="in document 1"):
        ts.CountVectorizer().fit([b"some text", b"bad \xff byte"])
    replaced = ts.CountVectorizer(decode_error="replace").fit([b"some text", b"bad \xff byte"])
    assert (
        replaced.vocabulary_
        == sk.CountVectorizer(decode_error="replace").fit([b"some text", b"bad \xff byte"]).vocabulary_
    )
    with pytest.raises(ValueError, match="empty vocabulary"):
        ts.CountVectorizer(stop_words=["only"]).fit(["only", "", "a b"])
    with pytest.raises(ValueError, match="Iterable over raw text documents expected"):
        ts.CountVectorizer().fit("one string")
    with pytest.raises(ValueError, match="After pruning, no terms remain"):
        ts.CountVectorizer(min_df=2).fit(["ab cd", "ef gh", "ij kl"])


def test_empty_documents_and_documents_without_words_are_empty_rows():
    docs = ["", "  ,. ", "a b c", "word word", "\u0301\u0307"]
    assert_same("CountVectorizer", {}, docs, docs)


@pytest.mark.parametrize("corpus", [pytest.param("20newsgroups", marks=pytest.mark.slow), "reuters21578"])
def test_real_corpora_are_vectorized_exactly_as_scikit_learn_does(data_home, corpus):
    from textsel import datasets

    if corpus == "20newsgroups":
        b = datasets.load_20newsgroups(data_home=data_home)
        train, test = b.data_train, b.data_test
    else:
        b = datasets.load_reuters21578(data_home=data_home)
        train, test = b.data_train, b.data_test
    assert_same("TfidfVectorizer", {"sublinear_tf": True, "min_df": 2}, train, test[:2000])
    assert_same(
        "CountVectorizer", {"ngram_range": (1, 2), "min_df": 2, "stop_words": "english"}, train, test[:2000]
    )
    assert_same_hashing({}, train)
