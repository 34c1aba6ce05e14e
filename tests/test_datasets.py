"""Corpus readers on small archives the tests write, and on the real ones when TEXTSEL_DATA is set."""

import gzip
import io
import tarfile

import numpy as np
import pytest

from textsel.datasets import (
    get_data_home,
    load_20newsgroups,
    load_arff,
    load_reuters21578,
    make_synthetic_corpus,
)

ARFF = """% a comment
@RELATION tiny.wc

@ATTRIBUTE alpha integer
@ATTRIBUTE 'two words' integer
@ATTRIBUTE gamma integer
@ATTRIBUTE class {a,b,'c c'}

@DATA
{0 2,2 1,3 b}
{1 5}
{0 1,1 1,3 'c c'}
{}
"""


@pytest.mark.parametrize("compressed", [False, True])
def test_load_arff(tmp_path, compressed):
    path = tmp_path / ("tiny.wc.arff" + (".gz" if compressed else ""))
    opener = gzip.open if compressed else open
    with opener(path, "wt") as fh:
        fh.write(ARFF)
    b = load_arff(path)
    np.testing.assert_array_equal(b.data.toarray(), [[2, 0, 1], [0, 5, 0], [1, 1, 0], [0, 0, 0]])
    # an omitted nominal class takes its first declared value
    np.testing.assert_array_equal(b.target, ["b", "a", "c c", "a"])
    assert list(b.feature_names) == ["alpha", "two words", "gamma"]
    assert b.target_names == ["a", "b", "c c"]
    assert b.relation == "tiny.wc"


@pytest.mark.parametrize(
    "text, match",
    [
        (ARFF.replace("{0 2,2 1,3 b}", "{0 2,9 1}"), "out of range"),
        (ARFF.replace("{0 2,2 1,3 b}", "{0 2,3 z}"), "not declared"),
        (ARFF.replace("{1 5}", "1,5"), "expected a sparse row"),
        (ARFF.replace("@ATTRIBUTE class {a,b,'c c'}\n", ""), "no nominal class"),
        (ARFF.replace("{1 5}", "{1 nan}"), r"bad.arff:\d+: value 'nan' is not finite"),
        (ARFF.replace("{1 5}", "{1 five}"), r"bad.arff:\d+: value 'five' is not a number"),
        (ARFF.replace("{1 5}", "{x 5}"), r"bad.arff:\d+: attribute index 'x' is not a number"),
    ],
)
def test_load_arff_rejects_malformed_files(tmp_path, text, match):
    path = tmp_path / "bad.arff"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        load_arff(path)


def test_load_arff_gz_that_is_not_gzip(tmp_path):
    path = tmp_path / "plain.arff.gz"
    path.write_text(ARFF)
    with pytest.raises(ValueError, match="plain.arff.gz is not a readable gzip-compressed ARFF file"):
        load_arff(path)


@pytest.mark.parametrize("loader, name", [(load_reuters21578, "reuters21578.tar.gz"),
                                          (load_20newsgroups, "20news-bydate.tar.gz")])  # fmt: skip
@pytest.mark.parametrize("content", [b"", b"not an archive", gzip.compress(b"x" * 600, mtime=0)[:-9]],
                         ids=["empty", "not gzip", "gzip cut short"])  # fmt: skip
def test_corrupt_archives_are_a_value_error_naming_the_file(tmp_path, loader, name, content):
    """Found by fuzzing: an empty, foreign or truncated archive raised tarfile.ReadError or
    EOFError; now one ValueError that names the file (the fuzz targets' regression cases)."""
    (tmp_path / name).write_bytes(content)
    with pytest.raises(ValueError, match=f"{name} is not a readable gzip-compressed tar archive"):
        loader(tmp_path)


