"""The output writer where a run is killed outright, where the output is the input, and where the
disk is full: what the earlier rounds of hostile use left open.

Proved here:

- an output that is the run's input (by its name, through a link, as a hard link, through a
  shell's ``>>``) or lies inside an input folder is refused before any work, and the input is
  unchanged;
- a run killed with SIGKILL at any one of its commit's steps (between two renames of a study's
  files, say) is undone by the next run into the folder: the folder and a link's target are
  byte for byte what they were before the killed run, with nothing of textsel's left; killed
  past the commit point, the next run finds the killed run's results complete, and nothing of
  textsel's beside them;
- a lock file a run killed between linking it into place and removing its private name left
  (two links) is taken over, and the private name goes with it;
- a second ``select`` into the same output stops before reading its input;
- a study whose ``--out`` cannot take the results (a file size limit) says so naming ``--out``,
  the folder as it was.
"""

import os
import resource
import signal
import subprocess
import sys
import textwrap

import pytest
from test_output import corpus_csv, listing
from test_output_commit import new_run, scene, snapshot

from textsel._lab.output import OutputBusyError, OutputFolder
from textsel.cli import main

pytestmark = pytest.mark.skipif(os.name != "posix", reason="signals, links and limits as POSIX has them")


# -- the output is the input -------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["same name", "link to the corpus", "hard link", "other spelling"])
def test_select_refuses_an_output_that_is_its_input_before_any_work(tmp_path, capsys, how):
    corpus = corpus_csv(tmp_path / "corpus.csv")
    before = corpus.read_bytes()
    output = {
        "same name": corpus,
        "link to the corpus": tmp_path / "terms.tsv",
        "hard link": tmp_path / "also.csv",
        "other spelling": tmp_path / "sub" / ".." / "corpus.csv",
    }[how]
    if how == "link to the corpus":
        output.symlink_to(corpus)
    elif how == "hard link":
        os.link(corpus, output)
    elif how == "other spelling":
        (tmp_path / "sub").mkdir()
    assert main(["select", str(corpus), "--output", str(output), "--k", "3"]) == 1
    assert "is the input" in capsys.readouterr().err
    assert corpus.read_bytes() == before


def test_select_to_standard_output_appended_to_its_input_is_refused(tmp_path):
    corpus = corpus_csv(tmp_path / "corpus.csv")
    before = corpus.read_bytes()
    with open(corpus, "ab") as appended:
        done = subprocess.run([sys.executable, "-m", "textsel", "select", str(corpus), "--k", "3"],
                              stdout=appended, stderr=subprocess.PIPE, timeout=120)  # fmt: skip
    assert done.returncode == 1 and b"is the input" in done.stderr, done.stderr
    assert corpus.read_bytes() == before


def test_an_output_inside_an_input_folder_is_refused(tmp_path, capsys):
    """A folder of one sub-folder per class: a file written into it would be read as a document."""
    folder = tmp_path / "corpus"
    for label in ("spam", "ham"):
        (folder / label).mkdir(parents=True)
        for i in range(6):
            (folder / label / f"{i}.txt").write_text(f"{label} words number {i} {label}")
    before = listing(folder)
    assert main(["select", str(folder), "--output", str(folder / "spam" / "terms.tsv"), "--k", "2"]) == 1
    assert "inside the input folder" in capsys.readouterr().err
    assert main(["study", str(folder), "--out", str(folder / "results"), "--ks", "2", "--trials", "1"]) == 1
    assert "inside the input folder" in capsys.readouterr().err
    assert listing(folder) == before


# -- killed outright --------------------------------------------------------------------------------

