"""``textsel select`` and ``textsel datasets``: the command line's file-based tools."""

from __future__ import annotations

import csv
import io
import json
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from .cli_text import column_names, vectorize
from .datasets import get_data_home, load_arff, load_cluto, load_svmlight
from .datasets.fetch import ARCHIVES, _sha256, fetch
from .datasets.texts import TEXT_FORMATS, load_texts, text_format
from .selection import TermSelector
from .termstats import term_stats

FORMATS = ("auto", "arff", "svmlight", "cluto")
INPUT_FORMATS = FORMATS + tuple(f for f in TEXT_FORMATS if f != "auto")
OUTPUT_FORMATS = ("tsv", "csv", "json")
KNOWN_ARCHIVES = ("reuters21578.tar.gz", "20news-bydate.tar.gz")


SVMLIGHT_SUFFIXES = (".svm", ".svmlight", ".libsvm", ".txt", ".dat", ".data", ".scale", ".t")
SUPPORTED = ("ARFF (.arff, .arff.gz), SVMlight (.svm, .svmlight, .libsvm, .txt, .dat, or "
             "--input-format svmlight), CLUTO (.mat) and raw text (.csv, .tsv, .jsonl, a folder with one "
             "sub-folder per class)")  # fmt: skip


def matrix_format(path) -> str:
    """The matrix format a file name says (compressed SVMlight included), or a ValueError naming
    the formats textsel reads."""
    name = Path(path).name.lower()
    if name.endswith((".arff", ".arff.gz")):
        return "arff"
    if name.endswith(".mat"):
        return "cluto"
    stem = name.removesuffix(".gz").removesuffix(".bz2")
    if "." not in stem or stem.endswith(SVMLIGHT_SUFFIXES):
        return "svmlight"
    raise ValueError(f"{path}: unsupported format; textsel reads {SUPPORTED}")


def _beside(path: Path, given, suffix: str):
    """A CLUTO companion file: the one given, else ``<matrix><suffix>`` when it exists."""
    if given is not None:
        return given
    candidate = path.with_name(path.name + suffix)
    return candidate if candidate.is_file() else None


def read_matrix(path, fmt="auto", labels=None, terms=None):
    """(X, y, feature names or None) from an ARFF, SVMlight or CLUTO file.  A CLUTO matrix's
    row classes and column labels default to the ``.rclass`` and ``.clabel`` files beside it."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    if fmt == "auto":
        fmt = matrix_format(path)
    if fmt == "arff":
        b = load_arff(path)
        return b.X, b.y, b.feature_names
    if fmt == "cluto":
        labels = _beside(path, labels, ".rclass")
        if labels is None:
            raise ValueError(f"a CLUTO matrix needs --labels (its .rclass file; none at {path}.rclass)")
        b = load_cluto(path, classes_path=labels, terms_path=_beside(path, terms, ".clabel"))
        return b.X, b.y, b.feature_names
    b = load_svmlight(path)
    return b.X, b.y, None


def is_text_input(path, fmt="auto") -> bool:
    """Whether ``path`` is raw text (CSV/TSV, JSON Lines, a folder per class), by ``fmt`` or name."""
    if fmt != "auto":
        return fmt in TEXT_FORMATS
    return text_format(path) is not None


#: the file ending standard input is saved under, for each format (``textsel select -``)
STDIN_SUFFIX = {"arff": ".arff", "svmlight": ".svm", "cluto": ".mat", "csv": ".csv", "tsv": ".tsv",
                "jsonl": ".jsonl"}  # fmt: skip


def read_dataset(args, path, fmt="auto", labels=None, terms=None) -> Bunch:
    """A matrix file, or raw text vectorized as the options say, as a Bunch: ``X``, ``y``,
    ``names`` (feature names, or None: hashed or unnamed columns), ``texts`` and ``vectorizer``
    (None for a matrix file) and ``class_names`` (the label of each indicator column of a
    multi-label ``y``, else None)."""
    if str(path) == "-":
        return _from_stdin(args, fmt, labels, terms)
    if not is_text_input(path, fmt):
        X, y, names = read_matrix(path, fmt, labels, terms)
        return Bunch(X=X, y=y, names=names, texts=None, vectorizer=None, class_names=None)
    b = load_texts(path, text_column=args.text_column, label_column=args.label_column,
                   label_separator=args.label_separator, fmt=fmt, encoding=args.encoding)  # fmt: skip
    X, names, vectorizer = vectorize(b.texts, args)
    return Bunch(X=X, y=b.y, names=names, texts=b.texts, vectorizer=vectorizer,
                 class_names=b.target_names if b.multilabel else None)  # fmt: skip


def _from_stdin(args, fmt, labels, terms) -> Bunch:
    """Standard input, saved to a temporary file of the format ``--input-format`` names."""
    if fmt not in STDIN_SUFFIX:
        raise ValueError(f"reading standard input (-) needs --input-format, one of {', '.join(STDIN_SUFFIX)}")
    with tempfile.TemporaryDirectory(prefix="textsel-stdin-") as folder:
        saved = Path(folder) / f"stdin{STDIN_SUFFIX[fmt]}"
        saved.write_bytes(sys.stdin.buffer.read())
        return read_dataset(args, saved, fmt, labels, terms)


def selection_records(selector, names, class_names=None):
    """One record per selected term: rank, column, term, combined score, and each class's score."""
    classes = [str(c) for c in (selector.classes_ if class_names is None else class_names)]
    records = []
    for rank, (column, term) in enumerate(zip(selector.ranking_, names, strict=True), 1):
        record = {
            "rank": rank,
            "column": int(column),
            "term": str(term),
            "score": float(selector.scores_[column]),
        }
        record["class_scores"] = dict(zip(classes, map(float, selector.score_table_[:, column]), strict=True))
        records.append(record)
    return records