def _add(tar, name, text):
    data = text.encode("latin-1")
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _reuters_doc(newid, split, topics, body, topics_attr="YES"):
    d = "".join(f"<D>{t}</D>" for t in topics)
    return (
        f'<REUTERS TOPICS="{topics_attr}" LEWISSPLIT="{split}" CGISPLIT="X" OLDID="1" NEWID="{newid}">\n'
        f"<TOPICS>{d}</TOPICS>\n<TEXT>\n<TITLE>T{newid}</TITLE>\n<BODY>{body}</BODY></TEXT>\n</REUTERS>\n"
    )


def test_load_reuters_modapte_on_a_small_archive(tmp_path):
    docs = [
        _reuters_doc(1, "TRAIN", ["earn"], "profit &lt;up&gt; caf\xe9"),
        _reuters_doc(2, "TRAIN", ["earn", "acq"], "merger"),
        _reuters_doc(3, "TEST", ["earn"], "loss"),
        _reuters_doc(4, "TEST", ["acq", "rare"], "bid"),
        _reuters_doc(5, "TRAIN", ["trainonly"], "only in train"),
        _reuters_doc(6, "NOT-USED", ["earn"], "unused split"),
        _reuters_doc(7, "TRAIN", ["earn"], "no topics flag", topics_attr="NO"),
    ]
    with tarfile.open(tmp_path / "reuters21578.tar.gz", "w:gz") as tar:
        _add(tar, "reut2-000.sgm", "".join(docs[:4]))
        _add(tar, "reut2-001.sgm", "".join(docs[4:]))
        _add(tar, "README.txt", "not sgml")
    b = load_reuters21578(tmp_path)
    assert b.target_names == ["acq", "earn"]  # categories with train and test documents
    np.testing.assert_array_equal(b.ids_train, [1, 2])  # doc 5 carries no kept category
    np.testing.assert_array_equal(b.ids_test, [3, 4])
    np.testing.assert_array_equal(b.target_train, [[0, 1], [1, 1]])
    np.testing.assert_array_equal(b.target_test, [[0, 1], [1, 0]])
    assert b.data_train[0] == "T1\nprofit <up> caf\xe9"
    kept = load_reuters21578(tmp_path, keep_unlabeled=True)
    np.testing.assert_array_equal(kept.ids_train, [1, 2, 5])


def test_load_20newsgroups_on_a_small_archive(tmp_path):
    with tarfile.open(tmp_path / "20news-bydate.tar.gz", "w:gz") as tar:
        _add(tar, "20news-bydate-train/sci.space/10", "From: a\n\norbit")
        _add(tar, "20news-bydate-train/sci.space/9", "From: b\n\nlaunch \xe9")
        _add(tar, "20news-bydate-train/alt.atheism/100", "From: c\n\ngod")
        _add(tar, "20news-bydate-test/sci.space/50", "From: d\n\nmoon")
        _add(tar, "20news-bydate-test/alt.atheism/60", "From: e\n\nbelief")
    b = load_20newsgroups(tmp_path)
    assert b.target_names == ["alt.atheism", "sci.space"]
    assert b.data_train == ["From: c\n\ngod", "From: b\n\nlaunch \xe9", "From: a\n\norbit"]
    np.testing.assert_array_equal(b.target_train, [0, 1, 1])
    np.testing.assert_array_equal(b.target_test, [0, 1])


def test_missing_archive_says_where_it_looked(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="reuters21578.tar.gz not found in data home"):
        load_reuters21578(tmp_path)
    monkeypatch.setenv("TEXTSEL_DATA", str(tmp_path))
    assert get_data_home() == tmp_path
    monkeypatch.delenv("TEXTSEL_DATA")
    assert get_data_home().name == "textsel_data"


def test_synthetic_corpus_is_deterministic_and_labelled():
    a = make_synthetic_corpus(n_docs=200, n_terms=500, n_classes=4, random_state=1)
    b = make_synthetic_corpus(n_docs=200, n_terms=500, n_classes=4, random_state=1)
    assert a.data == b.data and np.array_equal(a.target, b.target)
    assert "SYNTHETIC" in a.DESCR
    assert set(a.target) == {0, 1, 2, 3}
    counts = np.bincount(a.target)
    assert counts[0] > counts[-1]  # skewed classes
    c = make_synthetic_corpus(n_docs=200, n_terms=500, n_classes=4, random_state=2)
    assert c.data != a.data


