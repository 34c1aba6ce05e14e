"""Inputs read through a private copy (standard input, a pipe by name, a ``.csv.gz``) and tables
whose columns are given by position.

Proved here: a compressed stream is undone piece by piece, so the memory it takes does not grow
with its size undone (a bzip2 bomb on standard input fails on its format after its first piece; a
large gzip stream is saved whole with its peak memory far below its size); compression is told by
its real magic, so text beginning ``BZh`` is text; an error about the private copy names what the
user gave; and a first row that names the columns ``text`` and ``label`` is read as the header when
the columns are given by position, saying so.
"""

import bz2
import gzip
import hashlib
import io
import os
import subprocess
import sys
import zlib

import pytest
from conftest import write_csv

from textsel.cli import main

SPORT = ["the match ended in a goal", "a late goal won the match", "the striker scored a goal",
         "the keeper saved a penalty", "the referee stopped the match"]  # fmt: skip
FINANCE = ["shares fell as the market closed", "the market rallied and shares rose",
           "bond yields and shares in the market", "the bank raised its rates",
           "profits rose at the bank"]  # fmt: skip
ROWS = [(t, "sport") for t in SPORT] + [(t, "finance") for t in FINANCE]
MiB = 1 << 20


def _bzip2_of_zeros(size: int) -> bytes:
    """``size`` zero bytes compressed by bzip2, compressed a MiB at a time (a bomb: ~200 bytes)."""
    compressor, zeros = bz2.BZ2Compressor(9), bytes(MiB)
    return b"".join(compressor.compress(zeros) for _ in range(size // MiB)) + compressor.flush()


def _peak_kib(script: str, stdin_path) -> tuple[int, str]:
    """Run ``script`` in a fresh Python with ``stdin_path`` as standard input; the last line it
    prints on stdout is read as a number of KiB (its peak resident memory), the rest returned."""
    with open(stdin_path, "rb") as stdin:
        run = subprocess.run([sys.executable, "-c", script], stdin=stdin, capture_output=True,
                             text=True, timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stderr
    *rest, peak = run.stdout.strip().splitlines()
    return int(peak), "".join(line + "\n" for line in rest) + run.stderr


# the command line in a child process, its peak resident memory (ru_maxrss, KiB) printed last
SELECT_PEAK = """
import resource, sys
from textsel.cli import main
code = main(["select", "-", "--input-format", "csv"])
print(code)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def test_a_compression_bomb_on_standard_input_fails_on_its_format_in_bounded_memory(tmp_path):
    """256 MiB of zero bytes, bzip2-compressed to a few hundred bytes, given as CSV on standard
    input: the command used to undo all of it into one bytes object (then read a 256 MiB first
    line) before refusing it.  Now it is refused from its first piece, naming standard input, and
    its peak memory is that of the same command given 1 MiB of zeros, give or take far less than
    the bomb's size undone."""
    size = 256 * MiB
    (tmp_path / "bomb.bz2").write_bytes(_bzip2_of_zeros(size))
    (tmp_path / "small.bz2").write_bytes(_bzip2_of_zeros(MiB))
    peak, said = _peak_kib(SELECT_PEAK, tmp_path / "bomb.bz2")
    baseline, _ = _peak_kib(SELECT_PEAK, tmp_path / "small.bz2")
    assert (peak - baseline) * 1024 < size / 4, (peak, baseline)
    assert said.startswith("1\n") and "standard input (-)" in said and "--input-format" in said, said


# read_stream alone in a child process: the growth of its peak memory (KiB), the saved file's size
# and digest
SAVE_PEAK = """
import hashlib, resource, sys, tempfile
from pathlib import Path
from textsel.cli.streams import read_stream
with tempfile.TemporaryDirectory() as folder:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    saved = read_stream("-", "auto", Path(folder))
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    digest = hashlib.sha256()
    with open(saved, "rb") as fh:
        for piece in iter(lambda: fh.read(1 << 20), b""):
            digest.update(piece)
    print(saved.name, saved.stat().st_size, digest.hexdigest())
print(grown)
"""


def test_a_large_compressed_stream_is_saved_whole_in_bounded_memory(tmp_path):
    """128 MiB of CSV lines, gzip-compressed in two members (as ``cat a.gz b.gz`` makes), on
    standard input: saved whole and byte for byte into the private copy, told to be CSV by its
    first piece, while the reader's peak memory grows by far less than the size undone (it used to
    hold the compressed and the undone bytes whole)."""
    lines = b"".join(b"words of document %d,class%d\n" % (i, i % 3) for i in range(4096))
    repeats = 128 * MiB // len(lines)
    digest, members = hashlib.sha256(b"text,label\n"), []
    for half in range(2):
        compressor = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: a gzip member
        pieces = [compressor.compress(b"text,label\n")] if half == 0 else []
        for _ in range(repeats // 2):
            pieces.append(compressor.compress(lines))
            digest.update(lines)
        members.append(b"".join(pieces) + compressor.flush())
    (tmp_path / "docs.gz").write_bytes(b"".join(members))
    size = len(b"text,label\n") + len(lines) * (repeats // 2) * 2
    grown, said = _peak_kib(SAVE_PEAK, tmp_path / "docs.gz")
    assert said.split() == ["input.csv", str(size), digest.hexdigest()]
    assert grown * 1024 < size / 4, grown


# -- compression is told by its magic -------------------------------------------------------------


def _stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_text_beginning_with_bzh_on_standard_input_is_read_as_text(monkeypatch, capsys):
    """A label ``BZh`` on the first line of ``label<TAB>text`` lines used to be refused as "looks
    compressed but cannot be read": bzip2 is ``BZh``, a digit and a block's magic number."""
    lines = [f"{'BZh' if label == 'sport' else label}\t{text}\n" for text, label in ROWS]
    _stdin(monkeypatch, "".join(lines).encode())
    assert main(["select", "-", "--text-column", "1", "--label-column", "0", "--k", "3"]) == 0
    assert "BZh" in capsys.readouterr().out


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress], ids=["gzip", "bzip2"])
def test_compressed_standard_input_is_still_undone(monkeypatch, capsys, tmp_path, compress):
    """The same table compressed by gzip or bzip2 on standard input selects the same terms."""
    table = write_csv(tmp_path / "docs.csv", ROWS).read_bytes()
    _stdin(monkeypatch, table)
    assert main(["select", "-", "--k", "3"]) == 0
    plain = capsys.readouterr().out
    _stdin(monkeypatch, compress(table))
    assert main(["select", "-", "--k", "3"]) == 0
    assert capsys.readouterr().out == plain


# -- errors name what the user gave ---------------------------------------------------------------


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err and len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_an_error_about_standard_input_names_it_not_the_private_copy(monkeypatch, tmp_path, capsys):
    """A missing column in a CSV read from standard input used to be reported on
    ``<tmp>/textsel-input-XXXX/input.csv``, a file gone when the user reads the message."""
    _stdin(monkeypatch, write_csv(tmp_path / "docs.csv", ROWS).read_bytes())
    assert main(["select", "-", "--input-format", "csv", "--text-column", "body"]) == 1
    err = _error(capsys)
    assert "standard input (-): no column 'body'" in err and "textsel-input-" not in err


def test_an_error_about_a_compressed_file_names_it(tmp_path, capsys):
    """The same for a ``.csv.gz``, which is undone into a private copy: its own name is given."""
    path = tmp_path / "docs.csv.gz"
    path.write_bytes(gzip.compress(write_csv(tmp_path / "docs.csv", ROWS).read_bytes()))
    assert main(["select", str(path), "--text-column", "body"]) == 1
    err = _error(capsys)
    assert f"{path}: no column 'body'" in err and "textsel-input-" not in err


@pytest.mark.skipif(os.name != "posix", reason="/dev/fd as POSIX has it")
def test_an_error_about_a_pipe_names_the_pipe(tmp_path, capsys):
    """And for a pipe given by name (``<(command)``, ``/dev/fd/N``): the name given."""
    read_end, write_end = os.pipe()
    os.write(write_end, b"id,body\n1,a b\n")
    os.close(write_end)
    try:
        assert main(["select", f"/dev/fd/{read_end}", "--input-format", "csv"]) == 1
    finally:
        os.close(read_end)
    err = _error(capsys)
    assert f"/dev/fd/{read_end}: no column 'text', 'label'" in err and "textsel-input-" not in err


# -- a header row when the columns are given by position -----------------------------------------


def _terms(out: str) -> list[str]:
    """The terms of ``select``'s table (its third column, under a header)."""
    return [line.split("\t")[2] for line in out.strip().splitlines()[1:]]


def test_a_header_row_is_not_a_document_when_columns_are_given_by_position(tmp_path, capsys):
    """``--text-column 0 --label-column 1`` on a CSV whose first row is ``text,label`` used to
    make that row a document of class "label" whose word "text" ranked first.  The row names the
    columns textsel reads by default, so it is read as the header, and stderr says so; the
    selection is the one reading the columns by name gives."""
    path = write_csv(tmp_path / "docs.csv", ROWS)
    assert main(["select", str(path), "--k", "all"]) == 0
    by_name = capsys.readouterr().out
    assert main(["select", str(path), "--text-column", "0", "--label-column", "1", "--k", "all"]) == 0
    captured = capsys.readouterr()
    assert captured.out == by_name
    assert "text" not in _terms(captured.out)
    assert "first row" in captured.err and "header" in captured.err and "--no-header" in captured.err


def test_no_header_still_reads_a_first_row_named_text_and_label_as_a_document(tmp_path, capsys):
    """Said explicitly, ``--no-header`` reads that row as a document, and nothing is said."""
    path = write_csv(tmp_path / "docs.csv", ROWS)
    argv = ["select", str(path), "--text-column", "0", "--label-column", "1", "--k", "all"]
    assert main([*argv, "--no-header"]) == 0
    captured = capsys.readouterr()
    assert "text" in _terms(captured.out) and "header" not in captured.err


def test_a_headerless_table_by_position_is_read_whole_and_quietly(tmp_path, capsys):
    """A first row that is a document (``label<TAB>text``) is still one, with nothing said."""
    path = tmp_path / "msgs.tsv"
    path.write_text("".join(f"{label}\t{text}\n" for text, label in ROWS), encoding="utf-8")
    argv = ["select", str(path), "--text-column", "1", "--label-column", "0", "--k", "all"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "match" in _terms(captured.out) and not captured.err
