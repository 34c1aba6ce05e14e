"""Term statistics counted straight from text, chunk by chunk: the table of per-class document
frequencies every filter metric reads, without the document-term matrix.

:class:`TermCounter` reads documents and labels as :class:`CountVectorizer` would read them and
keeps, per term, its document frequency overall and per class and its count (for
``max_features``): memory grows with the vocabulary times the classes, never with the documents.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._base import Estimator
from .._labels import encode_labels
from .._stats import TermStats, _label_kind
from ..datasets.texts import CHUNK_CHARS
from ..termstats import term_stats
from .words import _stack, vocabulary_of


class TermCounter(Estimator):
    """Per-class document frequencies of every term, counted from text in chunks.

    The documents are split into terms exactly as ``vectorizer`` splits them (the same vocabulary,
    after ``min_df``, ``max_df`` and ``max_features``, in the same order), and :attr:`stats_` equals
    ``textsel.term_stats(vectorizer.fit_transform(documents), labels)`` over all the documents
    counted, while only one chunk of text is in memory at a time.  Feed it with :meth:`partial_fit`
    chunk by chunk, :meth:`fit` on an iterable of any length, or :meth:`fit_file` on a file larger
    than memory; hand :attr:`stats_` to :meth:`textsel.TermSelector.fit_stats` or
    :func:`textsel.score`.

    Parameters
    ----------
    vectorizer : CountVectorizer, optional
        How to read the words: a ``CountVectorizer`` or ``TfidfVectorizer`` (textsel's or
        scikit-learn's), unfitted; its settings are read, it is not changed.  It must use the
        default word analyzer, which textsel's kernel reads (``analyzer="word"``, the default
        ``token_pattern``, no ``preprocessor``, ``tokenizer`` or ``strip_accents``; any
        ``lowercase``, ``stop_words``, ``ngram_range``, ``min_df``, ``max_df``, ``max_features``,
        ``vocabulary``, ``input``, ``encoding`` and ``decode_error``).  Default:
        ``CountVectorizer()``.
    n_jobs : int, default=None
        Threads counting each chunk's words: None or -1 for every core this process may use.  The
        result does not depend on it.

    Attributes
    ----------
    stats_ : TermStats
        The statistics of every document counted so far, columns in the vocabulary's order.
    vocabulary_ : dict
        Term to column, as the vectorizer's ``vocabulary_`` after ``fit`` on the same documents.
    vectorizer_ : CountVectorizer
        textsel's ``CountVectorizer`` with the vectorizer's settings and ``vocabulary_``: its
        ``transform`` gives the columns of :attr:`stats_`.
    n_docs_ : int
        Documents counted.

    Examples
    --------
    >>> from textsel.text import TermCounter
    >>> counter = TermCounter().partial_fit(["good film", "bad film"], ["pos", "neg"])
    >>> counter = counter.partial_fit(["good plot"], ["pos"])
    >>> counter.get_feature_names_out().tolist()
    ['bad', 'film', 'good', 'plot']
    >>> counter.stats_.class_df.tolist()
    [[1, 1, 0, 0], [0, 1, 2, 1]]
    """

    def __init__(self, vectorizer=None, n_jobs=None):
        self.vectorizer = vectorizer
        self.n_jobs = n_jobs

    # -- feeding it ---------------------------------------------------------------------------

    def partial_fit(self, raw_documents, y):
        """Count one chunk of documents.

        Parameters
        ----------
        raw_documents : iterable of str (or bytes, or file names, as the vectorizer's ``input``)
        y : array-like of shape (n_documents,), a sequence of label lists, or an indicator matrix
            One label per document; a list (tuple, set) of labels per document for multi-label
            text (the classes are then the labels, sorted); or a (n_documents, n_classes) 0/1
            indicator matrix, whose columns are the classes, as for :func:`textsel.term_stats`.

        Returns
        -------
        self

        A call that raises leaves the counter as it was: no document of the chunk is counted (the
        chunk's terms and counts join the tables in one last step, after everything that checks
        or reads it).
        """
        documents = raw_documents if isinstance(raw_documents, list) else list(raw_documents)
        if isinstance(raw_documents, str):
            raise TypeError("raw_documents must be an iterable of documents, got one str")
        if not hasattr(self, "_state"):
            self._state = _Counts(self._reader())
        self._state.add(documents, y, self.n_jobs)
        self.n_docs_ = self._state.n_docs
        self.__dict__.pop("_finished", None)
        return self

    def fit(self, raw_documents, y, *, chunk_size=10_000):
        """Count the documents of an iterable of any length, ``chunk_size`` at a time.

        Parameters
        ----------
        raw_documents : iterable of str
            Read once, in chunks: a generator over a corpus larger than memory is counted in
            memory bounded by its vocabulary.
        y : iterable of labels (or of label lists)
            One per document, read alongside; a document without a label, or a label without a
            document, is a ``ValueError``.
        chunk_size : int, default=10000
            Documents per chunk.

        Returns
        -------
        self
        """
        if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
            raise ValueError(f"chunk_size must be an integer >= 1, got {chunk_size!r}")
        if _is_indicator(y):  # its rows are the labels
            labels = (y[i : i + chunk_size] for i in range(0, _length(y), chunk_size))
        else:
            labels = _batches(iter(y), chunk_size)
        self._reset()
        documents = iter(raw_documents)
        counted = 0
        for chunk_labels in labels:
            chunk = _take(documents, _length(chunk_labels))
            if len(chunk) < _length(chunk_labels):
                held = counted + len(chunk)
                raise ValueError(f"y has labels for more documents than raw_documents holds ({held})")
            self.partial_fit(chunk, chunk_labels)
            counted += len(chunk)
        if next(documents, _END) is not _END:
            raise ValueError(f"raw_documents holds more documents than y has labels ({counted})")
        if counted == 0:
            raise ValueError("no documents to count")
        return self

    def fit_file(self, path, *, text_column="text", label_column="label", label_separator=None, fmt="auto",
                 encoding="utf-8", header="auto", chunk_chars=CHUNK_CHARS, progress=None):  # fmt: skip
        """Count the documents of a CSV/TSV or JSON Lines file, or a folder per class, a chunk at a
        time: a file larger than memory is counted in memory bounded by its vocabulary.

        The parameters are those of :func:`textsel.datasets.load_texts`, and the documents and
        labels are the ones it reads; ``chunk_chars`` is the characters of text per chunk and
        ``progress`` a callable given ``(bytes read, bytes in all, documents)`` after each chunk.

        Returns
        -------
        self
        """
        from ..datasets.texts import iter_texts

        self._reset()
        for chunk in iter_texts(path, text_column=text_column, label_column=label_column,
                                label_separator=label_separator, fmt=fmt, encoding=encoding, header=header,
                                chunk_chars=chunk_chars):  # fmt: skip
            if chunk is None:  # read again another way (a TSV file's quotes are not CSV quoting)
                self._reset()
                continue
            texts, labels, done = chunk
            self.partial_fit(texts, labels)
            if progress is not None:
                progress(*done, self.n_docs_)
        if not hasattr(self, "_state"):
            raise ValueError(f"{path}: no documents")
        return self

    def _reset(self) -> None:
        for name in ("_state", "n_docs_", "_finished"):
            self.__dict__.pop(name, None)

    def _reader(self):
        """textsel's CountVectorizer with the vectorizer's settings, checked."""
        from sklearn.feature_extraction.text import CountVectorizer as _SklearnCount

        from .vectorizers import CountVectorizer

        given = CountVectorizer() if self.vectorizer is None else self.vectorizer
        if not isinstance(given, _SklearnCount):
            raise TypeError(
                f"vectorizer must be a CountVectorizer or TfidfVectorizer, got {type(given).__name__}"
            )
        names = CountVectorizer().get_params()
        reader = CountVectorizer(**{k: v for k, v in given.get_params().items() if k in names})
        reader._validate_params()
        if not reader._fast():
            raise ValueError(
                "TermCounter reads the default word analyzer (analyzer='word', the default token_pattern, "
                "no preprocessor, tokenizer or strip_accents); for other settings vectorize the documents "
                "and count the matrix with textsel.term_stats"
            )
        reader._validate_ngram_range()
        reader._validate_vocabulary()
        reader.build_analyzer()  # scikit-learn's checks of the stop words
        return reader

    # -- what it counted ----------------------------------------------------------------------

    @property
    def stats_(self) -> TermStats:
        return self._finish()[0]

    @property
    def vocabulary_(self) -> dict:
        return self._finish()[1].vocabulary_

    @property
    def vectorizer_(self):
        return self._finish()[1]

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """The terms of the columns of :attr:`stats_`, as the vectorizer's."""
        return self.vectorizer_.get_feature_names_out()

    def _finish(self):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "n_docs_")
        if "_finished" not in self.__dict__:
            self.__dict__["_finished"] = self._state.finish()
        return self.__dict__["_finished"]

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "n_docs_")


