"""textsel on Dask: every distributed entry point against the in-memory call on the same data.

The tests start their own LocalCluster(n_workers=2, threads_per_worker=1, processes=True); the
worker-loss tests start a second one, since they kill its worker processes.
"""

import os
import subprocess
import sys
import time

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("distributed")
import dask.array as da  # noqa: E402
from dask_corpus import client_fixture, corpus, dask_matrix, relative, uneven  # noqa: E402
from distributed import Client, LocalCluster, wait  # noqa: E402
from joblib import parallel_backend  # noqa: E402
from sklearn.base import clone  # noqa: E402

import textsel  # noqa: E402
from textsel.distributed import BlockMatrix  # noqa: E402
from textsel.study import forman  # noqa: E402

UNEVEN = uneven(3000)  # (700, 0, 1100, 1, 1199): an empty block and a one-row one among them


client = client_fixture("client", "module")


def test_import_textsel_does_not_import_dask():
    code = (
        "import sys, textsel; sys.exit(any(m.split('.')[0] in ('dask', 'distributed') for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_submodules_are_attributes_loaded_on_first_use():
    """``textsel.sampling`` and the other public submodules work after a bare ``import textsel``
    (as numpy's and scipy's do), each loaded when first reached: Dask only with
    ``textsel.distributed.BlockMatrix``."""
    code = (
        "import sys, textsel; "
        "print(textsel.sampling.SRLSClassifier.__name__, textsel.masking.__name__, 'dask' in sys.modules); "
        "textsel.distributed.BlockMatrix; print('dask' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["SRLSClassifier", "textsel.masking", "False", "True"]


def test_worker_kernels_import_neither_sklearn_nor_dask():
    """What a worker unpickles for term_stats, the solves and the classifiers' labels keeps the
    worker small: no scikit-learn (50 MB a process) and no Dask array code; and ``import textsel``
    itself loads neither scikit-learn nor the estimators until one is used."""
    code = (
        "import sys, textsel.distributed._worker, textsel.distributed._solve_worker, "
        "textsel.distributed._faults, "
        "textsel.distributed._rows_worker, textsel; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'sklearn', 'dask'}) "
        "+ sorted(m for m in ('textsel.proximal', 'textsel.selection') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "variant",
    ["labels", "int64 indices", "float32", "string labels", "dask y"]
    + ["indicator", "dask indicator", "persisted"],
)
def test_term_stats_equal_in_memory(client, variant):
    """Exactly the in-memory TermStats, whatever the index and value types and label forms."""
    X, y = corpus()
    if variant == "int64 indices":
        X = sp.csr_matrix((X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64)), shape=X.shape)
    if variant == "float32":
        X = X.astype(np.float32)
    if variant == "string labels":
        y = np.array(["earn", "acq", "crude", "grain"])[y]
    if variant.endswith("indicator"):
        y = (np.random.default_rng(1).random((X.shape[0], 5)) < 0.3).astype(np.int8)
    expected = textsel.term_stats(X, y)
    dy = y
    if variant.startswith("dask"):
        dy = da.from_array(y, chunks=(UNEVEN,) + ((y.shape[1],) if y.ndim == 2 else ()))
    dX = dask_matrix(X)
    if variant == "persisted":  # counted in place by each worker (the other variants: per block)
        dX = dX.persist()
        dy = da.from_array(y, chunks=(UNEVEN,)).persist()
    got = textsel.term_stats(dX, dy)
    assert got == expected
    assert got.multilabel == expected.multilabel


def test_term_stats_block_missing_classes(client):
    """A block holding one class only (the in-memory call would refuse it) still adds up."""
    X, y = corpus()
    y = np.sort(y)  # the first block holds class 0 only
    assert textsel.term_stats(dask_matrix(X, (500, 2500)), y) == textsel.term_stats(X, y)


@pytest.mark.parametrize("selector", [textsel.TermSelector("bns", k=40), textsel.ScalableTermSelector(k=40)])
def test_selectors_fit_and_transform(client, selector):
    """Same fitted attributes as in memory; transform is a lazy Dask array of the same columns."""
    X, y = corpus()
    local = type(selector)(**selector.get_params()).fit(X, y)
    dist = type(selector)(**selector.get_params()).fit(dask_matrix(X), y)
    for name, value in vars(local).items():
        np.testing.assert_array_equal(getattr(dist, name), value, err_msg=name)
    Z = dist.transform(dask_matrix(X))
    assert isinstance(Z, da.Array) and Z.numblocks == (len(UNEVEN), 1)
    assert (Z.compute() != local.transform(X)).nnz == 0


@pytest.mark.parametrize("intercept, weighted", [(False, False), (True, False), (True, True)])
def test_lsqr_equals_in_memory(client, intercept, weighted):
    """Same istop, itn within one, relative difference <= 1e-8 (tolerances 1e-10)."""
    X, y = corpus()
    X = X.astype(np.float32)
    B = np.where(y[:, None] == np.arange(4), 1.0, -1.0)
    B = np.hstack([B, B[:, :3] * 0.5, -B])  # 11 right-hand sides: more than one block of 8
    W = np.random.default_rng(2).random(B.shape) + 0.5 if weighted else None
    damp = np.linspace(0.1, 2.0, B.shape[1])
    kw = dict(damp=damp, row_weights=W, fit_intercept=intercept, atol=1e-10, btol=1e-10)
    local = textsel.lsqr(X, B, **kw)
    dist = textsel.lsqr(dask_matrix(X), B, **kw)
    np.testing.assert_array_equal(dist.istop, local.istop)
    assert np.abs(dist.itn - local.itn).max() <= 1
    assert relative(dist.x, local.x) <= 1e-8
    one = textsel.lsqr(dask_matrix(X), B[:, 0], damp=0.3, atol=1e-10, btol=1e-10)
    assert one.x.shape == (X.shape[1],) and isinstance(one.itn, int)


def test_lsqr_on_a_block_matrix_with_dask_right_hand_sides(client):
    """A BlockMatrix persists once and serves several solves; b may be a Dask array.  u, b and the
    weights stay on the workers: per iteration the client sends v to one worker and receives one
    part of A'D u from each of the two (their blocks are two runs that the tree splits cleanly),
    3 x 8 n K bytes and a few per right-hand side, whatever the number of documents."""
    X, y = corpus()
    A = BlockMatrix(dask_matrix(X, (750,) * 4), client)
    assert A.shape == X.shape and A.n_blocks == 4
    B = np.where(y[:, None] == np.arange(4), 1.0, -1.0)
    first = textsel.lsqr(A, da.from_array(B, chunks=(1000, 4)), damp=1.0, atol=1e-10, btol=1e-10)
    second = textsel.lsqr(A, B, damp=1.0, atol=1e-10, btol=1e-10)
    np.testing.assert_allclose(first.x, second.x, rtol=0, atol=1e-12 * np.abs(second.x).max())
    iterations = first.itn.max() + second.itn.max()
    assert A.traffic["products"] == 2 * iterations
    per_iteration = (A.traffic["sent"] + A.traffic["received"]) / iterations
    vectors = 3 * 8 * X.shape[1] * 4  # v out once, two parts back: n terms x 4 right-hand sides (fewer
    assert 0.9 * vectors < per_iteration <= vectors + 8 * 4 * 8  # as they stop), a few scalars each
    assert A.traffic["setup"] == 2 * B.nbytes  # b, once per solve


@pytest.mark.parametrize(
    "estimator",
    [
        textsel.RLSClassifier(tol=1e-10),
        textsel.ProximalSVC(tol=1e-10),
        textsel.WeightedProximalSVC(tol=1e-10),
        textsel.WeightedProximalSVC(threshold="scut", cv=3, tol=1e-10),
    ],
    ids=["rls", "psvm", "wpsvm", "wpsvm-scut"],
)
def test_least_squares_classifiers(client, estimator):
    """fit(dX, y) through the distributed LSQR; predict / decision_function lazy and blockwise.

    At tol 1e-10 throughout: the cluster adds the blocks' products in an order that depends on
    where the blocks landed, and at the default tol 1e-4 that changes thresholds by ~1e-5."""
    X, y = corpus()
    if estimator.threshold == "scut":
        y = (y == 1).astype(int)  # SCut thresholds decide binary tasks
    local = type(estimator)(**estimator.get_params()).fit(X, y)
    dist = type(estimator)(**estimator.get_params()).fit(dask_matrix(X), da.from_array(y, chunks=1000))
    assert relative(dist.coef_, local.coef_) <= 1e-8
    assert np.abs(dist.n_iter_ - local.n_iter_).max() <= 1
    np.testing.assert_allclose(dist.thresholds_, local.thresholds_, rtol=1e-5, atol=1e-6)
    assert dist.n_features_in_ == X.shape[1]
    scores = dist.decision_function(dask_matrix(X))
    labels = dist.predict(dask_matrix(X))
    assert isinstance(scores, da.Array) and isinstance(labels, da.Array)
    np.testing.assert_allclose(scores.compute(), local.decision_function(X), atol=1e-4)
    assert (labels.compute() == local.predict(X)).mean() > 0.999


@pytest.mark.slow
def test_forman_study_on_the_cluster(client):
    """Forman's protocol with its fits run by the cluster's workers gives the local records."""
    from distributed import get_task_stream

    data = {"a": corpus(3, n=150, d=60, n_classes=3)}
    kwargs = dict(metrics=("bns", "ig"), ks=(5, 20), trials=1, folds=2, n_jobs=2)
    local = forman(data, **kwargs)
    with get_task_stream(client) as stream, parallel_backend("dask"):
        remote = forman(data, **kwargs)
    assert remote == local
    assert len(stream.data) >= 3  # one task per class ran on the workers


def broken(X, where, value):
    X = X.copy()
    X.data[where] = value
    return X


@pytest.mark.parametrize(
    "case, call, message",
    [
        ("columns", "term_stats", "split along its columns"),
        ("dense", "term_stats", r"block \d is a numpy.ndarray"),
        ("y chunks", "term_stats", "y has 2 row chunks but X has 5"),
        ("y rows", "term_stats", "y block 2 has"),
        ("nan", "term_stats", "X block 2: X contains NaN"),
        ("negative", "term_stats", "X block 4: Negative values"),
        ("width", "term_stats", r"block 1 has shape \(5, 7\)"),
        ("nan", "lsqr", "X block 2: X contains NaN"),
        ("width", "lsqr", r"block 1 has shape \(5, 7\)"),
        ("dense", "fit", r"block \d is a numpy.ndarray"),
        ("nan", "predict", "X block 2"),
    ],
)
def test_bad_input_names_the_block(client, case, call, message):
    X, y = corpus()
    dX = dask_matrix(X)
    dy = y
    if case == "columns":
        dX = da.from_array(X, chunks=(1000, 200), asarray=False)
    elif case == "dense":
        dX = dX.map_blocks(lambda b: b.toarray(), dtype=X.dtype)
    elif case == "y chunks":
        dy = da.from_array(y, chunks=2000)
    elif case == "y rows":
        dy = da.from_array(y, chunks=((700, 0, 1100, 1, 1199),)).map_blocks(
            lambda b, block_info=None: b[:-1] if block_info[0]["chunk-location"][0] == 2 else b,
            dtype=y.dtype, chunks=((700, 0, 1099, 1, 1199),),
        )  # fmt: skip
    elif case == "nan":
        dX = dask_matrix(broken(X, 900 * 12, np.nan))
    elif case == "negative":
        dX = dask_matrix(broken(X, X.nnz - 3, -1.0))
    elif case == "width":

        def narrow_second(b, block_info=None):
            return sp.csr_matrix((5, 7)) if block_info[0]["chunk-location"][0] == 1 else b

        dX = dask_matrix(X[:10], (5, 5)).map_blocks(narrow_second, dtype=X.dtype)
        dy = y[:10]
    with pytest.raises((ValueError, TypeError), match=message):
        if call == "term_stats":
            textsel.term_stats(dX, dy)
        elif call == "lsqr":
            textsel.lsqr(dX, np.ones(dX.shape[0]) if not np.isnan(dX.shape[0]) else np.ones(10))
        elif call == "fit":
            textsel.WeightedProximalSVC().fit(dX, y)
        else:
            textsel.RLSClassifier().fit(X, y).predict(dX).compute()


def test_lsqr_needs_a_client(monkeypatch):
    import distributed

    def no_client():
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "default_client", no_client)
    X, y = corpus(n=200)
    with pytest.raises(ValueError, match="needs a dask.distributed Client"):
        textsel.lsqr(dask_matrix(X, (100, 100)), y.astype(float))


