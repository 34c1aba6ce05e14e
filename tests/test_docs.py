"""The docs build with warnings as errors, name every public object, and their code runs.

Every ``python`` block of README.md and docs/*.md runs, each page's blocks in order as one script,
in a fresh process in an empty folder (so a page cannot lean on this test's state).  An output
block right after a ``python`` block (a ``{code-block} text`` of class ``textsel-output``) is what
that block prints, and must be what it prints now (compared as doctest compares, ``...`` matching
anything); a page whose code reads a corpus of the data home runs when ``TEXTSEL_DATA`` holds it
and is skipped otherwise.  Shell commands are not code; the benchmark commands they show are run
by their authors and recorded with their figures in docs/benchmarks.md.
"""

import doctest
import importlib
import inspect
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
#: an reStructuredText page's ``.. code-block:: python``, its indented body
RST_BLOCK = re.compile(r"^( *)\.\. code-block:: python\n\n((?:\1   .*\n|\n)+)", re.M)


#: what a Markdown page shows a block printing: an output block right after the block
OUTPUT = re.compile(r"\s*^```\{code-block\} text\n:class: textsel-output\n\n?(.*?)^```", re.S | re.M)
#: the README's output blocks: plain ``text`` fences, which GitHub renders (it shows MyST's
#: directive options as text)
README_OUTPUT = re.compile(r"\s*^```text\n(.*?)^```", re.S | re.M)


def python_blocks(page: Path) -> list[str]:
    """The page's Python code blocks, dedented."""
    text = page.read_text()
    if page.suffix == ".rst":
        return [textwrap.dedent(m.group(2)) for m in RST_BLOCK.finditer(text)]
    return BLOCK.findall(text)


def shown_outputs(page: Path) -> list[str | None]:
    """For each Python block of a Markdown page, the output the page shows beneath it (None: none)."""
    text = page.read_text()
    if page.suffix != ".md":
        return [None] * len(python_blocks(page))
    shown, output = [], README_OUTPUT if page.name == "README.md" else OUTPUT
    for m in BLOCK.finditer(text):
        out = output.match(text, m.end())
        shown.append(out.group(1) if out else None)
    return shown


#: printed between two blocks, to cut a page's output into each block's
MARK = "\n<<textsel-docs block {}>>\n"


def page_script(blocks: list[str]) -> str:
    """The page's blocks as one script that marks where each block's output begins (in the main
    process only: a Dask worker started by "spawn" imports the script again, as ``__mp_main__``)."""
    return "\n\n".join(
        f"if __name__ == '__main__':\n    print({MARK.format(i)!r}, end='', flush=True)\n{code}"
        for i, code in enumerate(blocks)
    )


def printed_by_block(stdout: str, n_blocks: int) -> list[str]:
    parts = re.split(r"\n<<textsel-docs block (\d+)>>\n", "\n" + stdout)
    printed = [""] * n_blocks
    for index, out in zip(parts[1::2], parts[2::2], strict=True):
        printed[int(index)] = out
    return printed


def output_mismatches(blocks: list[str], shown: list[str | None], stdout: str) -> list[str]:
    """The blocks whose shown output is not what they printed (doctest's comparison: ``...``
    matches anything, runs of whitespace are equal)."""
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    found = []
    for i, (code, want, got) in enumerate(
        zip(blocks, shown, printed_by_block(stdout, len(blocks)), strict=True)
    ):
        if want is not None and not checker.check_output(want, got, flags):
            found.append(
                f"block {i + 1} ({code.strip().splitlines()[-1][:60]!r}) shows:\n{want}printed:\n{got}"
            )
    return found


#: the archive each data-home loader reads: a page that calls one runs only where the archive is
DATA_HOME_ARCHIVES = {"load_20newsgroups": "20news-bydate.tar.gz", "load_reuters21578": "reuters21578.tar.gz",
                      "load_forman": "forman-cluto/re1"}  # fmt: skip


def missing_archives(code: str) -> list[str]:
    home = Path(os.environ.get("TEXTSEL_DATA", Path.home() / "textsel_data"))
    return [a for loader, a in DATA_HOME_ARCHIVES.items() if re.search(rf"\b{loader}\(", code)
            and not (home / a).exists()]  # fmt: skip


