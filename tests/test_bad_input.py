"""The bad-input table: each case works correctly or raises ValueError/TypeError naming the parameter."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_corpus

import textsel
from textsel.masking import evaluate_subsets


@pytest.fixture
def Xy():
    return random_corpus(n_docs=30, n_terms=12, seed=1)


def _with_value(X, value):
    X = X.copy()
    X.data[3] = value
    return X


@pytest.mark.parametrize(
    "make, exc, match",
    [
        (lambda X, y: (X, y[:-1]), ValueError, "y has 29 entries but X has 30"),
        (lambda X, y: (_with_value(X, np.nan), y), ValueError, "NaN or infinity"),
        (lambda X, y: (_with_value(X, np.inf), y), ValueError, "NaN or infinity"),
        (lambda X, y: (_with_value(X, -1.0), y), ValueError, "Negative values in data passed to X"),
        (lambda X, y: (X.toarray()[0], y), ValueError, "X must be 2-D"),
        (lambda X, y: (X.toarray()[None], y), ValueError, "X must be 2-D"),
        (lambda X, y: (X[:0], y[:0]), ValueError, "at least one document"),
        (lambda X, y: (X[:, :0], y), ValueError, "at least one document and one term"),
        (lambda X, y: (X.astype(complex), y), TypeError, "X must hold real numbers"),
        (lambda X, y: ("not a matrix", y), TypeError, "X must be a 2-D array"),
        (lambda X, y: (None, y), TypeError, "X must be a 2-D array"),
        (lambda X, y: (X, np.zeros(30)), ValueError, "y has 1 class"),
        (lambda X, y: (X, np.linspace(0, 1, 30)), ValueError, "y must hold class labels"),
        (lambda X, y: (X, np.r_[np.nan, y[1:]]), ValueError, "y contains NaN"),
        (lambda X, y: (X, None), ValueError, "y is required"),
        (lambda X, y: (X, np.full((30, 2), 2)), ValueError, "indicator matrix holding only 0 and 1"),
        (lambda X, y: (X, np.full((30, 2), 0.5)), ValueError, "indicator matrix holding only 0 and 1"),
        (lambda X, y: (X, sp.csr_matrix(np.full((30, 2), 3))), ValueError, "only 0 and 1"),
        (lambda X, y: (X, sp.csr_matrix(np.ones((29, 2)))), ValueError, "y has shape"),
        (lambda X, y: (X, np.zeros((30, 2, 2))), ValueError, "y must be 1-D labels or a 2-D"),
    ],
)
def test_term_stats_rejects(Xy, make, exc, match):
    X, y = make(*Xy)
    with pytest.raises(exc, match=match):
        textsel.term_stats(X, y)


def test_broken_csr_buffers_raise_instead_of_crashing():
    """Indices out of range or a corrupt indptr never reach memory they should not."""
    good = sp.csr_matrix(np.eye(3))
    bad_index = sp.csr_matrix((3, 3))
    bad_index.data, bad_index.indices, bad_index.indptr = (
        good.data,
        np.array([0, 1, 7], np.int32),
        good.indptr,
    )
    with pytest.raises(ValueError, match="out of range"):
        textsel.term_stats(bad_index, [0, 1, 1])
    negative_index = sp.csr_matrix((3, 3))
    negative_index.data, negative_index.indices, negative_index.indptr = (
        good.data, np.array([0, -1, 2], np.int32), good.indptr)  # fmt: skip
    with pytest.raises(ValueError, match="out of range"):
        textsel.term_stats(negative_index, [0, 1, 1])
    bad_ptr = sp.csr_matrix((3, 3))
    bad_ptr.data, bad_ptr.indices, bad_ptr.indptr = good.data, good.indices, np.array([0, 2, 1, 3], np.int32)
    with pytest.raises(ValueError, match="indptr"):
        textsel.term_stats(bad_ptr, [0, 1, 1])
    past_end = sp.csr_matrix((3, 3))
    past_end.data, past_end.indices, past_end.indptr = (
        good.data,
        good.indices,
        np.array([0, 1, 2, 9], np.int32),
    )
    with pytest.raises(ValueError, match="indptr"):
        textsel.term_stats(past_end, [0, 1, 1])


def _malformed(X, kind):
    """A copy of X whose buffers scipy would read past: a row running beyond the stored values, a
    decreasing row pointer, or a column index out of range."""
    X = X.copy()
    X.indptr, X.indices = X.indptr.copy(), X.indices.copy()
    if kind == "indptr past the end":
        X.indptr[-1] = X.indices.size + 40
    elif kind == "decreasing indptr":
        X.indptr[2] = X.indptr[-1] + 5
    else:
        X.indices[1] = X.shape[1] + 1000
    return X


ENTRY_POINTS = {
    "TermSelector.fit": lambda X, y, good: textsel.TermSelector(k=3).fit(X, y),
    "TermSelector.transform": lambda X, y, good: textsel.TermSelector(k=3).fit(good, y).transform(X),
    "ScalableTermSelector.fit": lambda X, y, good: textsel.ScalableTermSelector(k=3).fit(X, y),
    "DualLinearSVC.fit": lambda X, y, good: textsel.DualLinearSVC().fit(X, y),
    "DualLinearSVC.decision_function": lambda X, y, good: (
        textsel.DualLinearSVC().fit(good, y).decision_function(X)
    ),
    "WeightedProximalSVC.fit": lambda X, y, good: textsel.WeightedProximalSVC().fit(X, y),
    "WeightedProximalSVC.predict": lambda X, y, good: textsel.WeightedProximalSVC().fit(good, y).predict(X),
    "SRLSClassifier.fit": lambda X, y, good: textsel.sampling.SRLSClassifier(r=5, random_state=0).fit(X, y),
    "lsqr": lambda X, y, good: textsel.lsqr(X, np.ones(X.shape[0])),
    "feature_probabilities": lambda X, y, good: textsel.sampling.feature_probabilities(X, "ss", 2),
    "evaluate_subsets": lambda X, y, good: evaluate_subsets(
        textsel.DualLinearSVC().fit(good, y), good, y, X, y, [2]
    ),
}


@pytest.mark.parametrize("kind", ["indptr past the end", "decreasing indptr", "index out of range"])
@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_malformed_sparse_input_is_refused_everywhere(Xy, entry, kind):
    """Every public entry point refuses a malformed CSR before scipy or scikit-learn reads it
    (they would read past the buffers: a crash, or garbage)."""
    X, y = Xy
    y = (np.asarray(y) == np.asarray(y)[0]).astype(int)
    # "row pointer" and "column index": the C core's wording (lsqr leaves the check to it)
    with pytest.raises(ValueError, match="indptr|indices|row pointer|column index"):
        ENTRY_POINTS[entry](_malformed(X, kind), y, X)


def test_malformed_csc_is_refused_before_conversion(Xy):
    """A CSC matrix is checked as it is, before scipy converts it (the conversion would read past
    a malformed one)."""
    X, y = Xy
    csc = X.tocsc()
    csc.indices = csc.indices.copy()
    csc.indices[0] = X.shape[0] + 7
    with pytest.raises(ValueError, match="indices"):
        textsel.sampling.feature_probabilities(csc, "ss", 2)
    with pytest.raises(ValueError, match="indices"):
        textsel.TermSelector(k=3).fit(csc, y)


def test_int64_indices_work(Xy):
    X, y = Xy
    X64 = sp.csr_matrix(X.shape)  # assigned directly: the constructor would downcast to int32
    X64.data, X64.indices, X64.indptr = X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64)
    assert X64.indices.dtype == np.int64
    assert textsel.term_stats(X64, y) == textsel.term_stats(X, y)


def test_mixed_index_dtypes_are_unified(Xy):
    X, y = Xy
    mixed = sp.csr_matrix(X.shape)
    mixed.data, mixed.indices, mixed.indptr = X.data, X.indices.astype(np.int32), X.indptr.astype(np.int64)
    assert textsel.term_stats(mixed, y) == textsel.term_stats(X, y)


def test_caller_arrays_are_never_modified_even_when_rejected(Xy):
    X, y = Xy
    X = _with_value(X, -2.0)
    saved = X.data.copy(), X.indices.copy(), X.indptr.copy(), y.copy()
    with pytest.raises(ValueError):
        textsel.term_stats(X, y)
    Y = sp.csr_matrix(np.eye(30, 3, dtype=int) + np.eye(30, 3, k=-3, dtype=int))
    Y_saved = Y.data.copy(), Y.indices.copy(), Y.indptr.copy()
    textsel.term_stats(abs(X), Y)
    for a, b in zip(
        saved + Y_saved, (X.data, X.indices, X.indptr, y, Y.data, Y.indices, Y.indptr), strict=True
    ):
        np.testing.assert_array_equal(a, b)


def test_empty_class_raises_when_scoring(Xy):
    X, y = Xy
    stats = textsel.term_stats(X, y, classes=[0, 1, 2, 3])  # class 3 has no documents
    with pytest.raises(ValueError, match="y has no documents of class 3"):
        textsel.score(stats, "bns")
    Y = np.zeros((30, 2), int)
    Y[:, 0] = 1
    Y[:5, 1] = 1
    with pytest.raises(ValueError, match="every document of y is in class 0"):
        textsel.score(textsel.term_stats(X, Y), "ig")


def test_unknown_labels_for_given_classes(Xy):
    X, y = Xy
    with pytest.raises(ValueError, match="labels not in classes"):
        textsel.term_stats(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="classes must be sorted"):
        textsel.term_stats(X, y, classes=[2, 1, 0])


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"metric": "nope"}, ValueError, "metric must be one of"),
        ({"metric": 3}, ValueError, "metric must be one of"),
        ({"alpha": 1.5}, ValueError, "alpha must be"),
        ({"alpha": "x"}, TypeError, "alpha must be a real number"),
        ({"pow_k": -1}, ValueError, "pow_k must be >= 0"),
        ({"pow_k": np.nan}, ValueError, "pow_k must be >= 0"),
    ],
)
def test_score_rejects(Xy, kwargs, exc, match):
    stats = textsel.term_stats(*Xy)
    with pytest.raises(exc, match=match):
        textsel.score(stats, **kwargs)


def test_score_needs_term_stats():
    with pytest.raises(TypeError, match="stats must be a TermStats"):
        textsel.score(np.zeros((2, 3)), "bns")


@pytest.mark.parametrize(
    "params, exc, match",
    [
        ({"k": -1}, ValueError, r"k must be >= 0, got -1"),
        ({"k": 2.5}, TypeError, "k must be an integer"),
        ({"k": "some"}, TypeError, "k must be an integer"),
        ({"percentile": 0}, ValueError, "percentile must be"),
        ({"percentile": 101}, ValueError, "percentile must be"),
        ({"multiclass": "vote"}, ValueError, "multiclass must be one of"),
        ({"metric": "mi"}, ValueError, "metric must be one of"),
    ],
)
def test_selector_rejects(Xy, params, exc, match):
    with pytest.raises(exc, match=match):
        textsel.TermSelector(**params).fit(*Xy)


def _stats_fields(Xy):
    s = textsel.term_stats(*Xy)
    return dict(class_df=s.class_df, df=s.df, class_sizes=s.class_sizes, n_docs=s.n_docs, classes=s.classes)


@pytest.mark.parametrize(
    "change, exc, match",
    [
        (lambda f: {**f, "class_df": f["class_df"][0]}, ValueError, "class_df must be 2-D"),
        (lambda f: {**f, "class_df": f["class_df"].astype(float)}, TypeError, "integer counts"),
        (lambda f: {**f, "df": f["df"][:-1]}, ValueError, "df has shape"),
        (lambda f: {**f, "class_sizes": f["class_sizes"][:-1]}, ValueError, "class_sizes has shape"),
        (lambda f: {**f, "classes": f["classes"][:-1]}, ValueError, "classes has shape"),
        (lambda f: {**f, "n_docs": 2.5}, TypeError, "n_docs must be an integer"),
        (lambda f: {**f, "n_docs": -1}, ValueError, "n_docs must be >= 0"),
    ],
)
def test_term_stats_fields_are_checked(Xy, change, exc, match):
    with pytest.raises(exc, match=match):
        textsel.TermStats(**change(_stats_fields(Xy)))


@pytest.mark.parametrize("metric", ["bns", "ig", "chi2"])
@pytest.mark.parametrize(
    "corrupt",
    [
        lambda f: f["class_df"].__setitem__((0, 0), f["df"][0] + 5),  # tp > df
        lambda f: f["class_df"].__setitem__((1, 2), -3),  # negative count
        lambda f: f["df"].__setitem__(4, 10_000),  # df > n_docs
        lambda f: f["class_sizes"].__setitem__(0, 10_000),  # class larger than the corpus
    ],
)
def test_inconsistent_hand_built_stats_raise_not_crash(Xy, metric, corrupt):
    """Counts index the BNS lookup tables; inconsistent ones must be caught, not read past the end."""
    fields = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in _stats_fields(Xy).items()}
    corrupt(fields)
    with pytest.raises(ValueError, match="inconsistent|every document|no documents"):
        textsel.score(textsel.TermStats(**fields), metric)


def test_bad_values_in_documents_without_labels_are_caught(Xy):
    """Multi-label y may leave documents in no class; their values are checked all the same."""
    X, _ = Xy
    Y = np.zeros((30, 2), int)
    Y[5:, 0] = 1
    Y[:20, 1] = 0
    X = X.copy()
    X.data[X.indptr[0] : X.indptr[5]] = -1.0  # documents 0-4 have no label
    assert X.indptr[5] > X.indptr[0]
    with pytest.raises(ValueError, match="Negative values"):
        textsel.term_stats(X, Y)


@pytest.mark.parametrize("weight", [-1.0, np.nan, np.inf, "heavy"])
@pytest.mark.parametrize("cls", [textsel.DualLinearSVC, textsel.RLSClassifier, textsel.ProximalSVC,
                                 textsel.WeightedProximalSVC])  # fmt: skip
def test_a_bad_class_weight_is_refused_naming_the_estimator_and_the_class(cls, weight):
    X, y = random_corpus(n_classes=2)
    with pytest.raises(
        ValueError, match=rf"{cls.__name__}: class_weight must give each class a finite weight >= 0, got 1: "
    ):
        cls(class_weight={1: weight}).fit(X, y)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_zero_class_weight_is_what_linearsvc_fits(n_classes):
    """LinearSVC accepts a class weighted 0 (in a binary task its documents count for nothing;
    one-vs-rest, its own problem's positives do); DualLinearSVC solves the same problems: the
    same weights to the solvers' tolerance."""
    from sklearn.svm import LinearSVC

    X, y = random_corpus(n_docs=120, n_terms=30, n_classes=n_classes, seed=3)
    ours = textsel.DualLinearSVC(class_weight={0: 0.0}, tol=1e-8, max_iter=10_000).fit(X, y)
    ref = LinearSVC(class_weight={0: 0.0}, tol=1e-8, max_iter=100_000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-4)


def test_weighted_proximal_svc_says_why_it_needs_a_weighted_positive():
    X, y = random_corpus(n_classes=2)
    with pytest.raises(
        ValueError, match="WeightedProximalSVC: sample_weight and class_weight leave class column 0"
    ):
        textsel.WeightedProximalSVC(class_weight={1: 0.0}).fit(X, y)


def test_messages_show_values_as_users_wrote_them():
    """Bounds read '>= 1' or '> 0', and numpy scalars print as the numbers they hold."""
    from textsel._checks import check_positive_int, check_real

    with pytest.raises(ValueError, match=r"^k must be >= 1, got -5$"):
        check_positive_int(np.int64(-5), "k")
    with pytest.raises(TypeError, match=r"^k must be an integer, got 'ten'$"):
        check_positive_int(np.str_("ten"), "k")
    with pytest.raises(ValueError, match=r"^C must be > 0, got 0.0$"):
        check_real(np.float64(0.0), "C", 0.0, None, low_open=True)
    with pytest.raises(ValueError, match=r"^C must be > 0, got 0.0$"):
        textsel.DualLinearSVC(C=0).fit(*random_corpus())
    with pytest.raises(ValueError, match=r"y has 1 class \('alt.atheism'\)"):
        textsel.DualLinearSVC().fit(np.eye(3), np.array(["alt.atheism"] * 3))


def test_the_dask_layer_without_dask_says_what_to_install():
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['dask'] = None\n"
        "import textsel.distributed as d\n"
        "try:\n    d.BlockMatrix\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert 'python -m pip install "dask[distributed]"' in out and "dask is not installed" in out


@pytest.mark.parametrize(
    "call, expected",
    [(lambda X, y: textsel.TermSelector(metric=np.str_("nope")).fit(X, y), "got 'nope'"),
     (lambda X, y: textsel.TermSelector(multiclass=np.str_("x")).fit(X, y), "got 'x'"),
     (lambda X, y: textsel.DualLinearSVC(loss=np.str_("l3")).fit(X, y), "got 'l3'"),
     (lambda X, y: textsel.score(textsel.term_stats(X, y), np.str_("nope")), "got 'nope'"),
     (lambda X, y: textsel.TermSelector(k=np.str_("ten")).fit(X, y), "got 'ten'")],
)  # fmt: skip
def test_choices_are_echoed_as_written_not_as_numpy_reprs(call, expected):
    X, y = random_corpus()
    with pytest.raises((ValueError, TypeError)) as info:
        call(X, y)
    assert expected in str(info.value) and "np." not in str(info.value)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("form", ["csr", "csc", "dense", "float32", "unlabelled row"])
def test_term_selector_refuses_non_finite_X_found_by_the_counting_pass(Xy, value, form):
    """TermSelector.fit leaves NaN and infinity to the counting kernel (one pass over the values
    instead of two): every form of X, including a document in no class of a multi-label y, must
    still be refused naming X, and the caller's matrix must be left as it was."""
    X, y = Xy
    X = _with_value(X, value)
    row = int(np.searchsorted(X.indptr, 3, side="right") - 1)  # the document holding the value
    if form == "unlabelled row":
        y = np.eye(3, dtype=int)[y % 3]
        y[row] = 0
    X = {"csr": X, "csc": X.tocsc(), "dense": X.toarray(), "float32": X.astype(np.float32),
         "unlabelled row": X}[form]  # fmt: skip
    before = X.copy()
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        textsel.TermSelector("bns", k=3).fit(X, y)
    if sp.issparse(X):
        np.testing.assert_array_equal(X.toarray(), before.toarray())
    else:
        np.testing.assert_array_equal(X, before)


# -- labels of mixed types, an iteration limit past C's integers, an SVMlight index past 2**31 --------

MIXED = np.array(["spam", 1, "ham", 2, "spam", 1] * 5, dtype=object)


@pytest.mark.parametrize(
    "fit",
    [
        lambda X, y: textsel.term_stats(X, y),
        lambda X, y: textsel.TermSelector(k=2).fit(X, y),
        lambda X, y: textsel.TermSelector(k=2).partial_fit(X, y),
        lambda X, y: textsel.ScalableTermSelector(k=2).fit(X, y),
        lambda X, y: textsel.DualLinearSVC().fit(X, y),
        lambda X, y: textsel.RLSClassifier().fit(X, y),
        lambda X, y: textsel.WeightedProximalSVC().fit(X, y),
    ],
    ids=[
        "term_stats",
        "TermSelector",
        "partial_fit",
        "ScalableTermSelector",
        "DualLinearSVC",
        "RLS",
        "WPSVM",
    ],
)
def test_labels_mixing_strings_and_numbers_are_a_value_error_naming_y(Xy, fit):
    """Strings and numbers cannot be ordered together: a ValueError naming y and the types, never
    numpy's bare TypeError from the sort."""
    X, _ = Xy
    with pytest.raises(
        ValueError, match=r"^y mixes labels of types that cannot be ordered together \(int, str\)"
    ):
        fit(X, MIXED)


def test_an_iteration_limit_past_the_c_cores_integers_means_no_limit(Xy):
    """scipy's lsqr takes any Python int as iter_lim; textsel's took 2**63 as an OverflowError.
    A limit no solve reaches gives the solve without a limit."""
    X, _ = Xy
    b = np.arange(X.shape[0], dtype=np.float64)
    free = textsel.lsqr(X, b)
    for limit in (2**63, 10**30):
        result = textsel.lsqr(X, b, iter_lim=limit)
        assert result.itn == free.itn and np.array_equal(result.x, free.x)


def test_an_svmlight_feature_index_past_2_31_is_a_value_error_naming_the_file(tmp_path):
    path = tmp_path / "hashed.svm"
    path.write_text("1 1:1 3000000000:2\n0 2:1\n")
    with pytest.raises(ValueError, match=r"hashed.svm: a feature index \(or query id\) beyond 2147483647"):
        textsel.datasets.load_svmlight(path)
