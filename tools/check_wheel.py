"""Check the wheel as a user gets it: built from the tree, installed into a fresh venv, used from a
folder outside the tree.  ``.ci/run`` runs this before the suite.

    python tools/check_wheel.py [--wheel PATH] [--work DIR] [--data-home DIR]

1. the wheel (``pip wheel --no-build-isolation``, unless ``--wheel`` names one) holds every file
   of the source tree's package (modules, kernels' sources and stubs, the embedded corpus), every
   extension module ``setup.py`` lists, and no C;
2. a fresh venv, the wheel installed into it with its ``plots`` and ``dask`` extras (what
   ``textsel reproduce`` draws with, what ``textsel.distributed`` runs on), nothing of the tree on
   ``sys.path``;
3. from a folder outside the tree: every module of the package imports (the list is drawn from the
   source tree, so a sub-package the wheel left out fails here), ``textsel --help``,
   ``--version`` and every sub-command's ``--help`` start;
4. ``textsel demo`` prints real words, timed;
5. ``textsel reproduce kolcz --quick`` writes its page and figures (when the data home holds
   Reuters-21578 and 20 Newsgroups; said and skipped otherwise).

Prints each step and what it measured; exits nonzero at the first failed step.  The wheel's path
is printed last (``wheel: PATH``) for the suite's own content test to reuse (``TEXTSEL_WHEEL``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "textsel"
#: what the build leaves beside the sources and never ships: generated C, built modules, caches
NOT_SHIPPED = re.compile(r"(\.c|\.html|\.so|\.pyd|\.pyc)$|(^|/)__pycache__/")


def run(cmd, shown=None, **kwargs):
    print("$", shown or " ".join(map(str, cmd)), flush=True)
    return subprocess.run(cmd, check=True, **kwargs)


def extension_names() -> set[str]:
    """The extension modules setup.py builds (its ``KERNELS``), read from its source."""
    source = (ROOT / "setup.py").read_text()
    block = source[source.index("KERNELS = {") : source.index("}\nextensions")]
    return set(re.findall(r'^\s+"(\w+)":', block, re.M))


def source_files() -> list[str]:
    """Every file of the package in the source tree that a wheel must carry, as wheel paths."""
    return sorted(
        p.relative_to(ROOT).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and not NOT_SHIPPED.search(p.relative_to(ROOT).as_posix())
    )


def source_modules() -> list[str]:
    """Every importable module of the package in the source tree, by dotted name."""
    names = []
    for p in sorted(PACKAGE.rglob("*")):
        if p.suffix not in (".py", ".pyx") or "__pycache__" in p.parts:
            continue
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        elif parts[-1] == "__main__":
            continue  # runs the command line when imported
        names.append(".".join(parts))
    return names


def check_contents(wheel: Path) -> list[str]:
    """What the wheel lacks or wrongly carries, as messages (empty: it is complete)."""
    names = set(zipfile.ZipFile(wheel).namelist())
    problems = [f"missing {f}" for f in source_files() if f not in names]
    built = {Path(n).name.split(".")[0] for n in names if n.endswith((".so", ".pyd"))}
    if built != extension_names():
        problems.append(f"extension modules {sorted(built)}, setup.py builds {sorted(extension_names())}")
    problems += [f"carries C source {n}" for n in sorted(names) if n.endswith(".c")]
    return problems


def build_wheel(outdir: Path) -> Path:
    """A wheel of the tree, built with the current environment's Cython and setuptools."""
    outdir.mkdir(parents=True, exist_ok=True)
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(outdir),
         str(ROOT)])  # fmt: skip
    return max(outdir.glob("textsel-*.whl"), key=lambda p: p.stat().st_mtime)


def fresh_venv(where: Path) -> tuple[Path, Path]:
    """A new venv at ``where``: its python and its scripts folder."""
    shutil.rmtree(where, ignore_errors=True)
    run([sys.executable, "-m", "venv", str(where)])
    bindir = where / ("Scripts" if os.name == "nt" else "bin")
    return bindir / ("python.exe" if os.name == "nt" else "python"), bindir


