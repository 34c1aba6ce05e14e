"""The word kernel behind the vectorizers: which settings it reads words for, the documents as it
reads them, and scikit-learn's private steps of counting (``_count_vocab``, ``_sort_features``,
``_limit_features``) on it; documents split over threads and their rows put back together."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction import text as _sklearn

from .._parallel import effective_n_jobs, run_blocks

#: scikit-learn's default token pattern: the one the kernel reads words by
DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
#: characters of text per thread below which a call stays on one thread
_MIN_CHARS_PER_THREAD = 1 << 20


def _align(X):
    """The sparse container scikit-learn's vectorizers return under the current configuration."""
    align = getattr(_sklearn, "_align_api_if_sparse", None)
    return align(X) if align is not None else X


class _Counts:
    """What the kernel counted, while scikit-learn's ``fit_transform`` sorts and prunes the
    columns: the terms (``Vocabulary``) and, for each column kept, its term's id."""

    def __init__(self, terms, columns):
        self.terms, self.columns = terms, columns
        self.kept = None  # the columns of the matrix pruning keeps, where it has not dropped them yet


class _WordKernel:
    """What the three vectorizers share: whether the kernel reads their words, and the documents
    as it reads them."""

    def _fast(self) -> bool:
        return (
            self.analyzer == "word"
            and self.preprocessor is None
            and self.tokenizer is None
            and self.strip_accents is None
            and self.token_pattern == DEFAULT_TOKEN_PATTERN
        )

    def _texts(self, raw_documents, first: int = 0) -> list:
        """Each document decoded as scikit-learn decodes it (``input``, ``encoding``,
        ``decode_error``); errors number the documents from ``first``.  Not lowercased: the
        kernel lowercases as it reads (``count_rows``' ``lowercase``)."""
        from .._ext.tokens import plain_texts

        return plain_texts(raw_documents, self._decoded, self.input == "content", first)

    def _decoded(self, doc, position: int) -> str:
        """One document that is not plainly a str, decoded; scikit-learn's errors, saying which
        document."""
        if isinstance(doc, float) and doc != doc:
            raise ValueError(f"np.nan is an invalid document, expected byte or unicode string (document "
                             f"{position})")  # fmt: skip
        try:
            doc = self.decode(doc)
        except UnicodeDecodeError as exc:
            reason = f"{exc.reason} in document {position} (decode_error='ignore' or 'replace' reads on)"
            raise UnicodeDecodeError(exc.encoding, exc.object, exc.start, exc.end, reason) from None
        if not isinstance(doc, str):
            kind = type(doc).__name__
            raise TypeError(f"document {position} is {kind}, not str or bytes (raw_documents must hold text)")
        return doc

    def _stop_vocabulary(self):
        from .._ext.tokens import Vocabulary

        stop = self.get_stop_words()
        if not stop:
            return None
        words = Vocabulary()
        words.add([w for w in stop if isinstance(w, str)])
        return words


