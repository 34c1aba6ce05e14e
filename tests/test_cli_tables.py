"""``textsel select`` reads tables as users have them: headerless CSV/TSV with columns by position
(as pandas' ``read_csv(header=None)`` numbers them), a file whose name has no ending recognized by
its content, errors naming the option that fixes them, no weighting options that cannot change a
selection, and one score column for a binary task.

The reference for what a table holds is pandas (``read_csv``); for a selection, the same steps done
with scikit-learn's CountVectorizer and textsel's TermSelector."""

import csv
import io
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import write_csv
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

import textsel
from textsel.__main__ import main
from textsel.datasets import load_sms_spam, load_texts

SPORT = ["the match ended in a goal", "a late goal won the match", "the striker scored a goal",
         'the "keeper" saved, then the goal came', "goal after goal in the match"]  # fmt: skip
FINANCE = ["shares fell as the market closed", "the market rallied and shares rose",
           "bond yields and shares in the market", '"Buy" said the market, and shares rose',
           "the market and the bond desk"]  # fmt: skip
DOCS = [(t, "sport") for t in SPORT] + [(t, "finance") for t in FINANCE]


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err and "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


def headerless_tsv(path, rows):
    """``label<TAB>text`` lines, no header, no quoting: the SMS Spam Collection's layout."""
    path.write_text("".join(f"{label}\t{text}\n" for text, label in rows), encoding="utf-8")
    return path


def selected_terms(texts, labels, k, **vectorizer):
    vec = CountVectorizer(**vectorizer)
    X = vec.fit_transform(texts)
    return vec.get_feature_names_out()[textsel.TermSelector("bns", k=k).fit(X, labels).ranking_].tolist()


def terms_of(out: str) -> list[str]:
    return [line.split("\t")[2] for line in out.splitlines()[1:]]


# -- headerless tables, columns by position


def test_positions_read_a_headerless_tsv_as_pandas_reads_it_with_header_none(tmp_path):
    """Integer columns mean positions and no header row, as pandas' header=None; the rows equal
    pandas' (quoting off, as the layout has none: a message may start with a quote)."""
    path = headerless_tsv(tmp_path / "msgs", DOCS)
    got = load_texts(path, fmt="tsv", text_column=1, label_column=0)
    frame = pd.read_csv(path, sep="\t", header=None, quoting=csv.QUOTE_NONE, dtype=str)
    assert got.data == frame[1].tolist() and got.target.tolist() == frame[0].tolist()
    assert len(got.data) == len(DOCS)  # the first row is a document, not a header


def test_positions_read_a_headerless_csv_with_quoted_commas_and_newlines_as_pandas_does(tmp_path):
    rows = [("a, b and c", "x"), ("line one\nline two", "y"), ('say "hi", then go', "x")]
    path = tmp_path / "d.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([(label, 7, text) for text, label in rows])
    got = load_texts(path, text_column=2, label_column=0)
    frame = pd.read_csv(path, header=None, dtype=str)
    assert got.data == frame[2].tolist() == [t for t, _ in rows]
    assert got.target.tolist() == frame[0].tolist()


def test_header_true_with_positions_skips_the_first_row_as_pandas_header_0_and_iloc(tmp_path):
    path = write_csv(tmp_path / "d.csv", [(t, y, "id") for t, y in DOCS], header=("body", "topic", "id"))
    got = load_texts(path, text_column=0, label_column=1, header=True)
    frame = pd.read_csv(path, header=0, dtype=str)
    assert got.data == frame.iloc[:, 0].tolist() and got.target.tolist() == frame.iloc[:, 1].tolist()


def test_header_with_positions_on_the_command_line_equals_naming_the_columns(tmp_path, capsys):
    path = write_csv(tmp_path / "d.csv", [(t, y, "id") for t, y in DOCS], header=("body", "topic", "id"))
    assert (
        main(["select", str(path), "--text-column", "0", "--label-column", "1", "--header", "--k", "4"]) == 0
    )
    by_position = capsys.readouterr().out
    assert main(["select", str(path), "--text-column", "body", "--label-column", "topic", "--k", "4"]) == 0
    assert by_position == capsys.readouterr().out
    assert terms_of(by_position) == selected_terms([t for t, _ in DOCS], [y for _, y in DOCS], 4)


