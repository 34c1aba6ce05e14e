"""``textsel datasets``: what the data home holds, checked, and the canonical archives fetched."""

from __future__ import annotations

import sys

from .inputs import DATA_HOME_HELP

KNOWN_ARCHIVES = ("reuters21578.tar.gz", "20news-bydate.tar.gz")
#: --fetch's name for Forman's nineteen sets
FORMAN = "forman"


def add_parser(subparsers) -> None:
    """The ``datasets`` sub-command and its options."""
    datasets = subparsers.add_parser(
        "datasets",
        help="list the corpora in the data home, checked, and fetch the public archives",
        description="List the corpora textsel reads from the data home (Reuters-21578, 20 Newsgroups "
        "and Forman's sets in forman-arff/ and forman-cluto/), each checked against the data home's "
        "SHA256SUMS where it has one, and say how to fetch what is missing.  --fetch first downloads a "
        "public archive from its canonical address and keeps it only if its SHA-256 matches; --fetch "
        "forman downloads Forman's 19 sets (Weka's 19MclassTextWc.zip, published without a checksum) and "
        "keeps them only if every set holds the documents, words and class sizes of his table.  "
        "The SMS Spam Collection ships inside textsel and needs no data home.  Exits 2 when the "
        "data home does not exist.",
    )
    datasets.add_argument("--data-home", default=None, help=DATA_HOME_HELP)
    datasets.add_argument(
        "--fetch",
        action="append",
        default=[],
        metavar="ARCHIVE",
        help="first download a canonical archive (reuters21578.tar.gz, 20news-bydate.tar.gz, forman, or "
        "'all') into the data home, checked; needs the network; may be given more than once",
    )


def run(args, out=None):
    """List the corpora in the data home, checking SHA256SUMS where the data home has one."""
    from ..datasets import fetch, file_sha256, get_data_home
    from ..datasets.fetch import ARCHIVES

    out = out or sys.stdout
    known = [*ARCHIVES, FORMAN]
    wanted = known if "all" in args.fetch else args.fetch
    for name in wanted:
        if name not in known:
            raise ValueError(f"--fetch: unknown archive {name!r}; known: {', '.join(known)}, all")
        if name == FORMAN:
            from ..datasets.forman_fetch import fetch_forman

            kept = fetch_forman(args.data_home)
            out.write(f"fetched Forman's {len(kept)} sets into {get_data_home(args.data_home)}, each "
                      "checked against his table\n")  # fmt: skip
        else:
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
            p for p in home.rglob("*")
            if p.is_file() and (p.name.endswith((".arff", ".arff.gz"))
                                or (p.suffix == ".txt" and p.parent.parent.name == "forman-cluto"))
        )  # fmt: skip
    missing = []
    for path in candidates:
        rel = path.relative_to(home).as_posix()
        if not path.is_file():
            out.write(f"  {rel:<40} missing\n")
            missing.append(rel)
            continue
        check = ""
        if rel in sums:
            check = "  checksum ok" if file_sha256(path) == sums[rel] else "  CHECKSUM MISMATCH"
        out.write(f"  {rel:<40} {path.stat().st_size / 2**20:8.1f} MB{check}\n")
    from ..datasets import FORMAN_SETS, forman_sets

    try:
        held = forman_sets(home)
    except FileNotFoundError:  # none of them
        held = []
    if len(held) < len(FORMAN_SETS):
        out.write(f"  {'Forman sets':<40} {len(held)} of {len(FORMAN_SETS)} (--fetch forman: all)\n")
        missing.append("Forman's sets")
    out.write(f"  {'sms-spam (SMS Spam Collection)':<40} embedded in textsel: load_sms_spam()\n")
    fetch_hint = f"textsel datasets --fetch all --data-home {home} downloads {' and '.join(missing)}"
    if not home.is_dir():
        raise FileNotFoundError(f"the data home {home} does not exist: {fetch_hint} (needs the network), "
                                "or --data-home / TEXTSEL_DATA names the folder that holds them")  # fmt: skip
    if missing:
        out.write(f"to fetch what is missing: {fetch_hint} (needs the network)\n")
    return 0
