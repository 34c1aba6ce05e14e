"""What a release is made of: one version, a changelog entry, an sdist that carries the sources
and no generated C (tools/check_release.py builds and checks the wheel too, and runs the suite
against it; docs/release.md records its figures)."""

import importlib.metadata
import os
import re
import subprocess
import sys
import zipfile
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_the_built_wheel_carries_every_file_of_the_package(tmp_path):
    """Every file of the source tree's package (each sub-package's modules, the kernels' sources
    and stubs, the embedded corpus) is in the built wheel, with every extension module setup.py
    builds and no C: a sub-package left out of the build fails here, not in a user's install.
    Reads the wheel CI built (``TEXTSEL_WHEEL``), else builds one."""
    import check_wheel

    wheel = os.environ.get("TEXTSEL_WHEEL")
    if wheel and Path(wheel).is_file():
        wheel = Path(wheel)
    else:
        pytest.importorskip("Cython")  # the test extra installs what --no-build-isolation needs
        pytest.importorskip("setuptools")
        wheel = check_wheel.build_wheel(tmp_path)
    assert check_wheel.check_contents(wheel) == []
    names = zipfile.ZipFile(wheel).namelist()
    folders = {p.relative_to(ROOT).as_posix() for p in (ROOT / "textsel").rglob("*")
               if p.is_dir() and p.name != "__pycache__"}  # fmt: skip
    assert folders and all(any(n.startswith(f + "/") for n in names) for f in folders)


def test_the_wheel_check_finds_what_a_wheel_lacks(tmp_path):
    """check_contents names a missing sub-package's files, a missing extension module and C."""
    import check_wheel

    files = check_wheel.source_files()
    assert "textsel/reproduce/__init__.py" in files and "textsel/datasets/data/sms_spam.txt.gz" in files
    wheel = tmp_path / "textsel-0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for name in files:
            if not name.startswith("textsel/reproduce/"):
                z.writestr(name, "")
        for ext in sorted(check_wheel.extension_names())[1:]:
            z.writestr(f"textsel/_ext/{ext}.cpython-311-x86_64-linux-gnu.so", "")
        z.writestr("textsel/_ext/ccore.c", "")
    problems = check_wheel.check_contents(wheel)
    assert "missing textsel/reproduce/__init__.py" in problems
    assert any(p.startswith("extension modules") for p in problems)
    assert "carries C source textsel/_ext/ccore.c" in problems


def test_the_release_page_records_a_run_of_todays_package():
    """docs/release.md's figures are written by check_release.py --record: they name this
    version and as many extension modules as setup.py builds (a stale page fails here)."""
    import check_wheel

    if os.environ.get("TEXTSEL_RECORDING_RELEASE") == "1":
        pytest.skip("check_release.py --record is running this suite to write that record")
    text = (ROOT / "docs" / "release.md").read_text()
    block = text.split(check_release.RECORD_BEGIN)[1].split(check_release.RECORD_END)[0]
    assert f"wheel textsel-{textsel.__version__}-" in block
    assert f"{len(check_wheel.extension_names())} extension modules" in block
    assert re.search(r"\d+ passed", block)
    assert re.search(r"the (quick|whole) suite passed against the installed wheel", block)


def test_record_replaces_only_the_block_between_the_markers(tmp_path):
    page = tmp_path / "release.md"
    page.write_text(f"head\n{check_release.RECORD_BEGIN}\nold\n{check_release.RECORD_END}\ntail\n")
    check_release.record(["new 1", "new 2"], page)
    assert page.read_text() == (
        f"head\n{check_release.RECORD_BEGIN}\n```\nnew 1\nnew 2\n```\n{check_release.RECORD_END}\ntail\n"
    )
