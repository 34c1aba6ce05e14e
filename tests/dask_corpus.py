"""What the Dask tests share: a two-worker LocalCluster, a synthetic corpus whose class c leans on
term c, its Dask array in uneven row chunks (an empty chunk and a one-row one among them), and
the relative difference the tests judge by."""

import numpy as np
import scipy.sparse as sp


def uneven(n):
    """Row chunks of ``n`` rows: about 23%, none, 37%, one row, and the rest."""
    a, b = 7 * n // 30, 11 * n // 30
    return (a, 0, b, 1, n - a - b - 1)


def cluster_client():
    """A LocalCluster of two worker processes of one thread each, and its client."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    return cluster, Client(cluster)


def client_fixture(name, scope="function"):
    """A pytest fixture ``name`` giving a :func:`cluster_client` client, both closed after."""
    import pytest

    @pytest.fixture(scope=scope, name=name)
    def fixture():
        cluster, client = cluster_client()
        yield client
        client.close()
        cluster.close()

    return fixture


def corpus(seed=0, n=3000, d=400, n_classes=4, density=0.03):
    """n documents over d terms with integer counts; class c (drawn at random) adds 1 to term c."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = sp.random(n, d, density=density, format="csr", random_state=seed)
    X.data = np.ceil(X.data * 3)
    X = (X + sp.csr_matrix((np.ones(n), (np.arange(n), y)), shape=(n, d))).tocsr()
    return X, y


def dask_matrix(X, chunks=None):
    """X as a Dask array of row chunks (``uneven`` by default), every column in each."""
    import dask.array as da

    return da.from_array(X, chunks=(uneven(X.shape[0]) if chunks is None else chunks, -1), asarray=False)


def relative(a, b):
    return np.abs(a - b).max() / np.abs(b).max()
