"""The classifiers' documents on the cluster: labels, weights and targets built beside the blocks.

A least-squares fit on a Dask array builds its targets and row weights on the workers from each
block's labels (textsel.distributed.rows.BlockRows): these tests prove that it gives the in-memory
model for every kind of label and weight, that nothing of the documents' length passes through the
client when the labels are a Dask array, that bad labels are refused naming the block, and that a
worker lost mid-fit (taking labels sent from the client with it) costs neither a restart nor the
answer.
"""

import os
import signal

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("distributed")
import dask.array as da  # noqa: E402
from dask_corpus import client_fixture, cluster_client, dask_matrix, relative, uneven  # noqa: E402
from dask_corpus import corpus as base_corpus  # noqa: E402
from distributed import Client  # noqa: E402

import textsel  # noqa: E402

#: the cluster's rows against the in-memory ones, workers lost: in the slow run (--slow)
pytestmark = pytest.mark.slow

UNEVEN = uneven(6000)  # (1400, 0, 2200, 1, 2399): an empty block and a one-row one among them


def corpus(seed=0, n=6000):
    """6,000 documents over 150 terms: more documents than (terms + 1) x classes, so that an array
    of the documents' length is told apart from every array the solve moves by its size."""
    return base_corpus(seed, n=n, d=150, density=0.05)


TIGHT = dict(tol=1e-10)


client = client_fixture("client", "module")


def sizes(value):
    """The element counts of every array inside ``value`` (tuples, lists, dicts, dataclasses)."""
    if isinstance(value, np.ndarray) or sp.issparse(value):
        return [int(np.prod(value.shape))]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in sizes(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in sizes(v)]
    if hasattr(value, "__dataclass_fields__"):
        return [s for name in value.__dataclass_fields__ for s in sizes(getattr(value, name))]
    return []


def test_nothing_of_the_documents_length_reaches_the_client(client, monkeypatch):
    """With the labels and sample weights as Dask arrays, every array the client gathers from the
    workers or scatters to them during a WPSVM fit (the solve's calls included) is smaller than
    the number of documents (the largest is v, terms x classes); the model is the in-memory one."""
    X, y = corpus()
    w = np.random.default_rng(1).random(X.shape[0]) + 0.5
    seen = []
    gather, scatter = Client.gather, Client.scatter

    def recorded_gather(self, futures, *args, **kwargs):
        result = gather(self, futures, *args, **kwargs)
        seen.extend(sizes(result))
        return result

    def recorded_scatter(self, data, *args, **kwargs):
        seen.extend(sizes(data))
        return scatter(self, data, *args, **kwargs)

    monkeypatch.setattr(Client, "gather", recorded_gather)
    monkeypatch.setattr(Client, "scatter", recorded_scatter)
    model = textsel.WeightedProximalSVC(**TIGHT).fit(
        dask_matrix(X), da.from_array(y, chunks=1000), sample_weight=da.from_array(w, chunks=UNEVEN)
    )
    monkeypatch.undo()
    local = textsel.WeightedProximalSVC(**TIGHT).fit(X, y, sample_weight=w)
    assert seen and max(seen) == (X.shape[1] + 1) * 4 < X.shape[0]
    assert relative(model.coef_, local.coef_) <= 1e-8
    np.testing.assert_allclose(model.v_, local.v_, rtol=1e-12)
    np.testing.assert_allclose(model.delta_, local.delta_, rtol=1e-12)


@pytest.mark.parametrize(
    "estimator, labels, weights",
    [
        (textsel.ProximalSVC(class_weight="balanced", **TIGHT), "strings", None),
        (textsel.RLSClassifier(class_weight={0: 2.0, 3: 0.5}, **TIGHT), "labels", "array"),
        (textsel.WeightedProximalSVC(class_weight="balanced", **TIGHT), "dask labels", "dask"),
        (textsel.WeightedProximalSVC(threshold="scut", cv=3, **TIGHT), "dask indicator", None),
        (textsel.ProximalSVC(threshold="scut", cv=4, **TIGHT), "sparse indicator", "scalar"),
        (textsel.WeightedProximalSVC(**TIGHT), "binary", "zeros in a block"),
    ],
)
def test_the_cluster_builds_the_in_memory_problem(client, estimator, labels, weights):
    """Targets, class weights, sample weights, the estimates of v and delta and SCut's folds built
    on the workers give the in-memory model, for each form of labels and weights."""
    X, y = corpus()
    n = X.shape[0]
    rng = np.random.default_rng(2)
    Y = (rng.random((n, 3)) < 0.2).astype(np.int64)
    Y[:, 0] |= (y == 0).astype(np.int64)
    forms = {
        "strings": (np.array(["a", "b", "c", "d"])[y],) * 2,
        "labels": (y, y),
        "dask labels": (da.from_array(y, chunks=UNEVEN), y),
        "dask indicator": (da.from_array(Y, chunks=(UNEVEN, -1)), Y),
        "sparse indicator": (sp.csr_matrix(Y), sp.csr_matrix(Y)),
        "binary": ((y == 1).astype(int),) * 2,
    }
    w = rng.random(n) * 2
    if weights == "zeros in a block":
        w[1400:3600] = 0.0  # the third block weighs nothing
    weight_forms = {
        None: (None, None),
        "array": (w, w),
        "dask": (da.from_array(w, chunks=1500), w),
        "scalar": (2.5, 2.5),
        "zeros in a block": (w, w),
    }
    y_dist, y_local = forms[labels]
    w_dist, w_local = weight_forms[weights]
    params = estimator.get_params()
    dist = type(estimator)(**params).fit(dask_matrix(X), y_dist, sample_weight=w_dist)
    local = type(estimator)(**params).fit(X, y_local, sample_weight=w_local)
    np.testing.assert_array_equal(dist.classes_, local.classes_)
    assert relative(dist.coef_, local.coef_) <= 1e-8
    assert np.abs(dist.n_iter_ - local.n_iter_).max() <= 1
    np.testing.assert_allclose(dist.thresholds_, local.thresholds_, rtol=1e-5, atol=1e-6)
    for name in ("v_", "delta_"):
        if hasattr(local, name):
            np.testing.assert_allclose(getattr(dist, name), getattr(local, name), rtol=1e-12)