fragile_client = client_fixture("fragile_client")


@pytest.mark.slow
def test_worker_lost_during_term_stats(fragile_client, tmp_path):
    """A worker dies while computing a block: Dask recomputes it elsewhere, the result is exact."""
    X, y = corpus()
    marker = tmp_path / "died"

    def die_once(block, block_info=None):
        if block_info[0]["chunk-location"][0] == 2 and not marker.exists():
            marker.write_text("x")
            os._exit(1)  # the worker process dies in the middle of the computation
        return block

    dX = dask_matrix(X).map_blocks(die_once, dtype=X.dtype)
    assert textsel.term_stats(dX, y) == textsel.term_stats(X, y)
    assert marker.exists()


def persisted(X, chunks=UNEVEN):
    """X as a Dask array the cluster holds (persisted and computed)."""
    dX = dask_matrix(X, chunks).persist()
    wait(dX)
    return dX


def test_persisted_term_stats_counts_by_one_task_per_worker(client):
    """A persisted array is counted where its blocks lie, one ordinary task per worker (no
    ``Client.run``), exactly as in memory; a data error found there is raised as the ValueError
    naming the block."""
    from distributed import get_task_stream

    X, y = corpus()
    dX = persisted(X)
    with get_task_stream(client) as stream:
        assert textsel.term_stats(dX, y) == textsel.term_stats(X, y)
    names = [str(t["key"]).split("-")[0] for t in stream.data]
    assert names == ["worker_stats"] * 2
    with pytest.raises(ValueError, match="X block 2: X contains NaN"):
        textsel.term_stats(persisted(broken(X, 900 * 12, np.nan)), y)


