"""One status vocabulary and one route to Python for every compiled kernel.

The codes are the ``ts_status`` enum of ``csrc/textsel.h``, read from the header here (not from
textsel), so a code added there without its Cython declaration, its entry in
``textsel._ext.ccore.STATUS`` or its exception in ``textsel._errors`` fails this test.  Every
kernel (the C core's solvers and products, the counting, scoring, ranking and curve kernels, the
table pool) returns such a code, and ``ccore.check_status`` alone turns one into an exception:
the source is read for any other route, and each kernel's faults are provoked through the public
call a user makes and must arrive as that status's exception, with the position and block where
the kernel reports them.
"""

import pickle
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import textsel
from textsel._errors import (
    EXCEPTIONS,
    CoreArgumentError,
    CoreError,
    CoreIndexError,
    CoreIndptrError,
    CoreNegativeError,
    CoreNonFiniteError,
    CoreValueError,
)
from textsel._ext.ccore import STATUS, check_status

ROOT = Path(__file__).resolve().parents[1]
HEADER = ROOT / "csrc" / "textsel.h"
BUILTIN = {
    "TS_ERR_ARG": ValueError,
    "TS_ERR_NOMEM": MemoryError,
    "TS_ERR_INDEX": ValueError,
    "TS_ERR_NONFINITE": ValueError,
    "TS_ERR_CALLBACK": RuntimeError,
    "TS_ERR_INTERRUPTED": KeyboardInterrupt,
    "TS_ERR_NEGATIVE": ValueError,
    "TS_ERR_INDPTR": ValueError,
}


def header_enum() -> dict[str, int]:
    body = re.search(r"enum ts_status \{(.*?)\};", HEADER.read_text(), re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    return {name: int(value) for name, value in re.findall(r"(TS_\w+)\s*=\s*(-?\d+)", body)}


ENUM = header_enum()


def test_the_compiled_status_table_is_the_header_enum():
    assert len(ENUM) >= 9 and ENUM["TS_OK"] == 0
    assert STATUS == ENUM


def test_every_error_code_has_an_exception_and_nothing_else_does():
    assert set(EXCEPTIONS) == set(ENUM) - {"TS_OK"}


@pytest.mark.parametrize("name", sorted(set(ENUM) - {"TS_OK"}))
def test_each_code_raises_its_exception(name):
    code = ENUM[name]
    cls = EXCEPTIONS[name][0]
    with pytest.raises(cls) as info:
        check_status(code, "here", position=7, block=2)
    error = info.value
    assert isinstance(error, CoreError) and isinstance(error, BUILTIN[name])
    assert error.code == code and error.status == name and "here" in str(error)
    assert "TS_" not in str(error) and str(code) not in str(
        error
    )  # the user's words; the code is an attribute
    assert (error.position, error.block) == (7, 2)
    # raised in a worker process (Dask, joblib), it reaches the caller as it was
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is cls and str(again) == str(error) and again.code == code
    assert (again.position, again.block) == (7, 2)


def test_ok_passes_and_an_unknown_code_is_named():
    check_status(ENUM["TS_OK"], "fine")
    with pytest.raises(RuntimeError, match="unknown textsel status -99"):
        check_status(-99, "here")


def test_a_recorded_interrupt_wins_over_any_failed_status():
    """A kernel stopped by Ctrl-C (or by what an operator callback raised) reports a failed
    status; what was recorded is raised, whatever the code, so a thread stopped early cannot turn
    the user's Ctrl-C into another thread's data error."""
    from textsel._ext.ccore import Interrupt

    stop = Interrupt()
    stop.error = KeyboardInterrupt("from the handler")
    for name in ("TS_ERR_INTERRUPTED", "TS_ERR_CALLBACK", "TS_ERR_NONFINITE"):
        with pytest.raises(KeyboardInterrupt, match="from the handler"):
            check_status(ENUM[name], "here", stop)
    check_status(ENUM["TS_OK"], "here", stop)  # a kernel that finished is not an error


# -- the source: one route ------------------------------------------------------------------------

SOURCES = sorted(p for p in (ROOT / "textsel").rglob("*") if p.suffix in (".py", ".pyx", ".pxd"))


def _uses(pattern: str) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in SOURCES if re.search(pattern, p.read_text())]


def test_statuses_become_exceptions_in_one_function():
    """``status_error`` builds every status's exception; ``check_status`` is its one caller for
    a kernel's code (count_blocks also uses it for the faults it finds before its kernel runs)."""
    assert _uses(r"\bstatus_error\(") == ["textsel/_errors.py", "textsel/_ext/ccore.pyx", "textsel/_stats.py"]
    # no kernel raises MemoryError past the route (its codes of its own are checked below, by
    # provoking each kernel's faults)
    assert _uses(r"raise MemoryError") == []


