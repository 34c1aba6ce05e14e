"""What an output run may touch: ``textsel._lab.output`` against failures and planted files.

Proved here, on a folder holding an earlier run's files (some replaced, some no longer written,
one the user edited since), the user's own files (one inside the run's figures folder), and a
link whose target lies outside the folder:

- a commit that fails at any one of its steps, by an OSError or by Ctrl-C, leaves the folder and
  the link's target as they were, byte for byte, links, modes and hidden files included, with no
  staging folder, aside file or lock left; also where hard links cannot be made, and where the
  link's target is on another file system;
- a commit that succeeds replaces what the run wrote, follows the link (kept), removes exactly
  the earlier run's unchanged files it did not write again, and keeps everything else;
- nothing at the lock's or the manifest's name that textsel did not write (a link planted to a
  file of the user's, a hard link, a FIFO, a file of other content, a manifest naming a path
  outside the folder) is written, read as a lock, or believed: the run stops before any work,
  and the planted file's target is unchanged; a folder that merely looks like a staging folder
  is not removed.
"""

import errno
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time

import pytest

from textsel._lab.output import OutputFolder
from textsel._lab.output.commit import Commit, RollbackError
from textsel._lab.output.manifest import identity, manifest_path

pytestmark = pytest.mark.skipif(os.name != "posix", reason="links, FIFOs and modes as POSIX has them")


def snapshot(*roots):
    """Every entry under each root, not following links: its kind, permission bits and bytes
    (files), where it points (links), or its kind and inode (FIFOs, devices)."""
    seen = {}
    for root in roots:
        for top, folders, files in os.walk(root):
            for name in folders + files:
                path = os.path.join(top, name)
                found = os.lstat(path)
                if stat.S_ISLNK(found.st_mode):
                    seen[path] = ("link", os.readlink(path))
                elif stat.S_ISDIR(found.st_mode):
                    seen[path] = ("folder", stat.S_IMODE(found.st_mode))
                elif not stat.S_ISREG(found.st_mode):  # a FIFO: its kind, never read
                    seen[path] = ("special", stat.S_IFMT(found.st_mode), found.st_ino)
                else:
                    with open(path, "rb") as fh:
                        seen[path] = ("file", stat.S_IMODE(found.st_mode), fh.read())
    return seen


#: the files of the runs below (the names an earlier run's manifest may remove)
FILES = ("page.md", "table.csv", "stale.csv", "edited.csv", "link.csv", "fresh.csv")


def earlier_run(out):
    """A run of key ``paper`` with a manifest: page, figures folder, tables."""
    with OutputFolder(out, "paper", "--out", files=FILES, folders=("figs",), manifest=True) as staging:
        (staging / "figs").mkdir()
        for name, text in [
            ("page.md", "old page"),
            ("figs/a.png", "old a"),
            ("figs/b.png", "old b"),
            ("table.csv", "old table"),
            ("stale.csv", "old stale"),
            ("edited.csv", "old edited"),
            ("link.csv", "never placed here"),
        ]:
            (staging / name).write_text(text)


def scene(root):
    """The folder of an earlier run, the user's files beside and inside it, and a link out."""
    out, elsewhere = root / "out", root / "elsewhere"
    elsewhere.mkdir(parents=True)
    earlier_run(out)
    (out / "link.csv").unlink()
    (elsewhere / "target.csv").write_text("the link's target, old")
    os.chmod(elsewhere / "target.csv", 0o640)
    (out / "link.csv").symlink_to(os.path.join("..", "elsewhere", "target.csv"))
    (out / "notes.txt").write_text("the user's notes")
    (out / "figs" / "mine.txt").write_text("the user's file among the figures")
    (out / "edited.csv").write_text("edited by the user since")  # the manifest's file no more
    os.chmod(out / "table.csv", 0o600)
    return out, elsewhere


def new_run(out):
    with OutputFolder(out, "paper", "--out", files=FILES, folders=("figs",), manifest=True) as staging:
        (staging / "figs" / "c").mkdir(parents=True)
        for name, text in [
            ("page.md", "new page"),
            ("figs/a.png", "new a"),
            ("figs/c/deep.png", "new deep"),
            ("table.csv", "new table"),
            ("link.csv", "new through the link"),
            ("fresh.csv", "new file"),
        ]:
            (staging / name).write_text(text)


