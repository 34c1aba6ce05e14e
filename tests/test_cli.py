"""The main job, ``textsel demo``, through the console entry point."""

import argparse
import subprocess
import sys

import numpy as np
import pytest

from textsel.__main__ import main


def test_demo_by_default_ranks_the_embedded_sms_spam_collection(capsys):
    """With no option and no data home the demo shows real words of a real skewed task, one list
    per metric for the binary task (BNS and chi2 score ham and spam alike), the classifier on
    held-out messages, chi2 and BNS timed against the same scores, and ends with what to try next."""
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    text = " ".join(out.split())  # the prose as words, wherever it wraps
    assert "SMS Spam Collection" in out and "'spam' 747 (13.4%)" in out
    lines = {line.split(":")[0].strip(): line.split(":", 1)[1].split() for line in out.splitlines()
             if line.strip().startswith(("bns:", "chi2:"))}  # fmt: skip
    assert set(lines) == {"bns", "chi2"} and all(len(terms) == 10 for terms in lines.values())
    assert {"claim", "prize", "txt"} <= set(lines["bns"]) and {"call", "free"} <= set(lines["chi2"])
    # no term here is marked by its absence, so the legend for '-term' is not printed
    assert not any(t.startswith("-") for terms in lines.values() for t in terms) and "'-term'" not in out
    assert "one list per metric, for 'spam'" in out
    assert "F1 of 'spam' on a held-out quarter (1,394 documents, stratified, seed 0)" in text
    assert "'spam' cut to 2% of the training set" in text and "mean of 5 draws" in text
    assert out.count("SelectKBest(chi2)   TermSelector(bns)") == 2
    assert "sklearn.feature_selection.chi2(B, y)" in out and "textsel.chi2(B, y)" in out
    assert "numpy/scipy, ndtri of the rates" in out and "x (1 - df/N)" in out
    assert out.rstrip().splitlines()[-2].startswith("Next:")


def test_demo_help_shows_a_plain_percent(capsys):
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    assert "13% spam" in " ".join(capsys.readouterr().out.split())