def test_one_interrupt_check_is_defined_and_every_looping_kernel_uses_it():
    assert _uses(r"PyErr_CheckSignals\(\)") == ["textsel/_ext/interrupts.pxd"]
    users = set(_uses(r"cimport stop_requested"))
    for kernel in ("ccore", "counting", "curves", "ranking", "scoring"):
        assert f"textsel/_ext/{kernel}.pyx" in users, kernel


# -- every kernel's faults, through the call a user makes ---------------------------------------


@pytest.mark.parametrize(
    "fault, cls, message",
    [
        ("nan", CoreNonFiniteError, "X contains NaN or infinity (stored value at position 3)"),
        ("negative", CoreNegativeError, "Negative values in data passed to X (stored value at position 3)"),
        ("index", CoreIndexError, "X.indices holds a column index out of range at position 3"),
        ("indptr", CoreIndptrError, "X.indptr is not a valid CSR row pointer"),
        ("start", CoreIndptrError, "X.indptr is not a valid CSR row pointer (row 0)"),
        ("width", CoreArgumentError, "X has 29 terms but the first block has 30"),
    ],
)
def test_the_counting_kernel_reports_its_status_block_and_position(fault, cls, message):
    """count_blocks: each fault is its status's exception (the public ``BlockValueError`` is their
    base), naming X, the stored value or row, and the block."""
    from textsel.termstats import BlockValueError, count_blocks

    rng = np.random.default_rng(0)
    X = sp.random(90, 30, density=0.3, format="csr", random_state=1, dtype=np.float64)
    y = rng.integers(0, 2, 90)
    blocks = [X[:30].copy(), X[30:60].copy(), X[60:].copy()]
    bad = blocks[1]
    if fault == "nan":
        bad.data[3] = np.nan
    elif fault == "negative":
        bad.data[3] = -1.0
    elif fault == "index":
        bad.indices[3] = 99
    elif fault == "indptr":
        bad.indptr[5] = bad.indptr[-1] + 7
    elif fault == "start":
        bad.indptr = bad.indptr + 1
    else:
        blocks[1] = bad[:, :-1]
    with pytest.raises(cls) as caught:
        count_blocks(blocks, y)
    error = caught.value
    assert isinstance(error, BlockValueError) and BlockValueError is CoreValueError
    assert error.block == 1 and message in str(error)
    if fault in ("nan", "negative", "index"):
        assert error.position == 3 and error.code == STATUS[cls.status]


def test_the_scoring_kernel_reports_inconsistent_counts_and_row_scorer_the_same():
    stats = textsel.term_stats(sp.csr_matrix(np.eye(4)), np.array([0, 0, 1, 1]))
    broken = textsel.TermStats(
        stats.class_df * 5, stats.df, stats.class_sizes, stats.n_docs, stats.classes, False
    )
    for metric in ("bns", "chi2"):
        with pytest.raises(CoreArgumentError, match="inconsistent counts") as caught:
            textsel.score(broken, metric)
        assert caught.value.code == STATUS["TS_ERR_ARG"]
        fill = textsel.metrics.row_scorer(broken, metric)
        with pytest.raises(CoreArgumentError, match="inconsistent counts"):
            fill(0, np.empty(4))


def test_the_ranking_kernel_reports_heads_that_miss_terms():
    """A head that leaves out a term scoring above its guess makes the class run out of terms:
    the merge's TS_ERR_ARG, not a private code."""
    from textsel._ext.ranking import round_robin

    table = np.array([[3.0, 2.0, 1.0]])
    with pytest.raises(CoreArgumentError, match="ran out of terms") as caught:
        round_robin(table, [np.array([0], dtype=np.int64)], np.array([1.5]), 3)
    assert caught.value.code == STATUS["TS_ERR_ARG"]
    assert list(round_robin(table, [np.array([0, 1], dtype=np.int64)], np.array([1.5]), 3)) == [0, 1, 2]


def test_the_c_core_reports_its_status_through_the_solver_entry():
    """The C core's own check of a row group's buffers (the public call's route is in test_lsqr)."""
    from textsel._ext.rowblocks import RowGroup

    X = sp.csr_matrix(np.eye(3))
    X.indices[1] = 7
    with pytest.raises(CoreIndexError, match="lsqr") as caught:
        RowGroup(X.data, X.indices, X.indptr, X.shape[1], False, np.zeros((1, 3)), None)
    assert caught.value.code == STATUS["TS_ERR_INDEX"]


def test_an_operator_callback_error_is_raised_as_it_was():
    """The C solver's TS_ERR_CALLBACK: what the Python row operator raised reaches the caller."""
    from textsel._ext.ccore import lsqr_rowop

    class Failing:
        def start(self, *args):
            raise ZeroDivisionError("from the operator")

        step = start

    with pytest.raises(ZeroDivisionError, match="from the operator"):
        lsqr_rowop(Failing(), 3, 2, False, 1, np.zeros(1), 1e-8, 1e-8, 1e8, 10)
