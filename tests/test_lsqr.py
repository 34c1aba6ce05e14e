"""textsel.lsqr against scipy.sparse.linalg.lsqr, number for number, and its operator variants."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import lsqr as scipy_lsqr

import textsel
from textsel._errors import CoreIndexError
from textsel._ext.ccore import STATUS

FIELDS = ("istop", "itn", "r1norm", "r2norm", "anorm", "acond", "arnorm", "xnorm")
TIGHT = dict(atol=1e-10, btol=1e-10)


def problem(seed, m=300, n=60, density=0.08):
    rng = np.random.default_rng(seed)
    X = sp.random(m, n, density=density, random_state=seed, format="csr")
    return X, rng.standard_normal(m), rng


def assert_same_as_scipy(ours, ref, rtol=1e-8):
    """Same istop and iteration count, the solution equal to rtol, the residual and solution
    norms to 1e-6.  anorm and acond are running estimates built from every alfa and beta of
    the bidiagonalisation, whose last digits drift with summation order over many iterations
    (the two agree to 1e-15 in the first iterations): they are compared to 1%."""
    assert ours.istop == ref[1] and ours.itn == ref[2]
    np.testing.assert_allclose(ours.x, ref[0], rtol=rtol, atol=rtol * np.abs(ref[0]).max())
    for name, value in zip(FIELDS[2:], ref[3:9], strict=True):
        if name in ("r1norm", "r2norm", "xnorm"):
            assert getattr(ours, name) == pytest.approx(value, rel=1e-6), name
        elif name in ("anorm", "acond"):
            assert getattr(ours, name) == pytest.approx(value, rel=1e-2), name


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("damp", [0.0, 0.5])
def test_matches_scipy(seed, damp):
    X, b, _ = problem(seed)
    assert_same_as_scipy(textsel.lsqr(X, b, damp=damp, **TIGHT), scipy_lsqr(X, b, damp=damp, **TIGHT))


def test_matches_scipy_at_default_tolerances_and_limits():
    X, b, _ = problem(11, m=500, n=40)
    assert_same_as_scipy(textsel.lsqr(X, b), scipy_lsqr(X, b), rtol=1e-6)
    capped = textsel.lsqr(X, b, iter_lim=4)
    ref = scipy_lsqr(X, b, iter_lim=4)
    assert capped.istop == ref[1] == 7 and capped.itn == ref[2] == 4
    np.testing.assert_allclose(capped.x, ref[0], rtol=1e-12)
    # in the first iterations every estimate agrees to rounding
    for name, value in zip(FIELDS[2:], ref[3:9], strict=True):
        assert getattr(capped, name) == pytest.approx(value, rel=1e-12), name


def test_weights_and_intercept_equal_the_explicit_operator():
    """The weights and the column of ones applied in the loops equal LSQR on an explicitly built D[X, 1]."""
    X, b, rng = problem(3)
    d = rng.uniform(0.2, 3.0, X.shape[0])
    A = sp.diags(d) @ sp.hstack([X, np.ones((X.shape[0], 1))]).tocsr()
    ours = textsel.lsqr(X, b, damp=0.3, row_weights=d, fit_intercept=True, **TIGHT)
    assert ours.x.shape == (X.shape[1] + 1,)
    assert_same_as_scipy(ours, scipy_lsqr(A, d * b, damp=0.3, **TIGHT))


def test_batched_equals_column_by_column_bit_for_bit():
    X, _, rng = problem(4)
    K = 6
    B = rng.standard_normal((X.shape[0], K))
    B[:, 2] *= 50  # columns converge after different numbers of iterations
    W = rng.uniform(0.5, 2.0, (X.shape[0], K))
    damps = np.linspace(0.0, 1.0, K)
    batch = textsel.lsqr(X, B, damp=damps, row_weights=W, fit_intercept=True, **TIGHT)
    assert len(set(batch.itn.tolist())) > 1
    for k in range(K):
        one = textsel.lsqr(X, B[:, k], damp=damps[k], row_weights=W[:, k], fit_intercept=True, **TIGHT)
        np.testing.assert_array_equal(batch.x[:, k], one.x)
        for name in FIELDS:
            assert getattr(batch, name)[k] == getattr(one, name)


def test_shared_weights_broadcast_over_columns():
    X, _, rng = problem(5)
    B = rng.standard_normal((X.shape[0], 3))
    d = rng.uniform(0.5, 2.0, X.shape[0])
    shared = textsel.lsqr(X, B, row_weights=d)
    explicit = textsel.lsqr(X, B, row_weights=np.repeat(d[:, None], 3, axis=1))
    np.testing.assert_array_equal(shared.x, explicit.x)


def test_index_and_value_dtypes():
    X, b, _ = problem(6)
    ref = textsel.lsqr(X, b, **TIGHT)
    X64 = sp.csr_matrix(X.shape)
    X64.data, X64.indices, X64.indptr = X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64)
    np.testing.assert_array_equal(textsel.lsqr(X64, b, **TIGHT).x, ref.x)
    np.testing.assert_array_equal(textsel.lsqr(X.toarray(), b, **TIGHT).x, ref.x)
    f32 = textsel.lsqr(X.astype(np.float32), b, **TIGHT)
    np.testing.assert_allclose(f32.x, scipy_lsqr(X.astype(np.float32).astype(np.float64), b, **TIGHT)[0])


def test_zero_right_hand_side_is_exact():
    X, _, _ = problem(7)
    res = textsel.lsqr(X, np.zeros(X.shape[0]))
    assert res.istop == 0 and res.itn == 0 and not res.x.any()


@pytest.mark.parametrize("scale", [2.0**700, 2.0**-700, 3.36e194])
def test_right_hand_sides_near_the_ends_of_the_double_range(scale):
    """scipy's lsqr returns NaN for b = [3.36e194] on X = [[1]] (its norms overflow); textsel solves
    b rescaled by a power of two and scales back, so x is the unscaled solution times the scale
    (bitwise for a power of two), found a fuzzing run."""
    assert np.isnan(scipy_lsqr(sp.csr_matrix([[1.0]]), np.array([3.36e194]))[0][0])
    assert textsel.lsqr(sp.csr_matrix([[1.0]]), np.array([3.36e194])).x[0] == 3.36e194
    X = sp.random(30, 8, density=0.4, random_state=1, format="csr") + sp.eye(30, 8, format="csr")
    b = np.random.default_rng(2).standard_normal(30)
    base = textsel.lsqr(X, b, damp=0.1, fit_intercept=True, atol=1e-14, btol=1e-14)
    got = textsel.lsqr(X, b * scale, damp=0.1, fit_intercept=True, atol=1e-14, btol=1e-14)
    assert np.isfinite(got.x).all() and got.itn == base.itn
    np.testing.assert_allclose(got.x, base.x * scale, rtol=1e-10)
    np.testing.assert_allclose(got.r1norm, base.r1norm * scale, rtol=1e-10)
    if np.log2(scale).is_integer():
        assert np.array_equal(got.x, base.x * scale)


def test_a_solution_beyond_the_double_range_is_an_error_not_infinity():
    """X of 1e-200-sized values makes x about 1e200 and its norm's square overflow: a clear
    ValueError, where scipy would return inf or NaN estimates."""
    X = (sp.random(30, 8, density=0.4, random_state=1, format="csr") + sp.eye(30, 8, format="csr")) * 1e-200
    b = np.random.default_rng(2).standard_normal(30)
    with pytest.raises(ValueError, match="overflowed the double range"):
        textsel.lsqr(X, b)


def test_caller_arrays_untouched():
    X, b, rng = problem(8)
    d = rng.uniform(0.5, 2, X.shape[0])
    saved = [a.copy() for a in (X.data, X.indices, X.indptr, b, d)]
    textsel.lsqr(X, b, row_weights=d, fit_intercept=True)
    for a, s in zip((X.data, X.indices, X.indptr, b, d), saved, strict=True):
        np.testing.assert_array_equal(a, s)


def test_runs_concurrently_from_threads():
    X, _, rng = problem(9)
    B = rng.standard_normal((X.shape[0], 8))
    expected = [textsel.lsqr(X, B[:, k], **TIGHT).x for k in range(8)]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda k: textsel.lsqr(X, B[:, k], **TIGHT).x, range(8)))
    for a, e in zip(results, expected, strict=True):
        np.testing.assert_array_equal(a, e)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"b": np.zeros(5)}, ValueError, "b has 5 rows but X has 300"),
        ({"b": np.full(300, np.nan)}, ValueError, "b contains NaN"),
        ({"b": np.zeros((300, 2, 2))}, ValueError, "b must be 1-D or 2-D"),
        ({"b": np.array(["a"] * 300)}, TypeError, "b must hold real numbers"),
        ({"damp": -1.0}, ValueError, "damp must be finite and >= 0"),
        ({"damp": [0.1, 0.2]}, ValueError, "damp has 2 values but b has 1"),
        ({"row_weights": -np.ones(300)}, ValueError, "row_weights must be >= 0"),
        ({"row_weights": np.ones((300, 2))}, ValueError, "row_weights has 2 columns but b has 1"),
        ({"row_weights": np.full(300, np.inf)}, ValueError, "row_weights contains NaN"),
        ({"atol": -1e-3}, ValueError, "atol must be"),
        ({"conlim": "big"}, TypeError, "conlim must be a real number"),
        ({"iter_lim": -1}, ValueError, "iter_lim must be"),
        ({"iter_lim": 2.5}, TypeError, "iter_lim must be an integer"),
    ],
)
def test_bad_input(kwargs, exc, match):
    X, b, _ = problem(10)
    args = {"b": b, **kwargs}
    with pytest.raises(exc, match=match):
        textsel.lsqr(X, **args)


def test_corrupt_csr_is_caught_by_the_core():
    """A column index out of range reaches the C core's own check, not memory it should not read."""
    X, b, _ = problem(12)
    bad = sp.csr_matrix(X.shape)
    indices = X.indices.copy()
    indices[3] = 10_000
    bad.data, bad.indices, bad.indptr = X.data, indices, X.indptr
    with pytest.raises(CoreIndexError, match="out of range") as info:
        textsel.lsqr(bad, b)
    assert isinstance(info.value, ValueError) and info.value.code == STATUS["TS_ERR_INDEX"]


