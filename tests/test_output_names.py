"""The commands' outputs and inputs under any name, in real processes: ``textsel select --output``,
``study --out`` and the inputs ``-``, ``/dev/stdin``, a pipe by name and a FIFO.

Proved here: a name is a literal (``*.tsv``, ``*``, ``res[1].tsv``, ``.hidden.tsv``, a name of
255 bytes) that touches nothing but itself, in a property test over generated names beside
pre-existing files; a FIFO, a character device and a descriptor's name (``/dev/stdout``, opened
by the shell for appending) are written into and stay what they were; a link is followed, its
target replaced and the link kept, a dangling one gets its target made; a folder given as a file
is refused before any work; a link planted at the study's lock leaves its target untouched; a
pipe, ``/dev/stdin`` and a FIFO are read as inputs, their format given or sniffed, and an input
whose format cannot be told is refused naming ``--input-format``.
"""

import os
import stat
import subprocess
import sys
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_output import corpus_csv
from test_output_commit import snapshot

from textsel.cli import main

pytestmark = pytest.mark.skipif(os.name != "posix", reason="FIFOs, devices and /dev/fd as POSIX has them")

TEXTSEL = [sys.executable, "-m", "textsel"]


def select(*args, **kwargs):
    """``textsel select`` in its own process."""
    return subprocess.run([*TEXTSEL, "select", *map(str, args)], capture_output=True, timeout=120, **kwargs)


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """The selection ``--k 3`` prints for the corpus, to compare every written copy with."""
    data = corpus_csv(tmp_path_factory.mktemp("corpus") / "docs.csv")
    run = select(data, "--k", "3", check=True)
    return data, run.stdout


