"""Build the C unit tests (tests/c) with the C core under AddressSanitizer and
UndefinedBehaviorSanitizer, and run them."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
C_TESTS = sorted((ROOT / "tests" / "c").glob("test_*.c"))
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1", "-g", "-DTS_TESTING"]


def compiler():
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None or sys.platform == "win32":
        pytest.skip("no C compiler with sanitizers here")
    return cc


@pytest.mark.parametrize("source", C_TESTS, ids=[p.stem for p in C_TESTS])
def test_c_unit_tests_under_sanitizers(source, tmp_path):
    exe = tmp_path / source.stem
    sources = [str(source)] + [str(p) for p in sorted((ROOT / "csrc").glob("*.c"))]
    build = subprocess.run(
        [compiler(), *FLAGS, *SANITIZE, "-I", str(ROOT / "csrc"), "-o", str(exe), *sources, "-lm"],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
    run = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=600)
    print(run.stdout, run.stderr)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("0 failed"), run.stdout
