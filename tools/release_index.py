"""Where a pushed git ref publishes: the release workflow's first job (.github/workflows/wheels.yml).

    python tools/release_index.py REF          # e.g. refs/tags/v0.2.0rc1

Prints ``index=pypi`` for a final release tag, ``index=testpypi`` for a pre-release tag
(``a``, ``b``, ``rc`` or ``.dev``), ``index=none`` for any other ref (a branch, a pull request),
in the ``name=value`` form GitHub Actions reads from ``$GITHUB_OUTPUT``.  A version tag that is
not ``v`` + the package's ``__version__`` (``textsel/__init__.py``) fails, before anything is
built: a release is always the version its files say.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: PEP 440's pre-release and development segments (a1, b2, rc1, .dev3)
PRE_RELEASE = re.compile(r"(a|b|rc)\d+|\.dev\d+")


def package_version(root: Path = ROOT) -> str:
    """``__version__`` as ``textsel/__init__.py`` writes it (read, not imported: nothing is built)."""
    text = (root / "textsel" / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE)
    if match is None:
        raise SystemExit('textsel/__init__.py does not set __version__ = "..."')
    return match.group(1)


def index_for(ref: str, version: str) -> str:
    """``pypi``, ``testpypi`` or ``none`` for the git ref ``ref`` of a checkout at ``version``."""
    if not ref.startswith("refs/tags/v"):
        return "none"
    tag = ref[len("refs/tags/") :]
    if tag != f"v{version}":
        raise SystemExit(f"tag {tag} is not v + the package's version ({version}): retag or bump __version__")
    return "testpypi" if PRE_RELEASE.search(version) else "pypi"


def main(argv=None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        raise SystemExit(__doc__.splitlines()[2].strip())
    print(f"index={index_for(args[0], package_version())}")


if __name__ == "__main__":
    main()