PAGES = [
    p
    for p in [ROOT / "README.md", ROOT / "docs" / "index.rst", *sorted((ROOT / "docs").glob("*.md"))]
    if python_blocks(p)
]
PUBLIC_MODULES = ["textsel", "textsel.text", "textsel.termstats", "textsel.metrics", "textsel.selection",
                  "textsel.scalable", "textsel.sampling", "textsel.least_squares", "textsel.linear_model",
                  "textsel.svm", "textsel.masking", "textsel.study", "textsel.study.plots",
                  "textsel.datasets", "textsel.distributed", "textsel.score_funcs",
                  "textsel.reproduce", "textsel.names",
                  "textsel.progress"]  # fmt: skip


#: the pages whose code the quick run checks (the README's, which every user runs first); the slow
#: run checks every page's
QUICK_PAGES = {"README.md"}


@pytest.mark.parametrize(
    "page", [pytest.param(p, marks=[] if p.name in QUICK_PAGES else [pytest.mark.slow]) for p in PAGES],
    ids=[p.name for p in PAGES],
)  # fmt: skip
def test_code_blocks_run_and_print_what_the_page_shows(page, tmp_path):
    blocks = python_blocks(page)
    if missing := missing_archives("\n".join(blocks)):
        pytest.skip(f"{page.name} reads {missing} from the data home (TEXTSEL_DATA), which lacks it")
    (tmp_path / "tests").symlink_to(ROOT / "tests")  # pages that use the test helpers name "tests"
    script = tmp_path / f"{page.stem}_blocks.py"
    script.write_text(page_script(blocks))
    run = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=900
    )
    assert run.returncode == 0, f"{page.name}:\n{run.stderr[-4000:]}"
    mismatches = output_mismatches(blocks, shown_outputs(page), run.stdout)
    assert not mismatches, f"{page.name}: the output shown is not what the code prints now\n" + "\n".join(
        mismatches
    )