# --- the real archives ---------------------------------------------------------------------------


def test_real_reuters_modapte_counts(data_home):
    b = load_reuters21578(data_home)
    assert len(b.target_names) == 90
    assert (len(b.data_train), len(b.data_test)) == (7770, 3019)
    assert b.target_train.shape == (7770, 90) and b.target_test.shape == (3019, 90)
    assert b.target_train.any(axis=1).all()
    everything = load_reuters21578(data_home, keep_unlabeled=True)
    assert (len(everything.data_train), len(everything.data_test)) == (9603, 3299)
    assert "earn" in b.target_names and b.target_train[:, b.target_names.index("earn")].sum() == 2877


def test_real_20newsgroups_counts(data_home):
    b = load_20newsgroups(data_home)
    assert (len(b.data_train), len(b.data_test)) == (11314, 7532)
    assert len(b.target_names) == 20
    assert np.bincount(b.target_train).min() > 350


ARFF_SHAPES = {"oh0": (1003, 3182, 10), "oh5": (918, 3012, 10), "tr11": (414, 6429, 9),
               "tr12": (313, 5804, 8), "wap": (1560, 8460, 20)}  # fmt: skip


@pytest.mark.parametrize("name", sorted(ARFF_SHAPES))
def test_real_arff_shapes(data_home, name):
    b = load_arff(data_home / "forman-arff" / f"{name}.wc.arff.gz")
    n_docs, n_terms, n_classes = ARFF_SHAPES[name]
    assert b.data.shape == (n_docs, n_terms)
    assert len(np.unique(b.target)) == n_classes
    assert b.data.data.min() >= 1 and float(b.data.data.max()).is_integer()


def test_load_cluto(tmp_path):
    from textsel.datasets import load_cluto

    (tmp_path / "m.mat").write_text("3 4 4\n1 2.5 4 1\n\n2 3 3 1\n")
    (tmp_path / "m.rclass").write_text("x\ny\nx\n")
    (tmp_path / "m.clabel").write_text("w1\nw2\nw3\nw4\n")
    b = load_cluto(tmp_path / "m.mat", tmp_path / "m.rclass", tmp_path / "m.clabel")
    np.testing.assert_array_equal(b.data.toarray(), [[2.5, 0, 0, 1], [0, 0, 0, 0], [0, 3, 1, 0]])
    np.testing.assert_array_equal(b.target, ["x", "y", "x"])
    assert list(b.feature_names) == ["w1", "w2", "w3", "w4"]
    (tmp_path / "bad.mat").write_text("2 4 1\n5 1\n\n")
    with pytest.raises(ValueError, match="out of 1..4"):
        load_cluto(tmp_path / "bad.mat")
    (tmp_path / "short.mat").write_text("3 4 1\n1 1\n")
    with pytest.raises(ValueError, match="the header says 3 rows"):
        load_cluto(tmp_path / "short.mat")
    # found by fuzzing: a 20-digit column number raised OverflowError
    for line, match in [("99999999999999999999 1", "out of 1..4"), ("1 inf", "not finite"),
                        ("x 1", "pairs of numbers")]:  # fmt: skip
        (tmp_path / "odd.mat").write_text(f"1 4 1\n{line}\n")
        with pytest.raises(ValueError, match=f"odd.mat:2: .*{match}"):
            load_cluto(tmp_path / "odd.mat")