_END = object()


def _batches(items, size):
    while True:
        batch = _take(items, size)
        if not batch:
            return
        yield batch


def _take(items, size) -> list:
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            break
    return batch


def _length(labels) -> int:
    return labels.shape[0] if hasattr(labels, "shape") else len(labels)


class _Counts:
    """The counter's tables: the terms (in the order first seen), per term its document frequency
    overall and per class (classes in the order first seen) and its count; the classes."""

    def __init__(self, reader):
        from .._ext.tokens import Vocabulary

        self.reader = reader
        self.fixed = bool(reader.fixed_vocabulary_)
        self.terms = reader._fixed_vocabulary() if self.fixed else Vocabulary()
        self.stop = reader._stop_vocabulary()
        self.class_df = np.zeros((len(self.terms), 0), dtype=np.int64)  # terms x classes
        self.df = np.zeros(len(self.terms), dtype=np.int64)
        self.tf = np.zeros(len(self.terms), dtype=np.int64)
        self.class_sizes = np.zeros(0, dtype=np.int64)
        self.n_docs = 0
        self.kind = None  # "labels", "lists" or an indicator's width
        self.classes: list = []  # in the order first seen
        self.position: dict = {}

    def add(self, documents, y, n_jobs) -> None:
        from .._ext.tokens import Vocabulary
        from .words import count_rows

        codes, new_classes, kind = self._codes(y, len(documents))
        texts = self.reader._texts(documents, first=self.n_docs)
        chunk_terms = self.terms if self.fixed else Vocabulary()
        rows = count_rows(texts, chunk_terms, self.stop, self.reader.ngram_range, self.fixed, n_jobs,
                          self.reader.lowercase)  # fmt: skip
        width = len(chunk_terms)
        # a chunk of stop words alone has no term; its documents still count (one empty column)
        X = _stack(rows, len(texts), max(width, 1), np.float64) if texts else sp.csr_array((0, width))
        n_classes = len(self.classes) + len(new_classes)
        counted = term_stats(X, codes, classes=np.arange(n_classes) if kind == "labels" else None,
                             n_jobs=n_jobs) if texts else None  # fmt: skip
        if counted is not None and width == 0:
            counted = TermStats(counted.class_df[:, :0], counted.df[:0], counted.class_sizes, counted.n_docs,
                                counted.classes, counted.multilabel)  # fmt: skip
        tf = np.bincount(X.indices, weights=X.data, minlength=width).astype(np.int64) if texts else None
        # the tables grown first, with room for every term of the chunk being new; after that,
        # nothing fails
        room = len(self.terms) + (0 if self.fixed else len(chunk_terms))
        class_df = _grown(self.class_df, room, n_classes)
        df, tf_all = _grown(self.df, room), _grown(self.tf, room)
        columns = np.arange(width) if self.fixed else self.terms.merge(chunk_terms)
        size = len(self.terms)
        self.class_df, self.df, self.tf = class_df[:size], df[:size], tf_all[:size]
        if counted is not None:  # a term's classes are side by side: one place in memory per term
            self.class_df[columns, : counted.n_classes] += counted.class_df.T
            self.df[columns] += counted.df
            self.tf[columns] += tf
            sizes = np.zeros(n_classes, dtype=np.int64)
            sizes[: counted.n_classes] = counted.class_sizes
        else:
            sizes = np.zeros(n_classes, dtype=np.int64)
        sizes[: self.class_sizes.size] += self.class_sizes
        self.class_sizes = sizes
        for label in new_classes:
            self.position[label] = len(self.classes)
            self.classes.append(label)
        self.kind = kind
        self.n_docs += len(texts)

    def _codes(self, y, n_docs):
        """The chunk's labels as term_stats takes them, classes numbered in the order first seen:
        (labels or an indicator, the classes new in this chunk, the kind of labels)."""
        if y is None:
            raise ValueError("y is required: one label (or list of labels) per document")
        if _is_indicator(y):
            Y = y if sp.issparse(y) else np.asarray(y)
            kind = int(Y.shape[1])
            if Y.shape[0] != n_docs:
                raise ValueError(f"y has {Y.shape[0]} rows for {n_docs} documents")
            self._check_kind(kind)
            return Y, list(range(len(self.classes), kind)), kind
        labels = y if isinstance(y, np.ndarray) else list(y)
        if len(labels) != n_docs:
            raise ValueError(
                f"y has {len(labels)} labels for {n_docs} documents: one label (or list) per document"
            )
        if n_docs == 0:  # says nothing of the labels to come
            return np.zeros(0, dtype=np.int64), [], self.kind
        if self.kind == "lists" or _is_lists(labels):
            # a single label is a list of one; a corpus of single labels so far becomes multi-label
            self._check_kind("lists")
            sets = [list(dict.fromkeys(one)) if _is_list(one) else [one] for one in labels]
            new = list(dict.fromkeys(name for names in sets for name in names if name not in self.position))
            code = {**self.position, **{name: len(self.classes) + i for i, name in enumerate(new)}}
            docs = np.repeat(np.arange(n_docs), [len(names) for names in sets])
            cols = np.fromiter((code[name] for names in sets for name in names), np.int64, count=docs.size)
            shape = (n_docs, len(self.classes) + len(new))
            return sp.csr_array((np.ones(docs.size, dtype=np.int8), (docs, cols)), shape=shape), new, "lists"
        self._check_kind("labels")
        found, positions = encode_labels(np.asarray(labels), None, "y")
        kinds = {_label_kind(found)} | ({_label_kind(np.asarray(self.classes))} if self.classes else set())
        if len(kinds) > 1:
            raise ValueError(f"Mix of label input types ({' and '.join(sorted(kinds))}): every chunk's "
                             "labels must be of one type")  # fmt: skip
        new = [label for label in found.tolist() if label not in self.position]
        code = {**self.position, **{label: len(self.classes) + i for i, label in enumerate(new)}}
        return np.array([code[label] for label in found.tolist()], dtype=np.int64)[positions], new, "labels"

    def _check_kind(self, kind) -> None:
        if self.kind is None or self.kind == kind or (self.kind, kind) == ("labels", "lists"):
            return
        earlier = {"labels": "one label", "lists": "a list of labels"}.get(
            self.kind, f"a row of an indicator of {self.kind} columns"
        )
        raise ValueError(f"y must be labelled like the earlier chunks: {earlier} per document")

    def finish(self):
        """(TermStats, fitted vectorizer): the columns in the vocabulary's order after the
        vectorizer's ``min_df``, ``max_df`` and ``max_features``, the classes sorted."""
        from .vectorizers import CountVectorizer

        reader = self.reader
        if self.fixed:
            columns = np.arange(len(self.terms))
            vocabulary = dict(reader.vocabulary_)
        else:
            if len(self.terms) == 0:
                raise ValueError("empty vocabulary; perhaps the documents only contain stop words")
            columns = _limited(self.terms.order(), self.df, self.tf, self.n_docs, reader)
            vocabulary = vocabulary_of(self.terms, columns)
        multilabel = self.kind != "labels"
        if self.kind == "labels" or self.kind == "lists":
            rows = np.argsort(np.asarray(self.classes), kind="stable")
            classes = np.asarray(self.classes)[rows]
        else:
            rows = np.arange(len(self.classes))
            classes = rows.copy()
        stats = TermStats(
            class_df=np.ascontiguousarray(self.class_df[columns][:, rows].T),
            df=self.df[columns],
            class_sizes=self.class_sizes[rows],
            n_docs=self.n_docs,
            classes=classes,
            multilabel=multilabel,
        )
        fitted = CountVectorizer(**reader.get_params())
        fitted.vocabulary_ = vocabulary
        fitted.fixed_vocabulary_ = self.fixed
        return stats, fitted


