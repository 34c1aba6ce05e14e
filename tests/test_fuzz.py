"""The fuzz targets (tests/fuzz/): committed crash and hang cases replayed, each target run briefly
under atheris, and the harness's own checks shown to catch what they are meant to catch."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

FUZZ = Path(__file__).resolve().parent / "fuzz"
sys.path.insert(0, str(FUZZ))

from targets import TARGETS, expected_errors, unchanged  # noqa: E402

REGRESSIONS = sorted((FUZZ / "regressions").glob("*/*"))


@pytest.mark.parametrize("case", REGRESSIONS, ids=[f"{p.parent.name}/{p.name}" for p in REGRESSIONS])
def test_regression_case(case):
    """An input that once crashed or hung its target now passes it (the target raises on any
    exception other than ValueError/TypeError and on a failed check)."""
    TARGETS[case.parent.name](case.read_bytes())


def test_every_target_has_a_regression_folder_or_none_was_found():
    assert {p.parent.name for p in REGRESSIONS} <= set(TARGETS)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TARGETS))
def test_target_runs_under_atheris(name, tmp_path):
    """A few seconds of coverage-guided fuzzing per target, from the committed cases: no crash,
    no hang, no uncaught exception (atheris exits nonzero and writes the input if there is one)."""
    pytest.importorskip("atheris")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for case in (FUZZ / "regressions" / name).glob("*"):
        (corpus / case.name).write_bytes(case.read_bytes())
    run = subprocess.run(
        [sys.executable, str(FUZZ / "run.py"), name, "-max_total_time=3", "-timeout=30",
         f"-artifact_prefix={tmp_path}/", str(corpus)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Done" in run.stderr
    assert not list(tmp_path.glob("crash-*")) and not list(tmp_path.glob("timeout-*"))


def test_harness_lets_only_documented_errors_through():
    with expected_errors():
        raise ValueError("documented")
    with expected_errors():
        raise TypeError("documented")
    with pytest.raises(ZeroDivisionError), expected_errors():
        raise ZeroDivisionError


def test_harness_sees_a_changed_input():
    a = np.arange(4.0)
    with pytest.raises(AssertionError, match="changed the caller's input"), unchanged(a):
        a[0] = 5.0
