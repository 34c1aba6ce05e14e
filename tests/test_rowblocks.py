"""The distributed solve's worker step (``textsel._ext.rowblocks.rowblocks_step``, the C kernel
``ts_rowblocks_step``) against numpy: u updated in place for the running columns only, its norm
as (scale, ssq) and A'D u, over blocks of either index width; bad arguments raise naming what is
wrong, and leave u as it was."""

import numpy as np
import pytest
import scipy.sparse as sp

from textsel._errors import CoreError
from textsel._ext.rowblocks import rowblocks_step

K, N_COLS = 11, 40


def blocks_and_state(seed=0):
    rng = np.random.default_rng(seed)
    sizes = [13, 0, 30, 7]
    blocks = [sp.random(m, N_COLS, density=0.2, format="csr", random_state=rng) for m in sizes]
    blocks[2].indices = blocks[2].indices.astype(np.int64)  # one block with int64 indices
    blocks[2].indptr = blocks[2].indptr.astype(np.int64)
    u = [rng.standard_normal((m, K)) for m in sizes]
    w = [rng.uniform(0.5, 3.0, (m, K)) for m in sizes]
    return rng, blocks, u, w


@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("cols", [np.arange(K), np.array([9, 2, 0, 5, 10, 1, 7, 3, 8])])
def test_step_equals_numpy(weighted, fit_intercept, cols):
    rng, blocks, u, w = blocks_and_state()
    w = w if weighted else None
    P = cols.size
    v = rng.standard_normal((N_COLS + fit_intercept, P))
    vcoef, ucoef = rng.uniform(0.5, 2.0, P), -rng.uniform(0.0, 1.0, P)
    X = sp.vstack(blocks, format="csr")
    A = sp.hstack([X, np.ones((X.shape[0], 1))], format="csr") if fit_intercept else X
    U0 = np.vstack(u)
    D = np.vstack(w)[:, cols] if weighted else 1.0
    expected_u = vcoef * (D * (A @ v)) + ucoef * U0[:, cols]
    scale, ssq, g = rowblocks_step(blocks, u, w, N_COLS, fit_intercept, cols, v, vcoef, ucoef)
    U = np.vstack(u)
    np.testing.assert_allclose(U[:, cols], expected_u, rtol=1e-12, atol=1e-12)
    others = np.setdiff1d(np.arange(K), cols)
    np.testing.assert_array_equal(U[:, others], U0[:, others])
    np.testing.assert_array_equal(scale, 1.0)
    np.testing.assert_allclose(ssq, (expected_u**2).sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(g, A.T @ (D * expected_u), rtol=1e-11, atol=1e-12)


def test_bad_arguments_raise_and_leave_u_alone():
    rng, blocks, u, w = blocks_and_state(1)
    kept = [x.copy() for x in u]
    v, coef = np.ones((N_COLS + 1, 2)), np.ones(2)
    with pytest.raises(ValueError, match="u of block 2"):
        narrow = u[:2] + [np.zeros((30, 3))] + u[3:]
        rowblocks_step(blocks, narrow, w, N_COLS, True, np.arange(2), v, coef, coef)
    with pytest.raises(ValueError, match="weights of block 0"):
        rowblocks_step(blocks, u, [w[0][1:]] + w[1:], N_COLS, True, np.arange(2), v, coef, coef)
    with pytest.raises(ValueError, match="v"):
        rowblocks_step(blocks, u, w, N_COLS, False, np.arange(2), v, coef, coef)
    with pytest.raises(CoreError, match="rowblocks_step"):  # a column twice
        rowblocks_step(blocks, u, w, N_COLS, True, np.array([1, 1]), v, coef, coef)
    with pytest.raises(CoreError, match="rowblocks_step"):  # a column past u's
        rowblocks_step(blocks, u, w, N_COLS, True, np.array([0, K]), v, coef, coef)
    bad = blocks[3].copy()
    bad.indices = bad.indices.copy()
    bad.indices[0] = N_COLS
    with pytest.raises(CoreError, match="out of range"):
        rowblocks_step(blocks[:3] + [bad], u, w, N_COLS, True, np.arange(2), v, coef, coef)
    for a, b in zip(u, kept, strict=True):
        np.testing.assert_array_equal(a, b)
