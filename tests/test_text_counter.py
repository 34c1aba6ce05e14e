"""``textsel.text.TermCounter``: per-class document frequencies counted straight from text, chunk by
chunk, and what reads them (``fit_stats``, ``textsel select``).

Proved here, each against an independent reference: scikit-learn's own ``CountVectorizer`` with the
same settings run on all the documents at once, and ``textsel.term_stats`` of its matrix and all the
labels (``MultiLabelBinarizer`` for label lists):

- ``stats_`` (every table, via ``TermStats.__eq__``), ``vocabulary_`` and the feature names are the
  reference's for the default settings, ``min_df``/``max_df`` (counts and shares), n-grams with stop
  words and ``max_features`` cut through ties, ``lowercase=False`` and a fixed vocabulary; whatever
  the chunk size (1, 3, more than the corpus) and the thread count;
- labels: strings, integers, a 0/1 indicator (dense or sparse), lists of labels, classes first seen
  in a late chunk (sorting before the earlier ones), a chunk of one class;
- every refused input is a ValueError/TypeError naming the problem, and leaves the counter as it was;
- ``fit_file`` reads CSV, TSV (header or positions), JSON Lines and class folders as ``load_texts``
  reads them, a TSV whose quotes are not CSV quoting included (read again after chunks were
  counted), a file cut off in its last line too; ``progress`` is told how far the reading is;
- ``TermSelector.fit_stats`` and ``ScalableTermSelector.fit_stats`` choose what ``fit`` chooses;
- ``textsel select`` on text, now counted chunk by chunk, writes byte for byte the selection made in
  memory with ``load_texts``, ``CountVectorizer``, ``TermSelector.fit`` and the CLI's own formatting.
"""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import write_csv, write_jsonl
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import CountVectorizer as SkCountVectorizer
from sklearn.feature_extraction.text import HashingVectorizer as SkHashingVectorizer
from sklearn.feature_extraction.text import TfidfVectorizer as SkTfidfVectorizer
from sklearn.preprocessing import MultiLabelBinarizer

import textsel
import textsel.text as ts
from textsel.cli import main
from textsel.cli.select import format_selection, selection_records
from textsel.datasets import load_sms_spam, load_texts
from textsel.datasets import texts as text_files
from textsel.text import TermCounter, words

# -- the corpus and the reference ------------------------------------------------------------------


@pytest.fixture(scope="module")
def sms():
    """The first 400 messages of the SMS Spam Collection (shipped with textsel) and their labels
    as strings ("ham", "spam")."""
    b = load_sms_spam()
    docs = list(b.data[:400])
    labels = np.asarray(b.target_names)[np.asarray(b.target[:400])]
    return docs, labels


def reference(docs, y, **settings):
    """scikit-learn's CountVectorizer fitted on all the documents at once, and term_stats of its
    matrix and all the labels: what the counter must equal."""
    vectorizer = SkCountVectorizer(**settings)
    X = vectorizer.fit_transform(docs)
    return textsel.term_stats(X, y), vectorizer


def assert_counted(counter, docs, y, **settings):
    """The counter's tables, vocabulary and feature names are the reference's."""
    expected, vectorizer = reference(docs, y, **settings)
    assert counter.stats_ == expected
    assert counter.vocabulary_ == vectorizer.vocabulary_
    assert list(counter.vocabulary_) == list(vectorizer.vocabulary_)  # in the order first seen
    np.testing.assert_array_equal(counter.get_feature_names_out(), vectorizer.get_feature_names_out())
    assert counter.n_docs_ == len(docs)
    return expected


def chunks_of(items, size):
    return [items[i : i + size] for i in range(0, len(items), size)]


SETTINGS = [
    {},
    {"min_df": 2, "max_df": 0.5},
    {"ngram_range": (1, 3), "stop_words": "english", "max_features": 50},
    {"lowercase": False},
    {"vocabulary": ["free", "call", "txt", "win", "now", "claim", "prize", "never-seen"]},
    {"vocabulary": {"ok": 2, "lar": 0, "u": 1, "home": 3}},
    {"min_df": 0.01},
    {"min_df": 0.005, "max_df": 0.2, "max_features": 100},
]


# -- the tables equal the reference's ---------------------------------------------------------------


@pytest.mark.parametrize("chunk_size", [1, 3, 10_000])
@pytest.mark.parametrize("settings", SETTINGS, ids=str)
def test_the_counts_equal_term_stats_of_scikit_learns_matrix_whatever_the_chunks(sms, settings, chunk_size):
    """fit in chunks of 1, 3 or more documents than the corpus holds counts the reference's
    tables, vocabulary and feature names exactly: the result does not depend on the chunking."""
    docs, y = sms
    counter = TermCounter(SkCountVectorizer(**settings)).fit(docs, y, chunk_size=chunk_size)
    assert_counted(counter, docs, y, **settings)


def test_max_features_is_cut_through_ties_as_scikit_learn_cuts_it(sms):
    """With n-grams, stop words and max_features=50 the 50th and 51st terms by count tie (so the
    cut depends on how ties are broken): the counter keeps scikit-learn's 50, chunk by chunk."""
    docs, y = sms
    settings = {"ngram_range": (1, 3), "stop_words": "english", "max_features": 50}
    every_term = SkCountVectorizer(**{**settings, "max_features": None}).fit_transform(docs)
    totals = np.sort(np.asarray(every_term.sum(axis=0)).ravel())[::-1]
    assert totals[49] == totals[50]  # the cut falls inside a tie
    counter = TermCounter(SkCountVectorizer(**settings))
    for part, labels in zip(chunks_of(docs, 7), chunks_of(y, 7), strict=True):
        counter.partial_fit(part, labels)
    assert_counted(counter, docs, y, **settings)


