"""Run one fuzz target under atheris (coverage-guided, libFuzzer's engine).

    python tests/fuzz/run.py TARGET [libFuzzer options] [CORPUS_DIR ...]

For example ``python tests/fuzz/run.py term_stats -runs=1000000 -timeout=20 /tmp/corpus/term_stats``.
TARGET is one of ``targets.TARGETS``.  Python coverage is collected from textsel's modules
only; a crash (an exception other than ValueError/TypeError, or a failed check) or a hang
(``-timeout``) is written as ``crash-*`` / ``timeout-*`` beside the working directory, to be
added to ``tests/fuzz/regressions/TARGET/`` once fixed.  ``--list`` prints the targets.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(argv: list[str]) -> None:
    import atheris

    if len(argv) < 2 or argv[1] == "--list":
        from targets import TARGETS

        print("\n".join(TARGETS))
        return
    name = argv[1]
    # textsel is imported inside the instrumentation block so that its Python code reports coverage
    with atheris.instrument_imports(include=["textsel"]):
        import textsel  # noqa: F401
        import textsel.datasets  # noqa: F401
        import textsel.masking  # noqa: F401
        import textsel.sampling  # noqa: F401
    from targets import TARGETS

    if name not in TARGETS:
        raise SystemExit(f"unknown target {name!r}; one of: {', '.join(TARGETS)}")
    atheris.Setup([argv[0], *argv[2:]], TARGETS[name])
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
