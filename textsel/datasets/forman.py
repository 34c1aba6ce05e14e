"""Forman's nineteen benchmark sets (his Appendix A): what each should hold, and the sets of a data
home read in either form they are published in, each checked against his table."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ._results import LoaderBunch


class FormanSet(NamedTuple):
    """One row of Forman's table of datasets (JMLR 3, 2003, Appendix A)."""

    source: str
    documents: int
    words: int
    class_sizes: tuple  # sorted, as the table gives them


#: Forman's Appendix A, "Datasets": source, documents, words and the class sizes (sorted) of each
#: of the 19 sets of his study, whose classes are its 229 tasks (Cora's source cell is unreadable
#: in the text; his Sec. 3 says its abstracts were "gathered from Cora")
FORMAN_SETS = {
    "cora": FormanSet("Cora", 1800, 5171, (50,) * 36),
    "fbis": FormanSet("TREC", 2463, 2000,
                      (38, 43, 46, 46, 46, 48, 65, 92, 94, 119, 121, 125, 139, 190, 358, 387, 506)),
    "la1": FormanSet("TREC", 3204, 31472, (273, 341, 354, 555, 738, 943)),
    "la2": FormanSet("TREC", 3075, 31472, (248, 301, 375, 487, 759, 905)),
    "oh0": FormanSet("OHSUMED", 1003, 3182, (51, 56, 57, 66, 71, 76, 115, 136, 181, 194)),
    "oh5": FormanSet("OHSUMED", 918, 3012, (59, 61, 61, 72, 74, 85, 93, 120, 144, 149)),
    "oh10": FormanSet("OHSUMED", 1050, 3238, (52, 60, 61, 70, 87, 116, 126, 148, 165, 165)),
    "oh15": FormanSet("OHSUMED", 913, 3100, (53, 56, 56, 66, 69, 98, 98, 106, 154, 157)),
    "ohscal": FormanSet("OHSUMED", 11162, 11465, (709, 764, 864, 1001, 1037, 1159, 1260, 1297, 1450, 1621)),
    "re0": FormanSet("Reuters-21578", 1504, 2886, (11, 15, 16, 20, 37, 38, 39, 42, 60, 80, 219, 319, 608)),
    "re1": FormanSet("Reuters-21578", 1657, 3758,
                     (10, 13, 15, 17, 18, 18, 19, 19, 20, 20, 27, 31, 31, 32, 37, 42, 48, 50, 60, 87, 99,
                      106, 137, 330, 371)),
    "tr11": FormanSet("TREC", 414, 6429, (6, 11, 20, 21, 29, 52, 69, 74, 132)),
    "tr12": FormanSet("TREC", 313, 5804, (9, 29, 29, 30, 34, 35, 54, 93)),
    "tr21": FormanSet("TREC", 336, 7902, (4, 9, 16, 35, 41, 231)),
    "tr23": FormanSet("TREC", 204, 5832, (6, 11, 15, 36, 45, 91)),
    "tr31": FormanSet("TREC", 927, 10128, (2, 21, 63, 111, 151, 227, 352)),
    "tr41": FormanSet("TREC", 878, 7454, (9, 18, 26, 33, 35, 83, 95, 162, 174, 243)),
    "tr45": FormanSet("TREC", 690, 8261, (14, 18, 36, 47, 63, 67, 75, 82, 128, 160)),
    "wap": FormanSet("WebACE", 1560, 8460,
                     (5, 11, 13, 15, 18, 33, 35, 37, 40, 44, 54, 65, 76, 91, 91, 97, 130, 168, 196, 341)),
}  # fmt: skip

_ARFF_FOLDER, _SPARSE_FOLDER = "forman-arff", "forman-cluto"


def forman_sets(data_home=None) -> list[str]:
    """The names of Forman's sets the data home holds (ARFF in ``forman-arff/``, or the sparse
    text layout in ``forman-cluto/<name>/``), sorted.

    Raises ``FileNotFoundError`` naming both folders, and how to point at another data home,
    when it holds none."""
    from ._home import get_data_home

    home = get_data_home(data_home)
    names = sorted(name for name in FORMAN_SETS if _where(home, name) is not None)
    if not names:
        raise FileNotFoundError(
            f"none of Forman's sets in {home / _ARFF_FOLDER} or {home / _SPARSE_FOLDER}; put them in either "
            "folder of the data home (docs/datasets.md says how) and name it with --data-home / data_home= "
            "or the TEXTSEL_DATA environment variable"
        )
    return names


