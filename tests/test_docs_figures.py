"""The figures the docs quote agree with the tables their commands print.

`docs/which_tool.md` quotes Forman's reproduction (its macro-F1 table, printed by ``textsel
reproduce forman``) and the classifiers' table of `docs/benchmarks.md` (printed by
``benchmarks/bench_linear.py``); `docs/linear_models.md` quotes the same classifiers' table.  A
table regenerated without the pages that quote it fails here: a stale number is caught.
"""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _table(text: str, header: str) -> dict:
    """{(row name, column name): cell} of the markdown table whose header row starts ``header``
    (a repeated column name gets ", second")."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    columns = []
    for name in (c.strip() for c in lines[start].strip("|").split("|")):
        columns.append(name if name not in columns else f"{name}, second")  # 20 Newsgroups' after Reuters'
    cells = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        row = [c.strip().strip("*") for c in line.strip("|").split("|")]
        for column, value in zip(columns[1:], row[1:], strict=True):
            cells[(row[0], column)] = value
    return cells


def _section(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def test_which_tool_quotes_the_forman_pages_macro_f1_table():
    """Every macro-F1 the "Which term-selection metric" table gives, and each runner-up, is the
    Forman page's mean at that k (the runner-up at 100 terms and more: the best metric but BNS)."""
    page = _table((DOCS / "reproductions" / "forman.md").read_text(), "| metric | 10 | 20 |")
    table = _section((DOCS / "which_tool.md").read_text(), "## Which term-selection metric")
    rows = {line.split("|")[1].strip(): line for line in table.splitlines() if line.startswith("| ")}

    def at(metric, k):
        return page[(metric, str(k))]

    assert at("IG", 10) in rows["10 terms"] and f"`chi2` {at('Chi', 10)}" in rows["10 terms"]
    for k in (20, 50):
        assert f"{at('Acc2', k)} / {at('IG', k)} (k = {k})" in rows["20-50 terms"]
        assert at("OddN", k) in rows["20-50 terms"]
    others = sorted({metric for metric, _ in page} - {"BNS", "Rand"})
    for k in (100, 200, 500, 1000):
        assert f"{at('BNS', k)} ({k})" in rows["100 terms and more"], k
        runner_up = max(float(at(m, k)) for m in others)
        assert f"{runner_up:.3f}" in rows["100 terms and more"].split("at most", 1)[1], k
    assert f"{at('DFreq', 500)} at 500" in rows["a reference that ignores the labels"]


@pytest.mark.parametrize("page", ["which_tool.md", "linear_models.md"])
def test_the_classifier_figures_quoted_match_the_benchmarks_table(page):
    """The micro- and macro-F1 quoted for WeightedProximalSVC and the LinearSVCs on Reuters-21578
    and 20 Newsgroups are the benchmarks page's classifiers' table, to three decimals."""
    table = _table((DOCS / "benchmarks.md").read_text(), "| model | Reuters train s |")
    text = (DOCS / page).read_text()

    def f1(model, column):
        return f"{float(table[(model, column)]):.3f}"

    wpsvm, balanced = "WeightedProximalSVC", "LinearSVC, balanced"
    if page == "which_tool.md":
        rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| `")}
        expected = {
            "`WeightedProximalSVC`": (wpsvm, "LinearSVC (one-vs-rest)"),
            '`LinearSVC(class_weight="balanced")`': (balanced, None),
        }
        for name, (model, _) in expected.items():
            micro = f"{f1(model, 'micro-F1')}, "
            assert micro in rows[name], (name, micro)
            assert re.search(rf"\b{f1(model, 'macro-F1')}, ", rows[name]), name
        scut = f"{float(table[('WeightedProximalSVC + SCut', 'macro-F1')]):.3f}"
        assert f"best macro-F1 ({scut})" in rows["`WeightedProximalSVC`"]
    else:
        said = f"micro/macro-F1 {f1(wpsvm, 'micro-F1')}/{f1(wpsvm, 'macro-F1')} against the balanced"
        assert said in " ".join(text.split())
        assert f"LinearSVC's {f1(balanced, 'micro-F1')}/{f1(balanced, 'macro-F1')}" in " ".join(text.split())
        scut = f"{float(table[('WeightedProximalSVC + SCut', 'macro-F1')]):.3f} macro-F1 with SCut"
        assert scut in " ".join(text.split())


def _false_differs(paper: str, rows=None, documents=False) -> list[float]:
    """The false "differs" shares the page's power column gives (rows numbered ``rows``, or all),
    of the rows remade from their units (``documents``: from their test documents, in fewer
    worlds, which the column counts)."""
    found = []
    for line in (DOCS / "reproductions" / f"{paper}.md").read_text().splitlines():
        number = line.split("|")[1].strip() if line.startswith("| ") else ""
        share = re.search(r"false “differs” ([0-9.]+)%( \(\d+ worlds\))?", line)
        if number.isdigit() and share and (rows is None or int(number) in rows):
            if bool(share.group(2)) == documents:
                found.append(float(share.group(1)))
    return found


def test_the_judging_page_quotes_the_pages_false_differs_and_power():
    """The tables "What the pages show" give each paper's range of false "differs" as its page
    prints them (in worlds from the units, and from the test documents), and "How often a verdict
    could say yes" the power of Forman's Fig. 9a row as his page prints it: a page regenerated
    without the judging page fails here."""
    judging = (DOCS / "reproductions" / "judging.md").read_text()
    table = _table(_section(judging, "## Worlds from a row's own units"), "| rows | judged by |")
    column = "false “differs” in worlds from their units"
    rows = {"kolcz": "Kolcz & Chowdhury's five", "zhuang": "Zhuang et al.'s band rows",
            "forman": "Forman's fifteen judged rows"}  # fmt: skip
    for paper, row in rows.items():
        shares = _false_differs(paper)
        assert table[(row, column)] == f"{min(shares):.1f}% to {max(shares):.1f}%", paper
    column = "false “differs” in worlds that draw their units again"
    table = _table(_section(judging, "## Worlds from a row's own units"), f"| rows | judged by | {column}")

    def drawn(paper, rows):  # the shares of the page's rows ``rows`` remade in 400 worlds
        shares = _false_differs(paper, rows=rows, documents=True)
        assert len(shares) == len(rows), (paper, rows, shares)
        return shares if len(shares) < 3 else [min(shares), max(shares)]

    expected = {
        "Zhuang et al.'s micro-F1 row and Dasgupta et al.'s lambda row": (
            " and ", drawn("zhuang", {2}) + drawn("dasgupta", {1})),
        "Dasgupta et al.'s six rows on relative F1": (" to ", drawn("dasgupta", {2, 3, 4, 5, 7, 8})),
        "Li & Sun's six rows over the test documents": (" to ", drawn("li-sun", {1, 2, 3, 4, 5, 6})),
        "Li & Sun's Spearman row": ("", drawn("li-sun", {7})),
        "Zhuang et al.'s fall row": ("", drawn("zhuang", {6})),
    }  # fmt: skip
    for row, (joined, shares) in expected.items():
        assert table[(row, column)] == joined.join(f"{v:.1f}%" for v in shares), row
    forman = (DOCS / "reproductions" / "forman.md").read_text()
    fig_9a = next(line for line in forman.splitlines() if "Fig. 9a |" in line)
    power = re.search(r"\| (\d+)% at the paper's \+0.25", fig_9a).group(1)
    assert f"Fig. 9a row finds his 25-point lead {power}% of the time" in " ".join(judging.split())
