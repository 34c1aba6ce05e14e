"""Raw text in: load_texts on CSV, TSV, JSON Lines and class folders; ``textsel select`` and
``study`` on them, checked against the same steps done with scikit-learn and textsel's API."""

import csv
import json
import re

import numpy as np
import pytest
from conftest import write_csv, write_jsonl
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

import textsel
from textsel.__main__ import main
from textsel.cli.text import _bucket, hashed_names
from textsel.datasets import load_texts

DOCS = [
    ("the match ended in a goal", "sport"),
    ("a late goal won the match", "sport"),
    ("the striker scored a goal", "sport"),
    ("shares fell as the market closed", "finance"),
    ("the market rallied and shares rose", "finance"),
    ("bond yields and shares in the market", "finance"),
]


def write_folder(root, rows):
    for i, (text, label) in enumerate(rows):
        (root / label).mkdir(parents=True, exist_ok=True)
        (root / label / f"{i}.txt").write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("layout", ["csv", "tsv", "jsonl", "folder"])
def test_every_layout_reads_the_same_documents(tmp_path, layout):
    if layout == "csv":
        path = write_csv(tmp_path / "d.csv", DOCS)
    elif layout == "tsv":
        path = write_csv(tmp_path / "d.tsv", DOCS, delimiter="\t")
    elif layout == "jsonl":
        path = write_jsonl(tmp_path / "d.jsonl", DOCS)
    else:
        path = write_folder(tmp_path / "d", DOCS)
    b = load_texts(path)
    assert sorted(zip(b.texts, b.y.tolist(), strict=True)) == sorted(DOCS)
    assert b.target_names == ["finance", "sport"] and not b.multilabel


def test_several_labels_per_row(tmp_path):
    rows = [("goal and shares", ["sport", "finance"]), ("goal", ["sport"]), ("market", "finance")]
    b = load_texts(write_jsonl(tmp_path / "m.jsonl", rows))
    assert b.multilabel and b.target_names == ["finance", "sport"]
    np.testing.assert_array_equal(b.y, [[1, 1], [0, 1], [1, 0]])
    c = load_texts(write_csv(tmp_path / "m.csv", [("a b", "x; y"), ("b", "y")]), label_separator=";")
    np.testing.assert_array_equal(c.y, [[1, 1], [0, 1]])
    stats = textsel.term_stats(CountVectorizer().fit_transform(b.texts), b.y)
    assert stats.multilabel and stats.n_classes == 2


@pytest.mark.parametrize(
    "write, match",
    [
        (lambda p: write_csv(p / "a.csv", DOCS, header=("body", "label")), r"no column 'text'; the header"),
        (lambda p: write_csv(p / "a.csv", [("text one", " ")]), r"a.csv: row 2: the label is empty"),
        (lambda p: write_jsonl(p / "a.jsonl", [("t", "")]), r"line 1: the label is empty"),
        (lambda p: (p / "a.jsonl").write_text('{"text": "t", "label": "x"}\n{oops\n') and p / "a.jsonl",
         r"line 2: not JSON"),
        (lambda p: (p / "a.jsonl").write_text('{"label": "x"}\n') and p / "a.jsonl", r"line 1: no key"),
        (lambda p: (p / "a.csv").write_bytes(b"text,label\nok,x\n\xff\xfe,y\n") and p / "a.csv",
         r"a.csv: line 3: bytes that are not utf-8"),
        (lambda p: write_csv(p / "a.csv", []), r"a.csv: no documents"),
        (lambda p: (p / "empty").mkdir() or p / "empty", r"no sub-folders"),
        (lambda p: (p / "e" / "c").mkdir(parents=True) or p / "e", r"sub-folders hold no files"),
        (lambda p: (p / "x.tar.gz").write_bytes(b"\x1f\x8b") and p / "x.tar.gz", r"unsupported format"),
    ],
)  # fmt: skip
def test_bad_files_are_one_clear_value_error(tmp_path, write, match):
    with pytest.raises(ValueError, match=match):
        load_texts(write(tmp_path))