@pytest.mark.slow
def test_worker_lost_while_counting_held_blocks(fragile_client, tmp_path):
    """A worker holding blocks of a persisted array dies in the middle of the call (while it
    computes a block of the labels): Dask recomputes its blocks from the graph elsewhere and the
    count is exact."""
    marker = tmp_path / "died"

    def die_once(y_block):
        from distributed import get_worker

        try:
            get_worker()
        except ValueError:  # computed on the client (the classes are read from the labels first)
            return y_block
        if not marker.exists():
            marker.write_text("x")
            os._exit(1)  # the worker process dies in the middle of the call
        return y_block

    X, y = corpus()
    dX = persisted(X)
    dy = da.from_array(y, chunks=(UNEVEN,)).map_blocks(die_once, dtype=y.dtype)
    assert textsel.term_stats(dX, dy) == textsel.term_stats(X, y)
    assert marker.exists()


def test_block_runs_are_consecutive_and_even():
    """The runs whose sums A' U adds: consecutive blocks, counts differing by at most one, one run
    per worker (fewer when there are fewer blocks), none for no blocks."""
    from textsel.distributed._blocks import contiguous_groups

    assert contiguous_groups(7, 2) == [[0, 1, 2, 3], [4, 5, 6]]
    assert contiguous_groups(2, 5) == [[0], [1]]
    assert contiguous_groups(0, 2) == []
    for n_blocks in range(1, 40):
        for n_groups in range(1, 6):
            groups = contiguous_groups(n_blocks, n_groups)
            assert sum(groups, []) == list(range(n_blocks))
            sizes = [len(g) for g in groups]
            assert len(groups) == min(n_blocks, n_groups) and max(sizes) - min(sizes) <= 1