KILLED_COMMIT = textwrap.dedent(
    """
    import os, signal, sys
    sys.path.insert(0, {tests!r})
    from pathlib import Path
    import test_output_commit as t
    from textsel._lab.output import commit

    out, at, after_commit = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
    calls = [0]
    real = {{name: getattr(os, name) for name in t.Faults.CHANGES}}

    def killer(name):
        def call(*args, **kwargs):
            result = real[name](*args, **kwargs)
            calls[0] += 1
            if not after_commit and calls[0] == at:
                os.kill(os.getpid(), signal.SIGKILL)  # after the step: the next one never comes
            return result
        return call

    real_run, real_let_go = commit.Commit.run, commit.Commit._let_go

    def run(self, *args, **kwargs):
        for name in t.Faults.CHANGES:
            setattr(os, name, killer(name))
        return real_run(self, *args, **kwargs)

    def let_go(self):
        if after_commit:
            os.kill(os.getpid(), signal.SIGKILL)  # past the commit point, the old files not let go
        return real_let_go(self)

    commit.Commit.run, commit.Commit._let_go = run, let_go
    t.new_run(out)
    """
)


def killed_run(out, at, after_commit=False):
    tests = os.path.dirname(os.path.abspath(__file__))
    code = KILLED_COMMIT.format(tests=tests)
    done = subprocess.run([sys.executable, "-c", code, str(out), str(at), "1" if after_commit else "0"],
                          capture_output=True, timeout=120)  # fmt: skip
    return done.returncode


def next_run_that_fails(out):
    """A run into the same folder that stops before its commit: what it leaves is what the
    recovery of the killed run left."""
    with pytest.raises(RuntimeError):
        with OutputFolder(out, "paper", "--out", files=("page.md",), manifest=True):
            raise RuntimeError("stops before its commit")


def test_a_run_killed_at_any_step_of_its_commit_is_undone_by_the_next_run(tmp_path):
    """SIGKILL after each step of a commit that replaces files, follows a link out of the folder,
    makes folders and removes an earlier run's files: every step the killed run took before its
    commit point is undone; killed after it (while letting the old files go), the results are
    complete.  Either way nothing of textsel's is left beside them."""
    finished_out, finished_elsewhere = scene(tmp_path / "finished")
    new_run(finished_out)
    finished = _relative(snapshot(finished_out, finished_elsewhere), tmp_path / "finished")
    outcomes = []
    at = 1
    while True:
        root = tmp_path / f"at{at}"
        out, elsewhere = scene(root)
        before = snapshot(out, elsewhere)
        code = killed_run(out, at)
        if code == 0:  # the commit has fewer steps than ``at``: every step was tried
            break
        assert code == -signal.SIGKILL, code
        changed = snapshot(out, elsewhere) != before
        next_run_that_fails(out)
        after = snapshot(out, elsewhere)
        if after == before:
            outcomes.append("undone" if changed else "untouched")
        else:
            assert _relative(after, root) == finished, f"killed after step {at}: neither before nor finished"
            outcomes.append("finished")
        at += 1
    # the commit point is crossed once: undone up to it, finished after it
    assert outcomes == sorted(outcomes, key=lambda o: o == "finished"), outcomes
    assert outcomes.count("undone") >= 12 and "finished" in outcomes, outcomes


def test_a_run_killed_past_its_commit_point_is_finished_by_the_next_run(tmp_path):
    out, elsewhere = scene(tmp_path / "run")
    assert killed_run(out, 0, after_commit=True) == -signal.SIGKILL
    assert any(name.endswith(".old") for name in os.listdir(out))  # the killed run's old files kept aside
    next_run_that_fails(out)
    reference, reference_elsewhere = scene(tmp_path / "reference")
    new_run(reference)
    assert _relative(snapshot(out, elsewhere), tmp_path / "run") == _relative(
        snapshot(reference, reference_elsewhere), tmp_path / "reference"
    )


def _relative(seen, root):
    return {os.path.relpath(path, root): what for path, what in seen.items()}