def test_a_name_with_no_header_and_a_bad_column_are_refused_naming_what_to_give(tmp_path, capsys):
    path = headerless_tsv(tmp_path / "d.tsv", DOCS)
    with pytest.raises(ValueError, match=r"is a name, but the file has no header row.*position"):
        load_texts(path, text_column="text", label_column=0, header=False)
    assert main(["select", str(path), "--text-column", "1", "--label-column", "0", "--no-header",
                 "--label-column", "label"]) == 1  # fmt: skip
    assert "--no-header" in one_line_error(capsys)
    assert main(["select", str(path), "--text-column", "5", "--label-column", "0"]) == 1
    err = one_line_error(capsys)
    assert "row 1: fewer fields than column 5" in err and "--text-column/--label-column" in err
    with pytest.raises(ValueError, match=r"0 or more"):
        load_texts(path, text_column=-1, label_column=0)


def test_a_csv_without_text_and_label_columns_names_the_options_and_the_columns_found(tmp_path, capsys):
    path = write_csv(tmp_path / "d.csv", [(t, y) for t, y in DOCS], header=("body", "topic"))
    assert main(["select", str(path)]) == 1
    err = one_line_error(capsys)
    assert "no column 'text', 'label'" in err and "['body', 'topic']" in err
    assert "--text-column/--label-column" in err


def test_a_headerless_file_read_with_a_header_says_what_it_found_and_how_to_give_positions(tmp_path, capsys):
    path = headerless_tsv(tmp_path / "d.tsv", DOCS)
    assert main(["select", str(path)]) == 1
    err = one_line_error(capsys)
    assert "the header has ['sport', 'the match ended in a goal']" in err and "0-based positions" in err
    assert "--text-column/--label-column" in err


# -- the format from the content when the name says nothing


def test_a_file_with_no_ending_holding_label_tab_text_lines_is_read_as_tsv(tmp_path, capsys):
    """No ending and tab-separated lines whose first fields are words: TSV, not SVMlight; with and
    without --input-format tsv the same bytes, equal to the same steps in Python."""
    path = headerless_tsv(tmp_path / "SMSLike", DOCS)
    assert main(["select", str(path), "--text-column", "1", "--label-column", "0", "--k", "5"]) == 0
    guessed = capsys.readouterr().out
    assert main(["select", str(path), "--input-format", "tsv", "--text-column", "1", "--label-column", "0",
                 "--k", "5"]) == 0  # fmt: skip
    assert capsys.readouterr().out == guessed
    assert terms_of(guessed) == selected_terms([t for t, _ in DOCS], [y for _, y in DOCS], 5)