def load_forman(name, data_home=None, *, return_X_y=False):
    """One of Forman's benchmark sets from the data home, checked against his table.

    The set is read from ``forman-arff/<name>.wc.arff[.gz]`` (Forman's own ARFF files, with the
    words) or else from ``forman-cluto/<name>/sparse_<name>.txt`` and ``<name>_correct.txt`` (the
    sparse text layout of the CLUTO mirror: no words, classes numbered ``c1``, ``c2``, ... in the
    order of the class file).  Its documents, words and sorted class sizes must be the ones
    Forman's Appendix A gives (:data:`FORMAN_SETS`); a set that differs raises ``ValueError``.

    One published class file (re1's) repeats a class's row and leaves as many documents without a
    class: where a repeated row and the documents without a class are of one size, those
    documents are read as the class the repetition overwrote, which the table's class sizes then
    confirm; ``notes`` says so.

    Parameters
    ----------
    name : str
        A set of :data:`FORMAN_SETS` (``"oh0"``, ``"re1"``, ...).
    data_home : path, optional
        The folder holding ``forman-arff/`` or ``forman-cluto/`` (default: ``TEXTSEL_DATA``, else
        ``~/textsel_data``).
    return_X_y : bool, default False
        Return ``(X, y)`` instead of a Bunch, as scikit-learn's loaders do.

    Returns
    -------
    Bunch or tuple
        ``data`` (CSR, float64 word counts, documents x words), ``target`` (class label
        strings), ``target_names``, ``feature_names`` (the words, or None where the layout has
        none), ``source`` (Forman's source column: sets of one source share their origin and are
        not independent), ``notes`` (what was repaired, or ``""``), ``path``, ``DESCR``; with
        ``return_X_y``, ``(X, y)``.
    """
    from ._home import get_data_home

    if name not in FORMAN_SETS:
        known = ", ".join(sorted(FORMAN_SETS))
        raise ValueError(f"name must be one of Forman's sets ({known}); got {name!r}")
    home = get_data_home(data_home)
    path = _where(home, name)
    if path is None:
        raise FileNotFoundError(
            f"Forman's {name} not found in {home}: expected {_ARFF_FOLDER}/{name}.wc.arff[.gz] or "
            f"{_SPARSE_FOLDER}/{name}/sparse_{name}.txt (name the data home with --data-home / data_home= or "
            "the TEXTSEL_DATA environment variable)"
        )
    if path.parent.name == _ARFF_FOLDER:
        from .arff import load_arff

        b = load_arff(path)
        X, y, target_names, words, notes = (
            b.data,
            np.asarray(b.target),
            list(b.target_names),
            b.feature_names,
            "",
        )
    else:
        X = _read_sparse(path, name)
        y, notes = _read_classes(path.parent / f"{name}_correct.txt", X.shape[0], name)
        target_names, words = sorted(set(y.tolist()), key=lambda c: int(c[1:])), None
    _check(name, X, y)
    if return_X_y:
        return X, y
    row = FORMAN_SETS[name]
    return LoaderBunch(
        data=X, target=y, target_names=target_names, feature_names=words, source=row.source, notes=notes,
        path=path, DESCR=f"Forman's {name} ({row.source}): {X.shape[0]} documents, {X.shape[1]} words, "
        f"{len(target_names)} classes, read from {path.name}" + (f"; {notes}" if notes else ""),
    )  # fmt: skip


def _where(home: Path, name: str) -> Path | None:
    for path in (home / _ARFF_FOLDER / f"{name}.wc.arff", home / _ARFF_FOLDER / f"{name}.wc.arff.gz",
                 home / _SPARSE_FOLDER / name / f"sparse_{name}.txt"):  # fmt: skip
        if path.is_file():
            return path
    return None


