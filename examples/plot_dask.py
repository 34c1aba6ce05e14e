"""
Term selection and a weighted proximal SVM on a Dask cluster
============================================================

Where a corpus outgrows one machine, ``X`` becomes a Dask array of CSR row blocks and the same
calls give the same answers (``python -m pip install ".[dask]"`` in a clone).  Here a local cluster of two
worker processes counts the term statistics, fits a :class:`textsel.TermSelector` and a
:class:`textsel.WeightedProximalSVC`, and the results and the times are set beside the
in-memory ones.  :func:`textsel.distributed.row_blocks` sends the matrix to the workers in
blocks of rows.

Dask starts each worker process by importing the main script again, so a script that makes a
cluster does it under ``if __name__ == "__main__":``, never at import.
"""

import time

import numpy as np

import textsel
from textsel.datasets import get_data_home, load_20newsgroups, make_synthetic_corpus


def load():
    """The corpus in memory, a scipy CSR matrix."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    if (get_data_home() / "20news-bydate.tar.gz").is_file():
        news = load_20newsgroups()
        texts, y, name = news.data_train, news.target_train, "20 Newsgroups"
    else:
        corpus = make_synthetic_corpus(n_docs=3000)
        texts, y, name = corpus.data, corpus.target, "SYNTHETIC corpus"
    return TfidfVectorizer(sublinear_tf=True, min_df=2).fit_transform(texts), y, name


def timed(fit):
    start = time.perf_counter()
    model = fit()
    return model, time.perf_counter() - start


def main():
    import matplotlib.pyplot as plt
    from distributed import Client, LocalCluster

    X, y, name = load()
    in_memory_model, in_memory = timed(lambda: textsel.WeightedProximalSVC().fit(X, y))
    # two worker processes on your machine; the blocks go to them once
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster):
            dX = textsel.distributed.row_blocks(X, n_blocks=8)
            print(f"{name}: {dX.shape[0]} documents x {dX.shape[1]} terms in {dX.numblocks[0]} blocks")
            # the same calls on the Dask array as on the in-memory matrix
            stats = textsel.term_stats(dX, y)
            assert np.array_equal(stats.class_df, textsel.term_stats(X, y).class_df)
            selector = textsel.TermSelector("bns", k=2000).fit(dX, y)
            same = np.array_equal(selector.ranking_, textsel.TermSelector("bns", k=2000).fit(X, y).ranking_)
            print(f"term statistics equal: True; the same 2000 BNS terms selected: {same}")
            model, on_cluster = timed(lambda: textsel.WeightedProximalSVC().fit(dX, y))
            agree = np.mean(model.predict(dX).compute() == in_memory_model.predict(X))
    difference = np.abs(model.coef_ - in_memory_model.coef_).max()
    print(f"WPSVM coefficients, largest difference from in memory: {difference:.1e}")
    print(f"predictions on the cluster and in memory that agree: {agree:.4f}")
    print(f"fit: {in_memory:.2f} s in memory, {on_cluster:.2f} s on two worker processes")

    fig, ax = plt.subplots(figsize=(6, 3))
    ax.barh(["in memory\n(threads)", "2 Dask workers"], [in_memory, on_cluster], color=["C0", "C1"])
    ax.set_xlabel("WeightedProximalSVC fit, seconds")
    ax.set_title(f"{name}: the same model, two ways")
    fig.tight_layout()


if __name__ == "__main__":
    main()
