"""The docs build with warnings as errors, name every public object, and their code runs.

Every ``python`` block of README.md and docs/*.md runs, each page's blocks in order as one script,
in a fresh process in an empty folder (so a page cannot lean on this test's state).  Shell
commands and printed output blocks are not code; the benchmark commands they show are run by
their authors and recorded with their figures in docs/benchmarks.md.
"""

import importlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
PAGES = [
    p for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))] if BLOCK.search(p.read_text())
]
PUBLIC_MODULES = ["textsel", "textsel.termstats", "textsel.metrics", "textsel.selection", "textsel.scalable",
                  "textsel.sampling", "textsel.least_squares", "textsel.linear_model", "textsel.svm",
                  "textsel.masking", "textsel.study", "textsel.study.plots", "textsel.datasets",
                  "textsel.distributed", "textsel.score_funcs", "textsel.reproduce"]  # fmt: skip


def shards(folder: Path) -> None:
    """What docs/distributed.md reads: JSON Lines text shards (here from the synthetic corpus)."""
    from textsel.datasets import make_synthetic_corpus

    corpus = make_synthetic_corpus(n_docs=900, n_terms=3000)
    (folder / "shards").mkdir()
    for part in range(3):
        lines = [json.dumps({"text": t, "label": corpus.target_names[y]})
                 for t, y in zip(corpus.data[part::3], corpus.target[part::3], strict=True)]  # fmt: skip
        (folder / "shards" / f"train-{part}.jsonl").write_text("\n".join(lines) + "\n")


PRELUDES = {"distributed.md": shards}


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_code_blocks_run(page, tmp_path):
    code = "\n\n".join(BLOCK.findall(page.read_text()))
    if page.name in PRELUDES:
        PRELUDES[page.name](tmp_path)
    (tmp_path / "tests").symlink_to(ROOT / "tests")  # pages that use the test helpers name "tests"
    script = tmp_path / f"{page.stem}_blocks.py"
    script.write_text(code)
    run = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=900
    )
    assert run.returncode == 0, f"{page.name}:\n{run.stderr[-4000:]}"


def public_names():
    for name in PUBLIC_MODULES:
        module = importlib.import_module(name)
        names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n, v in vars(module).items() if not n.startswith("_")
                     and (inspect.isfunction(v) or inspect.isclass(v)) and v.__module__ == name]  # fmt: skip
        for n in names:
            if not inspect.ismodule(getattr(module, n)):
                yield name, n


def test_every_public_name_has_an_api_entry():
    listed = set(re.findall(r"^\s+(textsel[\w.]*)\s*$", (ROOT / "docs" / "api.rst").read_text(), re.M))
    missing = [
        f"{m}.{n}" for m, n in public_names() if f"{m}.{n}" not in listed and f"textsel.{n}" not in listed
    ]
    assert not missing, f"not in docs/api.rst: {missing}"


def test_sphinx_builds_with_warnings_as_errors_and_runs_the_gallery(tmp_path):
    """The whole site, offline, with every example of the gallery executed (on the real corpora
    when TEXTSEL_DATA holds them, else on the synthetic corpus)."""
    for module in ("sphinx", "numpydoc", "myst_parser", "sphinx_gallery", "pydata_sphinx_theme"):
        pytest.importorskip(module)
    # autosummary and sphinx-gallery write their pages into the source tree: pages of names that
    # moved, or of examples that were renamed, would linger
    for generated in ("generated", "auto_examples"):
        shutil.rmtree(ROOT / "docs" / generated, ignore_errors=True)
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(ROOT / "docs"),
         str(tmp_path / "html")],
        capture_output=True, text=True, timeout=900, env={**os.environ, "MPLBACKEND": "agg"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-4000:]
    page = (tmp_path / "html" / "generated" / "textsel.DualLinearSVC.html").read_text()
    assert 'id="textsel.DualLinearSVC.fit"' in page and "sample_weight" in page  # methods documented
    examples = sorted(p.stem for p in (ROOT / "examples").glob("plot_*.py"))
    assert len(examples) >= 7
    for name in examples:  # each example ran and its page shows what it printed
        html = (tmp_path / "html" / "auto_examples" / f"{name}.html").read_text()
        assert "sphx-glr-script-out" in html, name


def test_docs_speak_to_users():
    """No internal work-item numbers, no diary, no paths outside the repository, in the docs and
    the README."""
    pattern = re.compile(r"issue [0-9]|session|\.\./shared", re.I)
    docs = [p for p in (ROOT / "docs").rglob("*") if p.suffix in (".md", ".rst")
            and not {"_build", "auto_examples", "generated"} & set(p.parts)]  # fmt: skip
    pages = [ROOT / "README.md", *sorted(docs), *sorted((ROOT / "examples").glob("*.py"))]
    found = [f"{p.relative_to(ROOT)}:{i}" for p in pages
             for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]  # fmt: skip
    assert not found, found


def test_benchmarks_page_is_a_reference_not_a_log():
    assert len((ROOT / "docs" / "benchmarks.md").read_text().splitlines()) <= 300


EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_runs_as_a_script_on_the_synthetic_corpus(example, tmp_path):
    """As a user runs them, from their own folder, with a data home that holds no corpus: each
    falls back to the synthetic corpus and says so (the docs build runs them on the real corpora
    when TEXTSEL_DATA holds them)."""
    run = subprocess.run(
        [sys.executable, str(example)], cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env={**os.environ, "TEXTSEL_DATA": str(tmp_path), "MPLBACKEND": "agg"},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-4000:]
    assert "SYNTHETIC" in run.stdout


def test_dir_and_help_show_users_the_api_not_the_plumbing():
    """dir(textsel) lists the API and its submodules, not the modules textsel imports for itself
    nor the old paths kept for compatibility; help() of an estimator shows no internal hook."""
    import pydoc

    import textsel

    shown = {n for n in dir(textsel) if not n.startswith("_")}
    assert set(textsel.__all__) <= shown and {"datasets", "reproduce", "masking"} <= shown
    assert not shown & {"importlib", "sys", "types", "plots", "proximal"}
    from textsel._base import DISTRIBUTED_HOOKS

    hooks = {h for names in DISTRIBUTED_HOOKS.values() for h in names}
    for name in ("TermSelector", "ScalableTermSelector", "RLSClassifier", "WeightedProximalSVC"):
        text = pydoc.render_doc(getattr(textsel, name), renderer=pydoc.plaintext)
        assert hooks and not any(h in text for h in hooks), name
        assert "fit(" in text
