"""A reproduction's page: the paper's claims beside textsel's numbers by the same measure."""

from __future__ import annotations

import os
import platform
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Report", "Row", "verdict"]


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

    @property
    def command(self) -> str:
        """The command that makes the page."""
        return f"textsel reproduce {self.key} --data-home DATA" + (" --quick" if self.quick else "")

    def add(self, where, claim, measure, ours, holds, why_not=""):
        """Add a row; ``holds`` decides the verdict, ``why_not`` gives the measured reason."""
        self.rows.append(Row(where, claim, measure, ours, verdict(holds, why_not)))

    def claim(self, key, measure, ours, holds, why_not=""):
        """Add the row of ``claims[key]`` (where the paper makes it, and its words)."""
        self.add(*self.claims[key], measure, ours, holds, why_not)

    def figure_folder(self, out, figures=True) -> Path | None:
        """Where to draw the figures: a fresh staging folder beside ``<out>/<key>/``, which
        :meth:`finish` moves into place with the page, so that a run that fails or is interrupted
        leaves the previous page and figures as they were.  None without ``out`` or ``figures``."""
        if out is None or not figures:
            return None
        staging = Path(out) / f".{self.key}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        return staging

    def finish(self, start, out=None) -> Report:
        """Record the seconds since ``start`` (``time.perf_counter``); with ``out``, put the staged
        figures in place and write the page."""
        self.seconds = time.perf_counter() - start
        if out is not None:
            staging, final = Path(out) / f".{self.key}.partial", Path(out) / self.key
            if staging.is_dir():
                shutil.rmtree(final, ignore_errors=True)
                staging.rename(final)
            self.write(out)
        return self

    def markdown(self) -> str:
        """The page: the command and machine, the table of claims, the sections, the figures."""
        held = sum(r.verdict == "reproduces" for r in self.rows)
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
            f"{held} of {len(self.rows)} claims reproduce here; each other row says by how much it differs.",
            "",
            "| where | the paper | measured as | textsel | verdict |",
            "|---|---|---|---|---|",
        ]
        lines += [f"| {r.where} | {r.claim} | {r.measure} | {r.ours} | {r.verdict} |" for r in self.rows]
        for heading, text in self.sections:
            lines += ["", f"## {heading}", "", text.strip()]
        if self.figures:
            lines += ["", "## Figures"]
            for name, caption in self.figures:
                lines += ["", f"![{caption}]({self.key}/{name})", "", f"*{caption}*"]
        return "\n".join(lines) + "\n"

    def write(self, folder) -> Path:
        """Write ``<folder>/<key>.md`` (the figures go to ``<folder>/<key>/``, see :meth:`finish`)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.key}.md"
        partial = folder / f".{self.key}.md.partial"
        partial.write_text(self.markdown(), encoding="utf-8")
        os.replace(partial, path)  # the page is replaced whole or not at all
        return path


def _machine() -> str:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{cores} cores ({platform.machine()}, Python {platform.python_version()})"