class Faults:
    """Fail the ``at``-th filesystem change a commit makes (counted only inside ``Commit.run``)."""

    CHANGES = ("replace", "rename", "link", "unlink", "mkdir", "rmdir")

    def __init__(self, monkeypatch, at, fault, link_fails=False, cross_device=None):
        self.at, self.fault, self.calls, self.active = at, fault, 0, False
        for name in self.CHANGES:
            monkeypatch.setattr(os, name, self._wrap(name, getattr(os, name), link_fails, cross_device))
        real_run = Commit.run

        def run(commit, *args, **kwargs):
            self.active = True
            try:
                return real_run(commit, *args, **kwargs)
            finally:
                self.active = False

        monkeypatch.setattr(Commit, "run", run)
        real_clear = Commit._let_go

        def clear(commit):  # past the commit point: letting the old files go is not a step of it
            self.active = False
            real_clear(commit)

        monkeypatch.setattr(Commit, "_let_go", clear)

    def _wrap(self, name, real, link_fails, cross_device):
        def call(*args, **kwargs):
            if self.active:
                self.calls += 1
                if self.calls == self.at:
                    raise self.fault
                if name == "link" and link_fails:
                    raise OSError(errno.EPERM, "links refused here")
                if name == "replace" and cross_device and str(args[1]).startswith(str(cross_device)):
                    if ".textsel-" not in os.path.basename(str(args[0])):  # the copy beside the target moves
                        raise OSError(errno.EXDEV, "Invalid cross-device link")
            return real(*args, **kwargs)

        return call


def leftovers(out):
    return sorted(p for p in os.listdir(out) if p.startswith(".textsel-"))


@pytest.mark.parametrize("variant", ["links", "no hard links", "link target on another file system"])
def test_a_commit_failing_at_any_step_leaves_everything_as_it_was(tmp_path, monkeypatch, variant):
    # the number of steps, from a run that does not fail
    out, elsewhere = scene(tmp_path / "count")
    with monkeypatch.context() as patch:
        counter = Faults(
            patch,
            at=0,
            fault=None,
            link_fails=variant == "no hard links",
            cross_device=elsewhere if "another" in variant else None,
        )
        new_run(out)
        steps = counter.calls
    assert steps >= 12, steps  # every replace, link, move and folder made or removed
    for at in range(1, steps + 1):
        for fault in (OSError(errno.EIO, "injected"), KeyboardInterrupt()):
            root = tmp_path / f"{at}-{type(fault).__name__}"
            out, elsewhere = scene(root)
            before = snapshot(out, elsewhere)
            with monkeypatch.context() as patch:
                Faults(
                    patch,
                    at,
                    fault,
                    link_fails=variant == "no hard links",
                    cross_device=elsewhere if "another" in variant else None,
                )
                with pytest.raises(type(fault)):
                    new_run(out)
            assert snapshot(out, elsewhere) == before, f"failed at step {at} of {steps} ({fault!r})"


def test_a_commit_that_succeeds_replaces_follows_and_removes_only_the_earlier_runs_unchanged_files(tmp_path):
    out, elsewhere = scene(tmp_path)
    new_run(out)
    after = snapshot(out, elsewhere)
    read = {os.path.relpath(p, tmp_path): v[-1] for p, v in after.items()}
    assert read["out/page.md"] == b"new page" and read["out/figs/a.png"] == b"new a"
    assert read["out/figs/c/deep.png"] == b"new deep" and read["out/fresh.csv"] == b"new file"
    assert read["out/table.csv"] == b"new table"
    assert after[str(out / "table.csv")][1] == 0o600  # the user's permissions stay the file's
    # the link kept, its target replaced (and its permissions kept)
    assert after[str(out / "link.csv")] == ("link", os.path.join("..", "elsewhere", "target.csv"))
    assert after[str(elsewhere / "target.csv")] == ("file", 0o640, b"new through the link")
    # the earlier run's files not written again: removed when unchanged, kept when edited
    assert "out/figs/b.png" not in read and "out/stale.csv" not in read
    assert read["out/edited.csv"] == b"edited by the user since"
    assert read["out/notes.txt"] == b"the user's notes"
    assert read["out/figs/mine.txt"] == b"the user's file among the figures"
    assert leftovers(out) == []


def test_a_run_without_figures_removes_the_figures_folder_only_when_nothing_of_the_users_is_in_it(tmp_path):
    out = tmp_path / "out"
    earlier_run(out)
    with OutputFolder(out, "paper", "--out", files=FILES, folders=("figs",), manifest=True) as staging:
        (staging / "page.md").write_text("no figures this time")
    assert not (out / "figs").exists() and (out / "page.md").read_text() == "no figures this time"
    earlier_run(out)
    (out / "figs" / "mine.txt").write_text("mine")
    with OutputFolder(out, "paper", "--out", files=FILES, folders=("figs",), manifest=True) as staging:
        (staging / "page.md").write_text("no figures this time")
    assert sorted(os.listdir(out / "figs")) == ["mine.txt"]