class NumpyRowOperator:
    """A row operator (see ``textsel._ext.ccore.lsqr_rowop``) written with numpy over one CSR
    matrix, the reference for the cluster's: it keeps b, the row weights and LSQR's u itself."""

    def __init__(self, X, b, weights, fit_intercept):
        self.X, self.b, self.fit_intercept = X, b, fit_intercept
        self.weights = np.ones_like(b) if weights is None else weights
        self.u = np.zeros_like(b)
        self.calls = 0

    def _finish(self, cols, unorm, g):
        du = self.weights[:, cols] * self.u[:, cols]
        unorm[:] = np.linalg.norm(self.u[:, cols], axis=0)
        n = self.X.shape[1]
        g[:n] = self.X.T @ du
        if self.fit_intercept:
            g[n] = du.sum(axis=0)

    def start(self, cols, exps, maxabs, unorm, g):
        self.calls += 1
        Db = self.weights[:, cols] * self.b[:, cols]
        if exps is None:
            maxabs[:] = np.abs(Db).max(axis=0)
            return
        self.u[:, cols] = np.ldexp(Db, -exps)
        self._finish(cols, unorm, g)

    def step(self, cols, v, vcoef, ucoef, unorm, g):
        self.calls += 1
        n = self.X.shape[1]
        Av = self.X @ v[:n] + (v[n] if self.fit_intercept else 0.0)
        self.u[:, cols] = vcoef * (self.weights[:, cols] * Av) + ucoef * self.u[:, cols]
        self._finish(cols, unorm, g)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_a_row_operator_that_keeps_u_solves_as_the_csr_solver(fit_intercept, weighted):
    """ts_lsqr_rowop on an operator that keeps u, b and the weights itself (numpy here; the row
    groups in memory, the workers on a cluster) gives scipy's solutions, stops and reports for
    each column (scipy on D [X, 1] and D b), with one operator call per iteration (and two to
    start)."""
    from textsel._ext.ccore import lsqr_rowop

    rng = np.random.default_rng(7)
    X = sp.random(400, 50, density=0.1, format="csr", random_state=rng)
    b = rng.standard_normal((400, 6))
    weights = rng.uniform(0.5, 2.0, (400, 6)) if weighted else None
    damp = np.linspace(0.0, 0.5, 6)
    args = (1e-12, 1e-12, 1e12, -1)
    op = NumpyRowOperator(X, b, weights, fit_intercept)
    xr, rreport = lsqr_rowop(op, 400, 50, fit_intercept, 6, damp, *args)
    A = sp.hstack([X, np.ones((400, 1))]).tocsr() if fit_intercept else X
    for k in range(6):
        d = np.ones(400) if weights is None else weights[:, k]
        ref = scipy_lsqr(sp.diags(d) @ A, d * b[:, k], damp=damp[k], atol=1e-12, btol=1e-12, conlim=1e12)
        np.testing.assert_allclose(xr[:, k], ref[0], rtol=1e-9, atol=1e-12)
        assert rreport["istop"][k] == ref[1]
        np.testing.assert_allclose(rreport["r1norm"][k], ref[3], rtol=1e-9)
    assert op.calls == 2 + rreport["itn"].max()


