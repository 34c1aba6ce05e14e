"""Say on a reproduction page which rows move at another seed.

    python tools/seed_moves.py PAGE OTHER_PAGE

``PAGE`` is a page written by ``textsel reproduce PAPER`` (seed 0, the published one) and
``OTHER_PAGE`` the same paper's page written with ``--seed N``.  Writes into ``PAGE`` a section
"At another seed" naming every row whose verdict differs between the two (a row may move into or
out of "within noise"; a move between "reproduces" and "differs" is flagged, and the command exits
with status 1), replacing the section an earlier call wrote.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HEADING = "## At another seed"
OUTER = {"reproduces", "differs"}


def rows(page: str) -> dict:
    """{(number, where) or (where, claim): verdict word} of the page's table of claims."""
    out, column = {}, None
    for line in page.splitlines():
        if line.startswith(("| # | where |", "| where | the paper |")):
            column = [c.strip() for c in line.strip("|").split(" | ")].index("verdict")
        elif column is not None and not line.startswith("|"):
            break  # the table of claims ends at its first line that is not a row
        elif column is not None and not line.startswith("|---"):
            cells = line.strip("|").split(" | ")
            out[(cells[0].strip(), cells[1].strip())] = cells[column].split(":")[0].split(" (")[0].strip()
    return out


def section(page: str, other: str) -> tuple[str, list]:
    """The section's text, and the rows that moved between the outer verdicts."""
    first, second = rows(page), rows(other)
    if first.keys() != second.keys():
        raise SystemExit("the two pages do not hold the same rows: run the same version of textsel")
    seed = re.search(r"--seed (\d+)", other)
    command = re.search(r"```\n(textsel reproduce [^\n]+)\n```", other)
    moved = [(key, first[key], second[key]) for key in first if first[key] != second[key]]
    crossed = [m for m in moved if {m[1], m[2]} == OUTER]
    lines = [
        HEADING,
        "",
        f"The same run at seed {seed.group(1) if seed else '?'} (`{command.group(1) if command else '?'}`) "
        "redraws every random choice: splits, folds, samples and every interval's resamples.  "
        + (
            f"Of {len(first)} rows, {len(first) - len(moved)} keep their verdict; these move:"
            if moved
            else f"All {len(first)} rows keep their verdict."
        ),
    ]
    if moved:
        lines += [""] + [f"- {_named(key)}: {a} at seed 0, {b} there" for key, a, b in moved]
    lines += [
        "",
        "No row moves between *reproduces* and *differs*."
        if not crossed
        else f"{len(crossed)} row(s) move between *reproduces* and *differs*: their verdict rests on noise.",
    ]
    return "\n".join(lines), crossed


def _named(key) -> str:
    """A row as the section names it: "row 3 (Sec. 4.1)" on a numbered table, else its place and
    the claim's first words."""
    first, second = key
    return f"row {first} ({second})" if first.isdigit() else f"{first}, {_short(second)}"


def _short(claim: str, words=12) -> str:
    """The claim's first words, enough to find its row."""
    text = claim.split("; reading:")[0]
    parts = text.split()
    return " ".join(parts[:words]) + (' ..."' if len(parts) > words and text.startswith('"') else "")


def main(argv=None) -> int:
    page_path, other_path = (Path(p) for p in (argv or sys.argv[1:]))
    page, other = page_path.read_text(encoding="utf-8"), other_path.read_text(encoding="utf-8")
    text, crossed = section(page, other)
    if HEADING in page:  # replace an earlier call's section, up to the next one
        start = page.index(HEADING)
        end = page.find("\n## ", start + len(HEADING))
        page = page[:start] + text + ("\n\n" + page[end + 1 :] if end != -1 else "\n")
    else:  # after the table of claims and its rows' notes, before the page's first other section
        rows_at = page.find("\n## The rows")
        at = page.find("\n## ", rows_at + 1 if rows_at != -1 else 0)
        page = (
            page[:at] + "\n\n" + text + "\n" + page[at:]
            if at != -1
            else page.rstrip("\n") + "\n\n" + text + "\n"
        )
    page_path.write_text(page, encoding="utf-8")
    print(text)
    return 1 if crossed else 0


if __name__ == "__main__":
    sys.exit(main())