@pytest.mark.parametrize("n_jobs", [1, 2, 3])
def test_the_counts_do_not_depend_on_the_threads(sms, monkeypatch, many_cores, n_jobs):
    """On 1, 2 or 3 threads (every chunk split between the threads: the per-thread minimum of text
    lowered to one character) the tables are the reference's."""
    monkeypatch.setattr(words, "_MIN_CHARS_PER_THREAD", 1)
    splits = []
    chunks = words._chunks
    monkeypatch.setattr(
        words, "_chunks", lambda texts, n: splits.append(len(chunks(texts, n))) or chunks(texts, n)
    )
    docs, y = sms
    for settings in ({}, {"ngram_range": (1, 2), "min_df": 2}):
        counter = TermCounter(SkCountVectorizer(**settings), n_jobs=n_jobs).fit(docs, y, chunk_size=150)
        assert_counted(counter, docs, y, **settings)
    assert max(splits) == n_jobs  # the threads really shared the chunks


def test_any_count_vectorizer_gives_the_same_counts_and_vectorizer_transforms_into_its_columns(sms):
    """textsel's CountVectorizer, scikit-learn's TfidfVectorizer and no vectorizer at all (the
    default) read the words alike; ``vectorizer_.transform`` gives the columns of ``stats_``, and
    the vectorizer given is not changed."""
    docs, y = sms
    expected, _ = reference(docs, y, min_df=2)
    given = SkTfidfVectorizer(min_df=2, sublinear_tf=True)
    for vectorizer in (ts.CountVectorizer(min_df=2), given, ts.TfidfVectorizer(min_df=2)):
        counter = TermCounter(vectorizer).fit(docs, y, chunk_size=64)
        assert counter.stats_ == expected
        assert textsel.term_stats(counter.vectorizer_.transform(docs), y) == expected
    assert not hasattr(given, "vocabulary_")
    assert_counted(TermCounter().fit(docs, y, chunk_size=64), docs, y)


def test_partial_fit_adds_to_the_counts_and_fit_starts_over(sms):
    """``stats_`` read between chunks is the reference of the documents so far; a later
    partial_fit adds to it; fit starts from nothing (twice gives the same, not twice the counts)."""
    docs, y = sms
    counter = TermCounter().partial_fit(docs[:100], y[:100])
    assert_counted(counter, docs[:100], y[:100])
    counter.partial_fit(docs[100:], y[100:])
    assert_counted(counter, docs, y)
    counter.fit(docs[:50], y[:50]).fit(docs[:50], y[:50])
    assert_counted(counter, docs[:50], y[:50])


def test_fit_reads_generators_of_any_length(sms):
    """fit takes the documents and the labels as generators, read once, alongside."""
    docs, y = sms
    counter = TermCounter().fit((d for d in docs), (label for label in y), chunk_size=37)
    assert_counted(counter, docs, y)


# -- labels -----------------------------------------------------------------------------------------


def test_string_and_integer_labels(sms):
    """String labels and integer labels give the reference's tables, classes included."""
    docs, y = sms
    codes = np.where(y == "spam", 7, 3)
    for labels in (y, y.tolist(), codes, codes.tolist()):
        assert_counted(TermCounter().fit(docs, labels, chunk_size=50), docs, labels)


def test_classes_first_seen_in_a_late_chunk_and_a_chunk_of_one_class(sms):
    """A class that first appears in the last chunk (and sorts before the others) and chunks that
    each hold one class only: the classes are sorted, the tables the reference's."""
    docs, _ = sms
    for labels in (["b"] * 150 + ["c"] * 150 + ["a"] * 100, [5] * 200 + [9] * 150 + [-1] * 50):
        counter = TermCounter()
        for part, chunk_labels in zip(chunks_of(docs, 50), chunks_of(labels, 50), strict=True):
            assert len(set(chunk_labels)) == 1
            counter.partial_fit(part, chunk_labels)
        assert_counted(counter, docs, labels)
        assert counter.stats_.classes.tolist() == sorted(set(labels))


@pytest.mark.parametrize("sparse", [False, True])
def test_an_indicator_matrix_has_its_columns_for_classes(sms, sparse):
    """A 0/1 indicator (dense or sparse, a document in any number of classes, none included): the
    classes are the column indices, as term_stats gives them, with fit and with partial_fit."""
    docs, y = sms
    Y = np.column_stack([y == "spam", [len(d) > 60 for d in docs], np.zeros(len(docs), dtype=bool)]).astype(
        int
    )
    given = sp.csr_array(Y) if sparse else Y
    counter = TermCounter().fit(docs, given, chunk_size=33)
    assert_counted(counter, docs, Y)
    assert counter.stats_.multilabel and counter.stats_.classes.tolist() == [0, 1, 2]
    counter = TermCounter()
    for start in range(0, len(docs), 100):
        counter.partial_fit(docs[start : start + 100], given[start : start + 100])
    assert_counted(counter, docs, Y)


