"""The table pool behind term_stats' and score's large outputs (textsel/_ext/pool.pyx)."""

import pickle

import numpy as np
import pytest

import textsel
from textsel._ext import pool as _tables


def address(a):
    return a.__array_interface__["data"][0]


@pytest.fixture(autouse=True)
def empty_pool():
    _tables.release_pool()
    yield
    _tables.release_pool()


def test_a_dropped_table_is_reused_and_live_tables_never_share():
    a = _tables.empty((300, 1000), np.int64)
    first = address(a)
    b = _tables.empty((300, 1000), np.float64)
    assert address(b) != first  # a is alive: its block is not handed out again
    a[...] = 7
    b[...] = 1.5
    assert (a == 7).all() and (b == 1.5).all()
    view = a[10:20]
    del a
    assert _tables.pool_state() == (0, 0)  # the view keeps the block alive
    del view
    assert _tables.pool_state() == (1, 300 * 1000 * 8)
    c = _tables.empty((300, 1000), np.float64)
    assert address(c) == first and _tables.pool_state() == (0, 0)
    assert c.flags.writeable and c.flags.c_contiguous and c.shape == (300, 1000)


def test_the_pool_is_bounded_and_small_tables_bypass_it():
    tables = [_tables.empty((1000, 1000)) for _ in range(_tables.POOL_BLOCKS + 3)]
    del tables
    blocks, held = _tables.pool_state()
    assert blocks == _tables.POOL_BLOCKS and held == blocks * 8_000_000
    huge = _tables.empty((20, 1 << 20))  # 160 MB: above the pool's byte limit, freed on drop
    del huge
    assert _tables.pool_state()[1] <= 128 << 20
    small = _tables.empty((10, 10))
    assert small.base is None and _tables.pool_state()[0] == blocks
    # a block more than twice the size asked for (8 MB for 1.6 MB) stays in the pool
    mid = _tables.empty((200, 1000))
    assert mid.shape == (200, 1000) and _tables.pool_state()[0] == blocks


def test_pooled_tables_pickle_and_results_stay_exact():
    """term_stats and score on pooled tables equal a brute-force count, call after call, while
    earlier results stay alive and unchanged."""
    rng = np.random.default_rng(0)
    import scipy.sparse as sp

    X = sp.random(400, 3000, density=0.02, format="csr", random_state=1)
    y = rng.integers(0, 60, 400)  # 60 x 3000 int64: 1.4 MB, pooled
    presence = (X.toarray() != 0).astype(np.int64)
    expected = np.stack([presence[y == c].sum(axis=0) for c in np.unique(y)])
    kept = []
    for _ in range(5):
        stats = textsel.term_stats(X, y)
        np.testing.assert_array_equal(stats.class_df, expected)
        kept.append(stats.class_df)
        bns = textsel.score(stats, "bns")
        del stats, bns
    for table in kept:
        np.testing.assert_array_equal(table, expected)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(kept[0])), expected)
