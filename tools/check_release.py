"""Check a release on this machine: what cibuildwheel's CI (.github/workflows/wheels.yml) does in
its containers, as far as one Linux machine can.

    python tools/check_release.py [--slow | --skip-suite] [--keep DIR] [--record]

1. ``python -m build``: an sdist, and a wheel built from that sdist (so the sdist alone builds
   every extension from scratch);
2. the sdist holds the sources (.pyx, csrc/*.c) and none of Cython's generated C; the wheel holds
   every extension module setup.py lists and no C;
3. ``auditwheel show``: the wheel is manylinux_2_17-compatible (or older) and links no library
   outside the manylinux policy;
4. a fresh venv, ``pip install`` of the wheel and its test extra (with ``--slow`` its test-full
   extra too) with no compiler on PATH;
5. from outside the tree, what ``tools/check_wheel.py`` checks in CI: every module imports, every
   sub-command starts, ``textsel demo`` and ``textsel reproduce kolcz --quick`` run;
6. the test suite, run from outside the source tree against the installed wheel
   (``TEXTSEL_EXPECT_INSTALLED=1`` makes tests/conftest.py refuse the source tree's package): the
   quick run, as cibuildwheel runs it on every wheel, or with ``--slow`` the whole suite.

Prints the sizes (wheel, extension modules) and exits nonzero at the first failed step.  With
``--record`` the figures of a passing run replace those of ``docs/release.md``.
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

import check_wheel

ROOT = Path(__file__).resolve().parents[1]
EXTENSIONS = tuple(sorted(check_wheel.extension_names()))
RECORD_BEGIN, RECORD_END = "<!-- check_release: begin -->", "<!-- check_release: end -->"
#: manylinux tags no newer than manylinux_2_17 (= manylinux2014)
MAX_GLIBC = (2, 17)


run = check_wheel.run


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


def check_wheel_contents(wheel: Path) -> int:
    """Raise naming what the wheel lacks; else the unpacked size of its extension modules."""
    problems = check_wheel.check_contents(wheel)
    if problems:
        raise SystemExit(f"wheel: {'; '.join(problems)}")
    z = zipfile.ZipFile(wheel)
    return sum(z.getinfo(n).file_size for n in z.namelist() if n.endswith((".so", ".pyd")))


def record(lines: list[str], page: Path = ROOT / "docs" / "release.md") -> None:
    """Put a passing run's figures between the markers of ``page``."""
    text = page.read_text()
    head, rest = text.split(RECORD_BEGIN)
    _, tail = rest.split(RECORD_END)
    block = "\n```\n" + "\n".join(lines) + "\n```\n"
    page.write_text(head + RECORD_BEGIN + block + RECORD_END + tail)


def run_suite(python: Path, outside: Path, env: dict, slow: bool) -> str:
    """The suite (the quick run, or with ``slow`` the whole) against the installed wheel, shown as
    it runs; its closing line."""
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *(["--slow"] if slow else []),
               "--rootdir", str(ROOT), str(ROOT / "tests")]  # fmt: skip
    print("$", " ".join(command), flush=True)
    last = ""
    with subprocess.Popen(command, cwd=outside, env=env, stdout=subprocess.PIPE, text=True) as suite:
        for line in suite.stdout:
            print(line, end="", flush=True)
            if re.search(r"\d+ passed", line):
                last = line.strip().strip("=").strip()
    if suite.returncode:
        raise SystemExit(f"the suite failed against the installed wheel: {last}")
    return last


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-suite", action="store_true", help="stop after the wheel's smoke test")
    parser.add_argument("--slow", action="store_true", help="the whole suite, not the quick run")
    parser.add_argument("--keep", default=None, help="build and install here, and keep it")
    parser.add_argument("--record", action="store_true", help="write the figures into docs/release.md")
    parser.add_argument("--data-home", type=Path, default=os.environ.get("TEXTSEL_DATA") or None,
                        help="corpora for the reproduction and suite (default: $TEXTSEL_DATA)")  # fmt: skip
    args = parser.parse_args(argv)
    work = Path(args.keep or tempfile.mkdtemp(prefix="textsel-release-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    dist = work / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    summary = []

    def say(line: str) -> None:
        print(line, flush=True)
        summary.append(line)

    run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)])
    sdist = next(dist.glob("*.tar.gz"))
    wheel = next(dist.glob("*.whl"))
    check_sdist(sdist)
    module_bytes = check_wheel_contents(wheel)
    say(f"sdist {sdist.name}: {sdist.stat().st_size / 1e3:.0f} kB")
    say(
        f"wheel {wheel.name}: {wheel.stat().st_size / 1e3:.0f} kB, {len(EXTENSIONS)} extension modules "
        f"{module_bytes / 1e3:.0f} kB unpacked, all {len(check_wheel.source_files())} files of the package"
    )

    if sys.platform.startswith("linux"):
        shown = run([sys.executable, "-m", "auditwheel", "show", str(wheel)], capture_output=True, text=True)
        text = shown.stdout + shown.stderr
        tag = manylinux_tag(text)
        if tag is None or tag > MAX_GLIBC:
            raise SystemExit(f"auditwheel: not manylinux_2_17-compatible:\n{text}")
        if "external shared libraries" in text and "system-provided" not in text:
            raise SystemExit(f"auditwheel: links libraries outside the policy:\n{text}")
        say(f"auditwheel: manylinux_{tag[0]}_{tag[1]}-compatible, only system libraries")

    python, bindir = check_wheel.fresh_venv(work / "venv")
    # no compiler: only the venv on PATH, and CC/CXX pointing at nothing
    no_compiler = {**os.environ, "PATH": str(bindir), "CC": "/nonexistent-cc", "CXX": "/nonexistent-cxx"}
    extras = "test,test-full" if args.slow else "test"
    run([str(python), "-m", "pip", "install", "-q", f"{wheel}[{extras}]"], env=no_compiler)
    say(f"installed with its {extras} extra{'s' * args.slow} into a fresh venv, no compiler on PATH")
    outside = work / "outside"
    outside.mkdir(exist_ok=True)
    check_wheel.smoke(python, bindir, outside, args.data_home)
    say("from outside the tree: every module imports, every sub-command starts, demo and reproduce run")
    if args.skip_suite:
        return 0
    env = {**os.environ, "TEXTSEL_EXPECT_INSTALLED": "1", "TEXTSEL_WHEEL": str(wheel)}
    if args.record:  # the suite cannot check the record this run is about to write
        env["TEXTSEL_RECORDING_RELEASE"] = "1"
    if args.data_home:
        env["TEXTSEL_DATA"] = str(args.data_home)
    say(run_suite(python, outside, env, args.slow))
    say(f"the {'whole' if args.slow else 'quick'} suite passed against the installed wheel")
    if args.record:
        record(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
