"""Fuzz targets: each takes the fuzzer's bytes, calls textsel, and fails only on a real fault.

A target may let textsel raise ``ValueError`` or ``TypeError`` (the documented answer to bad
input); any other exception escapes and counts as a crash, and so do the checks each target
makes on what a call returned: the caller's inputs unchanged, results finite and of the right
shape, and term counts equal to a brute-force count.  ``run.py`` drives these under atheris;
``tests/test_fuzz.py`` replays the committed cases and runs each target briefly.
"""

from __future__ import annotations

import copy
import gzip
import io
import os
import tarfile
import tempfile
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from inputs import Bytes, csr, labels

EXPECTED = (ValueError, TypeError)

#: one scratch folder per process, on tmpfs when there is one: readers take paths
_SHM = "/dev/shm" if os.path.isdir("/dev/shm") else None
SCRATCH = Path(tempfile.mkdtemp(prefix="textsel-fuzz-", dir=_SHM))


@contextmanager
def expected_errors():
    """Swallow the documented errors, and warnings (which are information, not faults)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            yield
        except EXPECTED:
            pass


def _fingerprint(value):
    """Everything about an input a call could change, comparable after the call."""
    if sp.issparse(value):
        return ("sparse", type(value), value.shape, *(_fingerprint(getattr(value, a, None))
                for a in ("data", "indices", "indptr", "row", "col")))  # fmt: skip
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return ("object", value.shape, repr(value.tolist()))
        return ("array", value.dtype.str, value.shape, value.tobytes())
    return ("other", repr(value))


@contextmanager
def unchanged(*inputs):
    """Fail if the call inside changed any of the caller's inputs."""
    before = [_fingerprint(copy.copy(v)) for v in inputs]
    yield
    after = [_fingerprint(v) for v in inputs]
    assert before == after, "textsel changed the caller's input"


