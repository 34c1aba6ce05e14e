"""``textsel datasets``: what the data home holds, checked, and the canonical archives fetched."""

from __future__ import annotations

import sys

from .inputs import DATA_HOME_HELP

KNOWN_ARCHIVES = ("reuters21578.tar.gz", "20news-bydate.tar.gz")


def add_parser(subparsers) -> None:
    """The ``datasets`` sub-command and its options."""
    datasets = subparsers.add_parser("datasets", help="list the corpora in the data home")
    datasets.add_argument("--data-home", default=None, help=DATA_HOME_HELP)
    datasets.add_argument(
        "--fetch",
        action="append",
        default=[],
        metavar="ARCHIVE",
        help="first download a canonical archive (reuters21578.tar.gz, 20news-bydate.tar.gz, or 'all') "
        "into the data home, checksummed; needs the network",
    )


def run(args, out=None):
    """List the corpora in the data home, checking SHA256SUMS where the data home has one."""
    from ..datasets import get_data_home
    from ..datasets.fetch import ARCHIVES, _sha256, fetch

    out = out or sys.stdout
    wanted = list(ARCHIVES) if "all" in args.fetch else args.fetch
    for name in wanted:
        if name not in ARCHIVES:
            raise ValueError(f"--fetch: unknown archive {name!r}; known: {', '.join(ARCHIVES)}")
        out.write(f"fetched {fetch(name, args.data_home)}\n")
    home = get_data_home(args.data_home)
    out.write(f"data home: {home}{'' if home.is_dir() else ' (missing)'}\n")
    sums = {}
    if (home / "SHA256SUMS").is_file():
        for line in (home / "SHA256SUMS").read_text().splitlines():
            parts = line.split()
            if len(parts) == 2:
                sums[parts[1].lstrip("*")] = parts[0]
    candidates = [home / name for name in KNOWN_ARCHIVES]
    if home.is_dir():
        candidates += sorted(
            p for p in home.rglob("*") if p.is_file() and p.name.endswith((".arff", ".arff.gz"))
        )
    for path in candidates:
        rel = path.relative_to(home).as_posix()
        if not path.is_file():
            out.write(f"  {rel:<40} missing\n")
            continue
        check = ""
        if rel in sums:
            check = "  checksum ok" if _sha256(path) == sums[rel] else "  CHECKSUM MISMATCH"
        out.write(f"  {rel:<40} {path.stat().st_size / 2**20:8.1f} MB{check}\n")
    return 0