def test_the_output_check_can_fail(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nprint(1 + 1)\n```\n\n```{code-block} text\n:class: textsel-output\n\n3\n```\n\n"
        "```python\nprint('a', [0.5] * 9)\n```\n\n"
        "```{code-block} text\n:class: textsel-output\n\na [0.5, ...]\n```\n"
        "```python\nx = 2\n```\n"
    )
    blocks, shown = python_blocks(page), shown_outputs(page)
    assert shown[1:] == ["a [0.5, ...]\n", None]
    run = subprocess.run([sys.executable, "-c", page_script(blocks)], capture_output=True, text=True)
    assert [m.split(" ", 2)[1] for m in output_mismatches(blocks, shown, run.stdout)] == ["1"]


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


def api_entries() -> list[str]:
    """The names the API reference lists: its groups' pages, docs/api/*.rst."""
    pages = [ROOT / "docs" / "api.rst", *sorted((ROOT / "docs" / "api").glob("*.rst"))]
    return [n for page in pages for n in re.findall(r"^\s+(textsel[\w.]*)\s*$", page.read_text(), re.M)]


def test_every_public_name_has_an_api_entry():
    listed = set(api_entries())
    missing = [
        f"{m}.{n}" for m, n in public_names() if f"{m}.{n}" not in listed and f"textsel.{n}" not in listed
    ]
    assert not missing, f"not in docs/api.rst: {missing}"


@pytest.mark.slow
def test_sphinx_builds_with_warnings_as_errors_and_runs_the_gallery(tmp_path):
    """The whole site, offline, with every example of the gallery executed (on the real corpora
    when TEXTSEL_DATA holds them, else on the synthetic corpus)."""
    for module in (
        "sphinx",
        "numpydoc",
        "myst_parser",
        "sphinx_gallery",
        "pydata_sphinx_theme",
        "sphinx_design",
    ):
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
    """No internal work-item numbers, no diary, no paths outside the repository, no notes meant
    for the team ("this machine", "the issue's case", "available here", where CI points), in the
    docs, the README and the examples."""
    pattern = re.compile(
        r"issue [0-9]|session|\.\./shared|this machine|the issue'?s\b|available here|\bCI points"
        r"|from the [\w ]+ work on",
        re.I,
    )
    docs = [p for p in (ROOT / "docs").rglob("*") if p.suffix in (".md", ".rst")
            and not {"_build", "auto_examples", "generated"} & set(p.parts)]  # fmt: skip
    pages = [ROOT / "README.md", *sorted(docs), *sorted((ROOT / "examples").glob("*.py"))]
    found = [f"{p.relative_to(ROOT)}:{i}" for p in pages
             for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]  # fmt: skip
    assert not found, found


def test_benchmarks_page_is_a_reference_not_a_log():
    assert len((ROOT / "docs" / "benchmarks.md").read_text().splitlines()) <= 300


EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))


@pytest.mark.slow
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
    for name in ("TermSelector", "ScalableTermSelector", "RLSClassifier", "WeightedProximalSVC"):
        text = pydoc.render_doc(getattr(textsel, name), renderer=pydoc.plaintext)
        assert "_textsel" not in text and "_fit_rows" not in text and "_solve(" not in text, name
        assert "fit(" in text


#: the pages a user reads to do something, each linking the API entries it names
TASK_PAGES = ["guide", "text", "score_terms", "linear_models", "svm_masking", "sampling", "forman_study",
              "distributed", "datasets", "which_tool", "metrics"]  # fmt: skip
#: API names too common as words or as other libraries' names to count as a mention unqualified
COMMON = {"acc", "acc2", "bns", "chi2", "dfreq", "f1", "ig", "oddn", "odds", "pow", "pr", "rand", "score",
          "lsqr", "forman", "reproduce", "verdict", "Row", "Report", "PAPERS", "METHODS", "STRATEGIES",
          "MULTICLASS", "METRICS", "INVERTIBLE", "SYMMETRIC", "fetch",
          "CountVectorizer", "TfidfVectorizer", "HashingVectorizer"}  # fmt: skip


def api_mentions(text: str, api: list[str]) -> set[str]:
    """The API entries a page names in inline code: by full name, or by a short name that only one
    entry has and that is not a common word."""
    short = {}
    for name in api:
        short.setdefault(name.rsplit(".", 1)[1], []).append(name)
    found = set()
    for span in re.findall(r"(?<![}`])`([^`\n]+)`", text):
        for name in api:
            tail = name.rsplit(".", 1)[1]
            if re.search(rf"(?<![\w.]){re.escape(name)}\b", span) or (
                tail not in COMMON
                and len(short[tail]) == 1
                and re.search(rf"(?<![\w.]){re.escape(tail)}\b", span)
            ):
                found.add(name)
    return found


def api_links(text: str) -> set[str]:
    return set(re.findall(r"\{(?:py:)?\w+\}`~?(textsel[\w.]*)`", text))


@pytest.mark.parametrize("page", TASK_PAGES)
def test_every_task_page_links_the_api_entries_it_names(page):
    api = api_entries()
    text = (ROOT / "docs" / f"{page}.md").read_text()
    assert not api_mentions(text, api) - api_links(text), f"{page}.md names these without a link"
    assert api_links(text) <= set(api), "a link to an entry the API reference does not have"


def test_the_api_mention_check_can_fail():
    api = ["textsel.TermSelector", "textsel.selection.top_k", "textsel.chi2"]
    text = "Use `TermSelector(k=5)` and `top_k`, not `chi2`; {py:obj}`~textsel.selection.top_k`."
    assert api_mentions(text, api) - api_links(text) == {"textsel.TermSelector"}


def test_every_estimator_parameter_and_attribute_is_described():
    """The API pages render each class's Parameters and Attributes in full (numpydoc): none is a
    bare name, and no property's summary (which numpydoc shows in the class's Attributes) points
    back at the class."""
    numpydoc = pytest.importorskip("numpydoc.docscrape")
    import textsel

    bare = []
    for name in textsel.__all__:
        obj = getattr(textsel, name)
        if inspect.isclass(obj):
            doc = numpydoc.ClassDoc(obj)
            bare += [f"{name}.{p.name}" for p in doc["Parameters"] + doc["Attributes"] if not p.desc]
            for attr, value in vars(obj).items():
                if isinstance(value, property) and value.__doc__ and "see the class" in value.__doc__:
                    bare.append(f"{name}.{attr}")
    assert not bare, bare


def test_gallery_code_carries_no_tool_directives():
    """The gallery shows each example's code as a user copies it: no formatter or linter markers."""
    found = [f"{p.name}:{i}" for p in EXAMPLES for i, line in enumerate(p.read_text().splitlines(), 1)
             if re.search(r"#\s*(fmt:|noqa|type:\s*ignore)", line)]  # fmt: skip
    assert not found, found
