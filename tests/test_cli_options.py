"""``--seed`` and ``--n-jobs``, which several sub-commands share, and ``n_jobs`` in the library.

Proved here: every sub-command having ``--seed`` or ``--n-jobs`` checks it when the options are
read (exit code 2, the option named), before any data is read; ``--n-jobs`` takes -1 or a count,
a count above the cores this process may use capped at them, as the library's ``n_jobs`` is
(threads and ``study.forman``'s joblib processes alike), never passed on to joblib as 0 or as a
count of 99999.
"""

import re
import subprocess
import sys

import pytest
from conftest import random_corpus, write_csv

import textsel
from textsel import _parallel
from textsel._parallel import available_cores, effective_n_jobs
from textsel.cli import build_parser, main

ROWS = [("the match ended in a goal", "sport"), ("a late goal won the match", "sport"),
        ("shares fell as the market closed", "finance"), ("the market rallied", "finance")] * 3  # fmt: skip


def _options(parser):
    """The long options of an argparse (sub-)parser."""
    return {option for action in parser._actions for option in action.option_strings}


def _commands_having(option):
    subparsers = next(a for a in build_parser()._actions if a.dest == "command")
    return sorted(name for name, parser in subparsers.choices.items() if option in _options(parser))


def _argv(command, tmp_path):
    """A run of ``command`` that would read data: a corpus for study, a paper for reproduce."""
    if command == "study":
        return ["study", str(write_csv(tmp_path / "docs.csv", ROWS)), "--folds", "2", "--trials", "1"]
    return ["reproduce", "kolcz", "--data-home", str(tmp_path), "--out", str(tmp_path / "out")]


def test_the_shared_options_are_where_they_are_expected():
    """The tests below cover every sub-command having these options."""
    assert _commands_having("--seed") == ["reproduce", "study"]
    assert _commands_having("--n-jobs") == ["reproduce", "study"]


@pytest.mark.parametrize("command", ["study", "reproduce"])
@pytest.mark.parametrize("value", ["-1", "4294967296", "1.5", "x"])
def test_a_bad_seed_is_a_usage_error_naming_it_before_any_work(tmp_path, capsys, command, value):
    """``study --seed -1`` used to read the data, then fail in numpy's words ("expected
    non-negative integer"); now both commands refuse it as they read their options."""
    with pytest.raises(SystemExit) as exit_:
        main([*_argv(command, tmp_path), "--seed", value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --seed" in err and "[0, 2**32)" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["study", "reproduce"])
def test_the_seeds_at_the_ends_of_the_range_are_taken(command):
    for seed in (0, 2**32 - 1):
        args = build_parser().parse_args([command, *(["forman"] if command == "reproduce" else []),
                                          "--seed", str(seed)])  # fmt: skip
        assert args.seed == seed


@pytest.mark.parametrize("command", ["study", "reproduce"])
@pytest.mark.parametrize("value", ["0", "-2", "1.5"])
def test_a_bad_n_jobs_is_a_usage_error_naming_it(tmp_path, capsys, command, value):
    """``--n-jobs 0`` used to reach joblib ("n_jobs == 0 in Parallel has no meaning"), after the
    data was read; 0 and negative counts but -1 are refused as the options are read."""
    with pytest.raises(SystemExit) as exit_:
        main([*_argv(command, tmp_path), "--n-jobs", value])
    assert exit_.value.code == 2
    assert "argument --n-jobs" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["study", "reproduce"])
def test_n_jobs_above_the_cores_is_capped_at_them(command):
    """``--n-jobs 99999`` used to be taken as given (load average 23 on 2 cores)."""
    paper = ["forman"] if command == "reproduce" else []
    parse = build_parser().parse_args
    assert parse([command, *paper, "--n-jobs", "99999"]).n_jobs == available_cores()
    assert parse([command, *paper, "--n-jobs", "1"]).n_jobs == 1
    assert parse([command, *paper, "--n-jobs", "-1"]).n_jobs == -1
    assert parse([command, *paper]).n_jobs == -1


def test_the_library_caps_n_jobs_at_the_cores_and_refuses_zero(monkeypatch):
    """The library's one check of ``n_jobs``: a count above the cores becomes the cores, for the
    threaded functions; 0 is refused naming ``n_jobs``."""
    assert effective_n_jobs(99999) == available_cores()
    assert effective_n_jobs(1) == 1
    X, y = random_corpus(n_classes=40)
    monkeypatch.setattr(_parallel, "MIN_WORK_PER_THREAD", 1)  # a thread for every block it may have
    monkeypatch.setattr(_parallel, "_pool", None)
    textsel.term_stats(X, y, n_jobs=99999)
    assert _parallel._pool is None or _parallel._pool._max_workers <= available_cores()
    with pytest.raises(ValueError, match="n_jobs must be"):
        textsel.TermSelector("bns", k=5, n_jobs=0).fit(X, y)


def test_the_public_n_jobs_check_is_the_one_every_call_uses():
    """textsel.check_n_jobs, the applications' way to it, is the library's own check."""
    from textsel import _parallel, check_n_jobs
    from textsel.names import N_JOBS_RULE

    assert check_n_jobs is _parallel.check_n_jobs
    assert check_n_jobs(None) is None and check_n_jobs(-1) == -1
    assert check_n_jobs(10**6) == available_cores()
    with pytest.raises(ValueError, match=f"--n-jobs must be {re.escape(N_JOBS_RULE)}, got 0"):
        check_n_jobs(0, "--n-jobs")
    with pytest.raises(TypeError, match="n_jobs must be an integer"):
        check_n_jobs(True)


def test_the_study_gives_joblib_a_checked_n_jobs(monkeypatch):
    """``study.forman`` used to hand ``n_jobs`` to joblib as given: 0 failed in joblib's words,
    99999 started a process for every task.  Now 0 is refused naming ``n_jobs`` and 99999 reaches
    joblib as the cores; None (joblib's default) and -1 pass unchanged."""
    from textsel import protocol, study

    given = []

    class Recorder(protocol.Parallel):
        def __init__(self, n_jobs=None, **kwargs):
            given.append(n_jobs)
            super().__init__(n_jobs=1, **kwargs)

    monkeypatch.setattr(protocol, "Parallel", Recorder)
    X, y = random_corpus(n_docs=80, n_classes=2)
    with pytest.raises(ValueError, match="n_jobs must be"):
        study.forman({"d": (X, y)}, metrics=("bns",), ks=(5,), trials=1, folds=2, n_jobs=0)
    for n_jobs in (99999, None, -1):
        study.forman({"d": (X, y)}, metrics=("bns",), ks=(5,), trials=1, folds=2, n_jobs=n_jobs)
    assert given == [available_cores(), None, -1]


@pytest.mark.parametrize("option, value", [("--seed", "-1"), ("--n-jobs", "0"), ("--n-jobs", "99999")])
def test_the_shared_options_are_read_before_any_numerical_import(option, value):
    """Checking (and capping) them needs neither numpy, scipy nor scikit-learn: reading the
    options of ``study`` imports none of them, as for every other option."""
    code = (
        "import sys\n"
        "from textsel.cli import build_parser\n"
        "try:\n"
        f"    build_parser().parse_args(['study', {option!r}, {value!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in ('numpy', 'scipy', 'sklearn') if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.stdout.strip() == "[]", run.stderr
