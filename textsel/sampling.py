"""Feature sampling by subspace, weight or uniform probabilities, and SRLS (Dasgupta et al. 2007).

The paper's A is terms x documents (our X transposed).  Over the n terms:

- "ss" (subspace): p_i = ||V_k(i, :)||^2 / k, V_k the top-k right singular vectors of X (the
  leverage scores of the top-k subspace; k = rank(X) gives the paper's eq. 9);
- "ws" (weight): p_i = ||X[:, i]||^2 / ||X||_F^2;
- "us" (uniform): p_i = 1 / n.

A term is kept with probability min(1, r p_i), independently, and a kept column is rescaled by
1 / sqrt(min(1, r p_i)), in training and query documents alike.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from ._base import Estimator
from ._checks import as_csr, check_positive_int, check_real, check_sparse_structure, plain
from ._ext import pool
from ._products import matmat
from .linear_model import RLSClassifier
from .names import STRATEGIES

__all__ = [
    "STRATEGIES",
    "SRLSClassifier",
    "expected_kept",
    "feature_probabilities",
    "hellinger",
    "rate_for",
    "sample_features",
]


#: rows of the singular vectors formed at once for the randomized leverage scores
LEVERAGE_ROWS = 4096

#: Problems with at most this many cells get an exact dense SVD.
EXACT_SVD_CELLS = 4_000_000
#: the subspace rank of the randomized method when none is given
RANDOMIZED_K = 100


def feature_probabilities(X, strategy="ss", k=None, method="auto", tol=0.75, n_oversamples=None, n_iter=None,
                          random_state=None, n_jobs=None):  # fmt: skip
    """Sampling probabilities of the terms (columns) of ``X``.

    Parameters
    ----------
    X : {sparse matrix, array-like} of shape (n_docs, n_terms)
    strategy : {"ss", "ws", "us"}
    k : int, optional
        Rank of the subspace for "ss".  Default: the numerical rank of X with the exact method
        (k = rank(A), Dasgupta et al.'s best choice when many terms are kept), and
        ``min(100, min(X.shape))`` with the randomized one, whose rank is not known (their
        choice for 20 Newsgroups and Reuters, the better one at aggressive selection).
    method : {"auto", "exact", "randomized"}
        "exact" is a dense SVD; "randomized" is the randomized range finder with power
        iterations (Halko, Martinsson & Tropp 2011, Alg. 4.4, normalised by LU between
        iterations as scikit-learn does, orthonormalised by Cholesky QR through LAPACK at the
        end) on the sparse matrix, with textsel's threaded CSR products, followed by
        Rayleigh-Ritz for the top-k right singular vectors.  "auto" takes "exact" up to 4 million cells.
    tol : float, default 0.75
        The randomized method's accuracy: the power iterations are as many as Halko et al.'s
        bound (their Cor. 10.10) needs for the expected spectral error of the range found to be
        at most ``(1 + tol)`` times the best rank-k error, sigma_{k+1}, whatever the spectrum:
        ``(1 + sqrt(k / (p - 1)) + e sqrt(k + p) / p * sqrt(min(n_docs, n_terms) - k)) **
        (1 / (2 q + 1)) <= 1 + tol``, with ``p = max(10, k // 2)`` extra directions.  Smaller is
        more accurate and slower.
    n_oversamples, n_iter : int, optional
        Override the extra directions ``p`` and the power iterations ``q`` chosen from ``tol``.
    random_state : int, RandomState or None
        Seeds the randomized method.
    n_jobs : int, default=None
        The number of threads for the randomized method's sparse products. ``None`` or ``-1`` means every
        core this process may use, within the limits of threadpoolctl's ``threadpool_limits`` and
        ``OMP_NUM_THREADS`` (as for scikit-learn's OpenMP estimators, not joblib's ``None`` = 1; see
        "Threads: n_jobs" in the scaling page).

    Returns
    -------
    ndarray of float64, shape (n_terms,)
        Probabilities summing to one (float64 for float32 input too).
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {plain(strategy)!r}")
    X = _finite_in_range(as_csr(X, "X", float64=True))
    n_docs, n_terms = X.shape
    if strategy == "us":
        return np.full(n_terms, 1.0 / n_terms)
    if strategy == "ws":
        sq = np.asarray(X.multiply(X).sum(axis=0), dtype=np.float64).ravel()
        total = sq.sum()
        if total == 0:
            raise ValueError("X is all zeros: weight-based probabilities are undefined")
        return sq / total
    if method not in ("auto", "exact", "randomized"):
        raise ValueError(f"method must be 'auto', 'exact' or 'randomized', got {plain(method)!r}")
    if method == "auto":
        method = "exact" if n_docs * n_terms <= EXACT_SVD_CELLS else "randomized"
    max_rank = min(n_docs, n_terms)
    if method == "exact":
        _, s, vt = np.linalg.svd(X.toarray(), full_matrices=False)
        rank = (
            int((s > s[0] * max(n_docs, n_terms) * np.finfo(float).eps).sum()) if s.size and s[0] > 0 else 0
        )
        if rank == 0:
            raise ValueError("X is all zeros: subspace probabilities are undefined")
        k = rank if k is None else check_positive_int(k, "k", 1, rank)
        scores = (vt[:k] ** 2).sum(axis=0)
    else:
        # the rank is not known without the SVD: Dasgupta et al.'s k = 100 for 20 Newsgroups and
        # Reuters, the better choice at aggressive selection (their Fig. 4b, 5)
        k = min(RANDOMIZED_K, max_rank) if k is None else check_positive_int(k, "k", 1, max_rank)
        tol = check_real(tol, "tol", 0.0, None)
        if tol == 0:
            raise ValueError("tol must be > 0")
        p = (
            max(10, k // 2)
            if n_oversamples is None
            else check_positive_int(n_oversamples, "n_oversamples", 0)
        )
        q = (
            power_iterations(k, p, max_rank, tol)
            if n_iter is None
            else check_positive_int(n_iter, "n_iter", 0)
        )
        # OpenBLAS's threads spin for a while after each LU or QR and would take the cores
        # from the sparse products' threads: the dense steps run on one thread here
        with threadpool_limits(1, user_api="blas"):
            scores = randomized_leverage(X, k, p, q, check_random_state(random_state), n_jobs)
    if not scores.sum() > 0:
        raise ValueError("X is all zeros: subspace probabilities are undefined")
    return scores / scores.sum()


def _finite_in_range(X):
    """``X``, refused if it holds NaN or infinity (LAPACK's SVD may never return on them), and
    scaled by a power of two when its largest magnitude is far from 1: the probabilities do not
    change with X's scale, and its squares and products then stay inside the double range."""
    if not np.isfinite(X.data).all():
        raise ValueError("X contains NaN or infinity")
    big = float(np.abs(X.data).max(initial=0.0))
    limit = 2.0**400  # far enough inside the double range that squares and their sums stay finite
    if big > limit or 0 < big < 1 / limit:
        X = X.copy()
        X.data = np.ldexp(X.data, -np.frexp(big)[1])
    return X


def power_iterations(k: int, p: int, min_dim: int, tol: float) -> int:
    """The fewest power iterations q for which Halko et al.'s bound on the expected spectral error
    of the range found (Cor. 10.10) is within ``1 + tol`` of sigma_{k+1}."""
    if p < 2:
        return 10  # the bound needs p >= 2; a generous fixed count instead
    spread = 1 + math.sqrt(k / (p - 1)) + math.e * math.sqrt(k + p) / p * math.sqrt(max(min_dim - k, 0))
    return max(0, math.ceil((math.log(spread) / math.log1p(tol) - 1) / 2))


def randomized_leverage(X, k: int, p: int, q: int, rng, n_jobs=None) -> np.ndarray:
    """Squared row norms of the top-k right singular vectors of ``X`` (float64 CSR), estimated
    from a randomized range of width ``k + p`` after ``q`` power iterations."""
    m, n = X.shape
    width = min(m, n, k + p)
    XT = X.T.tocsr()  # X' V as a row-parallel product (its rows come out sorted)
    # two buffers for every product, from the table pool: fresh pages for each product (or a
    # fresh 68 MB start on 20 Newsgroups, which the kernel backs with compacted huge pages on
    # first use) cost as much as the products
    left = pool.empty((m, width))
    right = pool.empty((n, width))
    # uniform test vectors, drawn into the right buffer: as good a start as Gaussian ones and
    # four times faster to draw
    np.random.default_rng(rng.randint(np.iinfo(np.int32).max)).random(out=right)
    right -= 0.5
    Y = matmat(X, right, n_jobs, out=left)
    for _ in range(q):
        # LU normalisation keeps the columns apart at a quarter of a QR's cost
        L = scipy.linalg.lu(Y, permute_l=True, check_finite=False)[0]
        matmat(XT, L, n_jobs, out=right)
        Y = matmat(X, right, n_jobs, out=left)
    Q = _orthonormal(Y)
    B = matmat(XT, Q, n_jobs, out=right)  # (Q' X)', the range's view of X
    # Rayleigh-Ritz: the top-k eigenpairs of B'B = Q'XX'Q give the right singular vectors of
    # Q Q' X as B U / sigma
    w, U = scipy.linalg.eigh(B.T @ B, subset_by_index=[width - k, width - 1], check_finite=False)
    keep = w > w[-1] * width * np.finfo(float).eps
    W = U[:, keep] / np.sqrt(w[keep])
    scores = np.empty(n)
    for a in range(0, n, LEVERAGE_ROWS):  # row blocks: no (terms x k) matrix is formed
        V = B[a : a + LEVERAGE_ROWS] @ W
        scores[a : a + LEVERAGE_ROWS] = np.einsum("ij,ij->i", V, V)
    return scores


def _orthonormal(Y):
    """An orthonormal basis of Y's columns: Cholesky QR twice (LAPACK potrf, then Y R^-1 by one
    matrix product; a third of a Householder QR's time here), or Householder QR (geqrf) when
    Y is too ill-conditioned for a Cholesky factor of Y'Y."""
    Q = Y
    try:
        for _ in range(2):  # the second pass restores the orthogonality the first loses
            R = scipy.linalg.cholesky(Q.T @ Q, lower=False, check_finite=False)
            Q = Q @ scipy.linalg.solve_triangular(R, np.eye(R.shape[0]), lower=False, check_finite=False)
    except np.linalg.LinAlgError:
        return scipy.linalg.qr(Y, mode="economic", check_finite=False)[0]
    return Q


def sample_features(p, r, random_state=None):
    """Keep term i with probability min(1, r p_i), independently.

    Returns
    -------
    kept : ndarray of int
        Indices of the kept terms, ascending.
    scales : ndarray of float
        1 / sqrt(min(1, r p_i)) for each kept term.
    """
    p, r = _probabilities(p), _rate(r)
    kept_prob = np.minimum(1.0, r * p)
    rng = check_random_state(random_state)
    kept = np.flatnonzero(rng.random_sample(p.size) < kept_prob)
    return kept, 1.0 / np.sqrt(kept_prob[kept])


def expected_kept(p, r) -> float:
    """The expected number of terms :func:`sample_features` keeps: sum of min(1, r p_i).

    Below ``r`` once some r p_i exceed 1: the terms of largest probability are kept for sure and
    count once.  Dasgupta et al. plot their curves against this number ("the expected number of
    features chosen"), which is the number to compare with a top-r selection's r.
    """
    return float(np.minimum(1.0, _rate(r) * _probabilities(p)).sum())


def rate_for(p, kept) -> float:
    """The sample size r at which :func:`sample_features` keeps ``kept`` terms in expectation
    (:func:`expected_kept`), for comparing a sampling strategy with a top-r selection at equal
    numbers of terms.

    ``kept`` must be positive and at most the number of terms of non-zero probability.
    """
    p = _probabilities(p)
    kept = check_real(kept, "kept", 0.0, None)
    support = int(np.count_nonzero(p))
    if not 0 < kept <= support:
        raise ValueError(f"kept must be in (0, {support}] (the terms of non-zero probability), got {kept:g}")
    # sum(min(1, r p)) is continuous and increasing in r, and linear in r while the number of terms
    # kept for sure (r p >= 1) is fixed: solve on every such segment at once and take the one whose
    # solution lies inside it
    order = np.sort(p[p > 0])[::-1]
    tail = np.cumsum(order[::-1])[::-1]  # tail[j] = sum of order[j:]
    certain = np.arange(support)
    r = (kept - certain) / tail  # the first `certain` terms kept for sure, the rest r p
    inside = (r * order <= 1.0) & ((certain == 0) | (r * np.concatenate(([np.inf], order[:-1])) >= 1.0))
    return float(r[np.argmax(inside)]) if inside.any() else float(1.0 / order[-1])


def _probabilities(p) -> np.ndarray:
    """``p`` as float64 (the caller's array is only read), checked: a non-empty 1-D array of finite
    non-negative values."""
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1 or p.size == 0 or not np.isfinite(p).all() or (p < 0).any():
        raise ValueError("p must be a non-empty 1-D array of finite non-negative probabilities")
    return p


def _rate(r) -> float:
    """The sample size ``r``, checked: a finite number above 0."""
    r = check_real(r, "r", 0.0, None)
    if r == 0:
        raise ValueError("r must be > 0")
    return r


def hellinger(p, q) -> float:
    """Hellinger distance sqrt(sum (sqrt p_i - sqrt q_i)^2), as the paper writes it."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    if p.shape != q.shape or p.ndim != 1:
        raise ValueError(f"p and q must be 1-D of one length, got {p.shape} and {q.shape}")
    if (p < 0).any() or (q < 0).any():
        raise ValueError("p and q must be non-negative")
    return float(np.sqrt(((np.sqrt(p) - np.sqrt(q)) ** 2).sum()))


class SRLSClassifier(ClassifierMixin, Estimator):
    """Sampled regularized least squares (SRLS, Dasgupta et al. 2007, Fig. 1), one-vs-rest.

    Terms are sampled with :func:`feature_probabilities` and :func:`sample_features`; the kept
    columns, rescaled, train an RLS classifier (ridge without intercept, solved by textsel's
    LSQR), and query documents are restricted and rescaled the same way.

    Parameters
    ----------
    r : float
        Sampling budget: the expected number of kept terms is at most r.
    strategy : {"ss", "ws", "us"}, default "ss"
        Sampling probabilities by subspace (leverage) scores, by weight (squared column
        norms) or uniform (:data:`STRATEGIES`).
    k : int, optional
        Subspace rank for "ss"; the default follows :func:`feature_probabilities` (the rank with
        the exact SVD, 100 with the randomized method).
    method : {"auto", "exact", "randomized"}, default "auto"
        How the leverage scores are computed: "auto" takes the exact SVD up to 4 million cells
        (documents x terms) and the randomized method above, so the defaults work on any corpus.
    alpha : float, default 1.0
        The ridge penalty (the paper's lambda).
    random_state : int, RandomState or None
        Seeds the randomized leverage scores and the sampling; the same seed keeps the same terms.

    Attributes
    ----------
    kept_ : ndarray of int
        Indices of the sampled terms.
    scales_ : ndarray
        Their rescaling factors.
    probabilities_ : ndarray
        The sampling probabilities of every term.
    classifier_ : RLSClassifier
        Fitted on the sampled, rescaled columns.
    classes_ : ndarray
        The class labels, sorted.
    """

    def __init__(self, r=1000, strategy="ss", k=None, method="auto", alpha=1.0, random_state=None):
        self.r = r
        self.strategy = strategy
        self.k = k
        self.method = method
        self.alpha = alpha
        self.random_state = random_state

    def fit(self, X, y):
        """Sample terms, rescale them and fit RLSC on them.

        Parameters
        ----------
        X : {sparse matrix, array-like} of shape (n_docs, n_terms)
        y : array-like of shape (n_docs,) or (n_docs, n_classes)

        Returns
        -------
        self
        """
        X, y = validate_data(
            self,
            check_sparse_structure(X),
            y,
            accept_sparse="csr",
            dtype=(np.float64, np.float32),
            multi_output=True,
        )
        rng = check_random_state(self.random_state)
        self.probabilities_ = feature_probabilities(X, self.strategy, self.k, method=self.method,
                                                    random_state=rng)  # fmt: skip
        self.kept_, self.scales_ = sample_features(self.probabilities_, self.r, rng)
        if self.kept_.size == 0:
            raise ValueError(f"no term was sampled with r={self.r}; increase r")
        self.classifier_ = RLSClassifier(alpha=self.alpha).fit(self._transform(X), y)
        self.classes_ = self.classifier_.classes_
        return self

    def _transform(self, X):
        X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X)
        cols = X[:, self.kept_]
        return cols @ sp.diags(self.scales_) if sp.issparse(cols) else cols * self.scales_

    def decision_function(self, X):
        """The RLS scores of the sampled, rescaled query documents."""
        check_is_fitted(self, "classifier_")
        X = validate_data(
            self, check_sparse_structure(X), accept_sparse="csr", dtype=(np.float64, np.float32), reset=False
        )
        return self.classifier_.decision_function(self._transform(X))

    def predict(self, X):
        """Class labels (an indicator matrix for multi-label y)."""
        check_is_fitted(self, "classifier_")
        X = validate_data(
            self, check_sparse_structure(X), accept_sparse="csr", dtype=(np.float64, np.float32), reset=False
        )
        return self.classifier_.predict(self._transform(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_label = True
        return tags
