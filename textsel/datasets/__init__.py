"""Corpus loaders: read the public archives in place and return raw texts or sparse matrices.

Vectorizing text is scikit-learn's job; these functions only parse the
archive layouts (see ``docs/datasets.md``).  The SMS Spam Collection ships inside the package
(:func:`load_sms_spam`); the other corpora are read from a data home.
"""

from ._home import get_data_home
from .arff import load_arff
from .fetch import fetch, file_sha256
from .forman import FORMAN_SETS, forman_sets, load_forman
from .forman_fetch import fetch_forman
from .formats import load_cluto, load_svmlight
from .newsgroups import load_20newsgroups
from .reuters import load_reuters21578
from .sms_spam import load_sms_spam
from .synthetic import make_synthetic_corpus
from .texts import load_texts

__all__ = [
    "FORMAN_SETS",
    "fetch",
    "fetch_forman",
    "file_sha256",
    "forman_sets",
    "get_data_home",
    "load_20newsgroups",
    "load_arff",
    "load_cluto",
    "load_forman",
    "load_reuters21578",
    "load_sms_spam",
    "load_svmlight",
    "load_texts",
    "make_synthetic_corpus",
]