# -- planted at the lock's and the manifest's names ----------------------------------------------


def plant(path, how, victim):
    if how == "symlink":
        path.symlink_to(victim)
    elif how == "hard link":
        os.link(victim, path)
    elif how == "fifo":
        os.mkfifo(path)
    elif how == "empty":
        path.write_text("")
    elif how == "another user's":
        path.write_text(
            "pid 1, started 00:00:00\n"
            if path.name.endswith(".lock")
            else '{"kind": "textsel output manifest"}'
        )
        os.chown(path, 4242, 4242)
    else:
        path.write_text("a file of the user's that happens to have this name\n")
    return path


@pytest.mark.parametrize("how", ["symlink", "hard link", "fifo", "other content", "empty", "another user's"])
@pytest.mark.parametrize("name", [".textsel-paper.lock", "manifest"])
def test_nothing_planted_at_the_locks_or_the_manifests_name_is_written_or_believed(tmp_path, how, name):
    """The lock's name in the output folder, and the manifest's in textsel's state folder."""
    if how == "another user's" and os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "thesis.txt"
    victim.write_text("years of work\n")
    if name == "manifest":
        path = manifest_path(out, "paper")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        why = r"textsel's record of the files written there, .*not textsel's manifest"
    else:
        path, why = out / name, rf"\{name} there .*not textsel's"
    plant(path, how, victim)
    before = snapshot(tmp_path, path.parent)
    try:
        with pytest.raises(ValueError, match=rf"^--out {out}: {why}"):
            with OutputFolder(out, "paper", "--out", manifest=True):
                raise AssertionError("the run must stop before any work")
        assert snapshot(tmp_path, path.parent) == before
    finally:
        if name == "manifest":
            path.unlink()


def test_a_manifest_removes_nothing_but_names_the_command_writes(tmp_path):
    """A manifest edited to list the user's thesis (with its true identity) and the user's empty
    folder: the next run removes neither, as neither is a name the run could have written."""
    out = tmp_path / "out"
    earlier_run(out)
    (out / "thesis.tex").write_text("years of work\n")
    (out / "keep").mkdir()
    path = manifest_path(out, "paper")
    content = json.loads(path.read_text())
    content["files"].append([["thesis.tex"], *identity(os.lstat(out / "thesis.tex"))])
    content["folders"].append(["keep"])
    path.write_text(json.dumps(content))
    with OutputFolder(out, "paper", "--out", files=FILES, folders=("figs",), manifest=True) as staging:
        (staging / "page.md").write_text("again")
    assert (out / "thesis.tex").read_text() == "years of work\n" and (out / "keep").is_dir()


def test_a_manifest_naming_a_path_out_of_the_folder_is_refused(tmp_path):
    out = tmp_path / "out"
    earlier_run(out)
    path = manifest_path(out, "paper")
    path.write_text(path.read_text().replace('"page.md"', '"..", "thesis.txt"'))
    with pytest.raises(ValueError, match="is not in textsel's format"):
        with OutputFolder(out, "paper", "--out", manifest=True):
            pass


def test_the_manifest_is_kept_outside_the_folder_and_dropped_with_its_folder(tmp_path):
    """Nothing of textsel's stays among the user's files after a run with a manifest; the
    manifest kept in the state folder goes once its output folder is gone (at the next write)."""
    out, other = tmp_path / "out", tmp_path / "other"
    other.mkdir()  # made first: a folder made after ``out`` is removed may take its inode
    earlier_run(out)
    assert not [p for p in os.listdir(out) if p.startswith(".textsel")]
    kept = manifest_path(out, "paper")
    assert kept.is_file() and os.path.commonpath([kept, out]) != str(out)
    for root, _, files in os.walk(out):
        for name in files:
            assert not name.startswith(".textsel"), os.path.join(root, name)
    shutil.rmtree(out)
    earlier_run(other)
    assert not kept.exists() and manifest_path(other, "paper").is_file()


def test_a_folder_that_only_looks_like_a_staging_folder_is_not_removed(tmp_path):
    """The next run removes the staging folder its lock names, and no other by its look."""
    out = tmp_path / "out"
    lookalike = out / ".textsel-paper-abcd1234.partial"
    lookalike.mkdir(parents=True)
    (lookalike / "data").write_text("the user's")
    with OutputFolder(out, "paper", "--out") as staging:
        (staging / "page.md").write_text("page")
    assert (lookalike / "data").read_text() == "the user's"