def format_selection(records, fmt: str) -> str:
    """The records as tab- or comma-separated lines (a ``score[class]`` column per class) or JSON."""
    if fmt == "json":
        return json.dumps(records, indent=1) + "\n"
    buffer = io.StringIO()
    classes = list(records[0]["class_scores"]) if records else []
    writer = csv.writer(buffer, delimiter="\t" if fmt == "tsv" else ",", lineterminator="\n")
    writer.writerow(["rank", "column", "term", "score", *(f"score[{c}]" for c in classes)])
    for r in records:
        writer.writerow([r["rank"], r["column"], r["term"], f"{r['score']:.6g}",
                         *(f"{r['class_scores'][c]:.6g}" for c in classes)])  # fmt: skip
    return buffer.getvalue()


def run_select(args, out=None):
    """Select terms and write them with their scores (overall and per class) as TSV, CSV or JSON."""
    out = out or sys.stdout
    data = read_dataset(args, args.input, args.input_format, args.labels, args.terms)
    if args.k is not None and args.percentile is not None:
        raise ValueError("give --k or --percentile, not both")
    k = 100 if args.k is None else "all" if args.k == "all" else _int_option(args.k, "--k")
    selector = TermSelector(args.metric, k=k, percentile=args.percentile, multiclass=args.multiclass)
    selector.fit(data.X, data.y)
    if data.texts is not None:
        terms = column_names(data.names, data.vectorizer, data.texts, selector.ranking_)
    else:
        terms = [data.names[c] if data.names is not None else "" for c in selector.ranking_]
    text = format_selection(selection_records(selector, terms, data.class_names), args.format)
    if args.output:
        Path(args.output).write_text(text)
    else:
        out.write(text)


def _int_option(text, name):
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{name} must be an integer or 'all', got {text!r}") from None


def run_datasets(args, out=None):
    """List the corpora in the data home, checking SHA256SUMS where the data home has one."""
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


def run_study(args, out=None):
    """Forman's protocol on the given files (or the ARFF sets of the data home); tables out."""
    from . import study

    out = out or sys.stdout
    datasets = {}
    paths = list(args.inputs)
    if args.forman_sets:
        home = get_data_home(args.data_home) / "forman-arff"
        paths += sorted(str(p) for p in home.glob("*.arff*"))
    if not paths:
        raise ValueError("no dataset: name matrix files or pass --forman-sets")
    for path in paths:
        data = read_dataset(args, path, labels=args.labels)
        datasets[Path(path).name.split(".")[0]] = (data.X, data.y)
    metrics, ks = args.metrics, _study_ks(args.ks, datasets)
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    records = study.forman(datasets, metrics=metrics, ks=ks, trials=args.trials, folds=args.folds,
                           n_jobs=args.n_jobs, random_state=args.seed, progress=progress)  # fmt: skip
    summary = study.macro_average(records)
    tolerance = study.tolerance_curve(records)
    table_ks = sorted({r["k"] for r in summary})
    out.write(f"macro-averaged F1 over {len({(r['dataset'], r['class']) for r in records})} tasks\n")
    out.write("metric  " + "".join(f"{k:>8}" for k in table_ks) + "\n")
    for metric in metrics:
        values = {r["k"]: r["f1"] for r in summary if r["metric"] == metric}
        out.write(f"{metric:<8}" + "".join(f"{values.get(k, float('nan')):>8.3f}" for k in table_ks) + "\n")
    if args.out:
        folder = Path(args.out)
        folder.mkdir(parents=True, exist_ok=True)
        study.write_csv(records, folder / "records.csv")
        study.write_json(records, folder / "records.json")
        study.write_csv(summary, folder / "summary.csv")
        study.write_csv(tolerance, folder / "tolerance.csv")
        pairs = [{"measure": measure, "pair": "+".join(row["pair"]), "share": row["share"]}
                 for measure in ("accuracy", "precision", "recall", "f1")
                 for row in study.best_pairs(records, measure)]  # fmt: skip
        written = ["records.csv", "records.json", "summary.csv", "tolerance.csv"]
        if pairs:  # one metric makes no pair
            study.write_csv(pairs, folder / "best_pairs.csv")
            written.append("best_pairs.csv")
        skew = study.skew_split(records)
        if skew:
            study.write_csv(skew, folder / "skew.csv")
            written.append("skew.csv")
        if not args.no_plots:
            from .plots import (
                plot_decision_boundaries,
                plot_measure_vs_k,
                plot_precision_recall,
                plot_tolerance,
            )

            plot_measure_vs_k(summary, folder / "f1_vs_k.png")
            plot_tolerance(tolerance, folder / "tolerance.png")
            pr_k = min(table_ks, key=lambda k: abs(k - 100))  # Forman's Fig. 5 uses k = 100
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
        out.write(f"wrote {', '.join(written)} to {folder}\n")
