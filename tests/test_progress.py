"""How far a long run is: off a terminal (a log, a pipe) ``textsel study`` and ``textsel
reproduce`` say each stage on a line of stderr without being asked, ``--no-progress`` silences
them, and the one Progress helper prints a line at each tenth of a loop in "lines" mode."""

import numpy as np
import pytest

from textsel.cli import main
from textsel.cli.inputs import command_mode
from textsel.progress import Progress, mode_of


def _arff(path, seed, n=40):
    rng = np.random.default_rng(seed)
    lines = (
        ["@relation r"]
        + [f"@attribute w{j} integer" for j in range(30)]
        + ["@attribute class {a,b}", "@data"]
    )
    for i in range(n):
        label = "ab"[i % 2]
        cols = sorted(set(rng.choice(30, 6, replace=False).tolist()) | {"ab".index(label)})
        lines.append("{" + ",".join(f"{j} 1" for j in cols) + f",30 {label}" + "}")
    path.write_text("\n".join(lines) + "\n")


def test_study_off_a_terminal_says_its_stages_and_no_progress_says_nothing(tmp_path, capsys):
    _arff(tmp_path / "one.arff", 0)
    args = [
        "study",
        str(tmp_path / "one.arff"),
        "--metrics",
        "bns",
        "--ks",
        "5",
        "--trials",
        "1",
        "--folds",
        "2",
    ]
    assert main(args) == 0
    err = capsys.readouterr().err  # pytest's capture is not a terminal
    assert "textsel study: Forman's protocol: 2 tasks of 1 dataset, 1 trial of 2-fold cross-validation" in err
    assert "textsel study: 2 of 2 tasks" in err
    assert main([*args, "--no-progress"]) == 0
    assert "textsel study" not in capsys.readouterr().err


def test_lines_mode_reports_each_tenth_and_the_end(capsys):
    assert list(Progress("job", "lines").over(range(25), 25, "item")) == list(range(25))
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"job: {n} of 25 items" for n in (3, 6, 9, 12, 15, 18, 21, 24, 25)]
    assert list(Progress("job", False).over(range(3), 3, "item")) == [0, 1, 2]
    Progress("job", None).stage("quiet")
    assert capsys.readouterr().err == ""


def test_modes_and_the_commands_default():
    assert [mode_of(p) for p in (False, None, True, "bar", "lines")] == [None, None, "bar", "bar", "lines"]
    with pytest.raises(ValueError, match="progress must be"):
        mode_of("loud")
    assert command_mode(False) is None
    assert command_mode(None) == command_mode(True) == "lines"  # stderr here is not a terminal