def _read_sparse(path: Path, name: str):
    """``sparse_<name>.txt``: ``documents columns``, then per document its number of entries and
    that many ``column count`` pairs (0-based columns)."""
    with path.open(encoding="ascii", errors="strict") as fh:
        try:
            head = [int(t) for t in fh.readline().split()]
        except ValueError:
            head = []
        if len(head) != 2 or min(head) < 1:
            raise ValueError(f"{path}: the first line must be 'documents columns'")
        n_docs, n_cols = head
        indptr, indices, values = [0], [], []
        for lineno, line in enumerate(fh, 2):
            try:
                row = np.array(line.split(), dtype=np.int64)
            except ValueError:
                raise ValueError(f"{path}:{lineno}: expected whole numbers") from None
            if row.size == 0 and len(indptr) > n_docs:
                continue  # blank lines after the last document
            if row.size == 0 or row[0] < 0 or row.size != 1 + 2 * row[0]:
                raise ValueError(f"{path}:{lineno}: expected the number of entries, then that many "
                                 "'column count' pairs")  # fmt: skip
            cols, counts = row[1::2], row[2::2]
            if cols.size and (cols.min() < 0 or cols.max() >= n_cols or counts.min() < 1):
                raise ValueError(f"{path}:{lineno}: a column outside 0..{n_cols - 1} or a count below 1")
            if np.unique(cols).size != cols.size:
                raise ValueError(f"{path}:{lineno}: a column given twice")
            order = np.argsort(cols, kind="stable")
            indices.append(cols[order])
            values.append(counts[order])
            indptr.append(indptr[-1] + cols.size)
    if len(indptr) - 1 != n_docs:
        raise ValueError(f"{path}: {len(indptr) - 1} documents where the first line says {n_docs} "
                         "(a file cut short?)")  # fmt: skip
    empty = np.empty(0, dtype=np.int64)
    X = sp.csr_matrix(
        (np.concatenate(values or [empty]).astype(np.float64), np.concatenate(indices or [empty]), indptr),
        shape=(n_docs, n_cols),
    )
    X.has_sorted_indices = True
    return X


def _read_classes(path: Path, n_docs: int, name: str):
    """``<name>_correct.txt``: one line per class, a 0 or 1 per document; labels ``c1``, ``c2``,
    ... in the lines' order, and a note where a repeated row had overwritten a class."""
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: Forman's {name} needs its class file beside the matrix")
    rows = []
    with path.open(encoding="ascii", errors="strict") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            row = line.split()
            if len(row) != n_docs or set(row) - {"0", "1"}:
                raise ValueError(f"{path}:{lineno}: expected {n_docs} zeros and ones, one per document")
            rows.append(np.array(row) == "1")
    if not rows:
        raise ValueError(f"{path}: no classes")
    M = np.array(rows)
    notes = ""
    classless = np.flatnonzero(M.sum(axis=0) == 0)
    repeated = [k for k in range(len(M)) if any(np.array_equal(M[k], M[j]) for j in range(k))]
    if classless.size and len(repeated) == 1 and M[repeated[0]].sum() == classless.size:
        k = repeated[0]
        M[k] = False
        M[k, classless] = True
        notes = (f"the class file repeats class c{k + 1}'s row and leaves {classless.size} documents "
                 f"without a class; those documents are read as class c{k + 1} (the class sizes then "
                 "are Forman's)")  # fmt: skip
    per_doc = M.sum(axis=0)
    if (per_doc != 1).any():
        bad = int(np.flatnonzero(per_doc != 1)[0])
        raise ValueError(f"{path}: document {bad} is in {int(per_doc[bad])} classes, not one "
                         f"({int((per_doc != 1).sum())} such documents)")  # fmt: skip
    return np.array([f"c{k + 1}" for k in M.argmax(axis=0)]), notes


def _check(name: str, X, y) -> None:
    """The set as Forman's table describes it, or ValueError saying what differs."""
    want = FORMAN_SETS[name]
    sizes = tuple(sorted(np.unique(y, return_counts=True)[1].tolist()))
    got = (X.shape[0], X.shape[1], sizes)
    if got != (want.documents, want.words, want.class_sizes):
        raise ValueError(
            f"Forman's {name} should hold {want.documents} documents, {want.words} words and classes of "
            f"{list(want.class_sizes)} (his Appendix A); this copy holds {X.shape[0]}, {X.shape[1]} and "
            f"{list(sizes)}"
        )