def _is_list(entry) -> bool:
    return isinstance(entry, (list, tuple, set, frozenset, np.ndarray))


def _is_lists(y) -> bool:
    """Whether ``y`` lists labels per document (multi-label text): any entry a list, tuple or set."""
    if isinstance(y, np.ndarray) and y.dtype.kind != "O":
        return False
    return any(_is_list(entry) for entry in y)


def _is_indicator(y) -> bool:
    """Whether ``y`` is an indicator matrix, as :func:`textsel.term_stats` reads one: sparse, or
    2-D numbers (a list of equally long lists of 0 and 1 included); lists of label names, or of
    different lengths, are labels."""
    if sp.issparse(y):
        return True
    if not isinstance(y, (np.ndarray, list, tuple)):
        return False
    try:
        array = np.asarray(y)
    except ValueError:  # lists of different lengths
        return False
    return array.ndim == 2 and array.dtype.kind in "biuf"


def _grown(table, size, classes=None):
    """``table`` (over the terms, or terms x ``classes``) with zeros to ``size`` terms, in a
    buffer with room to spare: buffers grow by half again, as Python's lists grow, so that adding
    the terms of chunk after chunk copies each table a few times only."""
    base = table.base if isinstance(table.base, np.ndarray) and table.base.ndim == table.ndim else table
    height = base.shape[0] if base.shape[0] >= size else max(size, base.shape[0] + base.shape[0] // 2)
    if table.ndim == 1:
        if height > base.shape[0]:
            base = np.zeros(height, dtype=np.int64)
            base[: table.shape[0]] = table
        return base
    if height > base.shape[0] or base.shape[1] < classes:
        grown = np.zeros((height, max(classes, base.shape[1])), dtype=np.int64)
        grown[: table.shape[0], : table.shape[1]] = table
        base = grown
    return base[:, :classes]


def _limited(order, df, tf, n_docs, reader) -> np.ndarray:
    """The terms' ids, sorted, that scikit-learn's ``fit`` keeps under the reader's ``min_df``,
    ``max_df`` and ``max_features`` (its ``_limit_features``, tie for tie)."""
    from numbers import Integral

    high = reader.max_df if isinstance(reader.max_df, Integral) else reader.max_df * n_docs
    low = reader.min_df if isinstance(reader.min_df, Integral) else reader.min_df * n_docs
    if high < low:
        raise ValueError("max_df corresponds to < documents than min_df")
    dfs = df[order]
    mask = (dfs <= high) & (dfs >= low)
    limit = reader.max_features
    if limit is not None and mask.sum() > limit:
        # scikit-learn ranks by its matrix's column sums (after binary=True made every count 1), in
        # the type numpy sums that dtype in: ties are then broken as its sort breaks them
        tfs = (df if reader.binary else tf)[order].astype(np.sum(np.zeros(1, dtype=reader.dtype)).dtype)
        picked = (-tfs[mask]).argsort()[:limit]
        new_mask = np.zeros(len(dfs), dtype=bool)
        new_mask[np.where(mask)[0][picked]] = True
        mask = new_mask
    kept = order[mask]
    if kept.size == 0:
        raise ValueError("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
    return kept