def multilabel_reference(docs, label_lists, **settings):
    """term_stats of scikit-learn's matrix and MultiLabelBinarizer's indicator, the classes named by
    the binarizer's sorted labels."""
    binarizer = MultiLabelBinarizer()
    Y = binarizer.fit_transform(label_lists)
    X = SkCountVectorizer(**settings).fit_transform(docs)
    return textsel.term_stats(X, Y, classes=binarizer.classes_)


def test_lists_of_labels_of_equal_length_are_multi_label(sms):
    """Two labels per document (a list, a tuple or a set), as partial_fit chunks: the classes are
    the labels, sorted, and the tables are MultiLabelBinarizer's + term_stats'."""
    docs, y = sms
    lists = [[label, "long" if len(d) > 60 else "short"] for d, label in zip(docs, y, strict=True)]
    expected = multilabel_reference(docs, lists)
    for kind in (list, tuple, set):
        counter = TermCounter()
        for part, chunk_labels in zip(chunks_of(docs, 64), chunks_of(lists, 64), strict=True):
            counter.partial_fit(part, [kind(labels) for labels in chunk_labels])
        assert counter.stats_ == expected
        assert counter.stats_.multilabel and counter.stats_.classes.tolist() == [
            "ham",
            "long",
            "short",
            "spam",
        ]


def test_lists_of_labels_of_different_lengths_are_multi_label(sms):
    """The usual multi-label data: some documents have one label, some two, some none."""
    docs, y = sms
    lists = [[label] + (["long"] if len(d) > 60 else []) for d, label in zip(docs, y, strict=True)]
    lists[0] = []
    counter = TermCounter().partial_fit(docs, lists)
    assert counter.stats_ == multilabel_reference(docs, lists)


def test_fit_reads_a_list_of_label_lists(sms):
    """fit takes label lists as partial_fit does (here two per document: numpy sees a 2-D list)."""
    docs, y = sms
    lists = [[label, "long" if len(d) > 60 else "short"] for d, label in zip(docs, y, strict=True)]
    counter = TermCounter().fit(docs, lists, chunk_size=50)
    assert counter.stats_ == multilabel_reference(docs, lists)


def test_a_nested_list_indicator_is_read_as_term_stats_reads_it():
    """``[[1, 0, 1], [0, 1, 0], [1, 1, 0]]`` is an indicator to term_stats (and to scikit-learn's
    type_of_target): the counter's tables must be the same."""
    docs = ["aa bb", "bb cc", "cc dd"]
    Y = [[1, 0, 1], [0, 1, 0], [1, 1, 0]]
    assert TermCounter().partial_fit(docs, Y).stats_ == reference(docs, Y)[0]


# -- errors -----------------------------------------------------------------------------------------


@pytest.fixture
def fitted(sms):
    """A counter that counted 100 messages in two chunks, the messages and labels after those, and
    a check that the counter is as before (its tables, and counting on from there still gives the
    reference: nothing of a refused chunk was kept)."""
    docs, y = sms
    counter = TermCounter().partial_fit(docs[:60], y[:60]).partial_fit(docs[60:100], y[60:100])
    before = counter.stats_

    def unchanged():
        assert counter.stats_ == before and counter.n_docs_ == 100
        counter.partial_fit(docs[100:200], y[100:200])
        assert_counted(counter, docs[:200], y[:200])

    return counter, docs[100:200], y[100:200], unchanged


def test_labels_not_one_per_document_are_refused(fitted):
    """Too few labels, an indicator of another height, no labels: a ValueError saying how many of
    each, and the counter unchanged."""
    counter, docs, y, unchanged = fitted
    with pytest.raises(ValueError, match="y has 99 labels for 100 documents"):
        counter.partial_fit(docs, y[:-1])
    with pytest.raises(ValueError, match="y has 3 rows for 100 documents"):
        counter.partial_fit(docs, np.eye(3, dtype=int))
    with pytest.raises(ValueError, match="y is required"):
        counter.partial_fit(docs, None)
    unchanged()


def test_a_none_document_is_named_by_its_index_in_the_whole_corpus(fitted):
    """The fourth document of the third chunk is document 103 of the corpus."""
    counter, docs, y, unchanged = fitted
    with pytest.raises(TypeError, match=r"document 103 is NoneType, not str or bytes"):
        counter.partial_fit([*docs[:3], None, *docs[4:]], y)
    with pytest.raises(TypeError, match="raw_documents must be an iterable of documents, got one str"):
        counter.partial_fit("one string", ["ham"])
    unchanged()


def test_a_nan_document_is_refused(fitted):
    """NaN in place of a document (a missing cell of a DataFrame): scikit-learn's ValueError, and
    the counter unchanged."""
    counter, docs, y, unchanged = fitted
    with pytest.raises(ValueError, match="np.nan is an invalid document"):
        counter.partial_fit([*docs[:3], np.nan, *docs[4:]], y)
    unchanged()


def test_a_nan_document_is_named_by_its_index_in_the_whole_corpus(fitted):
    """As a None document is: in a stream of chunks the index is the only way to find it."""
    counter, docs, y, _ = fitted
    with pytest.raises(ValueError, match="document 103"):
        counter.partial_fit([*docs[:3], np.nan, *docs[4:]], y)