def test_a_lock_left_with_two_links_by_a_killed_run_is_taken_over(tmp_path):
    """Killed between linking its lock file into place and removing the private name it wrote it
    under: the lock file has two links, and the next run takes it over and removes both names."""
    out = tmp_path / "out"
    out.mkdir()
    private = out / ".textsel-paper.lock.0123456789ab"
    private.write_text(f"pid {os.getpid() + 10**6}, started 00:00:00\n")
    os.link(private, out / ".textsel-paper.lock")
    with OutputFolder(out, "paper", "--out") as staging:
        (staging / "page.md").write_text("page")
    assert sorted(os.listdir(out)) == ["page.md"]


def test_a_private_lock_name_a_killed_run_left_goes_once_a_minute_old(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    fresh, old = out / ".textsel-paper.lock.00000000000a", out / ".textsel-paper.lock.00000000000b"
    for path in (fresh, old):
        path.write_text("pid 1, started 00:00:00\n")
    os.utime(old, (1, 1))
    with OutputFolder(out, "paper", "--out") as staging:
        (staging / "page.md").write_text("page")
    assert sorted(os.listdir(out)) == [fresh.name, "page.md"]  # a fresh one may be a live run's


# -- a clash, found before the work -----------------------------------------------------------------


def test_a_second_select_into_the_same_output_stops_before_reading_its_input(tmp_path):
    """The input is a FIFO nobody writes into: a run that read it before taking its lock would
    wait for ever; this one stops at once, naming the run that holds the output."""
    fifo = tmp_path / "corpus.csv"
    os.mkfifo(fifo)
    output = tmp_path / "terms.tsv"
    with OutputFolder(tmp_path, f"select:{output.name}", "--output", files=(output.name,)):
        done = subprocess.run([sys.executable, "-m", "textsel", "select", str(fifo), "--output", str(output)],
                              capture_output=True, timeout=60)  # fmt: skip
    assert done.returncode == 1 and b"another textsel run" in done.stderr, done.stderr


def test_the_lock_is_taken_before_the_selection(tmp_path, monkeypatch):
    import textsel.cli.select as select_cli

    corpus = corpus_csv(tmp_path / "corpus.csv")
    output = tmp_path / "terms.tsv"
    monkeypatch.setattr(select_cli, "_selection", lambda *a: pytest.fail("the work ran before the lock"))
    with OutputFolder(tmp_path, f"select:{output.name}", "--output", files=(output.name,)):
        with pytest.raises(OutputBusyError):
            select_cli.run(select_cli_args(corpus, output))


def select_cli_args(corpus, output):
    from textsel.cli import build_parser

    return build_parser().parse_args(["select", str(corpus), "--output", str(output)])


# -- the disk cannot take the results ---------------------------------------------------------------


def test_a_study_whose_out_cannot_take_the_results_names_out(tmp_path):
    """A file size limit of 512 bytes (RLIMIT_FSIZE, SIGXFSZ ignored), as a full disk would: the error
    names ``--out`` and the folder is as it was, an earlier study's results kept."""
    corpus = corpus_csv(tmp_path / "corpus.csv", n=90)
    out = tmp_path / "results"
    out.mkdir()
    (out / "summary.csv").write_text("an earlier study's summary\n")
    before = listing(out)

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))

    command = [sys.executable, "-m", "textsel", "study", str(corpus), "--out", str(out), "--ks", "2,4",
               "--metrics", "bns,ig", "--trials", "1", "--no-plots"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, preexec_fn=limited, timeout=300)
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert f"--out {out}: cannot write the results there (File too large)" in err, err
    assert listing(out) == before


# -- what a second review found ---------------------------------------------------------------------


def plant_killed_run(out, lines, mode=0o700):
    """The lock and staging folder a killed run of key ``paper`` would leave, with ``lines`` as
    its journal."""
    import json

    staging = out / ".textsel-paper-deadbeef.partial"
    staging.mkdir(parents=True)
    os.chmod(staging, mode)
    (staging / "journal").write_text("".join(json.dumps(line) + "\n" for line in lines))
    (out / ".textsel-paper.lock").write_text(f"pid 1, started 00:00:00, staging {staging.name}\n")
    return staging