class _Holders:
    """A client as the placement asks it: which workers hold each block, which workers run."""

    def __init__(self, holders, workers):
        self.holders, self.workers = holders, workers

    def who_has(self, futures):
        return {f.key: self.holders[f.key] for f in futures}

    def nthreads(self):
        return dict.fromkeys(self.workers, 1)


class _Key:
    def __init__(self, key):
        self.key = key


def test_one_placement_policy_serves_groups_blocks_and_the_solve_runs():
    """``place``: a group on the worker holding most of its blocks, the least loaded among equals
    (a group held nowhere too); with ``workers``, one group a worker, the pairs holding most
    matched first; single blocks gathered by worker in the order of their first block."""
    from textsel.distributed._blocks import contiguous_groups, place, place_blocks

    futures = [_Key(k) for k in "abcdef"]
    holders = {"a": ["w1"], "b": ["w1"], "c": ["w2"], "d": ["w1", "w2"], "e": [], "f": ["w2"]}
    client = _Holders(holders, ["w1", "w2", "w3"])
    # every block not held: every running worker is a candidate; "e" goes where the least work is
    assert place(client, futures, [[0, 1], [2, 3], [4], [5]]) == [
        ("w1", [0, 1]), ("w2", [2, 3]), ("w3", [4]), ("w2", [5])
    ]  # fmt: skip
    # one group a worker: run [3, 4, 5] is held most by w2 (d, f), run [0, 1, 2] by w1 (a, b)
    runs = contiguous_groups(6, 2)
    assert place(client, futures, runs, workers=["w1", "w2", "w3"]) == [("w1", [0, 1, 2]), ("w2", [3, 4, 5])]
    # both runs held most by w1: the first run takes it, the second the next best it can have
    holders.update(d=["w1"], f=["w1"])
    assert place(client, futures, runs, workers=["w1", "w2", "w3"]) == [("w1", [0, 1, 2]), ("w2", [3, 4, 5])]
    # every block held: only the holders are candidates; ties to the least loaded, then by name
    holders.update(d=["w1", "w2"], e=["w2"])  # d held by both: w2 has placed less by then
    assert place_blocks(client, futures) == [("w1", [0, 1, 5]), ("w2", [2, 3, 4])]