@pytest.mark.parametrize(
    "case, message",
    [
        ("one class", r"y has 1 class \(3\)"),
        ("short dask y", "y has 5999 entries but X has 6000 documents|y block"),
        ("negative weight", "sample_weight block 2: Negative values in data passed to `sample_weight`"),
        ("all weights zero", "at least one non-zero number: every document has weight zero"),
        ("continuous", "Unknown label type.*continuous"),
    ],
)
def test_bad_labels_and_weights_on_the_cluster(client, case, message):
    """The in-memory fit's errors, raised from the blocks' summaries and sums (naming the block
    where the fault is in one)."""
    X, y = corpus()
    w = np.ones(X.shape[0])
    if case == "one class":
        y = np.full_like(y, 3)
    elif case == "short dask y":
        y = da.from_array(y[:-1], chunks=(1400, 0, 2200, 1, 2398))
    elif case == "negative weight":
        w[3000] = -1.0
    elif case == "all weights zero":
        w[:] = 0.0
    elif case == "continuous":
        y = y + 0.5 * np.arange(y.size) / y.size
    with pytest.raises(ValueError, match=message):
        textsel.WeightedProximalSVC().fit(dask_matrix(X), y, sample_weight=w)


def test_a_worker_lost_mid_fit_takes_the_labels_sent_to_it(monkeypatch):
    """Labels given as an array are sent to the workers once a fit; a worker killed mid-solve takes
    its blocks' labels with it: they are sent again, the lost groups set up and their u rebuilt,
    and the solve goes on without starting again, giving bitwise the undisturbed model."""
    from textsel.distributed import solve as cluster_solve

    cluster, fragile = cluster_client()
    try:
        X, y = corpus(n=3000)
        dX = dask_matrix(X)
        undisturbed = textsel.WeightedProximalSVC(**TIGHT).fit(dX, y)
        calls = {"n": 0, "starts": 0}
        real_step, real_init = (
            cluster_solve.ClusterRowOperator.step,
            cluster_solve.ClusterRowOperator.__init__,
        )

        def kill_on_the_fifth(self, *args):
            calls["n"] += 1
            if calls["n"] == 5:
                os.kill(next(iter(self.client.run(os.getpid).values())), signal.SIGKILL)
            return real_step(self, *args)

        def counted_init(self, *args):
            calls["starts"] += 1
            real_init(self, *args)

        monkeypatch.setattr(cluster_solve.ClusterRowOperator, "step", kill_on_the_fifth)
        monkeypatch.setattr(cluster_solve.ClusterRowOperator, "__init__", counted_init)
        disturbed = textsel.WeightedProximalSVC(**TIGHT).fit(dX, y)
        assert calls["starts"] == 1 and calls["n"] > 5
        np.testing.assert_array_equal(disturbed.coef_, undisturbed.coef_)
        np.testing.assert_array_equal(disturbed.n_iter_, undisturbed.n_iter_)
    finally:
        fragile.close()
        cluster.close()


def test_the_label_sums_and_positives_survive_a_lost_worker():
    """The labels' sums, norm sums and positives are asked again after a lost worker took the
    labels sent to it (the one fault policy, which places them again), not raised as a cancelled
    future: the same arrays as before the loss."""
    from textsel.distributed import BlockMatrix
    from textsel.distributed.rows import BlockRows

    cluster, fragile = cluster_client()
    try:
        X, y = corpus(n=3000)
        A = BlockMatrix(dask_matrix(X))
        rows = BlockRows(A, y, None, None, "test")
        before = rows.positive(), rows.norm_sums(), rows.sums
        os.kill(next(iter(fragile.run(os.getpid).values())), signal.SIGKILL)
        fragile.wait_for_workers(1)
        rows._norm_sums = None  # asked of the workers again
        after = rows.positive(), rows.norm_sums(), rows._sums(norms=False)
        np.testing.assert_array_equal(after[0], before[0])
        for got, expected in zip(after[1:], before[1:], strict=True):
            for field in vars(expected):
                np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
    finally:
        fragile.close()
        cluster.close()
