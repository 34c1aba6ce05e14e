"""The package's layout keeps the architecture readable (docs/architecture.md).

The import graph drawn from the source (``tools/import_graph.py``) has no circle and at most two
imports from a lower tier into a higher one; no module is too long to read or too short to be
worth its own file; and the Dask handlers never call into an estimator: each estimator has one
``fit``, which reads a Dask array through the same calls as a matrix in memory.
"""

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import import_graph  # noqa: E402

#: thin by design: the command line's ``python -m`` entry and the one seam to the Dask layer
SHORT_BY_DESIGN = {"__main__.py", "_dispatch.py"}


def test_no_import_circle_and_at_most_two_imports_run_back_up():
    graph = import_graph.edges(import_graph.modules())
    assert import_graph.circles(graph) == []
    assert len(import_graph.running_up(graph)) <= 2, import_graph.running_up(graph)


def test_the_only_way_from_the_library_into_the_dask_layer_is_the_seam():
    graph = import_graph.edges(import_graph.modules())
    into_dask = [(a, b) for a, b in import_graph.running_up(graph) if b.startswith("textsel.distributed")]
    assert {a for a, _ in into_dask} <= {"textsel._dispatch"}


def test_only_the_seam_tells_memory_from_a_cluster():
    """One decision point: no module but ``textsel/_dispatch.py`` asks whether a matrix is
    distributed; the public modules carry its decorator instead."""
    asking = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "textsel").rglob("*.py")
        if "is_distributed(" in path.read_text(encoding="utf-8") and path.name != "_dispatch.py"
    ]
    assert asking == []


def test_no_application_imports_a_private_name_of_the_library():
    """The command line, the study and the reproductions use only the library's public names (the
    applications' shared writer, textsel._lab, is theirs)."""
    assert import_graph.private_reaches(import_graph.modules()) == []


def test_the_private_import_check_can_fail(tmp_path):
    package = tmp_path / "textsel"
    for folder in (package, package / "cli", package / "_lab", package / "datasets"):
        folder.mkdir(exist_ok=True)
        (folder / "__init__.py").write_text("")
    for name in ("_labels.py", "names.py", "_lab/output.py", "datasets/fetch.py"):
        (package / name).write_text("")
    (package / "cli" / "run.py").write_text(
        "from .. import __version__\nfrom ..names import METRICS\nfrom .._lab.output import Out\n"
        "from .._labels import label_repr\nfrom ..datasets.fetch import _sha256, fetch\n"
        "def later():\n    import textsel._labels\n"
    )
    assert import_graph.private_reaches(import_graph.modules(package)) == [
        ("textsel.cli.run", "textsel._labels"),
        ("textsel.cli.run", "textsel._labels.label_repr"),
        ("textsel.cli.run", "textsel.datasets.fetch._sha256"),
    ]


def test_no_module_over_500_lines_and_none_under_40_but_packages_and_the_seam():
    long, short = [], []
    for path in (ROOT / "textsel").rglob("*"):
        if path.suffix not in (".py", ".pyx") or "__pycache__" in path.parts:
            continue
        n = len(path.read_text().splitlines())
        if n > 500:
            long.append((str(path.relative_to(ROOT)), n))
        if (
            path.suffix == ".py"
            and n < 40
            and path.name != "__init__.py"
            and path.name not in SHORT_BY_DESIGN
        ):
            short.append((str(path.relative_to(ROOT)), n))
    assert not long and not short, f"over 500 lines: {long}; under 40: {short}"


def _attributes_called_on(name: str, source: str) -> set[str]:
    """Every ``name.attr(...)`` call in ``source``."""
    calls = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            value = node.func.value
            if isinstance(value, ast.Name) and value.id == name:
                calls.add(node.func.attr)
    return calls


def test_the_dask_handlers_call_no_method_of_an_estimator_and_fit_none():
    """The handlers run an estimator's method only when handed it (``map_row_blocks``), and none
    of them fits: an estimator's one ``fit`` reads a Dask array through ``term_stats``, ``lsqr``
    and ``document_rows``."""
    from textsel.distributed import handlers

    source = (ROOT / "textsel" / "distributed" / "handlers.py").read_text()
    assert _attributes_called_on("est", source) == set()
    assert not [name for name in handlers.__all__ if name.startswith("fit")]


DASK_FITTED = ["TermSelector", "ScalableTermSelector", "RLSClassifier", "ProximalSVC", "WeightedProximalSVC"]


@pytest.mark.parametrize("estimator", DASK_FITTED)
def test_every_estimator_the_dask_layer_fits_has_one_fit(estimator):
    """No estimator's ``fit`` is a seam to a Dask handler: the seam's wrapper is not on it."""
    import textsel

    fit = getattr(textsel, estimator).fit
    while hasattr(fit, "__wrapped__"):
        assert "dispatch" not in fit.__qualname__, estimator
        fit = fit.__wrapped__
    assert "dispatch" not in fit.__qualname__, estimator


def test_sources_name_no_stale_module_no_team_notes_and_no_work_items():
    """Docstrings and comments name modules that exist (``textsel._ext.ccore``, not the old
    ``textsel._ccore``), and no team document or work item a user cannot read (``NOTES.md``,
    "issue 3")."""
    import re

    stale = re.compile(r"textsel\._ccore\b|NOTES\.md|\b[Ii]ssue \d+")
    found = []
    for path in (ROOT / "textsel").rglob("*"):
        if path.suffix in (".py", ".pyx", ".pxd", ".pyi") and "__pycache__" not in path.parts:
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if stale.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    for path in (ROOT / "csrc").rglob("*.[ch]"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if stale.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
