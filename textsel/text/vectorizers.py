"""scikit-learn's three text vectorizers, with textsel's kernel in the steps that split and count
(or hash) the words; see :mod:`textsel.text`."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.feature_extraction import text as _sklearn

from .._parallel import effective_n_jobs, run_blocks
from .words import DEFAULT_TOKEN_PATTERN, _align, _chunks, _FastCounting, _stack, _WordKernel

_N_JOBS = {"n_jobs": [Integral, None]}  # its values are checked where it is read (check_n_jobs)


class CountVectorizer(_FastCounting, _sklearn.CountVectorizer):
    """scikit-learn's ``CountVectorizer``, with its words counted by textsel's kernel.

    The same class (a subclass): every parameter, attribute and method is scikit-learn's, and the
    vocabulary and the matrix are the ones scikit-learn's own class gives, entry for entry; only
    the counting runs in C on threads where the analyzer is the default word analyzer (see
    :mod:`textsel.text`; any other setting runs scikit-learn's code).

    Parameters
    ----------
    input, encoding, decode_error, strip_accents, lowercase, preprocessor, tokenizer, \
stop_words, token_pattern, ngram_range, analyzer, max_df, min_df, max_features, vocabulary, \
binary, dtype
        As scikit-learn's ``sklearn.feature_extraction.text.CountVectorizer``.
    n_jobs : int, default=None
        Threads counting the words: None or -1 for every core this process may use, a count
        capped at them.  The result does not depend on it.

    Attributes
    ----------
    vocabulary_ : dict
        A mapping of terms to column indices, as scikit-learn's, built when first read.
    fixed_vocabulary_ : bool
        True if a vocabulary of term to indices mapping was given by the user.
    """

    _parameter_constraints = {**_sklearn.CountVectorizer._parameter_constraints, **_N_JOBS}

    def __init__(
        self,
        *,
        input="content",
        encoding="utf-8",
        decode_error="strict",
        strip_accents=None,
        lowercase=True,
        preprocessor=None,
        tokenizer=None,
        stop_words=None,
        token_pattern=DEFAULT_TOKEN_PATTERN,
        ngram_range=(1, 1),
        analyzer="word",
        max_df=1.0,
        min_df=1,
        max_features=None,
        vocabulary=None,
        binary=False,
        dtype=np.int64,
        n_jobs=None,
    ):
        super().__init__(
            input=input,
            encoding=encoding,
            decode_error=decode_error,
            strip_accents=strip_accents,
            lowercase=lowercase,
            preprocessor=preprocessor,
            tokenizer=tokenizer,
            stop_words=stop_words,
            token_pattern=token_pattern,
            ngram_range=ngram_range,
            analyzer=analyzer,
            max_df=max_df,
            min_df=min_df,
            max_features=max_features,
            vocabulary=vocabulary,
            binary=binary,
            dtype=dtype,
        )
        self.n_jobs = n_jobs


class TfidfVectorizer(_FastCounting, _sklearn.TfidfVectorizer):
    """scikit-learn's ``TfidfVectorizer``, with its words counted by textsel's kernel.

    The same class (a subclass): every parameter, attribute and method is scikit-learn's, and the
    vocabulary and the matrix are the ones scikit-learn's own class gives, entry for entry; only
    the counting runs in C on threads where the analyzer is the default word analyzer (see
    :mod:`textsel.text`; any other setting runs scikit-learn's code).

    Parameters
    ----------
    input, encoding, decode_error, strip_accents, lowercase, preprocessor, tokenizer, analyzer, \
stop_words, token_pattern, ngram_range, max_df, min_df, max_features, vocabulary, binary, dtype, \
norm, use_idf, smooth_idf, sublinear_tf
        As scikit-learn's ``sklearn.feature_extraction.text.TfidfVectorizer``.
    n_jobs : int, default=None
        Threads counting the words: None or -1 for every core this process may use, a count
        capped at them.  The result does not depend on it.

    Attributes
    ----------
    vocabulary_ : dict
        A mapping of terms to column indices, as scikit-learn's, built when first read.
    fixed_vocabulary_ : bool
        True if a vocabulary of term to indices mapping was given by the user.
    idf_ : ndarray of shape (n_features,)
        The inverse document frequency vector (with ``use_idf``), as scikit-learn's.
    """

    _parameter_constraints = {**_sklearn.TfidfVectorizer._parameter_constraints, **_N_JOBS}

    def __init__(
        self,
        *,
        input="content",
        encoding="utf-8",
        decode_error="strict",
        strip_accents=None,
        lowercase=True,
        preprocessor=None,
        tokenizer=None,
        analyzer="word",
        stop_words=None,
        token_pattern=DEFAULT_TOKEN_PATTERN,
        ngram_range=(1, 1),
        max_df=1.0,
        min_df=1,
        max_features=None,
        vocabulary=None,
        binary=False,
        dtype=np.float64,
        norm="l2",
        use_idf=True,
        smooth_idf=True,
        sublinear_tf=False,
        n_jobs=None,
    ):
        super().__init__(
            input=input,
            encoding=encoding,
            decode_error=decode_error,
            strip_accents=strip_accents,
            lowercase=lowercase,
            preprocessor=preprocessor,
            tokenizer=tokenizer,
            analyzer=analyzer,
            stop_words=stop_words,
            token_pattern=token_pattern,
            ngram_range=ngram_range,
            max_df=max_df,
            min_df=min_df,
            max_features=max_features,
            vocabulary=vocabulary,
            binary=binary,
            dtype=dtype,
            norm=norm,
            use_idf=use_idf,
            smooth_idf=smooth_idf,
            sublinear_tf=sublinear_tf,
        )
        self.n_jobs = n_jobs


class HashingVectorizer(_WordKernel, _sklearn.HashingVectorizer):
    """scikit-learn's ``HashingVectorizer``, with its words hashed by textsel's kernel.

    The same class (a subclass): every parameter and method is scikit-learn's, and the matrix is
    the one scikit-learn's own class gives, entry for entry: each word or n-gram in column
    ``abs(h) % n_features`` of ``h``, the signed 32-bit MurmurHash3 of its UTF-8 bytes.  Only the
    splitting and hashing run in C on threads where the analyzer is the default word analyzer (see
    :mod:`textsel.text`; any other setting, or a word holding a lone surrogate, runs scikit-learn's
    code).

    Parameters
    ----------
    input, encoding, decode_error, strip_accents, lowercase, preprocessor, tokenizer, \
stop_words, token_pattern, ngram_range, analyzer, n_features, binary, norm, alternate_sign, dtype
        As scikit-learn's ``sklearn.feature_extraction.text.HashingVectorizer``.
    n_jobs : int, default=None
        Threads hashing the words: None or -1 for every core this process may use, a count
        capped at them.  The result does not depend on it.
    """

    _parameter_constraints = {**_sklearn.HashingVectorizer._parameter_constraints, **_N_JOBS}

    def __init__(
        self,
        *,
        input="content",
        encoding="utf-8",
        decode_error="strict",
        strip_accents=None,
        lowercase=True,
        preprocessor=None,
        tokenizer=None,
        stop_words=None,
        token_pattern=DEFAULT_TOKEN_PATTERN,
        ngram_range=(1, 1),
        analyzer="word",
        n_features=(2**20),
        binary=False,
        norm="l2",
        alternate_sign=True,
        dtype=np.float64,
        n_jobs=None,
    ):
        super().__init__(
            input=input,
            encoding=encoding,
            decode_error=decode_error,
            strip_accents=strip_accents,
            lowercase=lowercase,
            preprocessor=preprocessor,
            tokenizer=tokenizer,
            stop_words=stop_words,
            token_pattern=token_pattern,
            ngram_range=ngram_range,
            analyzer=analyzer,
            n_features=n_features,
            binary=binary,
            norm=norm,
            alternate_sign=alternate_sign,
            dtype=dtype,
        )
        self.n_jobs = n_jobs

    def transform(self, X):
        """Transform a sequence of documents to a document-term matrix, as scikit-learn's
        ``HashingVectorizer.transform``.

        Parameters
        ----------
        X : iterable over raw text documents, length = n_samples
            Samples.  Each sample must be a text document (either bytes or unicode strings, file
            name or file object depending on the constructor argument) which will be tokenized
            and hashed.

        Returns
        -------
        X : sparse matrix of shape (n_samples, n_features)
            Document-term matrix.
        """
        if isinstance(X, str) or not self._fast():
            return super().transform(X)
        from sklearn.preprocessing import normalize

        from .._ext.ccore import STATUS, Interrupt, check_status
        from .._ext.tokens import hash_terms

        self._validate_ngram_range()
        self.build_analyzer()  # scikit-learn's checks of the settings (stop words' consistency)
        documents = list(X)
        texts = self._texts(documents)
        if not texts:
            raise ValueError("Cannot vectorize empty sequence.")
        stop = self._stop_vocabulary()
        low, high = self.ngram_range
        interrupt = Interrupt()

        def one(part):
            return hash_terms(part, stop, low, high, self.n_features, self.alternate_sign, interrupt,
                              self.lowercase)  # fmt: skip

        chunks = _chunks(texts, effective_n_jobs(self.n_jobs))
        parts = run_blocks(one, [(texts[a:b],) for a, b in chunks], interrupt)
        if any(part[0] != STATUS["TS_OK"] for part in parts):
            if interrupt.error is None and all(
                part[0] in (STATUS["TS_OK"], STATUS["TS_ERR_ARG"]) for part in parts
            ):
                return super().transform(documents)  # a word with a lone surrogate: scikit-learn's error
            for part in parts:
                check_status(part[0], "hashing words", interrupt)
        X = _stack([part[1:] for part in parts], len(texts), self.n_features, self.dtype)
        X.has_canonical_format = True  # sorted, duplicates summed, as after sum_duplicates
        if self.binary:
            X.data.fill(1)
        if self.norm is not None:
            X = normalize(X, norm=self.norm, copy=False)
        return _align(X)
