"""The loaders take ``subset=`` and ``return_X_y=`` as scikit-learn's fetchers do, their defaults
returning what they always did.

The reference is scikit-learn itself: the parameters' kinds and defaults are read from
``sklearn.datasets.fetch_20newsgroups`` and ``fetch_rcv1`` (which cannot run here: they download),
and the split sizes are those scikit-learn documents for 20 Newsgroups (11,314 / 7,532 / 18,846)."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import datasets as skd

from textsel.datasets import (
    load_20newsgroups,
    load_arff,
    load_cluto,
    load_reuters21578,
    load_sms_spam,
    load_svmlight,
    load_texts,
)

SUBSETS = ("train", "test", "all")
FETCHERS = {"fetch_20newsgroups": load_20newsgroups, "fetch_rcv1": load_reuters21578}


@pytest.mark.parametrize("theirs, ours", FETCHERS.items())
def test_subset_and_return_x_y_are_keyword_parameters_as_in_scikit_learns_fetchers(theirs, ours):
    """Both keyword-only, return_X_y False by default as scikit-learn's; subset's default is None
    (both splits, apart: what the loader always returned) where scikit-learn's is "train" or "all",
    and the values are scikit-learn's three."""
    sk = inspect.signature(getattr(skd, theirs)).parameters
    mine = inspect.signature(ours).parameters
    for name in ("subset", "return_X_y"):
        assert mine[name].kind == sk[name].kind == inspect.Parameter.KEYWORD_ONLY
    assert mine["return_X_y"].default is sk["return_X_y"].default is False
    assert sk["subset"].default in SUBSETS and mine["subset"].default is None
    assert all(f"'{value}'" in getattr(skd, theirs).__doc__ for value in SUBSETS)
    assert mine["data_home"].default is sk["data_home"].default is None


@pytest.mark.parametrize("load", [load_sms_spam, load_arff, load_svmlight, load_cluto, load_texts])
def test_every_other_loader_takes_return_x_y_keyword_only_default_false(load):
    parameter = inspect.signature(load).parameters["return_X_y"]
    assert parameter.kind == inspect.Parameter.KEYWORD_ONLY and parameter.default is False


def test_sms_spam_return_x_y_is_the_bunchs_data_and_target():
    bunch = load_sms_spam()
    data, target = load_sms_spam(return_X_y=True)
    assert data == bunch.data and np.array_equal(target, bunch.target)
    assert "subset" not in inspect.signature(load_sms_spam).parameters  # no published split


@pytest.mark.parametrize("load", [load_20newsgroups, load_reuters21578])
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"subset": "validation"}, "subset must be"),
        ({"subset": "Train"}, "subset must be"),
        ({"return_X_y": True}, "needs subset"),
    ],  # fmt: skip
)
def test_a_bad_subset_is_refused_before_any_archive_is_read(load, kwargs, message, tmp_path):
    # tmp_path holds no archive: the argument is refused first (scikit-learn also raises ValueError)
    with pytest.raises(ValueError, match=message):
        load(tmp_path, **kwargs)


def test_20newsgroups_subsets_are_scikit_learns_sizes_and_all_is_train_then_test(data_home):
    both = load_20newsgroups(data_home)
    assert set(both) == {"data_train", "data_test", "target_train", "target_test", "target_names",
                         "DESCR"}  # fmt: skip
    sizes = {}
    for subset in ("train", "test", "all"):
        bunch = load_20newsgroups(data_home, subset=subset)
        assert set(bunch) == {"data", "target", "target_names", "DESCR"}
        assert bunch.target_names == both.target_names and len(bunch.data) == len(bunch.target)
        sizes[subset] = len(bunch.data)
        if subset != "all":
            assert bunch.data == both[f"data_{subset}"]
            assert np.array_equal(bunch.target, both[f"target_{subset}"])
    assert sizes == {"train": 11314, "test": 7532, "all": 18846}
    data, target = load_20newsgroups(data_home, subset="all", return_X_y=True)
    assert data == both.data_train + both.data_test
    assert np.array_equal(target, np.r_[both.target_train, both.target_test]) and target.dtype == np.int64


