"""A reproduction's page: the paper's claims beside textsel's numbers by the same measure."""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path

from .claims import SIZES
from .intervals import LEVEL, MIN_UNITS, cells_now, current_seed
from .power import judged_design
from .verdicts import DIFFERS, NOT_TESTED, REPRODUCES, TOO_FEW, WITHIN_NOISE, combine, grouped
from .worlds import QUICK_WORLDS, RESAMPLED_WORLDS, WORLDS

__all__ = ["POWER_NOTE", "Report", "Row", "verdict"]

#: what the power column says, under every table of judged claims
POWER_NOTE = (
    "*power*: how often this design would say *reproduces* were the claim true at the paper's size (a claim "
    "of equivalence at a difference of 0), measured in worlds remade from the row's own units where it "
    "keeps them, else read from its intervals; where the paper gives no size, the size the design finds "
    "half the time and 80% of the time (SE: each comparison's standard error).  *false “differs”*: how often "
    f"the row says *differs* in {WORLDS:,} worlds remade from its own units with the claim's quantity at its "
    f"margin ({RESAMPLED_WORLDS} for a family bootstrapped over the test documents, each world bootstrapping "
    "it again; a fair row: about 2.5%).  How both are made: [How a claim is judged](judging.md)."
)


def verdict(holds: bool, why_not: str) -> str:
    """``"reproduces"`` when the paper's claim holds here, else ``"differs: "`` and the measured
    reason."""
    return "reproduces" if holds else f"differs: {why_not}"


@dataclass
class Row:
    """One claim: where the paper makes it, its words and numbers, the measure, ours, the verdict."""

    where: str
    claim: str
    measure: str
    ours: str
    verdict: str
    interval: str = ""  # the interval of the quantity judged, where the row has one
    #: the row judges seconds or bytes measured on the machine that ran it: it moves between runs
    #: with the machine's load, whatever the seed
    timed: bool = False
    #: how often the row's design finds the claim (:mod:`textsel.reproduce.power`), where judged
    design: str = ""
    power: float | None = None
    #: the page's cells of a judged row: its intervals' numbers, and its verdict's word (with how
    #: often its design finds the claim, where under one half); the rest goes to its note
    numbers: str = ""
    said: str = ""
    #: how the row's intervals are made and over what (its note says it)
    method: str = ""

    @property
    def word(self) -> str:
        """The verdict without its reason: "reproduces", "differs" or "within noise"."""
        return self.verdict.split(":", 1)[0]