def test_the_held_out_f1_is_what_a_plain_pipeline_gets():
    """The demo's all-terms F1 and its SelectKBest(chi2) row are those of scikit-learn pipelines
    fitted here on the same split; the verdict's words follow the numbers."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.feature_selection import SelectKBest, chi2
    from sklearn.metrics import f1_score
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    from textsel.cli.demo import _f1_verdict, _held_out_f1
    from textsel.datasets import load_sms_spam

    sms = load_sms_spam()
    train, test, y_train, y_test = train_test_split(
        sms.data, sms.target, test_size=0.25, stratify=sms.target, random_state=0
    )
    scores = _held_out_f1(train, y_train, test, y_test, [300], positive=1)
    (everything,) = [key for key in scores if key[0] == "none"]
    for steps, key in (((), everything), ((SelectKBest(chi2, k=300),), ("chi2", 300))):
        model = make_pipeline(TfidfVectorizer(sublinear_tf=True, min_df=2), *steps, LinearSVC())
        assert scores[key] == f1_score(y_test, model.fit(train, y_train).predict(test))
    made_up = {("none", 1000): 0.90, ("chi2", 100): 0.95, ("bns", 100): 0.80}
    verdict = _f1_verdict(made_up, [100], 0.01)
    assert verdict.startswith("SelectKBest(chi2) at 100 terms beats all terms by 0.050")
    assert "BNS is above chi2 at 0 of the 1 k, below at 1, tied at 0" in verdict
    made_up["chi2", 100] = 0.85
    assert _f1_verdict(made_up, [100], 0.01).startswith("every selection costs F1")
    made_up["chi2", 100] = 0.905
    assert "ties with all terms" in _f1_verdict(made_up, [100], 0.01)


@pytest.mark.parametrize("task", ["binary", "multiclass", "multilabel"])
def test_the_timed_reference_scores_are_textsels(task):
    """What the demo times against textsel computes the same numbers: the numpy/scipy chi2 and BNS
    equal textsel's, and scikit-learn's chi2 on the presence matrix of a binary task is textsel's
    times 1 - df/N (it sums only the two cells of the 2x2 table where the term is present)."""
    import scipy.sparse as sp
    from sklearn.feature_selection import chi2 as sklearn_chi2

    import textsel
    from textsel.cli.demo import numpy_bns, numpy_chi2

    rng = np.random.default_rng(0)
    B = sp.random(300, 80, density=0.1, format="csr", random_state=1)
    B.data[:] = 1.0
    y = {"binary": rng.integers(0, 2, 300), "multiclass": rng.integers(0, 4, 300),
         "multilabel": rng.integers(0, 2, (300, 3))}[task]  # fmt: skip
    np.testing.assert_allclose(numpy_chi2(B, y), textsel.chi2(B, y), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(numpy_bns(B, y), textsel.bns(B, y), rtol=1e-12, atol=1e-12)
    if task == "binary":
        df = np.asarray(B.sum(axis=0)).ravel()
        np.testing.assert_allclose(sklearn_chi2(B, y)[0], textsel.chi2(B, y) * (1 - df / 300), rtol=1e-10)


def test_demo_on_a_multiclass_corpus_says_which_classes_it_lists(capsys):
    assert main(["demo", "--corpus", "synthetic", "--metrics", "bns,ig", "--top", "3", "--classes", "2"]) == 0
    out = capsys.readouterr().out
    assert "SYNTHETIC" in out and "the 2 largest of 6 classes; --classes 6 lists them all" in out
    assert out.count("bns:") == 2 and out.count("ig:") == 2
    assert main(["demo", "--corpus", "synthetic", "--metrics", "odds", "--top", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("odds:") == 6 and "largest of" not in out  # the default lists all six classes
    # six classes: macro-F1 on a held-out quarter, and no scikit-learn chi2 (a different score there)
    assert "macro-F1 over the classes on a held-out quarter" in " ".join(out.split()) and "Skewed" not in out
    assert "sklearn.feature_selection.chi2" not in out and "not timed here" in out


def test_demo_marks_terms_whose_absence_indicates_the_class(capsys):
    """Under metrics that score the two classes differently (F1, Acc) each class gets its own
    list, and a term is written '-term' exactly where the class's messages hold it less often
    than the other class's (checked against document frequencies counted here with numpy)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from textsel.datasets import load_sms_spam

    assert main(["demo", "--metrics", "f1,acc", "--top", "6"]) == 0
    out = capsys.readouterr().out.splitlines()
    sms = load_sms_spam()
    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
    X = (vectorizer.fit_transform(sms.data) > 0).tocsc()
    column = {t: j for j, t in enumerate(vectorizer.get_feature_names_out())}
    y = sms.target
    checked = 0
    for name, label in (("ham", 0), ("spam", 1)):
        at = out.index(next(line for line in out if line.startswith(f"class '{name}'")))
        for line in out[at + 1 : at + 3]:
            for term in line.split(":", 1)[1].split():
                j = column[term.lstrip("-")]
                in_class = X[y == label, j].sum() / (y == label).sum()
                elsewhere = X[y != label, j].sum() / (y != label).sum()
                assert term.startswith("-") == (in_class < elsewhere), (name, term)
                checked += 1
    assert checked == 24 and any(t.startswith("-") for line in out for t in line.split())
    assert "   ('-term': the term's absence, not its presence, indicates the class)" in out


def test_demo_rejects_unknown_metric(capsys):
    try:
        main(["demo", "--metrics", "bns,mi"])
    except SystemExit as exc:
        assert exc.code == 2
    assert "unknown metric" in capsys.readouterr().err


def test_demo_missing_corpus_exits_2(tmp_path, capsys):
    assert main(["demo", "--corpus", "reuters21578", "--data-home", str(tmp_path)]) == 2
    assert "not found in data home" in capsys.readouterr().err


