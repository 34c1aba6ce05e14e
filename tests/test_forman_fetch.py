"""``textsel datasets --fetch forman`` against archives built here (never the network): a copy laid
out as Forman's (every set of his table's shape) is kept, every set readable afterwards; a copy
cut short, a copy with one set altered and a copy missing a set keep nothing and say why; a set
the data home already holds is left as it is; both published layouts are read."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

from textsel.cli import main
from textsel.datasets import load_forman
from textsel.datasets.forman import FORMAN_SETS
from textsel.datasets.forman_fetch import fetch_forman


def arff_text(name: str, documents=None) -> str:
    """A sparse ARFF file of Forman's set ``name``'s shape: his numbers of documents and words and
    his class sizes (documents of one class after another, each with two words), synthetic words."""
    row = FORMAN_SETS[name]
    sizes = row.class_sizes
    classes = [f"class{k}" for k in range(len(sizes))]
    lines = [f"@relation {name}"]
    lines += [f"@attribute w{j} numeric" for j in range(row.words)]
    lines += ["@attribute class {" + ",".join(classes) + "}", "@data"]
    doc = 0
    for k, size in enumerate(sizes):
        for _ in range(size):
            columns = sorted({doc % row.words, (7 * doc + 3) % row.words})
            cells = [f"{column} {n}" for n, column in enumerate(columns, 1)]
            lines.append("{" + ",".join([*cells, f"{row.words} {classes[k]}"]) + "}")
            doc += 1
    if documents is not None:
        lines = lines[: len(lines) - (row.documents - documents)]
    return "\n".join(lines) + "\n"


def cluto_files(name: str) -> dict:
    """Forman's set ``name`` in the sparse text layout: the matrix and the class file."""
    row = FORMAN_SETS[name]
    matrix = [f"{row.documents} {row.words}"] + [f"1 {d % row.words} 1" for d in range(row.documents)]
    labels = np.repeat(np.arange(len(row.class_sizes)), row.class_sizes)
    classes = [" ".join("1" if c == k else "0" for c in labels) for k in range(len(row.class_sizes))]
    return {f"sparse_{name}.txt": "\n".join(matrix) + "\n", f"{name}_correct.txt": "\n".join(classes) + "\n"}


@pytest.fixture(scope="module")
def archives(tmp_path_factory):
    """Zip archives as Forman's: ``good`` (ARFF in a folder, as the published one), ``cluto`` (two
    sets in the sparse text layout), ``altered`` (one document of oh0 gone), ``missing`` (no
    wap), ``truncated`` (the good archive cut in half)."""
    folder = tmp_path_factory.mktemp("archives")
    texts = {name: arff_text(name) for name in FORMAN_SETS}

    def build(filename, files):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            for member, text in files.items():
                z.writestr(member, text)
        (folder / filename).write_bytes(buffer.getvalue())
        return (folder / filename).as_uri()

    good = {f"19MclassTextWc/{n}.wc.arff": t for n, t in texts.items()}
    cluto = {k: v for k, v in good.items() if not k.endswith(("/la1.wc.arff", "/re1.wc.arff"))}
    for name in ("la1", "re1"):
        cluto.update({f"cluto/{member}": text for member, text in cluto_files(name).items()})
    altered = dict(good)
    altered["19MclassTextWc/oh0.wc.arff"] = arff_text("oh0", documents=FORMAN_SETS["oh0"].documents - 1)
    missing = {k: v for k, v in good.items() if "/wap." not in k}
    uris = {key: build(f"{key}.zip", files) for key, files in
            [("good", good), ("cluto", cluto), ("altered", altered), ("missing", missing)]}  # fmt: skip
    whole = (folder / "good.zip").read_bytes()
    (folder / "truncated.zip").write_bytes(whole[: len(whole) // 2])
    uris["truncated"] = (folder / "truncated.zip").as_uri()
    return uris


def test_a_copy_of_forman_s_archive_is_kept_and_every_set_reads_as_his_table(archives, tmp_path):
    kept = fetch_forman(tmp_path, url=archives["good"])
    assert [p.name for p in kept] == [f"{name}.wc.arff.gz" for name in sorted(FORMAN_SETS)]
    for name, row in FORMAN_SETS.items():
        bunch = load_forman(name, data_home=tmp_path)
        assert bunch.data.shape == (row.documents, row.words)
        assert tuple(sorted(np.unique(bunch.target, return_counts=True)[1])) == row.class_sizes
    # nothing else is left in the data home: no archive, no staging folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["forman-arff"]


def test_both_published_layouts_are_read(archives, tmp_path):
    kept = {p.name for p in fetch_forman(tmp_path, url=archives["cluto"])}
    assert {"sparse_la1.txt", "sparse_re1.txt", "oh0.wc.arff.gz"} <= kept
    assert (tmp_path / "forman-cluto" / "la1" / "la1_correct.txt").is_file()
    assert load_forman("re1", data_home=tmp_path).data.shape == (1657, 3758)


@pytest.mark.parametrize(
    ("archive", "reason"),
    [
        ("altered", r"oh0 should hold 1003 documents.*this copy holds 1002"),
        ("missing", r"holds no wap\.wc\.arff"),
        ("truncated", r"not a readable zip archive"),
    ],
)
def test_an_archive_that_is_not_forman_s_keeps_nothing_and_says_why(archives, tmp_path, archive, reason):
    with pytest.raises(ValueError, match=reason) as caught:
        fetch_forman(tmp_path, url=archives[archive])
    assert "nothing was kept" in str(caught.value)
    assert list(tmp_path.iterdir()) == []  # no set, no archive, no staging folder


def test_a_set_the_data_home_holds_is_left_as_it_is(archives, tmp_path):
    mine = tmp_path / "forman-arff" / "oh5.wc.arff"
    mine.parent.mkdir()
    mine.write_text(arff_text("oh5"))
    before = mine.read_bytes()
    fetch_forman(tmp_path, url=archives["good"])
    assert mine.read_bytes() == before
    assert not (tmp_path / "forman-arff" / "oh5.wc.arff.gz").exists()


def test_the_command_fetches_forman_s_sets_and_lists_them(archives, tmp_path, monkeypatch, capsys):
    from textsel.datasets import forman_fetch

    monkeypatch.setattr(forman_fetch, "FORMAN_URL", archives["good"])
    assert main(["datasets", "--fetch", "forman", "--data-home", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"fetched Forman's 19 sets into {tmp_path}" in out
    assert "forman-arff/ohscal.wc.arff.gz" in out