def test_labels_of_another_kind_than_the_earlier_chunks_are_refused(fitted):
    """String labels after integer ones (and the reverse), 1-D labels after an indicator, label
    lists after an indicator: each a ValueError saying so, the counter unchanged."""
    counter, docs, y, unchanged = fitted
    with pytest.raises(ValueError, match=r"Mix of label input types \(number and string\)"):
        counter.partial_fit(docs, np.arange(len(docs)) % 2)
    unchanged()
    numbers = TermCounter().partial_fit(docs, np.arange(len(docs)) % 2)
    with pytest.raises(ValueError, match=r"Mix of label input types \(number and string\)"):
        numbers.partial_fit(docs, y)
    indicator = TermCounter().partial_fit(docs, np.eye(len(docs), 2, dtype=int))
    before = indicator.stats_
    with pytest.raises(ValueError, match="indicator of 2 columns per document"):
        indicator.partial_fit(docs, np.arange(len(docs)) % 2)
    with pytest.raises(ValueError, match="indicator of 2 columns per document"):
        indicator.partial_fit(docs, np.ones((len(docs), 3), dtype=int))
    with pytest.raises(ValueError, match="indicator of 2 columns per document"):
        indicator.partial_fit(docs, [["a", "b"]] + [["a"]] * (len(docs) - 1))
    assert indicator.stats_ == before


def test_label_lists_after_single_labels_make_the_corpus_multi_label(sms):
    """A file whose first documents have one label each and later ones several (JSON Lines reads
    so): the single labels are lists of one, and the tables are the multi-label reference's."""
    docs, y = sms
    lists = [[label] if i < 40 else [label, "late"] for i, label in enumerate(y)]
    counter = TermCounter().partial_fit(docs[:40], list(y[:40])).partial_fit(docs[40:], lists[40:])
    assert counter.stats_ == multilabel_reference(docs, lists)


@pytest.mark.parametrize("extra", [1, -1])
def test_fit_refuses_documents_and_labels_of_different_lengths(fitted, extra):
    """A document without a label or a label without a document: a ValueError saying which, and
    the counter keeps what it had counted before this fit (fits are all-or-nothing)."""
    counter, docs, y, unchanged = fitted
    given = list(docs) + ["one more"] if extra == 1 else docs[:-1]
    match = "raw_documents holds more documents than y has labels" if extra == 1 else "y has labels for more"
    with pytest.raises(ValueError, match=match):
        counter.fit(iter(given), iter(y), chunk_size=30)
    with pytest.raises(ValueError, match=match):
        counter.fit(given, y, chunk_size=1000)
    with pytest.raises(ValueError, match="chunk_size must be an integer >= 1"):
        counter.fit(docs, y, chunk_size=0)
    unchanged()


@pytest.mark.parametrize(
    "vectorizer, error, match",
    [
        (SkCountVectorizer(token_pattern=r"(?u)\b\w+\b"), ValueError, "default word analyzer"),
        (SkCountVectorizer(analyzer="char"), ValueError, "default word analyzer"),
        (SkCountVectorizer(tokenizer=str.split), ValueError, "default word analyzer"),
        (
            SkHashingVectorizer(),
            TypeError,
            "must be a CountVectorizer or TfidfVectorizer, got HashingVectorizer",
        ),
        (ts.HashingVectorizer(), TypeError, "must be a CountVectorizer or TfidfVectorizer"),
    ],
    ids=["token_pattern", "char", "tokenizer", "hashing", "textsel-hashing"],
)
def test_vectorizers_the_kernel_does_not_read_are_refused(vectorizer, error, match):
    """A custom token pattern, character n-grams or a tokenizer (ValueError saying what is read),
    a HashingVectorizer (TypeError): refused, and the counter stays unfitted."""
    counter = TermCounter(vectorizer)
    with pytest.raises(error, match=match):
        counter.partial_fit(["some words here"], ["x"])
    with pytest.raises(NotFittedError):
        counter.stats_  # noqa: B018


def test_nothing_is_read_before_a_fit():
    """stats_, vocabulary_, vectorizer_ and the feature names of an unfitted counter: scikit-learn's
    NotFittedError."""
    counter = TermCounter()
    for name in ("stats_", "vocabulary_", "vectorizer_", "get_feature_names_out"):
        with pytest.raises(NotFittedError):
            getattr(counter, name)() if name.startswith("get") else getattr(counter, name)


def test_documents_of_stop_words_only_have_an_empty_vocabulary():
    """Counting them is fine; reading the tables is scikit-learn's "empty vocabulary" error, and a
    later chunk with words makes the tables readable."""
    counter = TermCounter(SkCountVectorizer(stop_words="english"))
    counter.partial_fit(["the and of", "a an the"], ["x", "y"])
    with pytest.raises(ValueError, match="empty vocabulary"):
        counter.stats_  # noqa: B018
    with pytest.raises(ValueError, match="empty vocabulary"):
        SkCountVectorizer(stop_words="english").fit(["the and of", "a an the"])
    counter.partial_fit(["goal match", "the shares"], ["x", "y"])
    assert_counted(counter, ["the and of", "a an the", "goal match", "the shares"], ["x", "y"] * 2,
                   stop_words="english")  # fmt: skip
    with pytest.raises(ValueError, match="no documents to count"):
        TermCounter().fit([], [])