def _presence(X):
    """(n_docs, n_terms) bool: document d holds a stored nonzero of term t (brute force)."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        out = np.zeros(X.shape, dtype=bool)
        for d in range(X.shape[0]):
            for k in range(X.indptr[d], X.indptr[d + 1]):
                if X.data[k] != 0:
                    out[d, X.indices[k]] = True
        return out
    return np.asarray(X) != 0


# --------------------------------------------------------------------------- array entry points


def fuzz_term_stats(data: bytes) -> None:
    """term_stats, then score with every metric; counts checked against a brute-force count."""
    import textsel

    b = Bytes(data)
    X = csr(b)
    y = labels(b, _n_rows(X))
    n_jobs = b.pick((1, 2, None))
    with expected_errors(), unchanged(X, y):
        stats = textsel.term_stats(X, y, n_jobs=n_jobs)
        y_arr = np.asarray(y)
        if y_arr.ndim == 1 and not sp.issparse(y):
            present = _presence(X)
            for row, cls in enumerate(stats.classes):
                expected = present[y_arr == cls].sum(axis=0)
                assert np.array_equal(stats.class_df[row], expected), "class_df differs from brute force"
            assert np.array_equal(stats.df, present.sum(axis=0)), "df differs from a brute-force count"
        for metric in textsel.METRICS:
            with expected_errors():
                table = textsel.score(stats, metric, alpha=b.pick((0.5, 0.0, 1.0)), n_jobs=n_jobs)
                assert table.shape == (stats.n_classes, stats.n_terms)
                assert np.isfinite(table).all(), f"{metric} gave a non-finite score"
        _check_blocks(b, X, y, stats, n_jobs)


def _check_blocks(b, X, y, stats, n_jobs) -> None:
    """The counted matrix cut into row blocks (empty ones too, each with its own index type) and
    counted together equals it; a further block from the fuzzer's bytes, malformed or not, is
    counted or refused with a BlockValueError naming it, never read past."""
    from textsel.termstats import BlockValueError, count_blocks

    X = sp.csr_matrix(X)
    cuts = sorted(b.int(0, X.shape[0]) for _ in range(b.int(0, 4)))
    bounds = [0, *cuts, X.shape[0]]
    blocks = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        index = b.pick((np.int32, np.int64))
        a, z = X.indptr[lo], X.indptr[hi]
        block = sp.csr_matrix((hi - lo, X.shape[1]), dtype=X.dtype)
        block.data, block.indices = X.data[a:z], X.indices[a:z].astype(index)
        block.indptr = (X.indptr[lo : hi + 1] - a).astype(index)
        blocks.append(block)
    assert count_blocks(blocks, y, classes=stats.classes, n_jobs=n_jobs) == stats
    extra = csr(b)
    if not sp.issparse(extra) or _shape(extra)[1] != X.shape[1] or stats.multilabel:
        return
    y_flat = np.asarray(y).reshape(-1)
    y_all = np.concatenate([y_flat, np.resize(y_flat, _n_rows(extra))])
    with expected_errors(), unchanged(extra):
        try:
            count_blocks([*blocks, extra], y_all, classes=stats.classes, n_jobs=n_jobs)
        except BlockValueError as exc:
            assert exc.block == len(blocks), f"the fault was put on block {exc.block}"


def fuzz_lsqr(data: bytes) -> None:
    """textsel.lsqr with one or several right-hand sides, weights, damping and an intercept."""
    import textsel

    b = Bytes(data)
    X = csr(b)
    m = _n_rows(X)
    K = b.pick((None, 1, 3, 9))
    shape = (m,) if K is None else (m + b.pick((0, 0, 0, 1)), K)
    rhs = np.array([b.float() for _ in range(int(np.prod(shape)))]).reshape(shape)
    weights = None
    if b.bool():
        weights = np.array([abs(b.float()) if b.int(0, 7) else b.float() for _ in range(m)])
    damp = b.pick((0.0, 0.5, 1.0, -1.0, np.nan, 1e200))
    fit_intercept = b.bool()
    with expected_errors(), unchanged(X, rhs, weights):
        res = textsel.lsqr(X, rhs, damp=damp, row_weights=weights, fit_intercept=fit_intercept,
                           iter_lim=b.pick((None, 1, 5)), n_jobs=b.pick((1, 2)))  # fmt: skip
        n = _shape(X)[1] + fit_intercept
        assert res.x.shape == ((n,) if K is None else (n, K))
        assert np.isfinite(res.x).all(), "lsqr returned a non-finite solution"
        assert np.all((res.istop >= 0) & (res.istop <= 7))


def _fit_and_check(model, X, y, X_new, weight) -> None:
    """``model`` fitted with ``weight`` (documented refusals allowed), the caller's arrays
    unchanged, then its predictions checked."""
    with expected_errors(), unchanged(X, y, weight):
        model.fit(X, y, sample_weight=weight)
        _check_classifier(model, X, X_new)


def fuzz_svm(data: bytes) -> None:
    """DualLinearSVC fit, predict and decision_function (binary and one-vs-rest)."""
    import textsel

    b = Bytes(data)
    X, X_new = csr(b), csr(b)
    y = labels(b, _n_rows(X))
    weight = None
    if b.int(0, 3) == 0:
        weight = np.array([b.float() for _ in range(_n_rows(X))])
    model = textsel.DualLinearSVC(
        C=b.pick((1.0, 100.0, 1e-3, 0.0, -1.0, np.inf)),
        loss=b.pick(("squared_hinge", "hinge", "log")),
        max_iter=b.pick((1000, 1, 0)),
        fit_intercept=b.bool(),
        class_weight=b.pick((None, "balanced")),
        newton=b.bool(),
        n_jobs=b.pick((1, 2)),
        random_state=0,
    )
    _fit_and_check(model, X, y, X_new, weight)


def fuzz_proximal(data: bytes) -> None:
    """RLSClassifier, ProximalSVC and WeightedProximalSVC (with each threshold) fit and predict."""
    import textsel

    b = Bytes(data)
    X, X_new = csr(b), csr(b)
    y = labels(b, _n_rows(X))
    cls = b.pick((textsel.RLSClassifier, textsel.ProximalSVC, textsel.WeightedProximalSVC))
    params = {"threshold": b.pick((None, "scut", 0.0)), "cv": b.pick((2, 3, 1)), "n_jobs": b.pick((1, 2))}
    if cls is textsel.RLSClassifier:
        params["alpha"] = b.pick((1.0, 0.0, 1e-8, -1.0))
    else:
        params["v"] = b.pick(("auto", 1.0, 0.0, np.nan))
    if cls is textsel.WeightedProximalSVC:
        params["delta"] = b.pick(("auto", 0.5, 2.0, -1.0))
    if b.bool():
        params["class_weight"] = b.pick(("balanced", {0: 2.0}, None))
    model = cls(**params)
    weight = np.array([abs(b.float()) for _ in range(_n_rows(X))]) if b.int(0, 3) == 0 else None
    _fit_and_check(model, X, y, X_new, weight)


def fuzz_selectors(data: bytes) -> None:
    """TermSelector (every metric, both multiclass rules) and ScalableTermSelector: fit, transform."""
    import textsel

    b = Bytes(data)
    X, X_new = csr(b), csr(b)
    y = labels(b, _n_rows(X))
    k = b.pick((1, 2, 5, 0, -1, 1000, "all", 2.5))
    if b.bool():
        model = textsel.TermSelector(metric=b.pick(textsel.METRICS + ("nope",)), k=k,
                                     multiclass=b.pick(("round_robin", "max", "mean", "x")))  # fmt: skip
    else:
        model = textsel.ScalableTermSelector(k=k, gamma=b.pick((0.085, 0.0, 1.0, -1.0)))
    with expected_errors(), unchanged(X, y):
        if isinstance(model, textsel.TermSelector) and b.bool() and _well_formed(X):  # two chunks
            half = _n_rows(X) // 2
            model.partial_fit(X[:half], y[:half] if hasattr(y, "__getitem__") else y)
            model.partial_fit(X[half:], y[half:] if hasattr(y, "__getitem__") else y)
        else:
            model.fit(X, y)
        kept = model.get_support()
        assert kept.shape == (_shape(X)[1],)
        with expected_errors(), unchanged(X_new):
            out = model.transform(X_new)
            assert out.shape == (_n_rows(X_new), int(kept.sum()))


def _well_formed(X) -> bool:
    """Whether the harness itself may slice ``X``: scipy reads past a corrupt CSR's buffers
    (textsel checks them before it slices; the harness must not slice first)."""
    from textsel._checks import check_sparse_structure

    if not sp.issparse(X):
        return False
    try:
        check_sparse_structure(X)
    except (ValueError, TypeError):
        return False
    return True


def fuzz_masking(data: bytes) -> None:
    """evaluate_subsets on a binary DualLinearSVC, with fuzzed sizes, methods and test data."""
    import textsel
    from textsel.masking import evaluate_subsets

    b = Bytes(data)
    X, X_test = csr(b), csr(b)
    y, y_test = labels(b, _n_rows(X)), labels(b, _n_rows(X_test))
    sizes = [b.pick((1, 2, 0.5, 1.0, 0, -1, 0.0, 100, 1.5, np.nan)) for _ in range(b.int(0, 3))]
    methods = b.pick((("exact", "mask", "svset"), ("mask",), ("svset", "exact"), (), ("other",)))
    with expected_errors():
        model = textsel.DualLinearSVC(n_jobs=1, random_state=0).fit(X, y)
        with expected_errors(), unchanged(X, y, X_test, y_test):
            records = evaluate_subsets(model, X, y, X_test, y_test, sizes, methods=methods,
                                       norm=b.pick(("l2", None)))  # fmt: skip
            for record in records:
                assert 0.0 <= record["auc"] <= 1.0 or np.isnan(record["auc"])
                assert record["seconds"] >= 0


def fuzz_sampling(data: bytes) -> None:
    """feature_probabilities (every strategy and method) and SRLSClassifier fit and predict."""
    import textsel
    from textsel.sampling import feature_probabilities

    b = Bytes(data)
    X = csr(b)
    strategy = b.pick(("ss", "ws", "us", "xx"))
    k = b.pick((None, 1, 2, 0, 50))
    method = b.pick(("auto", "exact", "randomized", "other"))
    with expected_errors(), unchanged(X):
        p = feature_probabilities(X, strategy=strategy, k=k, method=method, random_state=0, n_jobs=1)
        assert p.shape == (_shape(X)[1],) and p.dtype == np.float64
        assert np.isfinite(p).all() and (p >= 0).all(), "probabilities must be finite and non-negative"
        assert abs(p.sum() - 1.0) < 1e-9, "probabilities must add up to 1"
    y = labels(b, _n_rows(X))
    model = textsel.SRLSClassifier(r=b.pick((1, 5, 1000, 0)), strategy=strategy, k=k, random_state=0)
    with expected_errors(), unchanged(X, y):
        model.fit(X, y)
        _check_classifier(model, X, X)


def _check_classifier(model, X, X_new):
    known = set(np.asarray(model.classes_).ravel().tolist())
    assert set(np.asarray(model.predict(X)).ravel().tolist()) <= known
    with expected_errors(), unchanged(X_new):
        scores = model.decision_function(X_new)
        assert np.isfinite(scores).all(), "non-finite decision function"
        model.predict(X_new)


def _shape(X):
    if sp.issparse(X) or isinstance(X, np.ndarray):
        return X.shape
    arr = np.asarray(X, dtype=object)
    return arr.shape if arr.ndim == 2 else (len(arr), 0)


def _n_rows(X) -> int:
    try:
        return int(_shape(X)[0])
    except (TypeError, IndexError):
        return 0


# --------------------------------------------------------------------------- file readers


def _write(name: str, content: bytes) -> Path:
    path = SCRATCH / name
    path.write_bytes(content)
    return path


def _document_text(b: Bytes, pieces) -> bytes:
    """A file assembled from well-formed pieces and fuzzed bytes, mostly the former."""
    out = []
    for _ in range(b.int(0, 12)):
        out.append(b.pick(pieces) if b.int(0, 3) else b.raw(24))
    return b"".join(out)


ARFF_PIECES = (b"@relation r\n", b"@attribute w integer\n", b"@attribute 'a b' numeric\n",
               b"@attribute class {x,y}\n", b"@attribute class {'p','q',r}\n", b"@data\n", b"{0 1, 2 x}\n",
               b"{1 3}\n", b"{}\n", b"{0 nan}\n", b"{5 1}\n", b"{0 -2}\n", b"% comment\n",
               b"{0 1e400, 1 2}\n", b"{0 1,0 2}\n", b"{2 'q'}\n", b"\n", b"{1 0x10}\n",
               b"{-1 1}\n")  # fmt: skip


def fuzz_arff(data: bytes) -> None:
    """load_arff on assembled and raw ARFF text, plain or gzip-compressed."""
    from textsel.datasets import load_arff

    b = Bytes(data)
    content = _document_text(b, ARFF_PIECES) if b.int(0, 7) else b.rest()
    gz = b.bool()
    if gz and b.bool():
        content = gzip.compress(content, mtime=0)
    path = _write("f.arff.gz" if gz else "f.arff", content)
    with expected_errors():
        bunch = load_arff(path)
        _check_bunch_matrix(bunch, bunch.target)
        assert len(bunch.feature_names) == bunch.data.shape[1]


SVMLIGHT_PIECES = (b"1 1:2 3:1\n", b"-1 2:0.5\n", b"0 qid:3 1:1\n", b"2 1:1 1:2\n", b"1 0:1\n", b"# c\n",
                   b"1 5:nan\n", b"1 2:inf\n", b"x 1:1\n", b"1 3:1 2:1\n", b"\n", b"1.5 4:-1\n")  # fmt: skip


def fuzz_svmlight(data: bytes) -> None:
    """load_svmlight (scikit-learn's parser behind textsel's wrapper) on assembled and raw text."""
    from textsel.datasets import load_svmlight

    b = Bytes(data)
    content = _document_text(b, SVMLIGHT_PIECES) if b.int(0, 7) else b.rest()
    path = _write("f.svm", content)
    with expected_errors():
        bunch = load_svmlight(path)
        _check_bunch_matrix(bunch, bunch.target)


CLUTO_PIECES = (b"1 2 3\n", b"2 3 1\n", b"1 1\n", b"1 1 2 2\n", b"3 0.5\n", b"0 1\n", b"4 1\n", b"1 nan\n",
                b"\n", b"1 -1\n", b"99999999999999999999 1\n", b"1 2 3 4 5\n")  # fmt: skip


def fuzz_cluto(data: bytes) -> None:
    """load_cluto with its row-class and column-label files, assembled and raw."""
    from textsel.datasets import load_cluto

    b = Bytes(data)
    header = b.pick((b"2 3 3\n", b"1 1 1\n", b"0 0 0\n", b"3 2\n", b"x y z\n", b"2 3 -1\n", b""))
    content = header + _document_text(b, CLUTO_PIECES) if b.int(0, 7) else b.rest()
    mat = _write("f.mat", content)
    classes = _write("f.mat.rclass", b.raw(16)) if b.bool() else None
    terms = _write("f.mat.clabel", b.raw(16)) if b.bool() else None
    with expected_errors():
        bunch = load_cluto(mat, classes, terms)
        _check_bunch_matrix(bunch, bunch.target)


def _check_bunch_matrix(bunch, y):
    X = bunch.data
    assert sp.issparse(X) and X.format == "csr"
    X.check_format(full_check=True)
    if y is not None:
        assert len(y) == X.shape[0]


REUTERS_PIECES = (
    b'<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" NEWID="1">',
    b'<REUTERS TOPICS="YES" LEWISSPLIT="TEST" NEWID="2">',
    b'<REUTERS TOPICS="NO" LEWISSPLIT="TRAIN" NEWID="x">',
    b"<TOPICS><D>earn</D><D>acq</D></TOPICS>", b"<TOPICS><D>earn</D></TOPICS>", b"<TOPICS></TOPICS>",
    b"<TITLE>t &amp; &#1114112; &lt;</TITLE>", b"<BODY>b\xff\xfe</BODY>", b"</REUTERS>\n", b"<D>",
    b"&#x110000;",
)  # fmt: skip


def _tar_gz(members) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, content in members:
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def fuzz_reuters(data: bytes) -> None:
    """load_reuters21578 on a tar.gz of fuzzed SGML files, or on raw (corrupt) archive bytes."""
    from textsel.datasets import load_reuters21578

    b = Bytes(data)
    home = SCRATCH / "reuters"
    home.mkdir(exist_ok=True)
    if b.int(0, 7):
        members = [(b.pick(("reut2-000.sgm", "reut2-001.sgm", "x/reut2-002.sgm", "other.txt")),
                    _document_text(b, REUTERS_PIECES)) for _ in range(b.int(0, 3))]  # fmt: skip
        archive = _tar_gz(members)
        if b.int(0, 7) == 0 and archive:  # truncated or bit-flipped
            cut = b.int(0, len(archive) - 1)
            flipped = archive[:cut] + bytes([archive[cut] ^ 0x55]) + archive[cut + 1 :]
            archive = archive[:cut] if b.bool() else flipped
    else:
        archive = b.rest()
    (home / "reuters21578.tar.gz").write_bytes(archive)
    with expected_errors():
        bunch = load_reuters21578(home, min_docs_per_split=b.int(0, 2), keep_unlabeled=b.bool())
        assert len(bunch.data_train) == bunch.target_train.shape[0] == bunch.ids_train.shape[0]
        assert len(bunch.data_test) == bunch.target_test.shape[0] == bunch.ids_test.shape[0]


def fuzz_newsgroups(data: bytes) -> None:
    """load_20newsgroups on a tar.gz of fuzzed member names and messages, or raw archive bytes."""
    from textsel.datasets import load_20newsgroups

    b = Bytes(data)
    home = SCRATCH / "newsgroups"
    home.mkdir(exist_ok=True)
    if b.int(0, 7):
        names = ("20news-bydate-train/alt.atheism/1", "20news-bydate-test/alt.atheism/2",
                 "20news-bydate-train/sci.space/x", "20news-bydate-test/sci.space/10",
                 "20news-bydate-train/a/b/c", "other/a/1", "20news-bydate-train/g/01")  # fmt: skip
        archive = _tar_gz([(b.pick(names), b.raw(32)) for _ in range(b.int(0, 4))])
        if b.int(0, 7) == 0 and archive:
            archive = archive[: b.int(0, len(archive) - 1)]
    else:
        archive = b.rest()
    (home / "20news-bydate.tar.gz").write_bytes(archive)
    with expected_errors():
        bunch = load_20newsgroups(home)
        assert len(bunch.data_train) == bunch.target_train.shape[0]
        assert len(bunch.data_test) == bunch.target_test.shape[0]


def fuzz_checksums(data: bytes) -> None:
    """fetch: a file already in the data home is kept only if its checksum matches, and a download
    whose bytes do not match is never kept (the source here is a local file:// archive)."""
    import hashlib

    from textsel.datasets import fetch

    b = Bytes(data)
    home = SCRATCH / "fetch"
    home.mkdir(exist_ok=True)
    good = b"the archive as published\n" * 3
    source = _write("source.bin", b.raw(80) if b.int(0, 3) == 0 else good)
    target = home / "corpus.tar.gz"
    if b.bool():
        target.write_bytes(b.raw(80))  # whatever a crashed earlier download left
    elif target.exists():
        target.unlink()
    digest = hashlib.sha256(good).hexdigest()
    if b.int(0, 7) == 0:
        digest = b.pick((digest.upper(), digest[:-1], "", "zz" * 32))
    before = target.read_bytes() if target.exists() else None
    try:
        path = fetch("corpus.tar.gz", data_home=home, url=source.as_uri(), sha256=digest)
    except ValueError:
        # refused: the data home still holds exactly what it held, and no temporary file
        now = target.read_bytes() if target.exists() else None
        assert now == before, "a refused download changed the data home"
    else:
        kept = hashlib.sha256(path.read_bytes()).hexdigest()
        assert kept == digest, "fetch kept a file that fails its checksum"
    assert not list(home.glob(".*.part")), "fetch left a temporary file"


TEXT_PIECES = (b"text,label\n", b"a b c,x\n", b'"quoted, text",y\n', b"only one field\n", b",\n",
               b"\xff\xfe,z\n", b'{"text": "t u", "label": "x"}\n', b'{"text": "v", "label": ["x", "y"]}\n',
               b'{"text": 3}\n', b"[1, 2]\n", b'{"text": "w", "label": ""}\n', b"\ttab\tsep\n")  # fmt: skip


def fuzz_texts(data: bytes) -> None:
    """load_texts on CSV, TSV and JSON Lines files, and on class folders, assembled and raw."""
    from textsel.datasets import load_texts

    b = Bytes(data)
    kind = b.pick(("csv", "tsv", "jsonl", "folder"))
    if kind == "folder":
        root = SCRATCH / f"texts-{b.int(0, 3)}"
        import shutil

        shutil.rmtree(root, ignore_errors=True)
        root.mkdir()
        for i in range(b.int(0, 4)):
            sub = root / b.pick(("a", "b", "c d"))
            sub.mkdir(exist_ok=True)
            (sub / f"{i}.txt").write_bytes(b.raw(24))
        path = root
    else:
        path = _write(f"t.{kind}", _document_text(b, TEXT_PIECES) if b.int(0, 7) else b.rest())
    with expected_errors():
        bunch = load_texts(
            path, label_separator=b.pick((None, ";", ",")), encoding=b.pick(("utf-8", "latin-1"))
        )
        assert len(bunch.data) == len(bunch.target) and all(isinstance(t, str) for t in bunch.data)


TARGETS = {f.__name__.removeprefix("fuzz_"): f for f in (
    fuzz_term_stats, fuzz_lsqr, fuzz_svm, fuzz_proximal, fuzz_selectors, fuzz_masking, fuzz_sampling,
    fuzz_arff, fuzz_svmlight, fuzz_cluto, fuzz_reuters, fuzz_newsgroups, fuzz_checksums, fuzz_texts,
)}  # fmt: skip