def test_load_svmlight_uses_scikit_learn(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    from textsel.datasets import load_svmlight

    X = np.array([[0, 1.5], [2, 0]])
    dump_svmlight_file(X, [1, -1], str(tmp_path / "f.svm"))
    b = load_svmlight(tmp_path / "f.svm")
    np.testing.assert_array_equal(b.data.toarray(), X)
    np.testing.assert_array_equal(b.target, [1, -1])


def test_fetch_from_a_local_copy_checks_the_checksum(tmp_path):
    """Offline, through a file:// address: the checksum decides, and a bad download leaves nothing."""
    import hashlib

    from textsel.datasets import fetch

    source = tmp_path / "src" / "archive.tar.gz"
    source.parent.mkdir()
    source.write_bytes(b"not really an archive")
    good = hashlib.sha256(source.read_bytes()).hexdigest()
    home = tmp_path / "home"
    path = fetch("archive.tar.gz", home, url=source.as_uri(), sha256=good)
    assert path == home / "archive.tar.gz" and path.read_bytes() == source.read_bytes()
    source.write_bytes(b"changed")  # already present and intact: not downloaded again
    assert fetch("archive.tar.gz", home, url=source.as_uri(), sha256=good).read_bytes() != b"changed"
    with pytest.raises(ValueError, match="checksum mismatch"):
        fetch("other.tar.gz", home, url=source.as_uri(), sha256=good)
    assert sorted(p.name for p in home.iterdir()) == ["archive.tar.gz"]
    with pytest.raises(ValueError, match="no canonical address"):
        fetch("unknown.tar.gz", home)


def test_fetch_knows_the_shared_archives_checksums(data_home):
    from textsel.datasets.fetch import ARCHIVES, file_sha256

    for name, (_, checksum) in ARCHIVES.items():
        assert file_sha256(data_home / name) == checksum


#: SHA-256 of the published SMS Spam Collection v.1 file (``SMSSpamCollection``)
SMS_SPAM_SHA256 = "7d039a24a6083ed9ef0f806ebad56bbb976e3aeb8de05669173bfdc4996c239d"


def test_the_embedded_sms_spam_collection_is_the_published_file_unchanged():
    """The shipped archive decompresses to the published file byte for byte, and the loader gives
    every message and label of it, in order (rebuilt here into the file's lines)."""
    import hashlib
    from importlib import resources

    from textsel.datasets import load_sms_spam

    shipped = resources.files("textsel.datasets").joinpath("data", "sms_spam.txt.gz")
    raw = gzip.decompress(shipped.read_bytes())
    assert hashlib.sha256(raw).hexdigest() == SMS_SPAM_SHA256
    sms = load_sms_spam()
    rebuilt = "".join(f"{sms.target_names[t]}\t{m}\n" for t, m in zip(sms.target, sms.data, strict=True))
    assert rebuilt.encode("utf-8") == raw
    assert (len(sms.data), int(sms.target.sum()), sms.target.dtype) == (5574, 747, np.int64)
    assert sms.target_names == ["ham", "spam"]
    assert "CC BY 4.0" in sms.DESCR and "Almeida" in sms.DESCR and "DocEng" in sms.DESCR


def test_the_embedded_sms_spam_collection_equals_the_data_homes_copy(data_home):
    from textsel.datasets import load_sms_spam

    path = data_home / "sms-spam" / "SMSSpamCollection"
    if not path.is_file():
        pytest.skip("the data home holds no sms-spam/SMSSpamCollection")
    lines = path.read_text(encoding="utf-8").splitlines()
    sms = load_sms_spam()
    assert [line.split("\t", 1)[1] for line in lines] == sms.data
    assert [line.split("\t", 1)[0] for line in lines] == [sms.target_names[t] for t in sms.target]


def test_file_sha256_is_hashlibs_digest_of_the_whole_file(tmp_path):
    import hashlib

    from textsel.datasets import file_sha256

    path = tmp_path / "blob"
    payload = bytes(range(256)) * 9000  # more than one megabyte: read in pieces
    path.write_bytes(payload)
    assert file_sha256(path) == hashlib.sha256(payload).hexdigest()
    assert file_sha256(str(path)) != hashlib.sha256(payload[:-1]).hexdigest()