def test_a_row_operator_reads_v_as_a_read_only_view_of_the_solver():
    """The step's v is the solver's own buffer (no copy of a vector that may be hundreds of MB),
    handed over read-only: an operator cannot write the solver's state."""
    from textsel._ext.ccore import lsqr_rowop

    seen = []

    class Watching(NumpyRowOperator):
        def step(self, cols, v, *rest):
            seen.append(v.flags.writeable)
            with pytest.raises(ValueError, match="read-only"):
                v[...] = 0
            super().step(cols, v, *rest)

    X = sp.random(60, 25, density=0.3, format="csr", random_state=3)
    lsqr_rowop(Watching(X, np.ones((60, 2)), None, True), 60, 25, True, 2, np.zeros(2), 1e-8, 1e-8, 1e8, -1)
    assert seen and not any(seen)


def test_a_row_operator_error_is_raised_as_it_was():
    from textsel._ext.ccore import lsqr_rowop

    class Failing(NumpyRowOperator):
        def step(self, *args):
            raise ZeroDivisionError("from the row operator")

    X = sp.random(40, 5, density=0.5, format="csr", random_state=0)
    with pytest.raises(ZeroDivisionError, match="from the row operator"):
        lsqr_rowop(Failing(X, np.ones((40, 1)), None, True), 40, 5, True, 1, np.zeros(1), 1e-8, 1e-8, 1e8, -1)