def test_a_file_with_no_ending_holding_svmlight_is_still_read_as_svmlight(tmp_path, capsys):
    from sklearn.datasets import dump_svmlight_file

    X = np.array([[1, 0, 2], [0, 1, 1], [3, 0, 0], [0, 2, 0]], float)
    dump_svmlight_file(X, np.array([1, 0, 1, 0]), str(tmp_path / "matrix"))
    assert main(["select", str(tmp_path / "matrix"), "--k", "2"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3


def test_content_that_fits_no_format_and_a_wrong_format_name_the_input_format_option(tmp_path, capsys):
    plain = tmp_path / "notes"
    plain.write_text("just some words\nwith no structure at all\n")
    assert main(["select", str(plain)]) == 1
    err = one_line_error(capsys)
    assert "cannot tell the format" in err and "--input-format" in err
    table = headerless_tsv(tmp_path / "msgs", DOCS)
    assert main(["select", str(table), "--input-format", "svmlight"]) == 1
    err = one_line_error(capsys)
    assert "not readable as SVMlight" in err and "--input-format" in err


@pytest.mark.parametrize(
    "name, extra", [("msgs.gz", []), ("msgs.tsv.bz2", []), ("msgs.gz", ["--input-format", "tsv"])]
)
def test_a_compressed_table_is_undone_and_read_as_its_content_or_name_says(tmp_path, capsys, name, extra):
    import bz2
    import gzip

    raw = "".join(f"{y}\t{t}\n" for t, y in DOCS).encode()
    (tmp_path / name).write_bytes(gzip.compress(raw) if name.endswith(".gz") else bz2.compress(raw))
    assert (
        main(
            ["select", str(tmp_path / name), "--text-column", "1", "--label-column", "0", "--k", "3", *extra]
        )
        == 0
    )
    assert terms_of(capsys.readouterr().out) == selected_terms([t for t, _ in DOCS], [y for _, y in DOCS], 3)


def test_a_headerless_tsv_on_standard_input_is_recognized(tmp_path):
    data = "".join(f"{y}\t{t}\n" for t, y in DOCS).encode()
    command = [sys.executable, "-m", "textsel", "select", "-", "--text-column", "1", "--label-column", "0",
               "--k", "3"]  # fmt: skip
    run = subprocess.run(command, input=data, capture_output=True)
    assert run.returncode == 0, run.stderr
    assert terms_of(run.stdout.decode()) == selected_terms([t for t, _ in DOCS], [y for _, y in DOCS], 3)


def test_help_says_how_columns_and_header_are_given():
    run = subprocess.run(
        [sys.executable, "-m", "textsel", "select", "--help"], capture_output=True, text=True
    )
    text = " ".join(run.stdout.split())
    assert "--header, --no-header" in text and "0-based position" in text and "header=None" in text
    assert "--tfidf" not in text and "--binary" not in text and "--sublinear-tf" not in text


# -- the real SMS Spam Collection, as published


def test_select_reads_the_published_sms_spam_collection(data_home):
    """The goal: the published file (no ending, label<TAB>text, no header) selected with and without
    --input-format tsv gives the same bytes, the terms of the same steps on the embedded copy."""
    path = data_home / "sms-spam" / "SMSSpamCollection"
    base = [sys.executable, "-m", "textsel", "select", str(path), "--text-column", "1", "--label-column", "0",
            "--k", "20"]  # fmt: skip
    runs = [
        subprocess.run(base + extra, capture_output=True, text=True)
        for extra in ([], ["--input-format", "tsv"])
    ]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr + runs[1].stderr
    assert runs[0].stdout == runs[1].stdout
    sms = load_sms_spam()
    labels = np.asarray(sms.target_names)[sms.target]
    assert terms_of(runs[0].stdout) == selected_terms(sms.data, labels, 20)
    assert runs[0].stdout.splitlines()[0].split("\t") == [
        "rank",
        "column",
        "term",
        "class",
        "direction",
        "score",
    ]
    # the rows are pandas' with header=None (quoting off: 54 messages start with a quote)
    read = load_texts(path, fmt="tsv", text_column=1, label_column=0)
    frame = pd.read_csv(path, sep="\t", header=None, quoting=csv.QUOTE_NONE, dtype=str)
    assert len(read.data) == 5574 and read.data == frame[1].tolist() == sms.data


# -- weighting options: refused, since they cannot change a selection


@pytest.mark.parametrize("metric", textsel.METRICS)
def test_term_weights_cannot_change_a_selection_so_the_options_are_not_offered(metric):
    """Forman's metrics are document counts: tf-idf, binary and sublinear weights of the same
    vocabulary give the same ranking and scores (why --tfidf, --binary, --sublinear-tf went)."""
    texts, labels = [t for t, _ in DOCS] * 3, [y for _, y in DOCS] * 3
    counts = CountVectorizer().fit_transform(texts)
    reference = textsel.TermSelector(metric, k="all", random_state=0).fit(counts, labels)
    for vec in (TfidfVectorizer(), TfidfVectorizer(sublinear_tf=True), CountVectorizer(binary=True)):
        sel = textsel.TermSelector(metric, k="all", random_state=0).fit(vec.fit_transform(texts), labels)
        assert (sel.ranking_ == reference.ranking_).all() and np.array_equal(sel.scores_, reference.scores_)


@pytest.mark.parametrize("option", ["--tfidf", "--binary", "--sublinear-tf"])
def test_a_weighting_option_is_refused_with_the_reason(tmp_path, capsys, option):
    path = write_csv(tmp_path / "d.csv", DOCS)
    assert main(["select", str(path), option]) == 1
    err = one_line_error(capsys)
    assert option in err and "document" in err and "cannot change" in err


# -- score columns


def test_a_binary_task_prints_one_score_column_the_positive_class_s(tmp_path, capsys):
    path = write_csv(tmp_path / "d.csv", DOCS)
    assert main(["select", str(path), "--metric", "f1", "--k", "4", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    texts, labels = [t for t, _ in DOCS], [y for _, y in DOCS]
    sel = textsel.TermSelector("f1", k=4).fit(CountVectorizer().fit_transform(texts), labels)
    assert all("class_scores" not in r for r in records)
    # f1 is asymmetric: the one score is the later label's ('sport'), the one ranked by
    assert [r["score"] for r in records] == pytest.approx(sel.score_table_[1, sel.ranking_].tolist())
    assert main(["select", str(path), "--metric", "f1", "--k", "4", "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["rank", "column", "term", "class", "direction", "score"]


def test_more_than_two_classes_keep_a_score_column_per_class(tmp_path, capsys):
    rows = DOCS + [("rain and wind and cloud", "weather"), ("cloud cover then rain", "weather")]
    path = write_csv(tmp_path / "d.csv", rows)
    assert main(["select", str(path), "--k", "3"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split("\t")
    assert header[5:] == ["score", "score[finance]", "score[sport]", "score[weather]"]
    assert main(["select", str(path), "--k", "3", "--format", "json"]) == 0
    assert set(json.loads(capsys.readouterr().out)[0]["class_scores"]) == {"finance", "sport", "weather"}