# -- a name is a literal --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["*.tsv", "*", "res[1].tsv", ".hidden.tsv", "?", "x" * 251 + ".tsv"])
def test_a_name_is_one_entry_and_nothing_else_is_touched(tmp_path, expected, name):
    """``--output '*.tsv'`` used to delete every other .tsv of the folder, and ``'*'`` the input and
    the sub-folders; ``res[1].tsv`` and ``.hidden.tsv`` failed after the whole run."""
    data, selection = expected
    (tmp_path / "docs.csv").write_bytes(data.read_bytes())
    for other in ("a.tsv", "b.tsv", ".dot.tsv", "res1.tsv", "x"):
        (tmp_path / other).write_text(f"the user's {other}\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "kept.tsv").write_text("kept\n")
    before = snapshot(tmp_path)
    run = select("docs.csv", "--k", "3", f"--output={name}", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    after = snapshot(tmp_path)
    assert (tmp_path / name).read_bytes() == selection
    del after[str(tmp_path / name)]
    assert after == before


NAME_CHARACTERS = st.sampled_from(
    list("*?[]!{}^$.-_ ~#%&'\"\\,;=+@`()") + list("aZ09éß漢字🙂ﬁ") + ["\t", "\n"]
)


def legal(name: str) -> bool:
    return name not in ("", ".", "..", "-") and len(os.fsencode(name)) <= 255


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.one_of(
        st.text(NAME_CHARACTERS, min_size=1, max_size=24),
        st.integers(200, 255).map(lambda n: "ß" * (n // 2) + "*" * (n % 2)),
    ).filter(legal),
    others=st.lists(st.text(NAME_CHARACTERS, min_size=1, max_size=8).filter(legal), max_size=6),
)
def test_no_generated_name_touches_anything_but_itself(tmp_path_factory, expected, name, others):
    """Beside pre-existing files (among them names a pattern ``name`` would match, and ``name``
    itself now and then), the run writes ``name`` and changes nothing else; no lock, staging
    folder or aside file is left."""
    data, selection = expected
    folder = tmp_path_factory.mktemp("names")
    for i, other in enumerate({*others, name + "x", "a" + name, name.replace("*", "a").replace("?", "b")}):
        if legal(other) and other != name:
            (folder / other).write_text(f"the user's file {i}\n")
    if len(others) % 2:  # an earlier file of the same name: replaced
        (folder / name).write_text("an earlier selection\n")
    before = snapshot(folder)
    before.pop(str(folder / name), None)
    assert main(["select", str(data), "--k", "3", f"--output={folder / name}"]) == 0
    after = snapshot(folder)
    assert after.pop(str(folder / name))[-1] == selection
    assert after == before


# -- special outputs ---------------------------------------------------------------------------


def test_a_fifo_is_written_into_and_stays_a_fifo(tmp_path, expected):
    data, selection = expected
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    run = select(data, "--k", "3", "--output", fifo)
    reader.join(timeout=120)
    assert run.returncode == 0, run.stderr
    assert got == [selection] and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["out.fifo"]


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_a_character_device_is_written_into_and_stays_a_device(tmp_path, expected):
    """A copy of /dev/null (major 1, minor 3) made here, so that a fault replaces only the copy:
    run as root, ``--output /dev/null`` used to replace the system's /dev/null with a file."""
    data, _ = expected
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    link = tmp_path / "link-to-null"
    link.symlink_to(null)
    for target in (null, link):
        run = select(data, "--k", "3", "--output", target)
        assert run.returncode == 0, run.stderr
    found = os.lstat(null)
    assert stat.S_ISCHR(found.st_mode) and os.major(found.st_rdev) == 1 and os.minor(found.st_rdev) == 3
    assert os.path.islink(link) and sorted(os.listdir(tmp_path)) == ["link-to-null", "null"]


@pytest.mark.slow
def test_dev_stdout_writes_through_the_descriptor_the_shell_opened(tmp_path, expected):
    """``>> log`` keeps what the log held: the selection is appended through descriptor 1, not a
    new file renamed over the log."""
    data, selection = expected
    log = tmp_path / "log"
    log.write_bytes(b"earlier lines\n")
    with open(log, "ab") as stdout:
        run = subprocess.run(
            [*TEXTSEL, "select", str(data), "--k", "3", "--output", "/dev/stdout"],
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    assert run.returncode == 0, run.stderr
    assert log.read_bytes() == b"earlier lines\n" + selection
    assert select(data, "--k", "3", "--output", "-").stdout == selection


@pytest.mark.parametrize(
    "spelling", ["/dev//stdout", "/dev/fd/1", "/proc/self/fd/1", "a link to /dev/stdout"]
)
def test_every_spelling_of_standard_output_writes_through_it(tmp_path, expected, spelling):
    """``/dev//stdout`` and a link of the user's to ``/dev/stdout`` used to reach the log by its
    path and replace it, losing what the shell had appended to it before."""
    if spelling.startswith("/proc") and not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc here")
    data, selection = expected
    if spelling.startswith("a link"):
        (tmp_path / "o").symlink_to("/dev/stdout")
        spelling = str(tmp_path / "o")
    log = tmp_path / "log"
    log.write_bytes(b"earlier lines\n")
    with open(log, "ab") as stdout:
        run = subprocess.run([*TEXTSEL, "select", str(data), "--k", "3", "--output", spelling],
                             stdout=stdout, stderr=subprocess.PIPE, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert log.read_bytes() == b"earlier lines\n" + selection


@pytest.mark.slow
def test_any_descriptor_in_any_spelling_is_written_through_it(tmp_path, expected):
    """``//dev/fd/3`` with descriptor 3 opened by the shell for appending, and a link to
    ``/dev/fd/3``: both reach the file through the descriptor (it keeps its inode and what it
    held); before, they reached the file by its path and replaced it."""
    data, selection = expected
    log = tmp_path / "log"
    (tmp_path / "link").symlink_to("/dev/fd/3")
    for spelling in ("//dev/fd/3", str(tmp_path / "link")):
        log.write_bytes(b"earlier lines\n")
        inode = os.stat(log).st_ino
        script = f'exec 3>>"{log}"; exec "$@" --output "{spelling}"'
        run = subprocess.run(["sh", "-c", script, "sh", *TEXTSEL, "select", str(data), "--k", "3"],
                             capture_output=True, timeout=120)  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert log.read_bytes() == b"earlier lines\n" + selection and os.stat(log).st_ino == inode


def test_standard_input_on_a_pipe_in_another_spelling_is_refused(expected):
    data, _ = expected
    run = subprocess.run([*TEXTSEL, "select", str(data), "--output", "//dev/stdin"], input=b"hi\n",
                         capture_output=True, timeout=120)  # fmt: skip
    assert run.returncode == 1 and b"that is the standard input" in run.stderr


def test_a_device_is_refused_as_an_input():
    run = select("/dev/zero", "--k", "3")
    assert run.returncode == 1 and b"/dev/zero: is a device" in run.stderr


def test_standard_input_and_a_closed_descriptor_are_refused_before_any_work(tmp_path, expected):
    data, _ = expected
    kept = data.read_bytes()
    with open(data, "rb") as stdin:
        run = subprocess.run([*TEXTSEL, "select", "-", "--output", "/dev/stdin"], stdin=stdin,
                             capture_output=True, timeout=120)  # fmt: skip
    assert run.returncode == 1 and b"--output /dev/stdin: that is the standard input" in run.stderr
    assert data.read_bytes() == kept
    run = select(tmp_path / "no-such-input.csv", "--output", "/dev/fd/9")
    assert run.returncode == 1 and b"--output /dev/fd/9: descriptor 9 is not open" in run.stderr


@pytest.mark.slow
def test_a_link_is_followed_its_target_replaced_and_the_link_kept(tmp_path, expected):
    data, selection = expected
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "sel.tsv").write_text("an earlier selection\n")
    link, dangling = tmp_path / "sel.tsv", tmp_path / "new.tsv"
    link.symlink_to(os.path.join("results", "sel.tsv"))
    dangling.symlink_to(os.path.join("results", "made.tsv"))
    for name in (link, dangling):
        run = select(data, "--k", "3", "--output", name)
        assert run.returncode == 0, run.stderr
    assert os.readlink(link) == os.path.join("results", "sel.tsv") and link.read_bytes() == selection
    assert os.readlink(dangling) == os.path.join("results", "made.tsv") and dangling.read_bytes() == selection
    assert sorted(os.listdir(tmp_path / "results")) == ["made.tsv", "sel.tsv"]


@pytest.mark.parametrize("how", ["folder", "trailing slash", "link to a folder"])
def test_a_folder_given_for_a_file_is_refused_before_any_work(tmp_path, how):
    (tmp_path / "dir").mkdir()
    (tmp_path / "link").symlink_to("dir")
    name = {"folder": "dir", "trailing slash": "newdir/", "link to a folder": "link"}[how]
    before = snapshot(tmp_path)
    run = select(tmp_path / "no-such-input.csv", "--output", f"{tmp_path}/{name}")  # the input is never read
    assert run.returncode == 1 and b"--output" in run.stderr and b"folder; give a file name" in run.stderr
    assert snapshot(tmp_path) == before


def test_a_link_planted_at_the_studys_lock_leaves_its_target_untouched(tmp_path, expected):
    """``out/.textsel-study.lock -> ../thesis.txt`` used to make the victim's run truncate and
    overwrite the thesis; now the run stops before reading anything, naming the file."""
    data, _ = expected
    (tmp_path / "out").mkdir()
    (tmp_path / "thesis.txt").write_text("years of work\n")
    (tmp_path / "out" / ".textsel-study.lock").symlink_to(os.path.join("..", "thesis.txt"))
    before = snapshot(tmp_path)
    run = subprocess.run(
        [
            *TEXTSEL,
            "study",
            str(data),
            "--ks",
            "2",
            "--trials",
            "1",
            "--folds",
            "2",
            "--no-plots",
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        timeout=120,
    )
    assert run.returncode == 1 and b".textsel-study.lock there is a link" in run.stderr
    assert snapshot(tmp_path) == before


# -- inputs read once -----------------------------------------------------------------------------


@pytest.mark.slow
def test_a_pipe_dev_stdin_a_named_pipe_and_a_fifo_are_read_and_their_format_sniffed(tmp_path, expected):
    data, selection = expected
    csv_bytes = data.read_bytes()
    assert select("/dev/stdin", "--k", "3", input=csv_bytes).stdout == selection
    assert select("-", "--k", "3", input=csv_bytes).stdout == selection
    assert select("-", "--k", "3", "--input-format", "csv", input=csv_bytes).stdout == selection
    # process substitution: a pipe named /dev/fd/N
    read_end, write_end = os.pipe()
    feeder = threading.Thread(target=lambda: (os.write(write_end, csv_bytes), os.close(write_end)))
    feeder.start()
    run = subprocess.run(
        [*TEXTSEL, "select", f"/dev/fd/{read_end}", "--k", "3"],
        pass_fds=(read_end,),
        capture_output=True,
        timeout=120,
    )
    feeder.join()
    os.close(read_end)
    assert run.stdout == selection, run.stderr
    # a FIFO named like the format it carries
    fifo = tmp_path / "docs.csv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(csv_bytes))
    writer.start()
    run = select(fifo, "--k", "3")
    writer.join(timeout=120)
    assert run.stdout == selection, run.stderr


def test_an_input_whose_format_cannot_be_told_is_refused_naming_input_format():
    run = select("/dev/stdin", input=b"just some words\nand more words\n")
    assert run.returncode == 1
    assert b"cannot tell the format" in run.stderr and b"give --input-format" in run.stderr


@pytest.mark.parametrize(
    "head, fmt",
    [
        (b"% a comment\n@RELATION docs\n@attribute w numeric\n", "arff"),
        (b"1 3:1 7:2\n-1 2:1 # note\n+1 qid:3 5:0.5\n", "svmlight"),
        (b"4 3 6\n1 1 3 2\n", "cluto"),
        (b'{"text": "a b", "label": "x"}\n', "jsonl"),
        (b"id\ttext\tlabel\n1\ta b\tx\n", "tsv"),
        (b'"text","label"\n"a, b",x\n', "csv"),
        (b"\xef\xbb\xbftext,label\na b,x\n", "csv"),
        (b"ham\tGo until jurong point\n", "tsv"),  # headerless label<TAB>text lines: a table all the same
        (b"just words\n", None),
        (b"", None),
    ],
)
def test_the_format_an_input_shows(head, fmt):
    from textsel.cli.streams import sniff

    assert sniff(head) == fmt


def test_a_compressed_stream_is_undone_before_its_format_is_told(tmp_path, expected):
    import gzip

    data, selection = expected
    assert select("-", "--k", "3", input=gzip.compress(data.read_bytes())).stdout == selection


@pytest.mark.slow
def test_a_study_whose_commit_fails_midway_leaves_out_as_it_was(tmp_path, expected):
    """The study's figure for k = 4 cannot be put in place (a folder of the user's has its name),
    found only when the commit reaches it, after other files were moved in: they are moved back,
    the staging folder and the lock go, and --out is byte for byte as before."""
    pytest.importorskip("matplotlib")
    data, _ = expected
    out = tmp_path / "out"
    command = [*TEXTSEL, "study", str(data), "--ks", "2,4", "--trials", "1", "--folds", "2", "--n-jobs", "1"]
    first = subprocess.run([*command, "--no-plots", "--out", str(out)], capture_output=True, timeout=300)
    assert first.returncode == 0, first.stderr
    (out / "precision_recall_k4.png").mkdir()
    (out / "precision_recall_k4.png" / "mine.txt").write_text("the user's\n")
    before = snapshot(out)
    run = subprocess.run([*command, "--out", str(out)], capture_output=True, timeout=300,
                         env={**os.environ, "MPLBACKEND": "agg"})  # fmt: skip
    assert run.returncode == 1
    assert b"precision_recall_k4.png there is a folder, where textsel writes a file" in run.stderr
    assert snapshot(out) == before


@pytest.mark.parametrize("signal_name, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_study_stopped_by_a_signal_leaves_out_as_it_was(tmp_path, signal_name, code):
    """Ctrl-C or ``kill`` while the study runs (its staging folder made): the command ends
    interrupted (130) or terminated (143) and --out holds what it held, no staging folder or lock
    left.  Before, SIGTERM ended the process outright and left both."""
    import signal
    import time

    data = corpus_csv(tmp_path / "docs.csv", n=600)
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("the user's\n")
    before = snapshot(out)
    command = [*TEXTSEL, "study", str(data), "--ks", "2,3,4,5,6,7", "--trials", "40", "--n-jobs", "1",
               "--no-plots", "--out", str(out)]  # fmt: skip
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        while child.poll() is None and not any(p.name.endswith(".partial") for p in out.iterdir()):
            time.sleep(0.005)
        time.sleep(0.2)
        child.send_signal(getattr(signal, signal_name))
        _, err = child.communicate(timeout=300)
    finally:
        child.kill()
    # after "interrupted", Python's own exit may end the process by SIGINT itself, as shells expect
    assert child.returncode in (code, -getattr(signal, signal_name)), err
    assert snapshot(out) == before


def test_a_stream_given_as_a_folder_of_files_is_refused_before_it_is_read():
    run = select("-", "--input-format", "folder", input=b"text,label\na b,x\n")
    assert run.returncode == 1 and b"--input-format folder names a folder of files" in run.stderr