# -- settings that give other terms than scikit-learn's (bugs) --------------------------------------


def test_binary_with_max_features_keeps_scikit_learns_terms():
    """'aa' occurs 3 times in one document, 'bb' once in each of two: binary counts rank 'bb' first."""
    docs, y = ["aa aa aa", "bb", "bb cc"], ["x", "y", "x"]
    settings = {"binary": True, "max_features": 1}
    assert_counted(TermCounter(SkCountVectorizer(**settings)).partial_fit(docs, y), docs, y, **settings)


def test_a_small_count_dtype_with_max_features_keeps_scikit_learns_terms():
    """dtype=int8: 'common' occurs 130 times, 'rare' twice; scikit-learn keeps 'common'."""
    docs, y = ["common"] * 130 + ["rare rare"], ["x", "y"] * 65 + ["x"]
    settings = {"dtype": np.int8, "max_features": 1}
    assert_counted(TermCounter(SkCountVectorizer(**settings)).partial_fit(docs, y), docs, y, **settings)


def test_a_fitted_counter_pickles_and_counts_on(sms):
    """A scikit-learn estimator pickles: a counter saved half way counts on after loading."""
    docs, y = sms
    counter = pickle.loads(pickle.dumps(TermCounter().partial_fit(docs[:200], y[:200])))
    assert_counted(counter.partial_fit(docs[200:], y[200:]), docs, y)


# -- fit_file ---------------------------------------------------------------------------------------


def write_folder(root, rows):
    for i, (text, label) in enumerate(rows):
        (root / label).mkdir(parents=True, exist_ok=True)
        (root / label / f"{i:04d}.txt").write_text(text, encoding="utf-8")
    return root


def assert_like_load_texts(path, chunk_chars=50, **options):
    """fit_file gives term_stats of load_texts' documents and labels, or the same error."""
    try:
        b = load_texts(path, **options)
    except ValueError as exc:
        with pytest.raises(type(exc)) as raised:
            TermCounter().fit_file(path, chunk_chars=chunk_chars, **options)
        assert str(raised.value) == str(exc)
        return None
    y = b.target
    counter = TermCounter().fit_file(path, chunk_chars=chunk_chars, **options)
    if b.multilabel:
        assert counter.stats_ == multilabel_reference(
            b.data, [np.asarray(b.target_names)[row == 1] for row in y]
        )
    else:
        assert_counted(counter, b.data, y)
    return b


@pytest.mark.parametrize("chunk_chars", [1, 500, 10**8])
def test_fit_file_reads_csv_tsv_jsonl_and_folders_as_load_texts_does(sms, tmp_path, chunk_chars):
    """Each layout, in chunks of one document, of about 500 characters, or the whole file."""
    docs, y = sms
    rows = list(zip(docs, y.tolist(), strict=True))
    write_csv(tmp_path / "d.csv", rows)
    write_csv(tmp_path / "d.tsv", rows, delimiter="\t")
    write_csv(tmp_path / "n.tsv", [(label, text) for text, label in rows], delimiter="\t", header=("y", "x"))
    write_jsonl(tmp_path / "d.jsonl", rows)
    write_folder(tmp_path / "d", rows)
    for name, options in [("d.csv", {}), ("d.tsv", {}), ("n.tsv", {"text_column": "x", "label_column": "y"}),
                          ("n.tsv", {"text_column": 1, "label_column": 0, "header": True}),
                          ("d.jsonl", {}), ("d", {})]:  # fmt: skip
        b = assert_like_load_texts(tmp_path / name, chunk_chars, **options)
        assert sorted(b.data) == sorted(docs)


def test_fit_file_reads_json_lines_with_label_lists(sms, tmp_path):
    """Every record with two labels: the classes are the labels, sorted, and the tables those of
    MultiLabelBinarizer's indicator."""
    docs, y = sms
    rows = [(d, [label, "long" if len(d) > 60 else "short"]) for d, label in zip(docs, y, strict=True)]
    path = write_jsonl(tmp_path / "m.jsonl", rows)
    b = assert_like_load_texts(path, chunk_chars=300)
    assert b.multilabel
    counter = TermCounter().fit_file(path, chunk_chars=300)
    assert counter.stats_ == multilabel_reference(docs, [labels for _, labels in rows])


def test_fit_file_reads_json_lines_with_label_lists_of_different_lengths(sms, tmp_path):
    """A record with one label, one with two (as load_texts reads them)."""
    docs, y = sms
    rows = [(d, [label] + (["long"] if len(d) > 60 else [])) for d, label in zip(docs, y, strict=True)]
    TermCounter().fit_file(write_jsonl(tmp_path / "m.jsonl", rows))


def test_fit_file_reads_csv_labels_split_on_a_separator(tmp_path):
    """``label_separator=";"``: a row with two labels and a row with one."""
    path = write_csv(tmp_path / "m.csv", [("goal shares", "sport; finance"), ("goal match", "sport")])
    TermCounter().fit_file(path, label_separator=";")


def test_fit_file_reads_json_lines_mixing_single_labels_and_lists(tmp_path):
    """load_texts reads a string label among lists as a list of one; so must fit_file, though the
    first chunks hold no list."""
    rows = [("goal match", "sport"), ("shares market", "finance"), ("goal shares", ["finance", "sport"])] * 2
    path = write_jsonl(tmp_path / "m.jsonl", rows)
    assert load_texts(path).multilabel
    assert_like_load_texts(path, chunk_chars=5)  # a record a chunk: the first list comes in the third


