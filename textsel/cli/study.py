"""``textsel study``: Forman's feature-selection study on the user's datasets, tables and figures out."""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import warnings
from pathlib import Path

from .._lab.output import OutputFolder, folder_target
from ..names import FORMAN_KS as KS
from ..names import METRICS
from .inputs import (
    DATA_HOME_HELP,
    LABELS_HELP,
    N_JOBS_HELP,
    command_mode,
    ks_list,
    metric_list,
    n_jobs,
    positive_int,
    seed,
)
from .text import add_vectorizer_options

FORMAN_KS = ",".join(map(str, KS))

#: the files a study writes into --out, whatever its options (and ``precision_recall_k<k>.png``)
OUTPUTS = ("records.csv", "records.json", "summary.csv", "tolerance.csv", "best_pairs.csv", "skew.csv",
           "f1_vs_k.png", "tolerance.png", "decision_boundaries.png")  # fmt: skip


def add_parser(subparsers) -> None:
    """The ``study`` sub-command and its options."""
    study = subparsers.add_parser(
        "study",
        help="run Forman's feature-selection study on your datasets",
        description="Forman's protocol: every class one-vs-rest, stratified cross-validation, each "
        "metric and k selecting on the training folds only, a linear SVM on Boolean features.  "
        "Prints the macro-averaged F1 table; with --out also writes the records (CSV, JSON), the "
        "summary, tolerance, best-pair and skew tables, and four PNG figures (F1 against k, "
        "tolerance, precision against recall, the metrics' decision boundaries).",
    )
    study.add_argument("inputs", nargs="*", help="labelled matrix files (ARFF, SVMlight, CLUTO) or raw text "
                       "(.csv, .tsv, .jsonl, a folder per class)")  # fmt: skip
    study.add_argument(
        "--forman-sets",
        action="store_true",
        help="add the Forman sets of the data home (forman-arff/, forman-cluto/)",
    )
    study.add_argument("--data-home", default=None, help=DATA_HOME_HELP)
    study.add_argument("--labels", default=None, help=LABELS_HELP)
    study.add_argument("--metrics", type=metric_list, default=",".join(METRICS),
                       help="comma-separated metrics (default: all twelve)")  # fmt: skip
    study.add_argument("--ks", type=ks_list, default=FORMAN_KS,
                       help=f"comma-separated numbers of terms (default: {FORMAN_KS})")  # fmt: skip
    study.add_argument(
        "--trials", type=positive_int, default=5, help="repetitions of the cross-validation (default: 5)"
    )
    study.add_argument("--folds", type=positive_int, default=4, help="cross-validation folds (default: 4)")
    study.add_argument("--n-jobs", type=n_jobs, default=-1,
                       help=f"worker processes running the tasks (joblib): {N_JOBS_HELP}")  # fmt: skip
    study.add_argument("--seed", type=seed, default=0,
                       help="random seed of the folds, in [0, 2**32) (default: 0)")  # fmt: skip
    study.add_argument("--out", default=None, help="folder for the tables and figures (default: none)")
    study.add_argument("--no-plots", action="store_true", help="write the tables only")
    study.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="how far the run is, on stderr: a bar on a terminal, else a line per stage (the default); "
        "--no-progress: nothing",
    )
    add_vectorizer_options(study)


def _dataset_names(paths) -> list[tuple[str, str]]:
    """A name for each input: its file name up to the first dot (``oh0`` for ``oh0.arff.gz``),
    the whole file name where two stems collide, and its path where two file names do; never
    one input silently in place of another."""
    paths = [str(p) for p in paths]
    if len(set(paths)) < len(paths):
        repeated = next(p for p in paths if paths.count(p) > 1)
        raise ValueError(f"{repeated} is named twice")
    stems = [Path(p).name.split(".")[0] for p in paths]
    names = []
    for path, stem in zip(paths, stems, strict=True):
        if stems.count(stem) == 1:
            names.append(stem)
        elif [Path(p).name for p in paths].count(Path(path).name) == 1:
            names.append(Path(path).name)
        else:
            names.append(path)
    return list(zip(names, paths, strict=True))


def _study_ks(ks, datasets):
    """The ks the study can use: a k above a dataset's vocabulary is left out there with a
    warning, and one above every vocabulary is an error, never an empty table."""
    widest = max(X.shape[1] for X, _ in datasets.values())
    for name, (X, _) in datasets.items():
        above = [k for k in ks if k > X.shape[1]]
        if above:
            warnings.warn(f"{name}: k = {', '.join(map(str, above))} above its {X.shape[1]} terms; "
                          "left out for this dataset", UserWarning, stacklevel=2)  # fmt: skip
    usable = [k for k in ks if k <= widest]
    if not usable:
        raise ValueError(f"--ks: every k is above the vocabulary of every dataset (at most {widest} terms)")
    return usable


def run(args, out=None):
    """Forman's protocol on the given files (or the ARFF sets of the data home); tables out."""
    if args.out is not None:
        folder_target(args.out, "--out")  # before any work: a file there, or no way to write, is said at once
    out = out or sys.stdout
    if args.out is None:
        _run(args, out, None)
        return
    # the manifest lets the next study remove this one's files it does not write again, and only those
    with OutputFolder(
        args.out, "study", "--out", files=OUTPUTS, manifest=True, removable=_study_file, inputs=args.inputs
    ) as staging:
        written = _run(args, out, staging)
    out.write(f"wrote {', '.join(written)} to {args.out}\n")


