"""Forman's benchmark sets: his table (the class sizes add up to the documents), the sparse text
layout and its class file read and checked against the table, the one known defect of a
published class file repaired and said, and every other defect an error naming the file."""

import numpy as np
import pytest
import scipy.sparse as sp

from textsel.datasets import FORMAN_SETS, forman_sets, load_arff, load_forman


def test_the_table_adds_up_and_has_his_nineteen_sets():
    assert len(FORMAN_SETS) == 19 and sum(len(row.class_sizes) for row in FORMAN_SETS.values()) == 229
    for name, row in FORMAN_SETS.items():
        assert sum(row.class_sizes) == row.documents, name
        assert list(row.class_sizes) == sorted(row.class_sizes), name
    assert {row.source for row in FORMAN_SETS.values()} == {
        "Cora",
        "TREC",
        "OHSUMED",
        "Reuters-21578",
        "WebACE",
    }


def _write_sparse(home, name, X, classes):
    """``X`` (dense counts) and ``classes`` (class x document 0/1 rows) in the CLUTO mirror's layout."""
    folder = home / "forman-cluto" / name
    folder.mkdir(parents=True)
    lines = [f"{X.shape[0]} {X.shape[1]}"]
    for row in X:
        cols = np.flatnonzero(row)[::-1]  # not sorted: the reader sorts each row
        lines.append(" ".join([str(cols.size)] + [f"{c} {row[c]}" for c in cols]))
    (folder / f"sparse_{name}.txt").write_text("\n".join(lines) + "\n")
    (folder / f"{name}_correct.txt").write_text("\n".join(" ".join(map(str, r)) for r in classes) + "\n")


def _as_table(monkeypatch, name, X, classes):
    from textsel.datasets import forman

    sizes = tuple(sorted(int(r.sum()) for r in classes))
    monkeypatch.setitem(forman.FORMAN_SETS, name, forman.FormanSet("TREC", X.shape[0], X.shape[1], sizes))


def _corpus(seed=0, n_docs=12, n_words=7, n_classes=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n_docs, n_words)) * (rng.random((n_docs, n_words)) < 0.5)
    y = np.arange(n_docs) % n_classes
    classes = (y[None, :] == np.arange(n_classes)[:, None]).astype(int)
    return X, y, classes


def test_the_sparse_layout_reads_every_count_and_class(tmp_path, monkeypatch):
    X, y, classes = _corpus()
    _write_sparse(tmp_path, "tr21", X, classes)
    _as_table(monkeypatch, "tr21", X, classes)
    b = load_forman("tr21", tmp_path)
    assert isinstance(b.data, sp.csr_matrix) and b.data.has_sorted_indices and b.data.dtype == np.float64
    np.testing.assert_array_equal(b.data.toarray(), X)
    assert b.target.tolist() == [f"c{k + 1}" for k in y] and b.target_names == ["c1", "c2", "c3"]
    assert b.feature_names is None and b.source == "TREC" and b.notes == ""
    assert forman_sets(tmp_path) == ["tr21"]
    X2, y2 = load_forman("tr21", tmp_path, return_X_y=True)
    assert (X2 != b.data).nnz == 0 and (y2 == b.target).all()


def test_a_repeated_class_row_over_as_many_classless_documents_is_repaired_and_said(tmp_path, monkeypatch):
    """re1's defect planted: class 2's row overwritten by class 1's (both of 4 documents), class
    2's documents then in no class; read back as they were, with a note."""
    X, y, classes = _corpus(n_docs=12, n_classes=3)
    broken = classes.copy()
    broken[1] = broken[0]
    _write_sparse(tmp_path, "tr21", X, broken)
    _as_table(monkeypatch, "tr21", X, classes)
    b = load_forman("tr21", tmp_path)
    assert b.target.tolist() == [f"c{k + 1}" for k in y]
    assert "repeats class c2's row" in b.notes and "4 documents" in b.notes


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda m, c: (m.replace("\n", "\n9 ", 1), c), "expected the number of entries"),
        (lambda m, c: ("\n".join(m.splitlines()[:-2]) + "\n", c), "a file cut short"),
        (lambda m, c: (m.replace("\n", "\n1 x", 1), c), "expected whole numbers"),
        (lambda m, c: (m, c.replace("0", "2", 1)), "zeros and ones"),
        (lambda m, c: (m, "\n".join(c.splitlines()[:-1]) + "\n"), "not one"),
    ],
)
def test_a_damaged_file_is_an_error_naming_it(tmp_path, monkeypatch, damage, message):
    X, _, classes = _corpus(seed=1)
    _write_sparse(tmp_path, "tr21", X, classes)
    _as_table(monkeypatch, "tr21", X, classes)
    folder = tmp_path / "forman-cluto" / "tr21"
    matrix, labels = damage(
        (folder / "sparse_tr21.txt").read_text(), (folder / "tr21_correct.txt").read_text()
    )
    (folder / "sparse_tr21.txt").write_text(matrix)
    (folder / "tr21_correct.txt").write_text(labels)
    with pytest.raises(ValueError, match=message):
        load_forman("tr21", tmp_path)


def test_a_copy_that_is_not_the_one_in_his_table_is_refused(tmp_path):
    X, _, classes = _corpus()
    _write_sparse(tmp_path, "tr21", X, classes)  # the real tr21 is 336 x 7902
    with pytest.raises(ValueError, match=r"Forman's tr21 should hold 336 documents, 7902 words"):
        load_forman("tr21", tmp_path)


def test_unknown_and_missing_sets_say_what_they_can(tmp_path):
    with pytest.raises(ValueError, match="name must be one of Forman's sets"):
        load_forman("20news", tmp_path)
    with pytest.raises(FileNotFoundError, match="forman-cluto/oh0/sparse_oh0.txt"):
        load_forman("oh0", tmp_path)
    with pytest.raises(FileNotFoundError, match="TEXTSEL_DATA"):
        forman_sets(tmp_path)


# -- the real sets, where the data home has them


@pytest.mark.parametrize("name", sorted(FORMAN_SETS))
def test_real_forman_set_is_the_one_in_his_table(data_home, name):
    """Each set the data home holds: the documents, words and class sizes of Forman's Appendix A
    (load_forman raises otherwise), the ARFF form equal to its own ARFF file."""
    if name not in forman_sets(data_home):
        pytest.skip(f"{name} is not in the data home")
    b = load_forman(name, data_home)
    assert b.data.shape == (FORMAN_SETS[name].documents, FORMAN_SETS[name].words)
    assert b.data.data.min() >= 1 and np.all(b.data.data == np.round(b.data.data))
    assert len(b.target_names) == len(FORMAN_SETS[name].class_sizes)
    if b.path.parent.name == "forman-arff":
        raw = load_arff(b.path)
        assert (raw.data != b.data).nnz == 0 and (raw.target == b.target).all()
    if name == "re1":
        assert "repeats class" in b.notes