SMS_LIKE = [
    "ham\tGo until jurong point, crazy.. Available only in bugis",
    "spam\tFree entry in 2 a wkly comp to win FA Cup final tkts",
    "ham\tOk lar... Joking wif u oni",
    "ham\tU dun say so early hor... U c already then say",
    'ham\t"Hi" she said, "how are you?" and left',
    'spam\tWINNER!! As a valued network customer you won a "prize"',
    'ham\t"Sorry, I\'ll call later"',
    "ham\tNah I don't think he goes to usf, he lives around here though",
]


def test_a_tsv_whose_quotes_are_not_csv_quoting_is_counted_as_load_texts_reads_it(tmp_path):
    """SMS-like lines, a message starting with ``"`` and text after the closing quote: with a chunk
    of about 10 characters, chunks are counted before the quotes show the file is not CSV-quoted;
    the reading starts over and the counts are load_texts' (quotes kept), not the first reading's
    plus the second's."""
    path = tmp_path / "sms.tsv"
    path.write_text("\n".join(SMS_LIKE) + "\n", encoding="utf-8")
    chunks = list(text_files.iter_texts(path, text_column=1, label_column=0, chunk_chars=10))
    assert chunks.index(None) >= 2  # the restart comes after chunks were counted
    b = assert_like_load_texts(path, chunk_chars=10, text_column=1, label_column=0)
    assert b.data[4] == '"Hi" she said, "how are you?" and left' and len(b.data) == len(SMS_LIKE)


def test_the_real_sms_collection_as_a_tsv_is_counted_as_load_texts_reads_it(tmp_path):
    """The whole SMS Spam Collection written back as its ``label<TAB>text`` lines (messages such
    as ``"Hello" ...`` included): read in 5,000-character chunks, started over after some chunks
    were counted, it gives the reference's tables."""
    b = load_sms_spam()
    names = np.asarray(b.target_names)[np.asarray(b.target)]
    path = tmp_path / "SMSSpamCollection.tsv"
    path.write_text("".join(f"{label}\t{text}\n" for label, text in zip(names, b.data, strict=True)), "utf-8")
    chunks = [c is None for c in text_files.iter_texts(path, text_column=1, label_column=0, chunk_chars=5000)]
    assert chunks.index(True) > 0
    loaded = assert_like_load_texts(path, chunk_chars=5000, text_column=1, label_column=0)
    assert loaded.data == list(b.data)


@pytest.mark.parametrize(
    "name, content",
    [
        ("last.csv", "text,label\nhello world,a\nfoo bar,b\nlast line,a"),
        ("label.csv", 'text,label\nhello world,a\nfoo bar,b\nlast line,"a'),
        ("text.csv", 'text,label\nhello world,a\nfoo bar,b\n"last line, cut'),
        ("last.tsv", "text\tlabel\nhello world\ta\nfoo bar\tb\nlast line\ta"),
        ("quote.tsv", 'text\tlabel\nhello world\ta\nfoo bar\tb\nlast line\t"a'),
        ("last.jsonl", '{"text": "hello world", "label": "a"}\n{"text": "foo bar", "label": "b"}'),
        ("cut.jsonl", '{"text": "hello world", "label": "a"}\n{"text": "foo bar", "lab'),
    ],
)
def test_a_file_cut_off_in_its_last_line_reads_as_load_texts_reads_it(tmp_path, name, content):
    """A last line without its newline, a last quoted field never closed, a last JSON record cut:
    fit_file gives load_texts' result, or its error."""
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    assert_like_load_texts(path, chunk_chars=3)


@pytest.mark.parametrize("layout", ["csv", "jsonl", "folder"])
def test_progress_is_told_the_bytes_read_up_to_the_file_size(tmp_path, layout):
    """After each chunk: (bytes read, bytes in all, documents counted); the bytes never go back and
    end at the file's size (a folder's: its files'), the documents grow to all of them."""
    rng = np.random.default_rng(0)
    vocabulary = [f"w{i}" for i in range(300)]
    n = 2000 if layout == "folder" else 20_000
    rows = [(" ".join(rng.choice(vocabulary, 15)), f"c{i % 3}") for i in range(n)]
    if layout == "csv":
        path = write_csv(tmp_path / "p.csv", rows)
        size = path.stat().st_size
    elif layout == "jsonl":
        path = write_jsonl(tmp_path / "p.jsonl", rows)
        size = path.stat().st_size
    else:
        path = write_folder(tmp_path / "p", rows)
        size = sum(f.stat().st_size for f in path.rglob("*.txt"))
    calls = []
    counter = TermCounter().fit_file(path, chunk_chars=20_000, progress=lambda *a: calls.append(a))
    done, totals, counted = (list(column) for column in zip(*calls, strict=True))
    assert len(calls) > 5 and len(set(done)) > 2
    assert done == sorted(done) and done[-1] == size and set(totals) == {size}
    assert counted == sorted(set(counted)) and counted[-1] == n == counter.n_docs_