def test_a_lock_left_by_a_killed_run_is_taken_over_and_its_staging_folder_removed(tmp_path):
    out = tmp_path / "out"
    (out / ".textsel-paper-zz9.partial" / "new").mkdir(parents=True)
    (out / ".textsel-paper.lock").write_text("pid 1, started 00:00:00, staging .textsel-paper-zz9.partial\n")
    with OutputFolder(out, "paper", "--out") as staging:
        (staging / "page.md").write_text("page")
    assert sorted(os.listdir(out)) == ["page.md"]


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_an_entry_of_the_wrong_kind_is_refused_before_any_work(tmp_path, kind):
    out = tmp_path / "out"
    (out / "page.md" if kind == "file" else out).mkdir(parents=True)
    if kind == "folder":
        (out / "figs").write_text("the user's file named like the figures folder")
    before = snapshot(out)
    where = "page.md there is a folder, where" if kind == "file" else "figs there is not a folder, where"
    with pytest.raises(ValueError, match=where):
        with OutputFolder(out, "paper", "--out", files=("page.md",), folders=("figs",)):
            raise AssertionError("the run must stop before any work")
    assert snapshot(out) == before


def test_an_undo_that_fails_keeps_the_earlier_file_and_says_where(tmp_path, monkeypatch):
    """The commit fails at its last step; putting ``page.md`` back fails too.  The earlier page is
    not lost: it stays under the name the error gives, and every other step is still undone."""
    out, elsewhere = scene(tmp_path)
    real_replace = os.replace
    state = {"failed": False}

    def replace(source, target, **kwargs):
        if str(target).endswith("deep.png") and not state["failed"]:
            state["failed"] = True
            raise OSError(errno.EIO, "the commit's last step fails")
        if state["failed"] and str(target) == str(out / "page.md"):
            raise OSError(errno.EIO, "putting the page back fails")
        return real_replace(source, target, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(RollbackError, match=r"page.md \(the earlier one is kept as (\S+)\)") as caught:
        new_run(out)
    kept = re.search(r"kept as (\S+?)\)", str(caught.value)).group(1)
    assert open(kept).read() == "old page"
    assert (out / "table.csv").read_text() == "old table" and (elsewhere / "target.csv").read_text() == (
        "the link's target, old"
    )


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_signal_during_the_commit_undoes_it_whatever_thread_receives_it(tmp_path, signal_name):
    """In a real process with BLAS threads running, each of the commit's renames slowed to 0.3 s:
    Ctrl-C or SIGTERM sent midway waits for the step, the steps done are undone, and then the
    signal acts (KeyboardInterrupt; the process ended by SIGTERM)."""
    out, elsewhere = scene(tmp_path)
    before = snapshot(out, elsewhere)
    flag = tmp_path / "committing"
    child = subprocess.Popen([sys.executable, "-c", SLOW_COMMIT, str(out), str(flag)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        for _ in range(3000):
            if flag.exists() or child.poll() is not None:
                break
            time.sleep(0.01)
        time.sleep(0.45)  # a step or two in
        child.send_signal(getattr(signal, signal_name))
        _, err = child.communicate(timeout=120)
    finally:
        child.kill()
    if signal_name == "SIGINT":
        assert child.returncode == -signal.SIGINT and b"KeyboardInterrupt" in err, (
            err
        )  # Python ends by SIGINT
    else:
        assert child.returncode == -signal.SIGTERM, err
    assert snapshot(out, elsewhere) == before


SLOW_COMMIT = f"""
import os, sys, time
from pathlib import Path
import numpy as np
sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
import test_output_commit as t
np.dot(np.ones((400, 400)), np.ones((400, 400)))  # the BLAS threads are up
out, flag = Path(sys.argv[1]), Path(sys.argv[2])
real_replace = os.replace

def slow_replace(*args, **kwargs):
    flag.write_text("")
    real_replace(*args, **kwargs)
    time.sleep(0.3)

os.replace = slow_replace
t.new_run(out)
"""


def test_a_dangling_link_at_an_entry_is_refused_before_any_work(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "page.md").symlink_to(tmp_path / "no-such-folder" / "page.md")
    with pytest.raises(
        ValueError, match="page.md there is a link to .*, whose folder cannot be written into"
    ):
        with OutputFolder(out, "paper", "--out", files=FILES):
            raise AssertionError("the run must stop before any work")
