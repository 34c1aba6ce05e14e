"""scikit-learn's text vectorizers, with the words counted by textsel's kernel.

:class:`CountVectorizer` and :class:`TfidfVectorizer` are scikit-learn's own classes (they derive
from them: the same parameters, attributes, methods, errors and pickles) in which the step that
splits documents into words and counts them runs in C over the strings' own buffers, without a
Python object per token and on threads (``n_jobs``), instead of a regular expression and a dict
per document.  The vocabulary and the matrix are scikit-learn's, entry for entry and in the same
order (the tests compare them on real corpora and on generated text of every script).

The kernel covers scikit-learn's default word analyzer: ``analyzer="word"`` with the default
``token_pattern`` (``r"(?u)\\b\\w\\w+\\b"``), no ``preprocessor``, ``tokenizer`` or
``strip_accents``, with or without ``lowercase``, ``stop_words`` (a list or ``"english"``) and any
``ngram_range``; any ``input``, ``encoding``, ``decode_error``, ``min_df``, ``max_df``,
``max_features``, ``vocabulary``, ``binary`` and ``dtype``.  Any other setting (a callable, another
pattern, accents stripped, character n-grams) runs scikit-learn's own code unchanged.

:class:`TermCounter` counts the per-class document frequencies the filter metrics read straight
from text, chunk by chunk (from an iterable, or a file larger than memory), as these vectorizers
split the words: the statistics of the matrix without the matrix.
"""

from .statistics import TermCounter
from .vectorizers import CountVectorizer, HashingVectorizer, TfidfVectorizer
from .words import DEFAULT_TOKEN_PATTERN

__all__ = ["DEFAULT_TOKEN_PATTERN", "CountVectorizer", "HashingVectorizer", "TermCounter", "TfidfVectorizer"]

for _public in (CountVectorizer, HashingVectorizer, TermCounter, TfidfVectorizer):
    _public.__module__ = __name__  # their public path, in reprs and pickles