def test_fit_file_refuses_what_load_texts_refuses(tmp_path):
    """A missing file, an unknown ending, an empty table: load_texts' errors."""
    with pytest.raises(FileNotFoundError):
        TermCounter().fit_file(tmp_path / "missing.csv")
    (tmp_path / "x.txt").write_text("hello")
    with pytest.raises(ValueError, match="unsupported format"):
        TermCounter().fit_file(tmp_path / "x.txt")
    with pytest.raises(ValueError, match="no documents"):
        TermCounter().fit_file(write_csv(tmp_path / "e.csv", []))


# -- fit_stats --------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["bns", "ig", "chi2"])
def test_term_selector_fit_stats_chooses_what_fit_chooses(sms, metric):
    """On the counter's tables (single-label and an indicator) the ranking, scores and the
    transformed matrix are those of fit on the vectorized matrix."""
    docs, y = sms
    Y = np.column_stack(
        [y == "spam", [len(d) > 60 for d in docs], ["call" in d.lower() for d in docs]]
    ).astype(int)
    for labels in (y, Y):
        counter = TermCounter().fit(docs, labels, chunk_size=64)
        X = SkCountVectorizer().fit_transform(docs)
        by_fit = textsel.TermSelector(metric, k=40).fit(X, labels)
        by_stats = textsel.TermSelector(metric, k=40).fit_stats(counter.stats_)
        np.testing.assert_array_equal(by_stats.ranking_, by_fit.ranking_)
        np.testing.assert_array_equal(by_stats.scores_, by_fit.scores_)
        np.testing.assert_array_equal(by_stats.classes_, by_fit.classes_)
        assert by_stats.n_features_in_ == X.shape[1]
        assert (by_stats.transform(counter.vectorizer_.transform(docs)) != by_fit.transform(X)).nnz == 0


def test_scalable_term_selector_fit_stats_chooses_what_fit_chooses(sms):
    """The lam searched on the counter's tables keeps the terms fit keeps on the matrix."""
    docs, y = sms
    counter = TermCounter().fit(docs, y, chunk_size=64)
    X = SkCountVectorizer().fit_transform(docs)
    by_fit = textsel.ScalableTermSelector(k=200).fit(X, y)
    by_stats = textsel.ScalableTermSelector(k=200).fit_stats(counter.stats_)
    np.testing.assert_array_equal(by_stats.get_support(), by_fit.get_support())
    assert by_stats.get_support().sum() > 0


@pytest.mark.parametrize("selector", [textsel.TermSelector, textsel.ScalableTermSelector])
def test_fit_stats_refuses_what_is_not_term_stats(selector, corpus):
    """A matrix or a string is a TypeError naming TermStats; a fitted selector keeps its model."""
    X, y = corpus
    fitted = selector(k=10).fit(X, y)
    support = fitted.get_support()
    for wrong in (X, "stats", None):
        with pytest.raises(TypeError, match="stats must be a TermStats"):
            fitted.fit_stats(wrong)
    np.testing.assert_array_equal(fitted.get_support(), support)


# -- textsel select ---------------------------------------------------------------------------------


def in_memory_selection(path, *, k=50, min_df=1, ngram_range=(1, 1), stop_words=None, **read):
    """What ``textsel select`` must write: load_texts, textsel's CountVectorizer, TermSelector.fit
    and the CLI's own records and formatting, all in memory."""
    b = load_texts(path, **read)
    vectorizer = ts.CountVectorizer(min_df=min_df, max_df=1.0, ngram_range=ngram_range, stop_words=stop_words)
    X = vectorizer.fit_transform(b.data)
    selector = textsel.TermSelector("bns", k=k).fit(X, b.target)
    terms = vectorizer.get_feature_names_out()[selector.ranking_]
    records = selection_records(selector, terms, b.target_names if b.multilabel else None)
    return format_selection(records, "tsv").encode("utf-8")


@pytest.fixture
def small_chunks(monkeypatch):
    """textsel select's text read in chunks of about 64 characters (its default is 16 MiB)."""
    read = text_files.iter_texts
    monkeypatch.setattr(text_files, "iter_texts", lambda *a, **kw: read(*a, **{**kw, "chunk_chars": 64}))


def three_classes(docs, y):
    """The messages in three classes: spam, short ham and long ham."""
    named = {True: "short", False: "long"}
    return [(d, "spam" if label == "spam" else named[len(d) < 40]) for d, label in zip(docs, y, strict=True)]


def select(path, tmp_path, *options):
    out = tmp_path / "selected.tsv"
    assert main(["select", str(path), "--k", "50", "--output", str(out), "--no-progress", *options]) == 0
    return out.read_bytes()


@pytest.mark.parametrize("chunks", ["default", "small"])
def test_select_on_a_csv_writes_the_in_memory_selection_byte_for_byte(sms, tmp_path, request, chunks):
    """Three classes, default settings, then --min-df 2 --ngram-range 1,2 --stop-words english; the
    text read whole or in chunks of 64 characters."""
    if chunks == "small":
        request.getfixturevalue("small_chunks")
    path = write_csv(tmp_path / "d.csv", three_classes(*sms))
    assert select(path, tmp_path) == in_memory_selection(path)
    options = ["--min-df", "2", "--ngram-range", "1,2", "--stop-words", "english"]
    expected = in_memory_selection(path, min_df=2, ngram_range=(1, 2), stop_words="english")
    assert select(path, tmp_path, *options) == expected
    binary = write_csv(tmp_path / "b.csv", list(zip(sms[0], sms[1].tolist(), strict=True)))
    expected = in_memory_selection(binary, min_df=2, ngram_range=(1, 2), stop_words="english")
    assert select(binary, tmp_path, *options) == expected