def test_reuters_subsets_carry_the_indicator_target_and_ids(data_home):
    both = load_reuters21578(data_home)
    test = load_reuters21578(data_home, subset="test")
    assert test.data == both.data_test and np.array_equal(test.target, both.target_test)
    assert np.array_equal(test.ids, both.ids_test) and test.target_names == both.target_names
    data, target = load_reuters21578(data_home, subset="all", return_X_y=True)
    assert len(data) == 7770 + 3019 and target.shape == (10789, 90)
    assert np.array_equal(target, np.vstack([both.target_train, both.target_test]))


def test_matrix_and_text_loaders_return_x_y(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    X = sp.csr_matrix(np.array([[1.0, 0, 2], [0, 1, 1]]))
    dump_svmlight_file(X, [0, 1], str(tmp_path / "m.svm"))
    got_X, got_y = load_svmlight(tmp_path / "m.svm", return_X_y=True)
    assert (got_X != X).nnz == 0 and got_y.tolist() == [0, 1]
    (tmp_path / "t.arff").write_text(
        "@relation t\n@attribute a integer\n@attribute b integer\n@attribute class {x,y}\n"
        "@data\n{0 1}\n{1 2,2 y}\n"
    )
    bunch = load_arff(tmp_path / "t.arff")
    got_X, got_y = load_arff(tmp_path / "t.arff", return_X_y=True)
    assert (got_X != bunch.data).nnz == 0 and got_y.tolist() == bunch.target.tolist() == ["x", "y"]
    (tmp_path / "m.mat").write_text("2 3 3\n1 1 3 2\n2 1\n")
    (tmp_path / "m.mat.rclass").write_text("x\ny\n")
    got_X, got_y = load_cluto(tmp_path / "m.mat", tmp_path / "m.mat.rclass", return_X_y=True)
    assert got_X.shape == (2, 3) and got_y.tolist() == ["x", "y"]
    (tmp_path / "d.tsv").write_text("x\tone text\ny\tanother text\n")
    texts, y = load_texts(tmp_path / "d.tsv", text_column=1, label_column=0, return_X_y=True)
    assert texts == ["one text", "another text"] and y.tolist() == ["x", "y"]


def test_every_loader_gives_scikit_learns_names_and_the_old_ones_warn_at_the_callers_line(tmp_path):
    """data, target and DESCR on every loader (scikit-learn's fetchers' names); the names textsel
    first used (X, y, texts, description) still read the same object, with a FutureWarning that
    points at the line that read them, and are not keys."""
    import warnings

    from textsel.datasets import make_synthetic_corpus

    (tmp_path / "t.arff").write_text(
        "@relation t\n@attribute a integer\n@attribute class {x,y}\n@data\n{0 1}\n"
    )
    (tmp_path / "d.tsv").write_text("x\tone text\ny\tanother text\n")
    bunches = {
        "arff": (load_arff(tmp_path / "t.arff"), ["X", "y"]),
        "texts": (load_texts(tmp_path / "d.tsv", text_column=1, label_column=0), ["texts", "y"]),
        "synthetic": (make_synthetic_corpus(n_docs=200, n_terms=500, random_state=0), ["description"]),
        "sms": (load_sms_spam(), []),
    }
    renamed = {"X": "data", "y": "target", "texts": "data", "description": "DESCR"}
    for name, (bunch, old) in bunches.items():
        assert {"data", "target"} <= set(bunch), name
        assert "DESCR" in bunch or name == "texts", name
        for key in old:
            assert key not in bunch
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                value = getattr(bunch, key)
            assert value is bunch[renamed[key]]
            (warning,) = caught
            assert warning.category is FutureWarning and f"'{key}' is now '{renamed[key]}'" in str(
                warning.message
            )
            assert warning.filename == __file__
    assert "description" not in load_sms_spam()  # DESCR alone, as scikit-learn's loaders
