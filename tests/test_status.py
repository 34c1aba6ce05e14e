"""One status vocabulary for every compiled kernel: the ``ts_status`` enum of ``csrc/textsel.h``.

The enum is read from the header here (not from textsel), so a code added there without its
Cython declaration, its entry in ``textsel._ext.ccore.STATUS`` or its exception in
``textsel._errors`` fails this test.
"""

import pickle
import re
from pathlib import Path

import pytest

from textsel._errors import EXCEPTIONS, CoreError
from textsel._ext.ccore import STATUS, check_status
from textsel._stats import _ERRORS as COUNTING_MESSAGES

HEADER = Path(__file__).resolve().parents[1] / "csrc" / "textsel.h"
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
        check_status(code, "here")
    error = info.value
    assert isinstance(error, CoreError) and isinstance(error, BUILTIN[name])
    assert error.code == code and error.status == name and "here" in str(error)
    # raised in a worker process (Dask, joblib), it reaches the caller as it was
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is cls and str(again) == str(error) and again.code == code


def test_ok_passes_and_an_unknown_code_is_named():
    check_status(ENUM["TS_OK"], "fine")
    with pytest.raises(RuntimeError, match="unknown textsel status -99"):
        check_status(-99, "here")


def test_the_counting_kernel_faults_each_have_a_user_message():
    """The counting kernel returns these codes with a position; each becomes a message naming X."""
    for name in ("TS_ERR_NONFINITE", "TS_ERR_NEGATIVE", "TS_ERR_INDEX", "TS_ERR_INDPTR"):
        assert "X" in COUNTING_MESSAGES[ENUM[name]].format(where=0)