def _study_file(name: str) -> bool:
    """Whether a study writes files of this name (what an earlier study's manifest may remove)."""
    return name in OUTPUTS or re.fullmatch(r"precision_recall_k\d+\.png", name) is not None


def _run(args, out, folder) -> list[str]:
    """Read the datasets and run the study (into ``folder``, the run's staging folder, if given)."""
    from ..datasets import forman_sets, load_forman
    from .inputs import read_dataset

    paths = list(args.inputs)
    forman = []
    if args.forman_sets:
        try:
            forman = forman_sets(args.data_home)
        except FileNotFoundError as exc:
            raise FileNotFoundError(f"--forman-sets: {exc}") from None
    if not paths and not forman:
        raise ValueError("no dataset: name matrix or text files, or pass --forman-sets")
    plots = bool(args.out) and not args.no_plots
    if plots and importlib.util.find_spec("matplotlib") is None:
        warnings.warn("the figures need matplotlib (python -m pip install matplotlib); writing the tables "
                      "only (--no-plots says so)", UserWarning, stacklevel=2)  # fmt: skip
        plots = False
    datasets = {}
    for name, path in _dataset_names(paths):
        data = read_dataset(args, path, labels=args.labels)
        datasets[name] = (data.X, data.y)
    for name in forman:
        if name in datasets:
            raise ValueError(f"{name} is named twice: as a file and as one of --forman-sets")
        datasets[name] = load_forman(name, args.data_home, return_X_y=True)
    metrics, ks = args.metrics, _study_ks(args.ks, datasets)
    return _study(args, out, datasets, metrics, ks, plots, folder)


def _study(args, out, datasets, metrics, ks, plots, folder) -> list[str]:
    """Run the study, print its table and, with ``folder``, write the tables and figures there;
    returns the names written."""
    import numpy as np

    from .. import study
    from ..termstats import term_stats

    progress = command_mode(args.progress)
    trials = study.forman(datasets, metrics=metrics, ks=ks, trials=args.trials, folds=args.folds,
                          n_jobs=args.n_jobs, random_state=args.seed, progress=progress,
                          per_trial=True)  # fmt: skip
    records = study.average_trials(trials)
    summary = study.macro_average(records)
    tolerance = study.tolerance_curve(trials)  # Forman's average maximum: best k within each trial
    table_ks = sorted({r["k"] for r in summary})
    out.write(f"macro-averaged F1 over {len({(r['dataset'], r['class']) for r in records})} tasks\n")
    out.write("metric  " + "".join(f"{k:>8}" for k in table_ks) + "\n")
    for metric in metrics:
        values = {r["k"]: r["f1"] for r in summary if r["metric"] == metric}
        out.write(f"{metric:<8}" + "".join(f"{values.get(k, float('nan')):>8.3f}" for k in table_ks) + "\n")
    if folder is None:
        return []
    study.write_csv(records, folder / "records.csv")
    study.write_json(records, folder / "records.json")
    study.write_csv(summary, folder / "summary.csv")
    study.write_csv(tolerance, folder / "tolerance.csv")
    pairs = [{"measure": measure, "pair": "+".join(row["pair"]), "share": row["share"]}
             for measure in ("accuracy", "precision", "recall", "f1")
             for row in study.best_pairs(trials, measure)]  # fmt: skip
    written = ["records.csv", "records.json", "summary.csv", "tolerance.csv"]
    if pairs:  # one metric makes no pair
        study.write_csv(pairs, folder / "best_pairs.csv")
        written.append("best_pairs.csv")
    skew = study.skew_split(records)
    if skew:
        study.write_csv(skew, folder / "skew.csv")
        written.append("skew.csv")
    if plots:
        from ..study.plots import (
            plot_decision_boundaries,
            plot_measure_vs_k,
            plot_precision_recall,
            plot_tolerance,
        )

        plot_measure_vs_k(summary, folder / "f1_vs_k.png")
        plot_tolerance(tolerance, folder / "tolerance.png")
        pr_k = min(table_ks, key=lambda k: abs(k - 1000))  # Forman's Fig. 5 is at 1000 features
        plot_precision_recall(summary, folder / f"precision_recall_k{pr_k}.png", pr_k)
        # Forman's Fig. 2 over the words of the first dataset studied, for its largest task
        # (a task of the records: both sides are non-empty)
        name = records[0]["dataset"]
        largest = max((r for r in records if r["dataset"] == name), key=lambda r: r["positives"])["class"]
        X, y = datasets[name]
        stats = term_stats(X, (np.asarray(y) == largest).astype(int), classes=[0, 1])
        top = min(pr_k, X.shape[1])
        title = f"{name}, class {largest}: boundaries of the top {top} words"
        plot_decision_boundaries(stats, folder / "decision_boundaries.png", label=1, k=top, title=title)
        written += [
            "f1_vs_k.png",
            "tolerance.png",
            f"precision_recall_k{pr_k}.png",
            "decision_boundaries.png",
        ]
    return written
