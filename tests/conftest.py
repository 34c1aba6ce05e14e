import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import textsel

if os.environ.get("TEXTSEL_EXPECT_INSTALLED") == "1":
    # tools/check_release.py runs the suite against an installed wheel: never the source tree's
    SOURCE = Path(__file__).resolve().parents[1] / "textsel"
    if Path(textsel.__file__).resolve().parent == SOURCE:
        raise pytest.UsageError(f"TEXTSEL_EXPECT_INSTALLED=1 but textsel was imported from {SOURCE}")


@pytest.fixture(scope="session", autouse=True)
def _state_home(tmp_path_factory):
    """textsel's state folder (the output manifests) in the test run's own temporary folder, for
    this process and the commands it starts, never the user's ``~/.local/state``."""
    before = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
    yield
    if before is None:
        os.environ.pop("XDG_STATE_HOME", None)
    else:
        os.environ["XDG_STATE_HOME"] = before


@pytest.fixture
def many_cores(monkeypatch):
    """As if the machine had 64 cores: n_jobs is capped at the cores, and the tests that show
    results independent of the thread count must run 3 and 8 threads on a 2-core machine too."""
    from textsel import _parallel

    monkeypatch.setattr(_parallel, "available_cores", lambda: 64)


def random_corpus(n_docs=60, n_terms=40, n_classes=3, density=0.15, seed=0, dtype=np.float64):
    """A small random non-negative CSR matrix and 1-D labels with every class present."""
    rng = np.random.default_rng(seed)
    X = sp.random(n_docs, n_terms, density=density, format="csr", dtype=dtype, random_state=rng)
    X.data = np.ceil(X.data * 3).astype(dtype)
    y = np.arange(n_docs) % n_classes
    rng.shuffle(y)
    return X, y


def write_csv(path, rows, delimiter=",", header=("text", "label"), encoding="utf-8"):
    """A CSV/TSV file of (text, label, ...) rows under a header row."""
    with path.open("w", newline="", encoding=encoding) as fh:
        writer = csv.writer(fh, delimiter=delimiter)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def write_jsonl(path, rows):
    """A JSON Lines file of {"text": ..., "label": ...} records."""
    path.write_text("".join(json.dumps({"text": t, "label": y}) + "\n" for t, y in rows), encoding="utf-8")
    return path


@pytest.fixture
def corpus():
    return random_corpus()


@pytest.fixture(scope="session")
def data_home():
    """The folder of real corpora named by TEXTSEL_DATA; tests that need it skip without it."""
    home = os.environ.get("TEXTSEL_DATA")
    if not home or not Path(home).is_dir():
        pytest.skip(NO_DATA)
    return Path(home)


NO_DATA = "TEXTSEL_DATA does not name a folder of corpora"


SLOW = "slow: a slow check (docs build, wheel and sdist builds, fuzzing, many-worker clusters, papers' runs)"


def pytest_addoption(parser):
    parser.addoption(
        "--slow",
        action="store_true",
        help="run the slow checks as well (the docs build, wheel and sdist builds, fuzzing, clusters of "
        "many workers, the papers' reproductions); CI's .ci/run turns it on",
    )


def pytest_configure(config):
    config.addinivalue_line("markers", SLOW)


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (the default, pyproject.toml): a worker a core, at most four (each starts its
    own Dask clusters and compilers); none with ``--slow``, whose checks of stated times (a frozen
    worker reported, Ctrl-C obeyed within them) must not share the cores with other tests."""
    if config.getoption("--slow"):
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(4, cores))


def _is_slow(item) -> bool:
    return item.get_closest_marker("slow") is not None or item.get_closest_marker("soak") is not None


def pytest_collection_modifyitems(config, items):
    """Without ``--slow`` (or a ``-m`` expression choosing tests by marker, as ``-m soak``), the
    slow and soak tests are deselected (counted in the summary line)."""
    if config.getoption("--slow") or config.getoption("markexpr"):
        return
    slow = [item for item in items if _is_slow(item)]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not _is_slow(item)]


def pytest_unconfigure(config):
    """After the run's last line: how many real-corpus tests skipped, and how to run them."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    if not config.getoption("--slow", default=True) and not config.getoption("markexpr", default=""):
        reporter.write_line(
            "slow checks deselected: python -m pytest --slow runs them as well (README, 'Set up')"
        )
    skipped = [r for r in reporter.stats.get("skipped", []) if NO_DATA in str(getattr(r, "longrepr", ""))]
    if skipped:
        reporter.write_line(
            f"{len(skipped)} real-corpus tests skipped: export TEXTSEL_DATA=<a folder holding the "
            "archives> to run them (README, 'The corpora')",
            yellow=True,
        )