class _FastCounting(_WordKernel):
    """The kernel in place of scikit-learn's ``_count_vocab``, ``_sort_features`` and
    ``_limit_features`` where the analyzer is the default word analyzer; scikit-learn's own
    otherwise.  ``fit_transform``, ``transform`` and the rest are scikit-learn's."""

    def _count_vocab(self, raw_documents, fixed_vocab):
        if not self._fast():
            return super()._count_vocab(raw_documents, fixed_vocab)
        from .._ext.tokens import Vocabulary

        self.build_analyzer()  # scikit-learn's checks of the settings (stop words' consistency)
        texts = self._texts(raw_documents)
        if fixed_vocab:  # the dict as it stands: transform reads only its terms (_fixed_vocabulary)
            terms, vocabulary = self._fixed_vocabulary(), self.__dict__["vocabulary_"]
        else:
            terms, vocabulary = Vocabulary(), {}
        counted = count_rows(texts, terms, self._stop_vocabulary(), self.ngram_range, fixed_vocab,
                             getattr(self, "n_jobs", None), self.lowercase)  # fmt: skip
        if not fixed_vocab:
            if len(terms) == 0:
                raise ValueError("empty vocabulary; perhaps the documents only contain stop words")
            self._counted = (vocabulary, _Counts(terms, np.arange(len(terms), dtype=np.int64)))
        X = _stack(counted, len(texts), len(terms), self.dtype)
        return vocabulary, _align(X)

    def _fixed_vocabulary(self):
        """The fitted (or given) vocabulary as the kernel looks terms up: term id = column.  From
        the counted terms where ``vocabulary_`` is still to be filled, without filling it."""
        from .._ext.tokens import Vocabulary

        vocabulary, unfilled = self.__dict__["vocabulary_"], self._unfilled()
        size = len(unfilled[2]) if unfilled is not None else len(vocabulary)
        cached = self.__dict__.get("_kernel_vocabulary")
        if cached is not None and cached[0] is vocabulary and len(cached[1]) == size:
            return cached[1]
        if unfilled is not None:
            terms = unfilled[1].subset(unfilled[2])
        else:
            by_column = [None] * size  # scikit-learn checked: the columns are 0 .. n-1
            for term, column in vocabulary.items():
                by_column[column] = term
            terms = Vocabulary()
            if not np.array_equal(terms.add(by_column), np.arange(size)):
                raise ValueError("vocabulary holds a term twice or leaves a column without a term")
        self.__dict__["_kernel_vocabulary"] = (vocabulary, terms)
        return terms

    # -- vocabulary_, filled when first read ------------------------------------------------------
    # fit_transform leaves the dict empty and keeps the counted terms beside it: a pipeline that
    # never reads vocabulary_ (transform counts by the terms themselves) never builds its strings.

    def _unfilled(self):
        """``(dict, terms, columns)`` where ``vocabulary_`` is still to be filled from the counted
        terms (column k holds term ``columns[k]``), else None."""
        unfilled = self.__dict__.get("_unfilled_vocabulary")
        if unfilled is not None and unfilled[0] is self.__dict__.get("vocabulary_"):
            return unfilled
        return None

    @property
    def vocabulary_(self) -> dict:
        """A mapping of terms to column indices, as scikit-learn's."""
        state = self.__dict__
        unfilled = self._unfilled()
        if unfilled is not None:
            vocabulary, terms, columns = unfilled
            if not vocabulary:  # one update, under the GIL: a concurrent reader sees it all or none
                vocabulary.update(vocabulary_of(terms, columns))
            state.pop("_unfilled_vocabulary", None)
        try:
            return state["vocabulary_"]
        except KeyError:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute 'vocabulary_'") from None

    @vocabulary_.setter
    def vocabulary_(self, value) -> None:
        self.__dict__["vocabulary_"] = value
        if self.__dict__.get("_unfilled_vocabulary", (value,))[0] is not value:
            del self.__dict__["_unfilled_vocabulary"]

    @vocabulary_.deleter
    def vocabulary_(self) -> None:
        self.__dict__.pop("_unfilled_vocabulary", None)
        try:
            del self.__dict__["vocabulary_"]
        except KeyError:
            raise AttributeError("vocabulary_") from None

    def _check_vocabulary(self):
        if self._unfilled() is None:  # fitted with terms: fitted, and not empty
            super()._check_vocabulary()

    # -- scikit-learn's fit_transform sorts and prunes what was counted ---------------------------

    def _sort_features(self, X, vocabulary):
        counted = self.__dict__.get("_counted")
        if counted is None or counted[0] is not vocabulary:
            return super()._sort_features(X, vocabulary)
        state = counted[1]
        new_order = state.terms.order(state.columns)
        if state.kept is not None:  # pruned and sorted in one pass (see _limit_features)
            from .._ext.submatrix import mapped_columns

            map_index = np.full(X.shape[1], -1, dtype=X.indices.dtype)
            map_index[state.kept[new_order]] = np.arange(new_order.size, dtype=X.indices.dtype)
            pruned = mapped_columns(X.data, X.indices, X.indptr, map_index)
            X = type(X)(pruned, shape=(X.shape[0], new_order.size))
            state.kept = None
        else:  # renumbered in place (the kernel's own array), in runs on the threads
            from .._ext.submatrix import map_in_place

            map_index = np.empty(new_order.size, dtype=X.indices.dtype)
            map_index[new_order] = np.arange(new_order.size, dtype=X.indices.dtype)
            n, runs = X.indices.size, effective_n_jobs(getattr(self, "n_jobs", None))
            runs = max(1, min(runs, n // (1 << 18)))
            run_blocks(
                map_in_place,
                [(X.indices, map_index, n * r // runs, n * (r + 1) // runs) for r in range(runs)],
            )
        state.columns = state.columns[new_order]
        if self.max_features is None:  # fit_transform prunes, then sorts: the vocabulary is final
            self._finish(vocabulary)
        return X

    def _limit_features(self, X, vocabulary, high=None, low=None, limit=None):
        counted = self.__dict__.get("_counted")
        if counted is None or counted[0] is not vocabulary:
            return super()._limit_features(X, vocabulary, high, low, limit)
        state = counted[1]
        if limit is None and (high is None or high >= X.shape[0]) and (low is None or low <= 1):
            high = low = None  # every term is in 1 to all documents: nothing to prune
        if high is not None or low is not None or limit is not None:
            from .._ext.submatrix import column_counts

            dfs = column_counts(X.indices, X.shape[1])
            mask = np.ones(len(dfs), dtype=bool)
            if high is not None:
                mask &= dfs <= high
            if low is not None:
                mask &= dfs >= low
            if limit is not None and mask.sum() > limit:  # scikit-learn's choice, tie for tie
                tfs = np.asarray(X.sum(axis=0)).ravel()
                mask_inds = (-tfs[mask]).argsort()[:limit]
                new_mask = np.zeros(len(dfs), dtype=bool)
                new_mask[np.where(mask)[0][mask_inds]] = True
                mask = new_mask
            kept = np.where(mask)[0]
            if len(kept) == 0:
                raise ValueError("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
            if len(kept) < len(mask):  # every column kept: scikit-learn's slice would copy X as it is
                state.columns = state.columns[kept]
                if self.max_features is None:  # the columns are sorted next: both done in one pass there
                    state.kept = kept
                else:
                    X = X[:, kept]
        if self.max_features is not None:  # fit_transform sorts, then prunes: the vocabulary is final
            self._finish(vocabulary)
        return X

    def _finish(self, vocabulary: dict) -> None:
        """Keep the terms of the columns beside ``vocabulary`` (the dict ``fit_transform`` makes
        ``vocabulary_``), which is filled with them when first read."""
        state = self.__dict__.pop("_counted")[1]
        self.__dict__["_unfilled_vocabulary"] = (vocabulary, state.terms, state.columns)

    def __getstate__(self):
        if self._unfilled() is not None:
            self.vocabulary_  # noqa: B018 (filled: a pickle holds the dict, not the kernel's terms)
        state = super().__getstate__()
        state.pop("_unfilled_vocabulary", None)
        state.pop("_kernel_vocabulary", None)
        state.pop("_counted", None)
        return state


def vocabulary_of(terms, columns) -> dict:
    """``{term: column}`` for the terms of ids ``columns`` (column k holds term ``columns[k]``),
    in the order the terms were first seen, as scikit-learn's dict holds them."""
    return terms.columns_of(np.ascontiguousarray(columns, dtype=np.int64))


def count_rows(texts, terms, stop, ngram_range, fixed: bool, n_jobs, lowercase: bool) -> list:
    """The documents' rows of term counts, counted on threads: one ``(indptr, ids, counts)`` per
    run of documents, the ids those of ``terms``, the words lowercased as ``str.lower()`` would
    where ``lowercase``.  Unless ``fixed`` (terms not in ``terms`` are
    then skipped), new terms join ``terms`` numbered as one thread reading the documents in order
    would number them, so the result does not depend on ``n_jobs``."""
    from .._ext.ccore import Interrupt, check_status
    from .._ext.tokens import Vocabulary, count_terms, remap_rows

    low, high = ngram_range
    interrupt = Interrupt()
    parts = [
        (texts[a:b], terms if (fixed or k == 0) else Vocabulary())
        for k, (a, b) in enumerate(_chunks(texts, effective_n_jobs(n_jobs)))
    ]

    def count(part, vocab):
        status, indptr, ids, counts = count_terms(part, vocab, stop, low, high, fixed, interrupt, lowercase)
        check_status(status, "counting words", interrupt)
        return indptr, ids, counts, vocab

    counted = run_blocks(count, parts, interrupt)
    if not fixed and len(counted) > 1:
        # the threads' new terms numbered after the first's, in order (one thread); their rows
        # renumbered and sorted again on every thread, in runs of rows of about equal size
        maps = [terms.merge(vocab) for *_, vocab in counted[1:]]
        runs = [
            (indptr, ids, counts, mapping, a, b)
            for (indptr, ids, counts, _), mapping in zip(counted[1:], maps, strict=True)
            for a, b in _row_runs(indptr, len(counted))
        ]
        run_blocks(remap_rows, runs, interrupt)
    return [part[:3] for part in counted]


def _row_runs(indptr, n_runs: int):
    """Consecutive runs of rows of about equal numbers of entries."""
    n = indptr.size - 1
    cuts = np.searchsorted(indptr, indptr[-1] * np.arange(1, n_runs) / n_runs, side="right") - 1
    bounds = [0, *np.unique(np.clip(cuts, 0, n)).tolist(), n]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def _chunks(texts, n_threads: int):
    """Consecutive runs of documents of about equal length, one per thread (one for small calls)."""
    n = len(texts)
    if n_threads <= 1 or n < 2:
        return [(0, n)]
    ends = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=n))
    n_threads = int(min(n_threads, n, max(1, ends[-1] // _MIN_CHARS_PER_THREAD)))
    if n_threads <= 1:
        return [(0, n)]
    cuts = np.searchsorted(ends, ends[-1] * np.arange(1, n_threads) / n_threads, side="right")
    bounds = [0, *np.unique(np.clip(cuts, 1, n - 1)).tolist(), n]
    return list(zip(bounds[:-1], bounds[1:], strict=True))


def _stack(counted, n_docs: int, n_terms: int, dtype):
    """The threads' rows as one CSR array of ``dtype``, as scikit-learn's ``_count_vocab`` builds
    it (32-bit indices while they fit)."""
    nnz = sum(part[1].size for part in counted)
    index_dtype = (
        np.int32 if nnz <= np.iinfo(np.int32).max and n_terms <= np.iinfo(np.int32).max else np.int64
    )
    indptr = np.empty(n_docs + 1, dtype=index_dtype)
    indptr[0] = 0
    row, offset = 0, 0
    for part_indptr, _, _ in counted:
        rows = part_indptr.size - 1
        indptr[row + 1 : row + rows + 1] = part_indptr[1:] + offset
        row, offset = row + rows, offset + int(part_indptr[-1])
    indices = _joined([part[1] for part in counted], index_dtype)
    data = _joined([part[2] for part in counted], dtype)
    X = sp.csr_array((data, indices, indptr), shape=(n_docs, n_terms))
    X.has_sorted_indices = True
    return X


def _joined(arrays, dtype):
    """The threads' arrays (fresh, the kernel's: used up here) end to end in ``dtype``: the one
    array itself where it is alone, cast in its own memory where it can be; several copied and
    cast each on a thread."""
    if len(arrays) == 1:
        from .._ext.tokens import recast

        if arrays[0].dtype == dtype:
            return arrays[0]
        cast = recast(arrays[0], dtype)
        if cast is not None:
            return cast
        return arrays[0].astype(dtype)
    ends = np.cumsum([0, *(a.size for a in arrays)])
    out = np.empty(int(ends[-1]), dtype=dtype)

    def copy(k):  # numpy copies and casts without the GIL: the threads' parts side by side
        np.copyto(out[ends[k] : ends[k + 1]], arrays[k], casting="unsafe")

    run_blocks(copy, [(k,) for k in range(len(arrays))])
    return out
