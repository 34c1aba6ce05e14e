"""What a release is made of: one version, a changelog entry, an sdist that carries the sources
and no generated C (tools/check_release.py builds and checks the wheel too, and runs the suite
against it; docs/release.md records its figures)."""

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

import textsel

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import check_release  # noqa: E402


def test_one_version_number():
    assert importlib.metadata.version("textsel") == textsel.__version__
    assert 'dynamic = ["version"]' in (ROOT / "pyproject.toml").read_text()
    assert re.search(rf"^## {re.escape(textsel.__version__)}\b", (ROOT / "CHANGELOG.md").read_text(), re.M)


def test_auditwheel_tag_is_read():
    text = 'is consistent with the\nfollowing platform tag: "manylinux_2_17_x86_64".'
    assert check_release.manylinux_tag(text) == (2, 17)
    assert check_release.manylinux_tag('tag: "manylinux_2_28_aarch64"') > check_release.MAX_GLIBC
    assert check_release.manylinux_tag("linux_x86_64") is None


def test_sdist_carries_the_sources_and_no_generated_c(tmp_path):
    pytest.importorskip("build")
    pytest.importorskip("Cython")  # setup.py cythonizes even for an sdist (the test extra installs it)
    command = [
        sys.executable,
        "-m",
        "build",
        "--sdist",
        "--no-isolation",
        "--outdir",
        str(tmp_path),
        str(ROOT),
    ]
    subprocess.run(command, check=True, capture_output=True)
    sdist = next(tmp_path.glob("textsel-*.tar.gz"))
    check_release.check_sdist(sdist)  # raises SystemExit naming what is wrong
    assert sdist.name == f"textsel-{textsel.__version__}.tar.gz"
