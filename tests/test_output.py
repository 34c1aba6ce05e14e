"""One way to write a run's results: ``textsel._lab.output.OutputFolder``, behind ``study --out``,
``reproduce --out`` and ``select --output``.

Proved here: a folder that is a file is refused before any work, naming the option; the results
replace an earlier run's (its files this run does not write are removed when unchanged, the
user's own files are not touched); a run that fails or is interrupted leaves the folder exactly
as it was, with no staging folder or lock; a run killed outright leaves a staging folder that
the next run removes; two runs writing the same entries into one folder end with one complete
result, and the second says so at once, also when the runs are two processes.  The commit's
all-or-nothing, the lock and the manifest against planted files, and the names and special
outputs of the commands, are in ``test_output_commit.py`` and ``test_output_names.py``.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import write_csv

import textsel.cli.study as study_cli
from textsel._lab.output import OutputBusyError, OutputFolder
from textsel.cli import main


def listing(folder):
    """Every entry under ``folder`` (hidden ones too) with its bytes, for a before/after compare."""
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(folder.rglob("*"))
    }


def corpus_csv(path, seed=0, n=60):
    rng = np.random.default_rng(seed)
    words = ["apple", "grain", "wheat", "oil", "crude", "bank", "rate", "trade", "ship", "corn"]
    rows = []
    for i in range(n):
        label = ("grain", "oil", "money")[i % 3]
        lean = {
            "grain": ["grain", "wheat", "corn"],
            "oil": ["oil", "crude", "ship"],
            "money": ["bank", "rate"],
        }
        text = " ".join(list(rng.choice(words, 6)) + lean[label] * 2)
        rows.append((text, label))
    return write_csv(path, rows)


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


# -- checked before any work --------------------------------------------------------------------


@pytest.mark.parametrize("command", ["study", "reproduce", "select"])
def test_a_file_where_the_folder_should_be_is_refused_before_any_work(command, tmp_path, capsys, monkeypatch):
    """``--out FILE`` used to be refused only after the whole study had run, in a message that did
    not name --out.  Now nothing is read: the input named here does not even exist."""
    taken = tmp_path / "taken"
    taken.write_text("the user's file\n")
    missing = str(tmp_path / "no-such-input.csv")

    def no_work(*args, **kwargs):
        raise AssertionError("the run started its work")

    monkeypatch.setattr(study_cli, "_run", no_work)
    if command == "study":
        argv = ["study", missing, "--out", str(taken)]
        expected = f"--out {taken}: exists and is not a folder; give a folder"
    elif command == "reproduce":
        argv = ["reproduce", "kolcz", "--quick", "--out", str(taken)]
        expected = f"--out {taken}: exists and is not a folder; give a folder"
    else:
        argv = ["select", str(corpus_csv(tmp_path / "docs.csv")), "--output", str(taken / "sel.tsv")]
        expected = f"--output {taken}: exists and is not a folder; give a folder"
    assert main(argv) == 1
    assert expected in one_line_error(capsys)
    assert taken.read_text() == "the user's file\n"


def test_a_folder_that_cannot_be_created_is_refused_naming_the_option(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["study", "x.csv", "--out", str(blocker / "below")]) == 1
    assert f"--out {blocker / 'below'}: {blocker} is not a folder" in one_line_error(capsys)


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux's /sys, unwritable even for root")
def test_a_folder_that_cannot_be_written_is_refused_naming_the_option_before_reading(capsys):
    assert main(["study", "no-such-input.csv", "--out", "/sys/kernel/textsel-out"]) == 1
    assert "--out /sys/kernel/textsel-out: cannot write there (" in one_line_error(capsys)


# -- replaced whole -----------------------------------------------------------------------------


def test_a_rerun_replaces_the_earlier_results_whole_and_keeps_the_users_files(tmp_path, capsys):
    """A study with two metrics writes best_pairs.csv; a re-run with one metric writes none, and
    the earlier run's must not stay beside the new results.  A file of the user's stays."""
    data = corpus_csv(tmp_path / "docs.csv")
    out = tmp_path / "results"
    common = [
        "study",
        str(data),
        "--ks",
        "2,4",
        "--trials",
        "1",
        "--folds",
        "2",
        "--n-jobs",
        "1",
        "--no-plots",
    ]
    assert main([*common, "--metrics", "bns,ig", "--out", str(out)]) == 0
    assert (out / "best_pairs.csv").exists()
    (out / "notes.txt").write_text("mine\n")
    assert main([*common, "--metrics", "bns", "--out", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert "best_pairs.csv" not in names and "notes.txt" in names
    assert names == sorted(
        [
            "notes.txt",
            "records.csv",
            "records.json",
            "summary.csv",
            "tolerance.csv",
            *(["skew.csv"] if (out / "skew.csv").exists() else []),
        ]
    )
    metrics = {r["metric"] for r in json.loads((out / "records.json").read_text())}
    assert "bns" in metrics and "ig" not in metrics  # the second run's records, not the first's
    capsys.readouterr()


@pytest.mark.parametrize("fault", [RuntimeError("failed half-way"), KeyboardInterrupt()])
def test_a_failed_or_interrupted_run_leaves_the_folder_as_it_was(tmp_path, capsys, monkeypatch, fault):
    data = corpus_csv(tmp_path / "docs.csv")
    out = tmp_path / "results"
    common = [
        "study",
        str(data),
        "--ks",
        "2,4",
        "--trials",
        "1",
        "--folds",
        "2",
        "--n-jobs",
        "1",
        "--no-plots",
    ]
    assert main([*common, "--metrics", "bns,ig", "--out", str(out)]) == 0
    before = listing(out)
    from textsel import study

    real = study.write_csv

    def write_then_fail(rows, path):  # the third table written, the run stops
        real(rows, path)
        if path.name == "summary.csv":
            raise fault

    monkeypatch.setattr(study, "write_csv", write_then_fail)
    if isinstance(fault, KeyboardInterrupt):
        assert main([*common, "--metrics", "chi2", "--out", str(out)]) == 130
    else:
        assert main([*common, "--metrics", "chi2", "--out", str(out)]) == 1
    assert listing(out) == before  # no staging folder, no lock, no half-written table
    capsys.readouterr()


def test_a_new_folder_is_removed_again_when_the_run_fails(tmp_path):
    out = tmp_path / "new" / "deeper"
    with pytest.raises(ZeroDivisionError):
        with OutputFolder(out, "page", "--out", files=("a.txt",)) as staging:
            (staging / "a.txt").write_text("x")
            raise ZeroDivisionError
    assert not (tmp_path / "new").exists()


def test_a_select_output_file_is_replaced_whole(tmp_path, capsys):
    data = corpus_csv(tmp_path / "docs.csv")
    target = tmp_path / "sel.tsv"
    target.write_text("an earlier selection\n")
    assert main(["select", str(data), "--k", "3", "--output", str(target)]) == 0
    assert target.read_text().startswith("rank\t") and sorted(p.name for p in tmp_path.iterdir()) == [
        "docs.csv",
        "sel.tsv",
    ]
    capsys.readouterr()


# -- runs that collide --------------------------------------------------------------------------


def test_a_second_run_into_the_same_entries_stops_at_once_and_the_first_completes(tmp_path):
    first = OutputFolder(tmp_path, "page", "--out", files=("page.md",), folders=("page",))
    staging = first.__enter__()
    busy = r"^out .*: another textsel run \(pid \d+, started .*\) is writing page.md, page there; this run"
    with pytest.raises(OutputBusyError, match=busy):
        with OutputFolder(tmp_path, "page", "out", files=("page.md",), folders=("page",)):
            raise AssertionError("the second run must not start")
    # other entries of the same folder are not locked: another paper can run beside it
    with OutputFolder(tmp_path, "other", "--out", files=("other.md",)) as other:
        (other / "other.md").write_text("other")
    (staging / "page.md").write_text("complete")
    first.__exit__(None, None, None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.md", "page.md"]
    assert (tmp_path / "page.md").read_text() == "complete"


HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from textsel._lab.output import OutputFolder
    folder, flag = Path(sys.argv[1]), Path(sys.argv[2])
    with OutputFolder(folder, "forman", "--out", files=("forman.md",), manifest=True) as staging:
        (staging / "forman.md").write_text("from the first run")
        flag.write_text("holding")
        while not (folder / "release").exists():
            time.sleep(0.02)
    """
)


