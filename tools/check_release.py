"""Check a release on this machine: what cibuildwheel's CI (.github/workflows/wheels.yml) does in
its containers, as far as one Linux machine can.

    python tools/check_release.py [--skip-suite] [--keep DIR]

1. ``python -m build``: an sdist, and a wheel built from that sdist (so the sdist alone builds
   every extension from scratch);
2. the sdist holds the sources (.pyx, csrc/*.c) and none of Cython's generated C; the wheel holds
   every extension module setup.py lists and no C;
3. ``auditwheel show``: the wheel is manylinux_2_17-compatible (or older) and links no library
   outside the manylinux policy;
4. a fresh venv, ``pip install`` of the wheel and its test extra with no compiler on PATH;
5. the whole test suite, run from outside the source tree against the installed wheel
   (``TEXTSEL_EXPECT_INSTALLED=1`` makes tests/conftest.py refuse the source tree's package).

Prints the sizes (wheel, extension modules) and exits nonzero at the first failed step.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTENSIONS = ("counting", "dealing", "scoring", "submatrix", "curves", "pool", "ccore")
#: manylinux tags no newer than manylinux_2_17 (= manylinux2014)
MAX_GLIBC = (2, 17)


def run(cmd, **kwargs):
    print("$", " ".join(map(str, cmd)), flush=True)
    return subprocess.run(cmd, check=True, **kwargs)


def manylinux_tag(auditwheel_output: str):
    """The (major, minor) glibc of the platform tag ``auditwheel show`` reports, or None."""
    m = re.search(r'"manylinux_(\d+)_(\d+)_\w+"', auditwheel_output)
    return (int(m.group(1)), int(m.group(2))) if m else None


def check_sdist(sdist: Path) -> None:
    names = tarfile.open(sdist).getnames()
    root = names[0].split("/")[0]
    needed = [f"{root}/textsel/_ext/{e}.pyx" for e in EXTENSIONS] + [
        f"{root}/csrc/{c}" for c in ("csr.c", "lsqr.c", "dcd_svm.c", "textsel.h", "internal.h")
    ] + [f"{root}/CHANGELOG.md", f"{root}/setup.py", f"{root}/pyproject.toml"]  # fmt: skip
    missing = [n for n in needed if n not in names]
    generated = [n for n in names if re.fullmatch(rf"{root}/textsel/_ext/\w+\.c", n)]
    if missing or generated:
        raise SystemExit(f"sdist: missing {missing}, Cython-generated C included {generated}")


def check_wheel(wheel: Path) -> int:
    names = zipfile.ZipFile(wheel).namelist()
    modules = [n for n in names if n.endswith((".so", ".pyd"))]
    found = {Path(n).name.split(".")[0] for n in modules}
    if found != set(EXTENSIONS):
        raise SystemExit(f"wheel: extension modules {sorted(found)}, expected {sorted(EXTENSIONS)}")
    if any(n.endswith(".c") for n in names):
        raise SystemExit("wheel: carries C sources")
    return sum(zipfile.ZipFile(wheel).getinfo(n).file_size for n in modules)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-suite", action="store_true", help="stop after installing the wheel")
    parser.add_argument("--keep", default=None, help="build and install here, and keep it")
    args = parser.parse_args(argv)
    work = Path(args.keep or tempfile.mkdtemp(prefix="textsel-release-"))
    work.mkdir(parents=True, exist_ok=True)
    dist = work / "dist"
    shutil.rmtree(dist, ignore_errors=True)

    run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)])
    sdist = next(dist.glob("*.tar.gz"))
    wheel = next(dist.glob("*.whl"))
    check_sdist(sdist)
    module_bytes = check_wheel(wheel)
    print(f"sdist {sdist.name}: {sdist.stat().st_size / 1e3:.0f} kB")
    size = wheel.stat().st_size / 1e3
    print(f"wheel {wheel.name}: {size:.0f} kB, extension modules {module_bytes / 1e3:.0f} kB unpacked")

    if sys.platform.startswith("linux"):
        shown = run([sys.executable, "-m", "auditwheel", "show", str(wheel)], capture_output=True, text=True)
        text = shown.stdout + shown.stderr
        tag = manylinux_tag(text)
        if tag is None or tag > MAX_GLIBC:
            raise SystemExit(f"auditwheel: not manylinux_2_17-compatible:\n{text}")
        if "external shared libraries" in text and "system-provided" not in text:
            raise SystemExit(f"auditwheel: links libraries outside the policy:\n{text}")
        print(f"auditwheel: manylinux_{tag[0]}_{tag[1]}-compatible, only system libraries")

    venv = work / "venv"
    shutil.rmtree(venv, ignore_errors=True)
    run([sys.executable, "-m", "venv", str(venv)])
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    # no compiler: only the venv on PATH, and CC/CXX pointing at nothing
    no_compiler = {**os.environ, "PATH": str(bindir), "CC": "/nonexistent-cc", "CXX": "/nonexistent-cxx"}
    run([str(python), "-m", "pip", "install", "-q", f"{wheel}[test]"], env=no_compiler)
    outside = work / "outside"
    outside.mkdir(exist_ok=True)
    where = run([str(python), "-c", "import textsel._ext.ccore, textsel; print(textsel.__file__)"],
                cwd=outside, env=no_compiler, capture_output=True, text=True).stdout.strip()  # fmt: skip
    if not where.startswith(str(venv)):
        raise SystemExit(f"the installed wheel was not the textsel imported: {where}")
    print(f"installed without a compiler; imports from {where}")
    if args.skip_suite:
        return 0
    env = {**os.environ, "TEXTSEL_EXPECT_INSTALLED": "1"}
    run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
         str(ROOT / "tests")], cwd=outside, env=env)  # fmt: skip
    print("the suite passed against the installed wheel")
    return 0


if __name__ == "__main__":
    sys.exit(main())
