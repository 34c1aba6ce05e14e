"""The five founding papers' headline results, reproduced by their own measures.

``reproduce(paper)`` (or ``textsel reproduce <paper>``) runs a paper's experiments on the corpora
of the data home and returns a :class:`~textsel.reproduce.report.Report`: for each claim of the
paper that those corpora allow, the paper's words and numbers, textsel's number by the same
measure, and a verdict.  With ``out`` it writes ``<out>/<paper>.md`` and the figures beside it.
"""

from __future__ import annotations

import importlib

from .._lab.output import OutputFolder
from ..names import REPRODUCTIONS
from .report import Report, Row, verdict

__all__ = ["PAPERS", "Report", "Row", "reproduce", "verdict"]

#: the papers with a reproduction, by the name ``textsel reproduce`` takes
PAPERS = {name: name.replace("-", "_") for name in REPRODUCTIONS}


def reproduce(
    paper,
    data_home=None,
    out=None,
    quick=False,
    n_jobs=None,
    progress=False,
    figures=True,
    seed=0,
    *,
    _option="out",
) -> Report:
    """Run one paper's reproduction.

    Parameters
    ----------
    paper : str
        One of :data:`PAPERS`.
    data_home : path, optional
        Where the corpora are (default: ``$TEXTSEL_DATA``, see :func:`textsel.datasets.get_data_home`).
    out : path, optional
        Write ``<out>/<paper>.md`` and its figures (in ``<out>/<paper>/``, needs matplotlib).  The
        folder is checked before any work; the page and figures are written aside and put in place
        when the run succeeds, and not at all when it fails.  An earlier run's figures that this
        run does not draw are removed if unchanged (a manifest in textsel's state folder records
        them, never a file among the results); the user's other files are never touched.  A
        second run writing the same paper into the same folder meanwhile stops at once
        (``OutputBusyError``).
    quick : bool, default False
        One trial and fewer settings: a check that everything runs, not the page's numbers.
    n_jobs : int, optional
        Worker processes (joblib); None uses every core.
    progress : bool or {"bar", "lines"}, default False
        Report on stderr how far the run is: True or "bar" a bar over the tasks (a line at each
        tenth without tqdm), "lines" a line per stage (for a log; ``textsel reproduce`` off a
        terminal).
    figures : bool, default True
        Draw the figures (with ``out``; needs matplotlib).
    seed : int, default 0
        The seed of every random choice of the run: its splits, cross-validation folds, samples,
        SVMs' coordinate order and the bootstrap resamples of its intervals.  Another seed is a
        rerun whose verdicts may move into or out of "within noise", never from "reproduces" to
        "differs" beyond the intervals' error rate.

    Returns
    -------
    Report
    """
    if not isinstance(paper, str) or paper not in PAPERS:
        raise ValueError(f"paper must be one of {tuple(PAPERS)}, got {paper!r}")
    module = importlib.import_module(f".{PAPERS[paper]}", __name__)
    settings = dict(data_home=data_home, quick=quick, n_jobs=n_jobs, progress=progress, figures=figures,
                    seed=seed)  # fmt: skip
    if out is None:
        return module.run(out=None, **settings)
    with OutputFolder(
        out, paper, _option, files=(f"{paper}.md",), folders=(paper,), manifest=True
    ) as staging:
        return module.run(out=staging, **settings)
