"""What every fitted linear classifier of textsel shares: scores from coef_ and intercept_."""

from __future__ import annotations

import numpy as np
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted, validate_data

from ._dispatch import distributed_method
from ._validation import check_sparse_structure


class LinearScoresMixin:
    """``decision_function`` for estimators with ``coef_`` (n_problems x n_features) and ``intercept_``."""

    @distributed_method("map_row_blocks")
    def decision_function(self, X):
        """Signed distances: (n_samples,) for a single problem, else (n_samples, n_problems);
        for a Dask array of CSR row blocks, a lazy Dask array computed block by block."""
        check_is_fitted(self, "coef_")
        X = check_sparse_structure(X)
        X = validate_data(self, X, accept_sparse="csr", dtype=(np.float64, np.float32), reset=False)
        scores = safe_sparse_dot(X, self.coef_.T, dense_output=True) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