def slow_blocks(block, block_info=None):
    time.sleep(2.0)  # a block that takes long to build or count on its worker
    return block


def test_a_persisted_array_keeps_its_placement(client):
    """Blocks the cluster already holds (persisted, spread over both workers) are grouped as they
    lie, each worker's blocks in order: the BlockMatrix moves none, and solves as in memory."""
    from distributed import futures_of, wait

    X, y = corpus()
    workers = sorted(client.nthreads())
    starts = np.cumsum([0, 700, 1100, 1, 1199])
    parts = [
        da.from_delayed(client.scatter(X[a:z], workers=[workers[i % 2]]), shape=(z - a, X.shape[1]),
                        dtype=X.dtype, meta=sp.csr_matrix((0, 0)))
        for i, (a, z) in enumerate(zip(starts[:-1], starts[1:], strict=True))
    ]  # fmt: skip
    dX = da.concatenate(parts, axis=0).persist()
    wait(dX)
    blocks = {f.key: f for f in futures_of(dX)}
    held = client.who_has([blocks[b.key] for b in dX.to_delayed().ravel()])
    lies = [held[b.key] for b in dX.to_delayed().ravel()]
    assert all(len(w) == 1 for w in lies) and len(set(lies)) == 2, lies  # spread, one copy each
    A = BlockMatrix(dX)
    expected = sorted(
        ([i for i, w in enumerate(lies) if w == holder] for holder in set(lies)), key=lambda g: g[0]
    )
    assert A.groups == expected
    where = client.who_has(A.futures)
    assert [where[f.key] for f in A.futures] == lies
    B = np.where(y[:, None] == np.arange(4), 1.0, -1.0)
    kw = dict(damp=0.5, atol=1e-10, btol=1e-10)
    dist, local = textsel.lsqr(A, B, **kw), textsel.lsqr(X, B, **kw)
    np.testing.assert_array_equal(dist.istop, local.istop)
    assert relative(dist.x, local.x) <= 1e-8


@pytest.mark.slow
@pytest.mark.parametrize("call", ["term_stats", "lsqr"])
def test_ctrl_c_stops_a_distributed_call_and_the_client_goes_on(client, call):
    """Ctrl-C while the client waits for the workers raises within 0.5 s (the wait is
    interruptible Python), and the same client then computes an exact result."""
    from test_interrupts import interrupt_after

    X, y = corpus()
    dX = dask_matrix(X).map_blocks(slow_blocks, dtype=X.dtype)
    if call == "term_stats":
        latency = interrupt_after(0.5, lambda: textsel.term_stats(dX, y))
    else:
        latency = interrupt_after(0.5, lambda: textsel.lsqr(dX, y.astype(float)))
    assert latency.prompt, latency
    assert textsel.term_stats(dask_matrix(X), y) == textsel.term_stats(X, y)