def test_an_undecodable_file_in_a_folder_is_named(tmp_path):
    write_folder(tmp_path / "d", DOCS)
    (tmp_path / "d" / "sport" / "bad.txt").write_bytes(b"caf\xe9")
    with pytest.raises(ValueError, match=r"bad.txt: the document: bytes that are not utf-8"):
        load_texts(tmp_path / "d")
    assert "café" in load_texts(tmp_path / "d", encoding="latin-1").texts


def test_select_on_a_csv_equals_the_same_steps_in_python(tmp_path, capsys):
    path = write_csv(tmp_path / "d.csv", DOCS)
    args = ["select", str(path), "--k", "4", "--format", "json", "--stop-words", "english", "--ngram-range",
            "1,2"]  # fmt: skip
    assert main(args) == 0
    got = json.loads(capsys.readouterr().out)
    texts, labels = zip(*DOCS, strict=True)
    vec = CountVectorizer(stop_words="english", ngram_range=(1, 2))
    X = vec.fit_transform(texts)
    sel = textsel.TermSelector("bns", k=4).fit(X, np.asarray(labels))
    names = vec.get_feature_names_out()
    assert [r["term"] for r in got] == [names[c] for c in sel.ranking_]
    for r in got:  # a binary task: the one score the terms were ranked by (the later label's)
        assert r["score"] == pytest.approx(sel.scores_[r["column"]])
        assert r["score"] == pytest.approx(sel.score_table_[1, r["column"]]) and "class_scores" not in r