def outside_env(bindir: Path) -> dict:
    """The environment of a user's shell: the venv first on PATH, nothing of the tree importable."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "PATH": f"{bindir}{os.pathsep}{env.get('PATH', '')}", "MPLBACKEND": "agg"}


IMPORT_ALL = """
import importlib, sys, textsel
where = textsel.__file__
assert where.startswith(sys.prefix), f"textsel imported from {where}, not the venv {sys.prefix}"
names = sys.argv[1:]
for name in names:
    importlib.import_module(name)
print(f"{len(names)} modules imported from {where}")
from textsel.cli import COMMANDS
print(" ".join(COMMANDS))
"""


def smoke(python: Path, bindir: Path, outside: Path, data_home: Path | None) -> None:
    """Steps 3-5: the installed package used as a user uses it, from ``outside``."""
    env = outside_env(bindir)
    textsel = str(bindir / "textsel")
    modules = source_modules()
    shown = run([str(python), "-c", IMPORT_ALL, *modules], f"python -c 'import ...' ({len(modules)} modules)",
                cwd=outside, env=env, capture_output=True, text=True).stdout.splitlines()  # fmt: skip
    print(shown[0])
    commands = shown[1].split()
    for args in (["--help"], ["--version"], *([c, "--help"] for c in commands)):
        run([textsel, *args], cwd=outside, env=env, capture_output=True)
    print(f"textsel --help, --version and {len(commands)} sub-commands' --help start: {', '.join(commands)}")

    start = time.perf_counter()
    demo = run([textsel, "demo"], cwd=outside, env=env, capture_output=True, text=True).stdout
    took = time.perf_counter() - start
    if "SMS Spam Collection" not in demo or not re.search(r"^\s+bns: \w+ \w+", demo, re.M):
        raise SystemExit(f"textsel demo did not show the SMS Spam Collection's terms:\n{demo}")
    print(f"textsel demo: {took:.1f} s in a fresh process, real words shown:")
    print("\n".join("    " + line for line in demo.splitlines() if re.match(r"\s+(bns|chi2): ", line)))

    archives = ("reuters21578.tar.gz", "20news-bydate.tar.gz")
    if data_home is None or not all((data_home / a).is_file() for a in archives):
        print(f"textsel reproduce kolcz --quick: skipped, the data home ({data_home}) lacks {archives}")
        return
    out = outside / "reproductions"
    start = time.perf_counter()
    run([textsel, "reproduce", "kolcz", "--quick", "--data-home", str(data_home), "--out", str(out)],
        cwd=outside, env=env, capture_output=True)  # fmt: skip
    took = time.perf_counter() - start
    page, figures = out / "kolcz.md", sorted((out / "kolcz").glob("*.png"))
    if not page.is_file() or "| " not in page.read_text() or not figures:
        raise SystemExit(f"textsel reproduce kolcz --quick wrote no page with figures in {out}")
    print(f"textsel reproduce kolcz --quick: {took:.0f} s, wrote {page.name} "
          f"({page.stat().st_size / 1e3:.0f} kB) and {len(figures)} figures")  # fmt: skip


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, default=None, help="check this wheel instead of building one")
    parser.add_argument("--work", type=Path, default=None, help="build and install here (default: temp)")
    parser.add_argument("--data-home", type=Path, default=os.environ.get("TEXTSEL_DATA") or None,
                        help="corpora for the reproduction (default: $TEXTSEL_DATA)")  # fmt: skip
    args = parser.parse_args(argv)
    work = (args.work or Path(tempfile.mkdtemp(prefix="textsel-wheel-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    wheel = args.wheel.resolve() if args.wheel else build_wheel(work / "dist")
    problems = check_contents(wheel)
    if problems:
        raise SystemExit(f"{wheel.name}: " + "; ".join(problems))
    print(f"{wheel.name}: {wheel.stat().st_size / 1e3:.0f} kB, all {len(source_files())} files of the "
          f"package and {len(extension_names())} extension modules")  # fmt: skip
    python, bindir = fresh_venv(work / "venv")
    run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", f"{wheel}[plots,dask]"])
    outside = work / "outside"
    outside.mkdir(exist_ok=True)
    smoke(python, bindir, outside, args.data_home)
    print(f"the wheel checked in {time.perf_counter() - start:.0f} s")
    print(f"wheel: {wheel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