def test_two_processes_into_one_folder_end_with_one_complete_result(tmp_path):
    """Two ``textsel reproduce forman --out`` runs at once: the first (here a process holding the
    same entries) completes; the second, a real command line, stops within its start-up and
    names the other run."""
    out, flag = tmp_path / "reproductions", tmp_path / "flag"
    first = subprocess.Popen([sys.executable, "-c", HOLDER, str(out), str(flag)])
    try:
        for _ in range(500):
            if flag.exists():
                break
            time.sleep(0.02)
        command = [sys.executable, "-m", "textsel", "reproduce", "forman", "--quick", "--out", str(out)]
        second = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert second.returncode == 1
        assert f"--out {out}: another textsel run (pid {first.pid}" in second.stderr
        (out / "release").write_text("")
        assert first.wait(timeout=60) == 0
    finally:
        first.kill()
    (out / "release").unlink()
    assert sorted(p.name for p in out.iterdir()) == ["forman.md"]
    assert (out / "forman.md").read_text() == "from the first run"


def test_a_killed_runs_staging_folder_is_removed_by_the_next_run(tmp_path):
    flag = tmp_path / "flag"
    killed = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "out"), str(flag)])
    for _ in range(500):
        if flag.exists():
            break
        time.sleep(0.02)
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait(timeout=30)
    left = [p.name for p in (tmp_path / "out").iterdir()]
    assert any(name.endswith(".partial") for name in left)  # SIGKILL: nothing could clean up
    with OutputFolder(tmp_path / "out", "forman", "--out", manifest=True) as staging:  # the lock is free
        (staging / "forman.md").write_text("next")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["forman.md"]