@pytest.mark.parametrize("where", ["start", "step"])
def test_a_row_operator_error_keeps_no_view_of_the_freed_solver(where):
    """An error raised by the operator leaves with its frames' locals cleared: they held v, g and
    unorm, views of the solver's buffers, which are freed when the call returns; a kept error (a
    notebook's last one, a post-mortem debugger) would otherwise read freed memory.  The
    traceback keeps its lines."""
    import traceback

    from textsel._ext.ccore import lsqr_rowop

    class Failing(NumpyRowOperator):
        def start(self, cols, exps, maxabs, unorm, g):
            if where == "start" and exps is not None:
                self.fail(g)
            super().start(cols, exps, maxabs, unorm, g)

        def step(self, cols, v, vcoef, ucoef, unorm, g):
            self.fail(g)

        def fail(self, g):
            held = g[:1]  # a view one frame further down
            raise ZeroDivisionError(f"from the row operator ({held.shape})")

    X = sp.random(40, 5, density=0.5, format="csr", random_state=0)
    with pytest.raises(ZeroDivisionError, match="from the row operator") as info:
        lsqr_rowop(Failing(X, np.ones((40, 1)), None, True), 40, 5, True, 1, np.zeros(1), 1e-8, 1e-8, 1e8, -1)
    frames = [frame for frame, _ in traceback.walk_tb(info.value.__traceback__)]
    names = [frame.f_code.co_name for frame in frames]
    assert names[-2:] == [where, "fail"]  # the lines are kept
    for frame in frames[-2:]:
        assert not any(isinstance(value, np.ndarray) for value in frame.f_locals.values()), frame.f_locals