@pytest.mark.parametrize("mode", [0o700, 0o755])
def test_a_planted_journal_cannot_remove_or_move_files_it_did_not_make(tmp_path, mode):
    """A journal is believed only in a staging folder closed to others, and only for what a
    commit does: it cannot delete a file by calling it a name kept aside, move one file over
    another, or bring a file in from outside the staging folder."""
    out = tmp_path / "out"
    precious, source, victim = tmp_path / "precious.txt", tmp_path / "source.txt", tmp_path / "victim.txt"
    for path in (precious, source, victim):
        path.write_text(path.name)
    found = os.lstat(source)
    plant_killed_run(
        out,
        [
            ["aside", str(victim), str(source)],
            ["moved", str(victim), [found.st_dev, found.st_ino]],
            ["aside", "x", str(precious)],
            ["removed", str(tmp_path / "new.txt"), str(precious)],
            ["committed"] if mode == 0o700 else ["rmdir", str(tmp_path / "made"), 0o755],
        ],
        mode,
    )
    with OutputFolder(out, "paper", "--out") as staging:
        (staging / "page.md").write_text("page")
    assert [p.read_text() for p in (precious, source, victim)] == ["precious.txt", "source.txt", "victim.txt"]
    assert not (tmp_path / "new.txt").exists() and not (tmp_path / "made").exists()
    assert sorted(os.listdir(out)) == ["page.md"]


def test_recovery_tells_files_by_device_and_inode(tmp_path):
    """A file on another file system with the inode number a killed run's file had is not the
    file the run placed: it is not removed."""
    from textsel._lab.output.journal import recover

    out = tmp_path / "out"
    target = tmp_path / "elsewhere.csv"
    target.write_text("the user's")
    found = os.lstat(target)
    staging = plant_killed_run(out, [["moved", str(target), [found.st_dev + 1, found.st_ino]]])
    recover(out, staging)
    assert target.read_text() == "the user's"


def test_an_undeclared_file_over_an_input_is_refused_at_the_commit(tmp_path, capsys):
    """A study writes figures named for their k, which it cannot declare beforehand: a link of
    such a name to the corpus is found when the files are put in place, and nothing is."""
    corpus = corpus_csv(tmp_path / "corpus.csv")
    before = corpus.read_bytes()
    out = tmp_path / "out"
    out.mkdir()
    (out / "precision_recall_k4.png").symlink_to(os.path.join("..", "corpus.csv"))
    with pytest.raises(ValueError, match="is the input"):
        with OutputFolder(out, "study", "--out", files=("summary.csv",), inputs=[corpus]) as staging:
            (staging / "summary.csv").write_text("table")
            (staging / "precision_recall_k4.png").write_bytes(b"\x89PNG")
    assert corpus.read_bytes() == before and not (out / "summary.csv").exists()
    pytest.importorskip("matplotlib")
    code = main(["study", str(corpus), "--out", str(out), "--ks", "2,4", "--metrics", "bns", "--trials", "1"])
    assert code == 1 and "is the input" in capsys.readouterr().err
    assert corpus.read_bytes() == before


def test_a_run_killed_before_its_staging_folder_is_named_leaves_nothing(tmp_path):
    """The staging folder is named in the lock before it is made: a run killed right after making
    it leaves a folder the next run removes."""
    out = tmp_path / "out"
    code = textwrap.dedent(
        f"""
        import os, signal
        real = os.mkdir
        def mkdir(path, *args, **kwargs):
            real(path, *args, **kwargs)
            if str(path).endswith(".partial"):
                os.kill(os.getpid(), signal.SIGKILL)
        os.mkdir = mkdir
        from textsel._lab.output import OutputFolder
        with OutputFolder({str(out)!r}, "paper", "--out"):
            pass
        """
    )
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == -signal.SIGKILL
    assert any(name.endswith(".partial") for name in os.listdir(out))
    with OutputFolder(out, "paper", "--out") as staging:
        (staging / "page.md").write_text("page")
    assert sorted(os.listdir(out)) == ["page.md"]