@pytest.mark.parametrize("chunks", ["default", "small"])
def test_select_on_multi_label_json_lines_writes_the_in_memory_selection(sms, tmp_path, request, chunks):
    """Two labels per record: the class columns are the labels, the selection the in-memory one."""
    if chunks == "small":
        request.getfixturevalue("small_chunks")
    docs, y = sms
    rows = [(d, [label, "long" if len(d) > 60 else "short"]) for d, label in zip(docs, y, strict=True)]
    path = write_jsonl(tmp_path / "m.jsonl", rows)
    assert select(path, tmp_path) == in_memory_selection(path)
    assert select(path, tmp_path, "--min-df", "2", "--ngram-range", "1,2", "--stop-words", "english") == (
        in_memory_selection(path, min_df=2, ngram_range=(1, 2), stop_words="english")
    )


def test_select_on_json_lines_with_label_lists_of_different_lengths(sms, tmp_path):
    """A JSON Lines file where some records have one label and some two (lists of different
    lengths): the in-memory selection."""
    docs, y = sms
    rows = [(d, [label] + (["long"] if len(d) > 60 else [])) for d, label in zip(docs, y, strict=True)]
    path = write_jsonl(tmp_path / "m.jsonl", rows)
    assert select(path, tmp_path) == in_memory_selection(path)


@pytest.mark.parametrize("compression", ["gzip", "bz2"])
def test_select_on_a_compressed_file_or_standard_input_is_the_in_memory_selection(
    sms, tmp_path, compression, monkeypatch
):
    """``d.csv.gz`` / ``d.csv.bz2`` and the same bytes on standard input: undone into a temporary
    file, then counted in chunks; the selection is the uncompressed file's in-memory one."""
    import bz2
    import gzip
    import io
    import sys

    path = write_csv(tmp_path / "d.csv", three_classes(*sms))
    packed = (gzip.compress if compression == "gzip" else bz2.compress)(path.read_bytes())
    suffix = ".gz" if compression == "gzip" else ".bz2"
    compressed = tmp_path / f"d.csv{suffix}"
    compressed.write_bytes(packed)
    expected = in_memory_selection(path)
    assert select(compressed, tmp_path) == expected
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(packed)))
    assert select("-", tmp_path, "--input-format", "csv") == expected


def test_select_progress_goes_to_stderr_only_when_asked(sms, tmp_path, capsys):
    """--progress: a line on stderr saying what was read (ended by a newline); --no-progress, and
    no option with stderr not a terminal: nothing on stderr."""
    path = write_csv(tmp_path / "d.csv", three_classes(*sms))
    assert main(["select", str(path), "--k", "5", "--progress"]) == 0
    err = capsys.readouterr().err
    assert "textsel: read" in err and "400 documents" in err and err.endswith("\n")
    assert main(["select", str(path), "--k", "5", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["select", str(path), "--k", "5"]) == 0  # stderr is not a terminal here
    assert capsys.readouterr().err == ""


def test_select_refuses_an_id_column_as_the_label(sms, tmp_path, capsys):
    """``--label-column id``: one class per document, refused in one line before any selection."""
    rows = [(d, label, f"id{i}") for i, (d, label) in enumerate(three_classes(*sms))]
    path = write_csv(tmp_path / "d.csv", rows, header=("text", "label", "id"))
    assert main(["select", str(path), "--k", "5", "--label-column", "id"]) == 1
    captured = capsys.readouterr()
    assert "nearly every document is its own class" in captured.err and "'id'" in captured.err
    assert captured.err.count("\n") == 1 and captured.out == ""


def test_select_judges_the_label_column_on_the_whole_file(tmp_path, capsys):
    """20 long documents each of its own class, then 40 short ones of one of them: load_texts'
    whole-file check accepts the column (20 classes for 60 documents), and so must the counting
    (2**24 characters a chunk)."""
    long_text = " ".join(["lorem ipsum dolor sit amet"] * 32_000)  # 864,000 characters
    rows = [(f"{long_text} word{i}", f"c{i}") for i in range(20)]  # the first 2**24-character chunk
    rows += [(f"short note {i}", "c0") for i in range(40)]
    path = write_jsonl(tmp_path / "big.jsonl", rows)
    assert len(load_texts(path).target_names) == 20
    assert main(["select", str(path), "--k", "5", "--no-progress"]) == 0, capsys.readouterr().err


# -- real corpora -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_20_newsgroups_is_counted_as_scikit_learn_vectorizes_it(data_home):
    """The 11,314 training messages in chunks of 2,000: the tables of scikit-learn's matrix, for the
    default settings and for bigrams with min_df=2 and English stop words."""
    from textsel.datasets import load_20newsgroups

    news = load_20newsgroups(data_home)
    docs, y = news.data_train, news.target_train
    for settings in ({}, {"ngram_range": (1, 2), "min_df": 2, "stop_words": "english"}):
        counter = TermCounter(SkCountVectorizer(**settings)).fit(docs, y, chunk_size=2000)
        assert_counted(counter, docs, y, **settings)
