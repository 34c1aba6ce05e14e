"""A linear SVM by dual coordinate descent that keeps its Lagrange multipliers."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import _check_sample_weight, validate_data

from ._base import Estimator, LinearScoresMixin
from ._checks import check_class_weight, check_positive_int, check_real, check_sparse_structure, plain
from ._errors import warn
from ._ext.ccore import Interrupt, dcd_svm_csr
from ._labels import check_class_labels, check_two_classes, encode_labels
from ._parallel import effective_n_jobs, run_blocks
from .names import LOSSES

__all__ = ["BinaryFit", "DualLinearSVC", "fit_binary"]


class BinaryFit(NamedTuple):
    """One binary SVM: weights, bias, multipliers (input order), passes made, convergence."""

    w: np.ndarray
    b: float
    alpha: np.ndarray
    n_iter: int
    converged: bool


def fit_binary(X, signs, *, C_pos, C_neg, loss="squared_hinge", tol=1e-4, max_iter=1000, fit_intercept=True,
               intercept_scaling=1.0, seed=0, alpha0=None, sample_weight=None,
               newton=True, interrupt=None) -> BinaryFit:  # fmt: skip
    """One binary SVM by dual coordinate descent on CSR ``X`` with ``signs`` in {-1, +1}.

    The low-level path behind :class:`DualLinearSVC`, also for callers that re-train on column
    subsets of one matrix and warm-start each fit from the previous multipliers (they depend on
    the documents, not the features): model masking.  ``sample_weight``
    multiplies each document's C; ``newton`` turns on the solver's Newton finish (see
    :class:`DualLinearSVC`); ``interrupt`` a :class:`textsel._ext.ccore.Interrupt` shared with the
    call's other solves (Ctrl-C stops them all).  No input checks beyond the C core's own.
    """
    X = sp.csr_matrix(X)
    n = X.shape[1]
    if sample_weight is not None:
        sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
    w, alpha, n_iter, converged = dcd_svm_csr(
        np.ascontiguousarray(X.data, dtype=np.float64), X.indices, X.indptr, n,
        np.ascontiguousarray(signs, dtype=np.float64), loss, C_pos, C_neg, tol, max_iter,
        bool(fit_intercept), intercept_scaling, True, seed, alpha0, sample_weight, bool(newton),
        interrupt,
    )  # fmt: skip
    b = w[n] * intercept_scaling if fit_intercept else 0.0
    return BinaryFit(w[:n], float(b), alpha, int(n_iter), bool(converged))


class DualLinearSVC(LinearScoresMixin, ClassifierMixin, Estimator):
    """Linear SVM trained by dual coordinate descent (Hsieh et al., ICML 2008), in C.

    The same problem as scikit-learn's ``LinearSVC(dual=True)`` (liblinear):
    ``min 1/2 ||w||^2 + sum_i C_i loss(y_i (w.x_i + b))`` with the bias learned as
    the weight of a constant feature of value ``intercept_scaling`` (so it is
    regularized too), one-vs-rest for more than two classes.  Unlike LinearSVC
    it exposes the dual solution: the Lagrange multipliers, for model masking
    (:mod:`textsel.masking`).

    Parameters
    ----------
    C : float, default 1.0
        The cost of a margin violation; larger values fit the training data more closely.
    loss : {"squared_hinge", "hinge"}, default "squared_hinge"
        L2-loss or L1-loss SVM.
    tol : float, default 1e-4
        Stop when the spread of the projected gradient is at most ``tol``.
    max_iter : int, default 1000
        Outer passes over the data.
    fit_intercept : bool, default True
        Learn an intercept, as the weight of a constant feature (regularized like the others).
    intercept_scaling : float, default 1.0
        The value of that constant feature; larger values regularize the intercept less.
    class_weight : dict, "balanced" or None
        Multiplies C per class (for one-vs-rest, the positive class's C, as liblinear does).
    random_state : int, RandomState or None
        Seeds the order of the coordinate updates; the same seed gives the same model.
    newton : bool, default True
        Once a pass leaves the support vectors' set nearly unchanged, also try a projected
        Newton step on the free multipliers (conjugate gradients on their face of the dual,
        started from the current point and limited to the work done so far).  The same optimum
        and the same stopping test; on unnormalised Boolean text features it cuts the passes
        several-fold.  False gives plain coordinate descent, liblinear's method.
    n_jobs : int, default=None
        The number of threads, over the one-vs-rest problems.  ``None`` or ``-1`` means every core this
        process may use, within the limits of threadpoolctl's ``threadpool_limits`` and
        ``OMP_NUM_THREADS`` (as for scikit-learn's OpenMP estimators, not joblib's ``None`` = 1; see
        "Threads: n_jobs" in the scaling page).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The weights, one row per one-vs-rest problem (one row for a binary task).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The intercepts (zeros without ``fit_intercept``).
    classes_ : ndarray
        The class labels, sorted.
    dual_coef_ : ndarray of shape (n_problems, n_SV)
        ``y_i alpha_i`` of the support vectors (SVC's convention), one row per
        one-vs-rest problem, over the union of their support vectors (zero where a
        document supports another class's problem but not this one).
    support_ : ndarray of int
        Indices of the training documents with a nonzero multiplier in some problem.
    alpha_ : ndarray of shape (n_problems, n_samples)
        All multipliers, in input order.
    n_iter_ : int
        The largest number of passes any problem took.
    converged_ : ndarray of bool
        Per problem, whether ``tol`` was met within ``max_iter``.
    """

    def __init__(
        self,
        C=1.0,
        loss="squared_hinge",
        tol=1e-4,
        max_iter=1000,
        fit_intercept=True,
        intercept_scaling=1.0,
        class_weight=None,
        random_state=None,
        newton=True,
        n_jobs=None,
    ):
        self.C = C
        self.loss = loss
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.random_state = random_state
        self.newton = newton
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None):
        """Train one binary SVM, or one per class (one-vs-rest).

        Parameters
        ----------
        X : {sparse matrix, array-like} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative multipliers of each document's C (a weight of 2 counts the document
            twice; 0 leaves it out, with multiplier 0).

        Returns
        -------
        self
        """
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {plain(self.loss)!r}")
        C = check_real(self.C, "C", 0.0, None, low_open=True)
        tol = check_real(self.tol, "tol", 0.0, None, low_open=True)
        max_iter = check_positive_int(self.max_iter, "max_iter", 1)
        scaling = check_real(self.intercept_scaling, "intercept_scaling", 0.0, None,
                             low_open=bool(self.fit_intercept))  # fmt: skip
        X, y = validate_data(
            self, check_sparse_structure(X), y, accept_sparse="csr", dtype=(np.float64, np.float32)
        )
        check_class_labels(y, "y")
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        self.classes_, codes = encode_labels(y, name="y")
        n_classes = self.classes_.size
        check_two_classes(self.classes_, "a classifier needs")
        weights = np.ones(n_classes)
        if self.class_weight is not None:
            weights = compute_class_weight(
                check_class_weight(self.class_weight, "DualLinearSVC"), classes=self.classes_, y=y
            )
        X = sp.csr_matrix(X)
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        problems = [1] if n_classes == 2 else list(range(n_classes))

        def train(k):
            signs = np.where(codes == k, 1.0, -1.0)
            # binary: both classes weighted; one-vs-rest: the positive class's weight (liblinear)
            c_pos, c_neg = C * weights[k], C * (weights[0] if n_classes == 2 else 1.0)
            doc_weight = sample_weight
            if c_pos == 0 or c_neg == 0:
                # the C core takes C > 0 on each side; a side weighted 0 (LinearSVC accepts it) is
                # the same problem with that side's documents' multipliers held at 0
                doc_weight = np.ones(signs.size) if sample_weight is None else sample_weight.copy()
                doc_weight[signs > 0 if c_pos == 0 else signs < 0] = 0.0
                if c_pos == 0 and c_neg == 0:
                    doc_weight[:] = 0.0
                c_pos, c_neg = c_pos or C, c_neg or C
            return fit_binary(
                X, signs, C_pos=c_pos, C_neg=c_neg, loss=self.loss, tol=tol, max_iter=max_iter,
                fit_intercept=self.fit_intercept, intercept_scaling=scaling, seed=seed + k,
                sample_weight=doc_weight, newton=self.newton, interrupt=interrupt,
            )  # fmt: skip

        n_jobs = min(effective_n_jobs(self.n_jobs), len(problems))
        groups = np.array_split(np.arange(len(problems)), n_jobs)
        interrupt = Interrupt()  # Ctrl-C stops every thread's solve within one pass or 2^16 steps
        parts = run_blocks(lambda g: [train(problems[j]) for j in g], [(g,) for g in groups], interrupt)
        results = [r for part in parts for r in part]
        self.coef_ = np.array([r.w for r in results])
        self.intercept_ = np.array([r.b for r in results])
        self.alpha_ = np.array([r.alpha for r in results])
        self.n_iter_ = max(r.n_iter for r in results)
        self.converged_ = np.array([r.converged for r in results])
        if not self.converged_.all():
            # as scikit-learn's LinearSVC: a model that stopped at max_iter says so
            missed = [str(self.classes_[k]) for k, ok in zip(problems, self.converged_, strict=True)
                      if not ok]  # fmt: skip
            warn(
                f"DualLinearSVC did not converge within max_iter={max_iter} passes "
                f"({'the binary problem' if n_classes == 2 else 'classes ' + ', '.join(missed[:5])}); "
                "increase max_iter, or scale the data",
                ConvergenceWarning,
            )
        signs = np.array([np.where(codes == k, 1.0, -1.0) for k in problems])
        self.support_ = np.flatnonzero((self.alpha_ > 0).any(axis=0))
        self.dual_coef_ = (signs * self.alpha_)[:, self.support_]
        return self

    def predict(self, X):
        """Class labels: the sign for two classes, the highest score otherwise."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]