def test_a_run_killed_past_its_commit_point_has_its_manifest_recorded(tmp_path):
    """The killed run's manifest is recorded by the next run, so that a later run removes the
    files the killed one wrote and it no longer writes."""
    from textsel._lab.output.manifest import manifest_path, read_manifest

    out, _ = scene(tmp_path / "run")
    assert killed_run(out, 0, after_commit=True) == -signal.SIGKILL
    next_run_that_fails(out)
    recorded = read_manifest(manifest_path(out, "paper"), pytest.fail)
    assert ("fresh.csv",) in recorded.files and ("figs", "c", "deep.png") in recorded.files
    with OutputFolder(
        out, "paper", "--out", files=("page.md", "fresh.csv"), folders=("figs",), manifest=True
    ) as s:
        (s / "page.md").write_text("only the page now")
    assert not (out / "fresh.csv").exists() and not (out / "figs" / "c" / "deep.png").exists()


def test_a_folder_renamed_after_a_killed_run_is_put_back_under_its_new_name(tmp_path):
    out, elsewhere = scene(tmp_path / "run")
    before = _relative(snapshot(out), out)
    assert killed_run(out, 6) == -signal.SIGKILL
    moved = tmp_path / "run" / "moved"
    os.rename(out, moved)
    next_run_that_fails(moved)
    assert _relative(snapshot(moved), moved) == before


def test_an_output_through_a_link_out_of_an_input_folder_is_still_inside_it(tmp_path, capsys):
    folder = tmp_path / "corpus"
    for label in ("spam", "ham"):
        (folder / label).mkdir(parents=True)
        for i in range(6):
            (folder / label / f"{i}.txt").write_text(f"{label} words number {i} {label}")
    (tmp_path / "elsewhere").mkdir()
    (folder / "res").symlink_to(tmp_path / "elsewhere")
    assert main(["select", str(folder), "--output", str(folder / "res" / "terms.tsv"), "--k", "2"]) == 1
    assert "inside the input folder" in capsys.readouterr().err
    assert os.listdir(tmp_path / "elsewhere") == []


def test_inputs_that_are_not_files_are_never_taken_for_the_output(tmp_path):
    """A terminal or /dev/null read as the input and written as the output is no file to replace."""
    from textsel._lab.output.targets import refuse_inputs

    fd = os.open(os.devnull, os.O_WRONLY)
    try:
        refuse_inputs([fd], [os.devnull], "standard output", "(--output -)")
    finally:
        os.close(fd)


@pytest.mark.parametrize("state", ["a file", "inside a file", "relative"])
def test_a_state_folder_that_cannot_be_used_records_nothing_and_the_run_goes_on(tmp_path, monkeypatch, state):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file")
    value = {"a file": str(blocker), "inside a file": str(blocker / "state"), "relative": "state"}[state]
    monkeypatch.setenv("XDG_STATE_HOME", value)
    monkeypatch.setenv("HOME", "relative-home")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    for text in ("first", "second"):
        with OutputFolder(out, "paper", "--out", files=("page.md",), manifest=True) as staging:
            (staging / "page.md").write_text(text)
    assert (out / "page.md").read_text() == "second" and blocker.read_text() == "a file"
    assert not (tmp_path / "state").exists() and not (tmp_path / "relative-home").exists()


def test_a_full_disk_elsewhere_is_not_blamed_on_the_output(tmp_path):
    import errno

    out = tmp_path / "out"
    elsewhere = OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "tmpdir" / "input.csv"))
    with pytest.raises(OSError) as caught:
        with OutputFolder(out, "paper", "--out"):
            raise elsewhere
    assert caught.value is elsewhere
    with pytest.raises(
        OSError, match=r"--out .*: cannot write the results there \(No space left on device\)"
    ):
        with OutputFolder(out, "paper", "--out") as staging:
            raise OSError(errno.ENOSPC, "No space left on device", str(staging / "page.md"))
