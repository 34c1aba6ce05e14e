"""The main job, ``textsel demo``, through the console entry point."""

import subprocess
import sys

from textsel.__main__ import main


def test_demo_on_the_synthetic_corpus(capsys):
    assert main(["demo", "--metrics", "bns,ig", "--top", "3", "--classes", "2"]) == 0
    out = capsys.readouterr().out
    assert "SYNTHETIC" in out
    assert out.count("bns:") == 2 and out.count("ig:") == 2
    assert "scikit-learn chi2" in out and "ratio" in out


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
