"""Soak: every public entry point called many times, resident memory measured.

Not in the quick run: ``--slow`` runs it with the rest, ``pytest -m soak`` alone
(``TEXTSEL_SOAK_CALLS`` sets the count, default 10,000).  After a warm-up (imports, pools,
caches), the resident set after the loop must exceed the resident set before it by less than
1 MB: no call leaks, in C, Cython or Python.
"""

import gc
import os

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import random_corpus
from sklearn.preprocessing import normalize

import textsel
from textsel.masking import evaluate_subsets
from textsel.sampling import feature_probabilities

CALLS = int(os.environ.get("TEXTSEL_SOAK_CALLS", "10000"))


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def calls():
    X, y = random_corpus(n_docs=200, n_terms=120, n_classes=3, seed=21)
    X = sp.csr_matrix(X, dtype=np.float64)
    y = np.asarray(y)
    binary = (y == 0).astype(int)
    unit = normalize(X)  # evaluate_subsets' norm="l2" expects unit-length rows
    svm = textsel.DualLinearSVC(random_state=0).fit(unit[:150], binary[:150])
    return {
        "term_stats + score": lambda: textsel.score(textsel.term_stats(X, y), "bns"),
        "lsqr": lambda: textsel.lsqr(X, binary.astype(float), damp=0.1),
        "DualLinearSVC": lambda: textsel.DualLinearSVC(random_state=0).fit(X, binary),
        "WeightedProximalSVC": lambda: textsel.WeightedProximalSVC().fit(X, y).predict(X),
        "TermSelector": lambda: textsel.TermSelector("bns", k=20).fit(X, y).transform(X),
        "ScalableTermSelector": lambda: textsel.ScalableTermSelector(k=20).fit(X, y).transform(X),
        "evaluate_subsets": lambda: evaluate_subsets(
            svm, unit[:150], binary[:150], unit[150:], binary[150:], [0.5, 1.0]
        ),
        "feature_probabilities": lambda: feature_probabilities(
            X, "ss", 5, method="randomized", random_state=0
        ),
        "bad input": lambda: pytest.raises(ValueError, textsel.term_stats, X, y[:10]),
    }


@pytest.mark.soak
@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux's /proc")
@pytest.mark.parametrize("name", list(calls()))
def test_repeated_calls_do_not_grow_resident_memory(name):
    call = calls()[name]
    for _ in range(max(100, CALLS // 10)):  # warm-up: imports, the table pool, allocator state
        call()
    gc.collect()
    before = resident_bytes()
    for _ in range(CALLS):
        call()
    gc.collect()
    growth = resident_bytes() - before
    print(f"{name}: {CALLS} calls, resident growth {growth / 1024:.0f} kB")
    assert growth < 1 << 20
