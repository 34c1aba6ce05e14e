"""The command line and the raw-text readers at their edges: each failure a user can cause is one
line on stderr with an exit code, never a traceback, and no input is silently dropped or merged.
Each test names the input it tries."""

import csv
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import write_csv, write_jsonl

from textsel.cli import main
from textsel.datasets import load_texts

SPORT = ["the match ended in a goal", "a late goal won the match", "the striker scored a goal",
         "the keeper saved a penalty", "the referee stopped the match"]  # fmt: skip
FINANCE = ["shares fell as the market closed", "the market rallied and shares rose",
           "bond yields and shares in the market", "the bank raised its rates",
           "profits rose at the bank"]  # fmt: skip


def rows(n=1):
    return [(t, "sport") for t in SPORT] * n + [(t, "finance") for t in FINANCE] * n


def one_line_error(capsys):
    err = capsys.readouterr().err.strip()
    assert err and "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


# -- options refused by argparse (exit 2) or by the data (exit 1), one line each


@pytest.mark.parametrize(
    "option, value, expected",
    [("--encoding", "nope", "is not a text encoding"), ("--token-pattern", "(", "not a regular expression"),
     ("--min-df", "1.5", "a share is in [0, 1]")],
)  # fmt: skip
def test_bad_text_options_are_usage_errors(tmp_path, capsys, option, value, expected):
    path = write_csv(tmp_path / "docs.csv", rows())
    with pytest.raises(SystemExit) as exit_:
        main(["select", str(path), option, value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert expected in err and option in err and "Traceback" not in err


def test_min_df_above_the_corpus_names_the_option(tmp_path, capsys):
    path = write_csv(tmp_path / "docs.csv", rows())
    assert main(["select", str(path), "--min-df", "1000"]) == 1
    assert "--min-df 1000 asks for terms in at least 1000 documents, but there are 10" in one_line_error(
        capsys
    )


def test_min_df_1_is_a_count_not_every_document(tmp_path, capsys):
    """'--min-df 1' is one document (scikit-learn reads 1.0 as a share: every document)."""
    path = write_csv(tmp_path / "docs.csv", rows())
    assert main(["select", str(path), "--min-df", "1", "--k", "all", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) > 20


def test_a_text_column_named_as_the_label_is_refused(tmp_path, capsys):
    path = write_csv(tmp_path / "docs.csv", [(f"{t} number {i}", y) for i, (t, y) in enumerate(rows(3))])
    assert main(["select", str(path), "--label-column", "text"]) == 1
    assert "nearly every document is its own class" in one_line_error(capsys)


def test_demo_counts_must_be_positive(capsys):
    for option in (["--top", "0"], ["--classes", "-2"]):
        with pytest.raises(SystemExit) as exit_:
            main(["demo", *option])
        assert exit_.value.code == 2 and "expected a positive integer" in capsys.readouterr().err


def test_the_default_k_warning_is_printed_once(tmp_path, capsys):
    path = write_csv(tmp_path / "docs.csv", rows())
    assert main(["select", str(path)]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "k=1000 is greater than" in warnings[0]  # TermSelector's default k


# -- standard input and output


def test_a_closed_standard_input_is_one_line(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", None)
    assert main(["select", "-", "--input-format", "csv"]) == 1
    assert "standard input (-) is closed" in one_line_error(capsys)


def test_a_deeply_nested_json_label_is_one_line(tmp_path, capsys):
    path = tmp_path / "docs.jsonl"
    path.write_text('{"text": "a b", "label": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    assert main(["select", str(path)]) == 1
    assert "nested too deeply" in one_line_error(capsys)


def test_output_into_a_closed_pipe_stops_quietly(tmp_path):
    path = write_csv(tmp_path / "docs.csv", rows(40))
    command = f'"{sys.executable}" -m textsel select "{path}" --k all --min-df 1 | head -c 10 > /dev/null'
    run = subprocess.run(
        ["bash", "-c", "set -o pipefail; " + command], capture_output=True, text=True, timeout=120
    )
    assert "Broken pipe" not in run.stderr and "Traceback" not in run.stderr, run.stderr


def test_output_file_is_utf8_whatever_the_locale(tmp_path):
    path = write_csv(tmp_path / "docs.csv", [(t + " café", y) for t, y in rows()])
    out = tmp_path / "terms.tsv"
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    command = [sys.executable, "-m", "textsel", "select", str(path), "--k", "all", "--output", str(out)]
    run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "café" in out.read_bytes().decode("utf-8")


# -- the study


def test_study_keeps_inputs_whose_file_names_start_alike(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = write_jsonl(tmp_path / "a" / "data.jsonl", rows())
    second = write_jsonl(tmp_path / "b" / "data.jsonl", rows())
    third = write_csv(tmp_path / "x.v1.csv", rows())
    fourth = write_csv(tmp_path / "x.v2.csv", rows())
    out = tmp_path / "out"
    args = ["study", str(first), str(second), str(third), str(fourth), "--ks", "2", "--trials", "1",
            "--folds", "2", "--metrics", "bns", "--out", str(out), "--no-plots", "--n-jobs", "1"]  # fmt: skip
    assert main(args) == 0
    names = {r["dataset"] for r in csv.DictReader((out / "records.csv").open())}
    assert names == {str(first), str(second), "x.v1.csv", "x.v2.csv"}


def test_study_without_matplotlib_writes_the_tables_and_says_why_not_the_figures(
    tmp_path, capsys, monkeypatch
):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a)
    )
    path = write_csv(tmp_path / "docs.csv", rows())
    out = tmp_path / "out"
    args = ["study", str(path), "--ks", "2", "--trials", "1", "--folds", "2", "--metrics", "bns",
            "--out", str(out), "--n-jobs", "1"]  # fmt: skip
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "the figures need matplotlib (python -m pip install matplotlib)" in err and "Traceback" not in err
    assert (out / "records.csv").is_file() and not list(out.glob("*.png"))


def test_forman_sets_missing_names_the_folder_and_how_to_point_at_one(tmp_path, capsys):
    assert main(["study", "--forman-sets", "--data-home", str(tmp_path)]) == 2
    err = one_line_error(capsys)
    assert str(tmp_path / "forman-arff") in err and "--data-home" in err and "TEXTSEL_DATA" in err


# -- raw-text readers


def test_a_folder_reads_regular_visible_files_only_and_says_what_it_skipped(tmp_path):
    for label, texts in (("sport", SPORT), ("finance", FINANCE)):
        (tmp_path / label).mkdir()
        for i, text in enumerate(texts):
            (tmp_path / label / f"{i}.txt").write_text(text)
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "x.txt").write_text("not a document")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "objects").mkdir()
    (tmp_path / "sport" / ".hidden.txt").write_text("not a document")
    (tmp_path / "sport" / "nested").mkdir()
    os.mkfifo(tmp_path / "finance" / "pipe")  # reading it would block forever
    with pytest.warns(UserWarning, match=r"skipped 5 entries that are hidden or not regular files") as caught:
        b = load_texts(tmp_path)
    assert ".git/" in str(caught[0].message) and "finance/pipe" in str(caught[0].message)
    assert sorted(b.target_names) == ["finance", "sport"] and len(b.data) == 10


def test_csv_fields_longer_than_the_csv_modules_limit_are_read(tmp_path):
    long_text = "goal " * 60_000  # 300,000 characters, above the csv module's 131,072
    path = write_csv(tmp_path / "docs.csv", [(long_text, "sport")] + rows())
    limit = csv.field_size_limit()
    b = load_texts(path)
    assert b.data[0] == long_text and csv.field_size_limit() == limit  # the caller's limit is put back


def test_a_utf8_byte_order_mark_is_not_part_of_the_header(tmp_path):
    path = write_csv(tmp_path / "docs.csv", rows(), encoding="utf-8-sig")  # as Excel writes it
    b = load_texts(path)
    assert len(b.data) == 10 and set(b.target_names) == {"sport", "finance"}


def test_a_repeated_header_name_is_refused(tmp_path):
    path = write_csv(
        tmp_path / "docs.csv", [(t, y, "other") for t, y in rows()], header=("text", "label", "text")
    )
    with pytest.raises(ValueError, match=r"names the column 'text' 2 times"):
        load_texts(path)


def test_an_unknown_encoding_is_a_value_error(tmp_path):
    path = write_csv(tmp_path / "docs.csv", rows())
    with pytest.raises(ValueError, match="'nope' is not a text encoding"):
        load_texts(path, encoding="nope")


def test_an_undecodable_file_names_both_ways_to_set_the_encoding(tmp_path):
    path = tmp_path / "docs.csv"
    path.write_bytes("text,label\ncaf\xe9 au lait,food\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"line 2: bytes that are not utf-8.*--encoding on the command line"):
        load_texts(path)
    assert np.asarray(load_texts(path, encoding="latin-1").data).tolist() == ["café au lait"]


def test_an_output_that_cannot_be_written_names_the_option(tmp_path, capsys):
    path = write_csv(tmp_path / "docs.csv", rows())
    assert main(["select", str(path), "--k", "3", "--output", str(tmp_path)]) == 1
    assert f"--output {tmp_path}: is a folder; give a file name" in one_line_error(capsys)


def test_parsing_the_command_line_imports_no_numerical_library():
    """--version, --help and argument errors need only the parser: building it imports neither
    numpy, scipy, scikit-learn nor matplotlib (each sub-command imports what it uses when it runs),
    and neither does ``import textsel``."""
    code = (
        "import sys\n"
        "import textsel\n"
        "from textsel.cli import build_parser\n"
        "build_parser()\n"
        "print(sorted(m for m in ('numpy', 'scipy', 'sklearn', 'matplotlib') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    run = subprocess.run([sys.executable, "-m", "textsel", "--version"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.startswith("textsel ")


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["select", "docs.csv", "--k", "-5"], 1, "k must be >= 1, got -5"),
        (["select", "docs.csv", "--percentile", "0"], 1, "percentile must be in (0, 100], got 0.0"),
        (["select", "docs.csv", "--k", "3", "--percentile", "5"], 1, "give --k or --percentile, not both"),
        (["select", "missing.csv"], 2, "missing.csv: no such file or folder"),
        (["select", "docs.csv", "--metric", "nope"], 2, "invalid choice: 'nope'"),
    ],
)
def test_option_errors_come_before_any_numerical_import(tmp_path, argv, code, message):
    """A wrong option value or a missing input is reported from the options alone: the run stops
    with its one-line error before numpy, scipy, scikit-learn or matplotlib is imported."""
    (tmp_path / "docs.csv").write_text("text,label\na b,x\nb c,y\n", encoding="utf-8")
    script = (
        "import sys\n"
        "from textsel.cli import main\n"
        "try:\n"
        f"    code = main({argv!r})\n"
        "except SystemExit as exc:  # argparse's own errors\n"
        "    code = exc.code\n"
        "print(code, sorted(m for m in ('numpy', 'scipy', 'sklearn', 'matplotlib') if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert message in run.stderr and "Traceback" not in run.stderr
    assert run.stdout.strip() == f"{code} []"


def test_select_keeps_as_many_terms_as_term_selector_by_default():
    from textsel import TermSelector
    from textsel.cli import build_parser

    args = build_parser().parse_args(["select", "x.csv"])
    assert args.k is None and "default: 1000" in build_parser()._subparsers._group_actions[0].choices[
        "select"].format_help()  # fmt: skip
    assert TermSelector().k == 1000


def test_datasets_says_how_to_fetch_and_a_missing_home_is_an_error(tmp_path, capsys):
    assert main(["datasets", "--data-home", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"textsel datasets --fetch all --data-home {tmp_path}" in out and "load_sms_spam()" in out
    assert main(["datasets", "--data-home", str(tmp_path / "absent")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_failed_download_names_its_address(tmp_path, capsys):
    from textsel.datasets import fetch

    url = (tmp_path / "nowhere" / "x.tar.gz").as_uri()
    with pytest.raises(OSError, match=f"could not download x.tar.gz from {url}"):
        fetch("x.tar.gz", tmp_path, url=url, sha256="0" * 64)
    assert [p.name for p in tmp_path.iterdir()] == []  # nothing half-written is left