@dataclass
class Report:
    """A paper's reproduction, written as ``<key>.md`` with its figures beside it."""

    key: str  # the paper's name for ``textsel reproduce``
    title: str
    citation: str
    corpus: str
    quick: bool = False
    rows: list[Row] = field(default_factory=list)
    sections: list[tuple[str, str]] = field(default_factory=list)
    figures: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    claims: dict = field(default_factory=dict)
    #: what differs from the paper's setup (corpus, solver, preprocessing) and the rows it bears on
    stand_ins: list[tuple[str, str]] = field(default_factory=list)
    #: the seed of every random choice of the run (its splits, folds, samples and resamples)
    seed: int = field(default_factory=current_seed)
    #: whether each judged row measures its design (its power and false "differs", remade in
    #: hundreds of worlds): off where the report is itself one of many worlds (the null worlds)
    designs: bool = True

    @property
    def command(self) -> str:
        """The command that makes the page."""
        return (f"textsel reproduce {self.key} --data-home DATA" + (" --quick" if self.quick else "")
                + (f" --seed {self.seed}" if self.seed else ""))  # fmt: skip

    def add(self, where, claim, measure, ours, holds, why_not=""):
        """Add a row; ``holds`` decides the verdict, ``why_not`` gives the measured reason."""
        self.rows.append(Row(where, claim, measure, ours, verdict(holds, why_not)))

    def claim(self, key, measure, ours, holds, why_not=""):
        """Add the row of ``claims[key]`` (where the paper makes it, and its words)."""
        self.add(*self.claims[key], measure, ours, holds, why_not)

    def judge(self, key, measure, ours, cells, timed=False):
        """Add the row of ``claims[key]`` judged on intervals: ``cells`` are ``(label, interval,
        (verdict, reason))``, one per corpus or part of the claim, each verdict from a function
        of :mod:`textsel.reproduce.verdicts`; the row's verdict is their :func:`combine`.
        ``timed``: the quantity is a time or a memory size measured here (:attr:`Row.timed`)."""
        cells = list(cells)
        if not timed and len(cells) > 1 and cells_now() != len(cells):
            # a row differs where any cell does: its intervals must hold together over its cells
            raise RuntimeError(f"the row {key!r} judges {len(cells)} cells: make their intervals and judge "
                               f"it inside intervals.simultaneous({len(cells)})")  # fmt: skip
        word, reason = judged = combine(cells)
        power, design, more = (None, "", "")
        if self.designs and not timed and word not in (TOO_FEW, NOT_TESTED):
            size, unit = SIZES.get(self.key, {}).get(key, (None, ""))
            more, design, power = judged_design(judged.tests, word, size, unit,
                                                n_worlds=QUICK_WORLDS if self.quick else WORLDS)  # fmt: skip
            reason += more
        shown = [
            (label, interval) for label, interval, judged in cells if judged[0] not in (TOO_FEW, NOT_TESTED)
        ]
        numbers = "; ".join(f"{label}: {interval}" for label, interval in shown)
        method = ""
        if shown:
            hows = dict.fromkeys(interval.how or f"{LEVEL:.0%} bootstrap" for _, interval in shown)
            method = f"{', '.join(hows)} over {_units([interval.over for _, interval in shown])}"
        left = [(label, w, why) for label, _, (w, why) in cells if w in (TOO_FEW, NOT_TESTED)]
        unjudged = grouped((label, f"{'not judged' if w == TOO_FEW else 'not tested'} ({why})")
                           for label, w, why in left)  # fmt: skip
        text = "; ".join([f"{numbers} ({method})"] * bool(shown) + [unjudged] * bool(unjudged))
        if shown and left:  # the cell names what was not judged; its note says why
            numbers += "; " + grouped((label, "not judged" if w == TOO_FEW else "not tested")
                                      for label, w, _ in left)  # fmt: skip
        said = word + (f": {more[2:]}" if more else "")
        if word in (TOO_FEW, NOT_TESTED):  # the verdict says why once, with the count
            said = f"{word} ({'; '.join(dict.fromkeys(why for *_, why in left))})"
        numbers = numbers or "-"
        self.rows.append(
            Row(*self.claims[key], measure, ours, f"{word}: {reason}", text, timed, design, power, numbers,
                said, method or "none judged")
        )  # fmt: skip

    def figure_folder(self, out, figures=True) -> Path | None:
        """Where to draw the figures: ``<out>/<key>/`` (``out`` is the run's private staging
        folder, see :func:`textsel.reproduce.reproduce`); None without ``out`` or ``figures``."""
        if out is None or not figures:
            return None
        folder = Path(out) / self.key
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def finish(self, start, out=None) -> Report:
        """Record the seconds since ``start`` (``time.perf_counter``); with ``out``, write the page."""
        self.seconds = time.perf_counter() - start
        if out is not None:
            self.write(out)
        return self

    @property
    def tally(self) -> str:
        """How the claims came out: "Of 23 claims, 8 reproduce, 2 differ and 13 are within noise"
        (and how many are too few to judge, where some are)."""
        words = (REPRODUCES, DIFFERS, WITHIN_NOISE, TOO_FEW, NOT_TESTED)
        counts = {w: sum(r.word == w for r in self.rows) for w in words}

        def said(n, one, many):
            return f"{n} {one if n == 1 else many}"

        parts = [said(counts[REPRODUCES], "reproduces", "reproduce"),
                 said(counts[DIFFERS], "differs", "differ"),
                 said(counts[WITHIN_NOISE], "is within noise", "are within noise")]  # fmt: skip
        if counts[TOO_FEW]:
            parts.append(said(counts[TOO_FEW], "is too few to judge", "are too few to judge"))
        if counts[NOT_TESTED]:
            parts.append(said(counts[NOT_TESTED], "is not tested", "are not tested"))
        return f"Of {len(self.rows)} claims, " + ", ".join(parts[:-1]) + " and " + parts[-1]

    def markdown(self) -> str:
        """The page: the command and machine, the table of claims, the sections, the figures."""
        counts = {w: sum(r.word == w for r in self.rows) for w in (REPRODUCES, DIFFERS, WITHIN_NOISE)}
        judged = any(r.interval for r in self.rows)
        lines = [
            f"# {self.title}",
            "",
            f"{self.citation}",
            "",
            "Made by this command (`DATA` being the data home) "
            f"in {self.seconds:.0f} s on {_machine()}, on {time.strftime('%Y-%m-%d')}:",
            "",
            "```",
            self.command,
            "```",
            "",
            self.corpus,
            "",
        ]
        if self.quick:
            lines += [
                "**A quick run.**  It cuts the paper's settings (fewer tasks, categories, sizes or draws) to "
                "check in minutes that every experiment runs: its rows rest on fewer units than the full "
                "run's, a row on too few says so, and a row with nothing to test says *not tested*.  Read "
                "the full run's page for the verdicts.",
                "",
            ]
        if self.stand_ins:
            lines += ["What differs from the paper's setup, and the rows it bears on:", ""]
            lines += [f"- {what} ({rows})" for what, rows in self.stand_ins]
            lines += [""]
        if judged:
            lines += [
                f"{self.tally}: each row judges an interval for the quantity it is about, against the "
                "margin its measure states"
                + (
                    f"; a row resting on fewer than {MIN_UNITS} independent units (one dataset's tasks count "
                    "once) is too few to judge"
                    if any(r.word == TOO_FEW for r in self.rows)
                    else ""
                )
                + ".",
                "",
                "| # | where | textsel | interval | verdict | power |",
                "|---|---|---|---|---|---|",
            ]
            lines += [
                f"| {k} | {r.where} | {r.ours} | {r.numbers or r.interval or '-'} "
                f"| {r.said or r.verdict} | {r.design or '-'} |"
                for k, r in enumerate(self.rows, 1)
            ]
        else:
            lines += [
                f"{counts[REPRODUCES]} of {len(self.rows)} claims reproduce here; each other row says by how "
                "much it differs.",
                "",
                "| where | the paper | measured as | textsel | verdict |",
                "|---|---|---|---|---|",
            ]
            lines += [f"| {r.where} | {r.claim} | {r.measure} | {r.ours} | {r.verdict} |" for r in self.rows]
        if judged:
            lines += ["", POWER_NOTE, "", "## The rows", ""]
            lines += [self._note(k, r) + "\n" for k, r in enumerate(self.rows, 1)]
            lines[-1] = lines[-1].rstrip("\n")
        for heading, text in self.sections:
            lines += ["", f"## {heading}", "", text.strip()]
        if self.figures:
            lines += ["", "## Figures"]
            for name, caption in self.figures:
                lines += ["", f"![{caption}]({self.key}/{name})", "", f"*{caption}*"]
        return "\n".join(lines) + "\n"

    def _note(self, k: int, r: Row) -> str:
        """Row k said in full, under the table: the paper's words, the measure, how the interval
        is made, the verdict with its reason."""
        return (
            f"**{k}. {r.where}.**  The paper: {r.claim}.  *Measured as:* "
            f"{r.measure}.  *Interval:* {r.method or r.interval or 'none'}.  *Verdict:* {r.verdict}."
        )

    def write(self, folder) -> Path:
        """Write ``<folder>/<key>.md`` (the figures go to ``<folder>/<key>/``)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.key}.md"
        path.write_text(self.markdown(), encoding="utf-8")
        return path


def _units(overs: list[str]) -> str:
    """What the cells' intervals resample, once: "10 / 20 categories" for cells over 10 and over 20
    categories, in the cells' order."""
    unique = list(dict.fromkeys(overs))
    parts = [over.split(" ", 1) for over in unique]
    if all(len(p) == 2 and p[0].isdigit() for p in parts) and len({p[1] for p in parts}) == 1:
        return " / ".join(p[0] for p in parts) + " " + parts[0][1]
    return ", ".join(unique)


def _machine() -> str:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{cores} cores ({platform.machine()}, Python {platform.python_version()})"