@pytest.mark.parametrize("selector", [textsel.TermSelector("bns", k=40, n_jobs=-1),
                                      textsel.ScalableTermSelector(k=40, n_jobs=-1)])  # fmt: skip
def test_a_selector_counts_each_block_on_one_thread_of_its_worker(client, selector, monkeypatch):
    """A selector's n_jobs (here every core) is not passed on to the workers, whose own
    threads are the parallelism: each block is counted on one thread, as term_stats does by
    default; the selection is the in-memory one."""
    from textsel.distributed import handlers

    asked = []
    real = handlers._term_stats

    def spy(X, y, **kw):
        asked.append(kw.get("n_jobs"))
        return real(X, y, **kw)

    monkeypatch.setattr(handlers, "_term_stats", spy)
    X, y = corpus()
    dist = clone(selector).fit(dask_matrix(X), y)
    assert asked == [None]
    np.testing.assert_array_equal(dist.get_support(), clone(selector).fit(X, y).get_support())


def test_dask_workers_run_textsel_on_one_thread_each(client):
    """Dask's nannies set OMP_NUM_THREADS=1 in the workers: textsel's kernels there default to one
    thread each (no oversubscription with threads_per_worker)."""
    from textsel._parallel import default_n_jobs

    assert set(client.run(default_n_jobs).values()) == {1}


@pytest.mark.slow
def test_sample_weight_on_the_cluster(client):
    """sample_weight reaches the distributed LSQR as row weights: the same model as in memory."""
    X, y = corpus()
    w = np.random.default_rng(5).integers(0, 3, X.shape[0]).astype(float)
    kw = dict(tol=1e-10, class_weight="balanced")
    dist = textsel.WeightedProximalSVC(**kw).fit(dask_matrix(X), y, sample_weight=w)
    local = textsel.WeightedProximalSVC(**kw).fit(X, y, sample_weight=w)
    assert relative(dist.coef_, local.coef_) <= 1e-8


def test_raw_text_pipeline_example(client, tmp_path, monkeypatch):
    """The documented example (benchmarks/example_dask_pipeline.py): text shards on disk, a bag,
    hashed CSR blocks of unknown size, BNS selection and a WPSVM, equal to the same steps in memory."""
    from sklearn.feature_extraction.text import HashingVectorizer

    path = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "example_dask_pipeline.py")
    monkeypatch.syspath_prepend(os.path.dirname(path))
    import example_dask_pipeline as example

    client.upload_file(path)  # the workers unpickle the example's functions by module name

    from textsel.datasets import make_synthetic_corpus

    corpus = make_synthetic_corpus(n_docs=600, n_classes=3, random_state=4)
    labels = np.array(corpus.target_names)[corpus.target]
    example.write_shards(tmp_path, corpus.data[:450], labels[:450], "train", 4)
    example.write_shards(tmp_path, corpus.data[450:], labels[450:], "test", 2)
    selector, model = example.train(str(tmp_path), n_features=2**12, k=200)

    X = HashingVectorizer(n_features=2**12, alternate_sign=False, norm="l2").transform(corpus.data[:450])
    local_selector = textsel.TermSelector("bns", k=200).fit(X, labels[:450])
    local_model = textsel.WeightedProximalSVC().fit(local_selector.transform(X), labels[:450])
    np.testing.assert_array_equal(selector.ranking_, local_selector.ranking_)
    # at the default tol (1e-4) a class stops one iteration apart: this problem's LSQR amplifies
    # rounding from its fifth iteration on (scipy's lsqr and textsel's in-memory one differ
    # alike), so the models agree to ~1e-2, their training predictions almost everywhere
    assert relative(model.coef_, local_model.coef_) <= 2e-2
    Z = local_selector.transform(X)
    assert (model.predict(Z) == local_model.predict(Z)).mean() >= 0.99
    assert example.evaluate(str(tmp_path), selector, model, n_features=2**12) > 0.8


@pytest.fixture(scope="module")
def real_corpora(data_home):
    from sklearn.feature_extraction.text import TfidfVectorizer

    from textsel.datasets import load_20newsgroups, load_reuters21578

    reuters, news = load_reuters21578(data_home), load_20newsgroups(data_home)
    vectorize = TfidfVectorizer(sublinear_tf=True, min_df=2).fit_transform
    return {
        "reuters": (vectorize(reuters.data_train), reuters.target_train),
        "20newsgroups": (vectorize(news.data_train), news.target_train),
    }


