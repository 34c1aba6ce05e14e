"""Build the C unit tests (tests/c) with the C core under AddressSanitizer and
UndefinedBehaviorSanitizer, and run them; build the C microbenchmarks (benchmarks/c) the same
way and run them at a tiny size, so that they keep compiling and running against the core."""

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


#: the unit tests that take longest to build and run under the sanitizers (10 to 20 s each on two
#: cores): in the slow run only; the quick run builds and runs the others
SLOW_C_TESTS = {"test_dcd_svm", "test_lsqr", "test_tokens", "test_rowblocks", "test_nested_svm"}


@pytest.mark.parametrize(
    "source", [pytest.param(p, marks=[pytest.mark.slow] if p.stem in SLOW_C_TESTS else []) for p in C_TESTS],
    ids=[p.stem for p in C_TESTS],
)  # fmt: skip
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


BENCHMARKS = sorted((ROOT / "benchmarks" / "c").glob("bench_*.c"))


def load_script(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "c" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tiny_input(source, tmp_path) -> Path:
    """A 200 x 300 random matrix with two targets, or for the word kernel a few texts of every
    width (ASCII, Latin-1, Greek, an emoji, long words, empty ones)."""
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    path = tmp_path / "tiny.bin"
    if source.stem == "bench_tokens":
        words = ["the", "Ünïcode", "αβγ", "😀x", "a", "supercalifragilisticexpialidocious", "x_1", "42"]
        texts = [" ".join(rng.choice(words, size=int(rng.integers(0, 40)))) + "." for _ in range(50)]
        load_script("dump_texts").write_texts_file(path, [t.lower() for t in texts] + [""])
        return path
    X = sp.random(200, 300, density=0.05, format="csr", random_state=rng)
    T = np.where(rng.random((200, 2)) < 0.3, 1.0, -1.0)
    load_script("dump_matrix").write_matrix_file(path, X, T)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("source", BENCHMARKS, ids=[p.stem for p in BENCHMARKS])
def test_c_microbenchmarks_build_and_run_at_a_tiny_size(source, tmp_path):
    """Each microbenchmark on its tiny input, one run: it must build warning-free under the
    sanitizers, exit 0 and print its table (timings are not checked)."""
    data = tiny_input(source, tmp_path)
    exe = tmp_path / source.stem
    core = [str(p) for p in sorted((ROOT / "csrc").glob("*.c"))]
    flags = [f for f in FLAGS if f != "-DTS_TESTING"]
    build = subprocess.run(
        [compiler(), *flags, *SANITIZE, "-I", str(ROOT / "csrc"), "-I", str(source.parent), "-o", str(exe),
         str(source), *core, "-lm"],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    args = [str(data), "1"] if source.stem == "bench_tokens" else [str(data), "2", "1"]
    run = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert ("checksum" in run.stdout) if "lsqr" in source.stem else ("total:" in run.stdout), run.stdout