def test_select_csv_output_and_percentile_k_conflict(tmp_path, capsys):
    path = write_jsonl(tmp_path / "d.jsonl", DOCS)
    assert main(["select", str(path), "--k", "3", "--format", "csv", "--min-df", "2"]) == 0
    rows = list(csv.reader(capsys.readouterr().out.splitlines()))
    assert rows[0] == ["rank", "column", "term", "class", "direction", "score"]  # binary: one score
    assert len(rows) == 4
    assert main(["select", str(path), "--k", "3", "--percentile", "10"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not both" in err  # one line, no traceback


def test_hashed_columns_are_named_by_their_most_frequent_term(tmp_path, capsys):
    path = write_folder(tmp_path / "d", DOCS)
    assert main(["select", str(path), "--hashing", "10", "--k", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    vec = HashingVectorizer(n_features=2**10, alternate_sign=False, norm=None)
    for line in lines:
        column, term = int(line.split("\t")[1]), line.split("\t")[2]
        listed = term.split(" (+")[0].split("|")
        assert term and all(vec.transform([t]).indices.tolist() == [column] for t in listed)


def test_bucket_matches_scikit_learns_hasher():
    vec = HashingVectorizer(n_features=2**7, alternate_sign=False, norm=None, token_pattern=r"\S+")
    words = [f"w{i}x" for i in range(300)] + ["é", "naïve", "日本"]
    names = hashed_names(vec, [" ".join(words)], range(2**7))
    for word in words:
        col = vec.transform([word]).indices[0]
        assert word in names[col].split(" (+")[0].split("|") or names[col].endswith(" more)")
    # 303 words in 128 buckets: a bucket names its most frequent terms and says how many more share it
    shared = [name for name in names.values() if " (+" in name]
    assert shared and all(re.fullmatch(r"[^ ]+ \(\+\d+ more\)", name) for name in shared)
    assert _bucket(-(2**31), 2**7) == (2**31 - 1 - 127) % 2**7


def test_study_on_a_class_folder(tmp_path, capsys):
    rows = [(f"goal match striker {i}", "sport") for i in range(8)] + [
        (f"market shares bond {i}", "finance") for i in range(8)
    ]
    path = write_folder(tmp_path / "news", rows)
    assert (
        main(["study", str(path), "--metrics", "bns,ig", "--ks", "2,4", "--trials", "1", "--folds", "2"]) == 0
    )
    out = capsys.readouterr().out
    assert "bns" in out and "ig" in out


def test_select_on_the_real_20newsgroups_as_json_lines(data_home, tmp_path, capsys):
    """The real archive's training texts written as JSON Lines, selected on the command line, equal
    the same selection made with CountVectorizer and TermSelector."""
    from textsel.datasets import load_20newsgroups

    news = load_20newsgroups(data_home)
    rows = [
        (t, news.target_names[y])
        for t, y in zip(news.data_train[:3000], news.target_train[:3000], strict=True)
    ]
    path = write_jsonl(tmp_path / "news.jsonl", rows)
    assert main(["select", str(path), "--k", "50", "--min-df", "3"]) == 0
    got = [line.split("\t")[2] for line in capsys.readouterr().out.splitlines()[1:]]
    vec = CountVectorizer(min_df=3)
    X = vec.fit_transform([t for t, _ in rows])
    sel = textsel.TermSelector("bns", k=50).fit(X, [y for _, y in rows])
    assert got == vec.get_feature_names_out()[sel.ranking_].tolist()


@pytest.mark.parametrize(
    "write, message",
    [
        (lambda p: write_csv(p / "a.csv", DOCS, header=("body", "label")), "no column 'text'"),
        (lambda p: write_csv(p / "a.csv", [("text", "")]), "the label is empty"),
        (lambda p: (p / "a.csv").write_bytes(b"text,label\n\xff,x\n") and p / "a.csv", "not utf-8"),
        (lambda p: (p / "empty").mkdir() or p / "empty", "no sub-folders"),
        (lambda p: (p / "r.tar.gz").write_bytes(b"\x1f\x8b\x08") and p / "r.tar.gz", "unsupported format"),
        (lambda p: write_csv(p / "a.csv", [("the", "x"), ("a", "y")]), "empty vocabulary"),
    ],
)
def test_every_user_error_is_one_line_and_exit_1(tmp_path, capsys, write, message):
    assert main(["select", str(write(tmp_path)), "--stop-words", "english"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("textsel select: ") and message in err
    assert "Traceback" not in err


def test_study_progress_goes_to_stderr_when_asked(tmp_path, capsys):
    rows = [(f"goal match {i}", "sport") for i in range(6)] + [
        (f"market shares {i}", "finance") for i in range(6)
    ]
    path = write_jsonl(tmp_path / "d.jsonl", rows)
    args = ["study", str(path), "--metrics", "bns", "--ks", "2", "--trials", "1", "--folds", "2"]
    assert main([*args, "--progress"]) == 0
    assert "task" in capsys.readouterr().err
    assert main([*args, "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
    assert main(args) == 0  # by default, off a terminal: a line per stage
    assert "textsel study: Forman's protocol: " in capsys.readouterr().err


def test_select_with_standard_output_closed_says_so_and_names_output(tmp_path):
    """``textsel select data >&-`` (no standard output at all) is a one-line error naming
    ``--output``, in a real process (Python then has ``sys.stdout = None``), not an internal error."""
    import os
    import subprocess
    import sys

    path = write_folder(tmp_path / "d", DOCS)
    script = (
        "import sys; from textsel.__main__ import main; "
        f"sys.exit(main(['select', {str(path)!r}, '--k', '3']))"
    )
    closed = {"stderr": subprocess.PIPE, "text": True, "preexec_fn": lambda: os.close(1)}
    done = subprocess.run([sys.executable, "-c", script], **closed)
    assert done.returncode == 1, done.stderr
    assert "standard output is closed" in done.stderr and "--output" in done.stderr
    assert "internal error" not in done.stderr and done.stderr.count("\n") == 1
    out = tmp_path / "sel.tsv"
    script = script.replace("'--k', '3'", f"'--k', '3', '--output', {str(out)!r}")
    done = subprocess.run([sys.executable, "-c", script], **closed)
    assert done.returncode == 0 and out.read_text().startswith("rank\t")