@pytest.mark.slow
@pytest.mark.parametrize("name", ["reuters", "20newsgroups"])
def test_real_corpora(client, real_corpora, name):
    """Reuters-21578 (90 classes, multi-label) and 20 Newsgroups in 7 uneven blocks: statistics and
    BNS selection exactly as in memory; the batched LSQR of the proximal SVM (10 classes, tol 1e-8)
    with the same istop, itn within three, and x within 1e-8 of the in-memory x or, if more,
    within the in-memory solve's own distance to the exact least-squares solution (a solve at tol
    1e-15).

    The iteration count is a threshold crossing: adding the same products in another order moves
    it by up to 2-3 iterations on these corpora (permuting the rows of the in-memory solve does
    too).  The cluster's solve normalises u after its products (A'(u/beta) = (A'u)/beta) and adds
    the groups' parts in the rounds of its exchanges: on Reuters its columns stop 1-3 iterations
    before the in-memory ones, at 55-56 against 57-58.
    """
    X, y = real_corpora[name]
    cuts = np.linspace(0, X.shape[0], 8).astype(int)
    dX = dask_matrix(X, tuple(np.diff(cuts) + np.array([37, -37, 0, 5, -5, 0, 0])))
    assert textsel.term_stats(dX, y) == textsel.term_stats(X, y)
    local = textsel.TermSelector("bns", k=2000).fit(X, y)
    dist = textsel.TermSelector("bns", k=2000).fit(dX, y)
    np.testing.assert_array_equal(dist.ranking_, local.ranking_)
    T = (
        np.where(y > 0, 1.0, -1.0)[:, :10]
        if y.ndim == 2
        else np.where(y[:, None] == np.arange(10), 1.0, -1.0)
    )
    kw = dict(damp=1.0, fit_intercept=True)
    a, b = textsel.lsqr(dX, T, atol=1e-8, btol=1e-8, **kw), textsel.lsqr(X, T, atol=1e-8, btol=1e-8, **kw)
    exact = textsel.lsqr(X, T, atol=1e-15, btol=1e-15, conlim=1e300, **kw)
    np.testing.assert_array_equal(a.istop, b.istop)
    assert np.abs(a.itn - b.itn).max() <= 3
    assert relative(a.x, b.x) <= max(1e-8, relative(b.x, exact.x))


@pytest.mark.parametrize("kind", ["in memory", "strings for integer classes", "a Dask array"])
def test_labels_outside_the_classes_given_are_refused_naming_y(client, kind):
    """The Dask handlers check labels by the one label check (``_labels.label_positions``), on the
    client or in the blocks: a label outside ``classes`` is a ValueError naming y, never a
    document silently left out."""
    X, y = corpus()  # classes 0..3
    classes = [0, 1, 2]
    if kind == "strings for integer classes":
        y = np.array(["a", "b", "c", "d"])[y]
    elif kind == "a Dask array":
        y = da.from_array(y, chunks=(UNEVEN,))
    with pytest.raises(ValueError, match=r"y.*holds labels not in classes: \[.*\] \(classes: 0, 1, 2\)"):
        textsel.term_stats(dask_matrix(X), y, classes=classes)


@pytest.mark.slow
def test_term_stats_on_many_workers_adds_the_tables_among_them():
    """Beyond two workers the (classes x terms) tables are added pairwise on the workers (one add
    task fewer than workers) and one table reaches the client: the same TermStats, exactly."""
    from distributed import get_task_stream

    X, y = corpus()
    cluster = LocalCluster(n_workers=4, threads_per_worker=1, processes=True, dashboard_address=":0")
    with cluster, Client(cluster) as client:
        client.wait_for_workers(4)
        dX = dask_matrix(X, (750, 750, 750, 750)).persist()
        wait(dX)
        with get_task_stream(client) as stream:
            stats = textsel.term_stats(dX, y)
        adds = {t["key"] for t in stream.data if str(t["key"]).startswith("add_packed")}
        workers = {w for ws in client.who_has(dX).values() for w in ws}
    assert stats == textsel.term_stats(X, y)
    assert len(adds) == len(workers) - 1 >= 2
