"""textsel: term selection and fast linear text classification on sparse matrices.

The data flow: a document-term matrix goes through :func:`term_stats` (one
pass over its CSR buffers), :func:`score` turns the statistics into a
(classes x terms) table with one of Forman's twelve :data:`METRICS`, and
:class:`TermSelector` picks terms from it inside a scikit-learn pipeline.
"""

from . import study
from .lsqr import LSQRResult, lsqr
from .metrics import METRICS, score
from .proximal import ProximalSVC, RLSClassifier, WeightedProximalSVC
from .sampling import SRLSClassifier
from .scalable import ScalableTermSelector
from .score_funcs import acc, acc2, bns, chi2, dfreq, f1, ig, oddn, odds, pow, pr, rand
from .selection import TermSelector
from .svm import DualLinearSVC
from .termstats import TermStats, term_stats

__version__ = "0.1.0"

__all__ = [
    "study",
    "DualLinearSVC",
    "LSQRResult",
    "METRICS",
    "ProximalSVC",
    "RLSClassifier",
    "SRLSClassifier",
    "ScalableTermSelector",
    "TermSelector",
    "TermStats",
    "WeightedProximalSVC",
    "lsqr",
    "score",
    "term_stats",
    "acc", "acc2", "bns", "chi2", "dfreq", "f1", "ig", "oddn", "odds", "pow", "pr", "rand",
]  # fmt: skip