def test_python_dash_m_entry_point():
    result = subprocess.run([sys.executable, "-m", "textsel", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "demo" in result.stdout


def _write_arff(path):
    path.write_text(
        "@relation t\n@attribute good integer\n@attribute bad integer\n@attribute film integer\n"
        "@attribute class {pos,neg}\n@data\n{0 1,2 1}\n{1 1,2 1,3 neg}\n{0 2}\n{1 1,3 neg}\n"
    )


def test_select_writes_ranked_terms(tmp_path, capsys):
    arff = tmp_path / "t.arff"
    _write_arff(arff)
    assert main(["select", str(arff), "--metric", "bns", "--k", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "rank\tcolumn\tterm\tclass\tdirection\tscore"  # binary: the one score ranked by
    assert {line.split("\t")[2] for line in lines[1:]} == {"good", "bad"}
    out = tmp_path / "sel.tsv"
    assert main(["select", str(arff), "--k", "all", "--output", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 4


def test_select_svmlight_and_cluto(tmp_path, capsys):
    from sklearn.datasets import dump_svmlight_file

    X = np.array([[1, 0, 2], [0, 1, 1], [3, 0, 0], [0, 2, 0]], float)
    y = np.array([1, 0, 1, 0])
    dump_svmlight_file(X, y, str(tmp_path / "m.svm"))
    assert main(["select", str(tmp_path / "m.svm"), "--k", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split("\t")[1] in {"0", "1"}
    (tmp_path / "m.mat").write_text("4 3 6\n1 1 3 2\n2 1 3 1\n1 3\n2 2\n")
    (tmp_path / "m.rclass").write_text("a\nb\na\nb\n")
    assert main(["select", str(tmp_path / "m.mat"), "--labels", str(tmp_path / "m.rclass"), "--k", "1"]) == 0
    assert main(["select", str(tmp_path / "m.mat"), "--k", "1"]) == 1  # CLUTO without labels
    assert "needs --labels" in capsys.readouterr().err


def test_select_errors_and_exit_codes(tmp_path, capsys):
    assert main(["select", str(tmp_path / "missing.arff")]) == 2
    arff = tmp_path / "t.arff"
    _write_arff(arff)
    assert main(["select", str(arff), "--k", "0"]) == 1
    assert "k must be >= 1" in capsys.readouterr().err
    assert main(["select", str(arff), "--k", "99"]) == 0  # every term kept, with a warning
    assert "k=99 is greater than n_features" in capsys.readouterr().err


def test_datasets_lists_the_data_home(tmp_path, capsys):
    (tmp_path / "forman-arff").mkdir()
    _write_arff(tmp_path / "forman-arff" / "x.wc.arff")
    import hashlib

    digest = hashlib.sha256((tmp_path / "forman-arff" / "x.wc.arff").read_bytes()).hexdigest()
    (tmp_path / "SHA256SUMS").write_text(f"{digest}  forman-arff/x.wc.arff\n")
    assert main(["datasets", "--data-home", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "reuters21578.tar.gz" in out and "missing" in out
    assert "forman-arff/x.wc.arff" in out and "checksum ok" in out


def _write_corpus_arff(path, seed):
    rng = np.random.default_rng(seed)
    lines = (
        ["@relation c"]
        + [f"@attribute w{j} integer" for j in range(30)]
        + ["@attribute class {a,b,c}", "@data"]
    )
    for i in range(60):
        label = "abc"[i % 3]
        cols = sorted(set(rng.choice(30, 6, replace=False).tolist()) | {"abc".index(label)})
        lines.append("{" + ",".join(f"{j} 1" for j in cols) + f",30 {label}" + "}")
    path.write_text("\n".join(lines) + "\n")


def test_study_writes_tables_and_figures(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    _write_corpus_arff(tmp_path / "one.arff", 0)
    _write_corpus_arff(tmp_path / "two.arff", 1)
    out = tmp_path / "out"
    code = main(["study", str(tmp_path / "one.arff"), str(tmp_path / "two.arff"), "--metrics", "bns,ig",
                 "--ks", "5,10", "--trials", "1", "--folds", "2", "--out", str(out)])  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "macro-averaged F1 over 6 tasks" in printed and printed.count("\n") >= 4
    for name in (
        "records.csv",
        "records.json",
        "summary.csv",
        "tolerance.csv",
        "best_pairs.csv",
        "skew.csv",
        "f1_vs_k.png",
        "tolerance.png",
        "decision_boundaries.png",
    ):
        assert (out / name).stat().st_size > 0
    assert (out / "f1_vs_k.png").read_bytes()[:4] == b"\x89PNG"


def test_study_without_datasets_is_an_error(capsys):
    assert main(["study"]) == 1
    assert "no dataset" in capsys.readouterr().err


def test_datasets_fetch_rejects_unknown_archives(tmp_path, capsys):
    assert main(["datasets", "--data-home", str(tmp_path), "--fetch", "nonsense.tar.gz"]) == 1
    assert "unknown archive" in capsys.readouterr().err


def test_study_figure_skips_a_first_dataset_without_tasks(tmp_path, capsys):
    """The decision-boundary figure is drawn for a task that was studied, even when the first
    dataset has a single class (and so no task of its own)."""
    pytest.importorskip("matplotlib")
    lines = (
        ["@relation one"]
        + [f"@attribute w{j} integer" for j in range(30)]
        + ["@attribute class {a}", "@data"]
    )
    lines += ["{" + f"{i % 30} 1,{(i + 7) % 30} 1,30 a" + "}" for i in range(20)]
    (tmp_path / "a_single.arff").write_text("\n".join(lines) + "\n")
    _write_corpus_arff(tmp_path / "b_three.arff", 2)
    out = tmp_path / "out"
    code = main(["study", str(tmp_path / "a_single.arff"), str(tmp_path / "b_three.arff"), "--metrics", "bns",
                 "--ks", "5", "--trials", "1", "--folds", "2", "--out", str(out)])  # fmt: skip
    assert code == 0
    assert (out / "decision_boundaries.png").read_bytes()[:4] == b"\x89PNG"


def test_version_and_help_show_defaults_as_values(capsys):
    """Issue 15: --version; every option's default in --help, as a value (not a Python list);
    --data-home explained everywhere; study's help counts its four figures."""
    import textsel
    from textsel.__main__ import build_parser

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"textsel {textsel.__version__}"
    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, type(parser._subparsers._group_actions[0])))
    for name, sub in subparsers.choices.items():
        text = sub.format_help()
        assert "['" not in text and "('" not in text, name
        for action in sub._actions:
            if action.option_strings and action.option_strings[0] not in ("-h",) and action.default not in (
                None, False, [], argparse.SUPPRESS):  # fmt: skip
                assert "default" in (action.help or ""), (
                    f"{name} {action.option_strings[0]}: no default shown"
                )
            if action.dest == "data_home":
                assert "TEXTSEL_DATA" in action.help
    assert "four PNG figures" in subparsers.choices["study"].format_help()


def test_select_reads_standard_input(tmp_path):
    arff = tmp_path / "t.arff"
    _write_arff(arff)
    command = [sys.executable, "-m", "textsel", "select", "-", "--input-format", "arff", "--k", "2"]
    run = subprocess.run(command, input=arff.read_bytes(), capture_output=True, check=True)
    assert {line.split(b"\t")[2] for line in run.stdout.splitlines()[1:]} == {b"good", b"bad"}
    run = subprocess.run([sys.executable, "-m", "textsel", "select", "-"], input=b"", capture_output=True)
    assert run.returncode == 1 and b"cannot tell the format (it is empty); give --input-format" in run.stderr


def test_cluto_labels_and_terms_are_found_beside_the_matrix(tmp_path, capsys):
    (tmp_path / "m.mat").write_text("4 3 6\n1 1 3 2\n2 1 3 1\n1 3\n2 2\n")
    (tmp_path / "m.mat.rclass").write_text("a\nb\na\nb\n")
    (tmp_path / "m.mat.clabel").write_text("alpha\nbeta\ngamma\n")
    assert main(["select", str(tmp_path / "m.mat"), "--k", "all"]) == 0
    terms = {line.split("\t")[2] for line in capsys.readouterr().out.splitlines()[1:]}
    assert terms == {"alpha", "beta", "gamma"}
    (tmp_path / "other.clabel").write_text("x\ny\nz\n")
    assert (
        main(["select", str(tmp_path / "m.mat"), "--k", "all", "--terms", str(tmp_path / "other.clabel")])
        == 0
    )
    assert {line.split("\t")[2] for line in capsys.readouterr().out.splitlines()[1:]} == {"x", "y", "z"}


def test_study_ks_are_checked(tmp_path, capsys):
    arff = tmp_path / "t.arff"
    _write_arff(arff)
    with pytest.raises(SystemExit) as exit_:
        main(["study", str(arff), "--ks", "5,x"])
    assert exit_.value.code == 2 and "positive integers" in capsys.readouterr().err
    assert main(["study", str(arff), "--ks", "500,900", "--trials", "1", "--folds", "2"]) == 1
    assert "every k is above the vocabulary" in capsys.readouterr().err


def test_study_tables_sorted_by_k_as_numbers(tmp_path, capsys):
    rng = np.random.default_rng(0)
    lines = (
        ["@relation r"]
        + [f"@attribute w{j} integer" for j in range(40)]
        + ["@attribute class {a,b}", "@data"]
    )
    for i in range(60):
        cols = sorted(rng.choice(40, 6, replace=False) + (0 if i % 2 else 0))
        lines.append("{" + ",".join(f"{c} 1" for c in cols) + (", 40 b" if i % 2 else "") + "}")
    (tmp_path / "r.arff").write_text("\n".join(lines) + "\n")
    args = ["study", str(tmp_path / "r.arff"), "--metrics", "bns", "--ks", "5,20,100", "--trials", "1",
            "--folds", "2", "--out", str(tmp_path / "out"), "--no-plots"]  # fmt: skip
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "k = 100 above its 40 terms" in captured.err
    summary = (tmp_path / "out" / "summary.csv").read_text().splitlines()
    ks = [int(row.split(",")[1]) for row in summary[1:]]
    assert ks == sorted(ks) == [5, 20]
