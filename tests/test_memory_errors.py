"""Allocation failure through the public entry points: MemoryError, and a process that goes on.

A child process caps its own address space (RLIMIT_AS) at what it uses plus 1 GB, then calls
each entry point with inputs whose work space exceeds that: a matrix of few stored values but
tens of millions of columns (or rows), so the inputs are small and the tables, vectors or
products are not.  Each call must raise MemoryError (the C core's TS_ERR_NOMEM becomes
``CoreMemoryError``, a MemoryError; numpy's and the table pool's failures are MemoryError
already), and a small call right after must still give the right answer.  The C core's own
failing-allocation tests (every k-th allocation, under LeakSanitizer) are in tests/c/.
"""

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as Linux applies it")

CHILD = textwrap.dedent(
    """
    import json, resource, sys, warnings
    import numpy as np, scipy.sparse as sp
    import textsel
    from textsel.masking import evaluate_subsets
    from textsel.sampling import feature_probabilities

    warnings.simplefilter("ignore")
    WIDE = 30_000_000

    def wide(n_rows, n_cols, seed=0):
        rng = np.random.default_rng(seed)
        cols = rng.integers(0, n_cols, 4 * n_rows)
        rows = np.repeat(np.arange(n_rows), 4)
        return sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_rows, n_cols))

    y = np.array([0, 1, 0, 1, 0, 1])
    X = wide(6, WIDE)
    # what the limit must not stop: fitted before it is set
    stats = textsel.term_stats(X, y)
    model = textsel.DualLinearSVC().fit(X, y)
    X_test = sp.csr_matrix((np.ones(4), (np.arange(4), np.arange(4))), shape=(20_000_000, WIDE))
    y_test = np.arange(20_000_000) % 2
    sizes = np.linspace(0.01, 1.0, 100)
    small_X = sp.csr_matrix(np.array([[1.0, 0, 2], [0, 1, 0], [1, 1, 0], [0, 0, 1]]))
    small_y = np.array([0, 1, 0, 1])
    expected = textsel.term_stats(small_X, small_y).class_df.tolist()

    def vm_size():
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024

    limit = vm_size() + (1 << 30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    huge = wide(6, 10 * WIDE)
    tall = sp.csr_matrix((np.ones(4), (np.arange(4) * 5_000_000, np.arange(4) % 3)), shape=(20_000_000, 3))
    cases = {
        "term_stats": lambda: textsel.term_stats(huge, y),
        "score": lambda: [textsel.score(stats, "bns") for _ in range(3)],
        "lsqr": lambda: textsel.lsqr(X, np.ones(6)),
        "DualLinearSVC.fit": lambda: textsel.DualLinearSVC().fit(huge, y),
        "WeightedProximalSVC.fit": lambda: textsel.WeightedProximalSVC().fit(X, y),
        "TermSelector.fit": lambda: textsel.TermSelector(k=5).fit(huge, y),
        "ScalableTermSelector.fit": lambda: textsel.ScalableTermSelector(k=5).fit(huge, y),
        "feature_probabilities": lambda: feature_probabilities(tall, k=2, method="randomized", n_iter=1),
        "evaluate_subsets": lambda: evaluate_subsets(model, X, y, X_test, y_test, sizes, ("mask",), None),
    }
    out = {}
    for name, call in cases.items():
        try:
            call()
            got = "returned"
        except MemoryError as exc:
            got = "MemoryError" + (f" ({type(exc).__name__})" if type(exc) is not MemoryError else "")
        except BaseException as exc:
            got = f"{type(exc).__name__}: {exc}"
        after = textsel.term_stats(small_X, small_y).class_df.tolist() == expected
        out[name] = [got, after]
    print(json.dumps(out))
    """
)


def test_every_entry_point_raises_memory_error_and_goes_on():
    run = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(run.stdout.strip().splitlines()[-1])
    for name, (got, after) in results.items():
        assert got.startswith("MemoryError"), f"{name}: {got}"
        assert after, f"{name}: a small call after the failure gave a wrong answer"
