"""
Term selection and a weighted proximal SVM on a Dask cluster
============================================================

Where a corpus outgrows one machine, ``X`` becomes a Dask array of CSR row blocks and the same
calls give the same answers (``pip install "textsel[dask]"``).  Here a local cluster of two
worker processes counts the term statistics, fits a :class:`textsel.TermSelector` and a
:class:`textsel.WeightedProximalSVC`, and the results are checked against the in-memory ones.

Dask starts each worker process by importing the main script again, so a script that makes a
cluster does it under ``if __name__ == "__main__":``, never at import.
"""

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster
from sklearn.feature_extraction.text import TfidfVectorizer

import textsel
from textsel.datasets import get_data_home, load_20newsgroups, make_synthetic_corpus


def load():
    """The corpus in memory, cut into eight blocks of rows, each a scipy CSR matrix."""
    if (get_data_home() / "20news-bydate.tar.gz").is_file():
        news = load_20newsgroups()
        texts, y, name = news.data_train, news.target_train, "20 Newsgroups"
    else:
        corpus = make_synthetic_corpus(n_docs=3000)
        texts, y, name = corpus.data, corpus.target, "SYNTHETIC corpus"
    X = TfidfVectorizer(sublinear_tf=True, min_df=2).fit_transform(texts)
    bounds = np.linspace(0, X.shape[0], 9).astype(int)
    return X, y, name, [X[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def main():
    X, y, name, blocks = load()
    # two worker processes on your machine; the blocks go to them once
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            dX = da.concatenate(
                [da.from_delayed(client.scatter(b), shape=b.shape, dtype=b.dtype, meta=b[:0]) for b in blocks]
            )
            print(f"{name}: {dX.shape[0]} documents x {dX.shape[1]} terms in {dX.numblocks[0]} blocks")
            # the same calls on the Dask array as on the in-memory matrix
            stats = textsel.term_stats(dX, y)
            assert np.array_equal(stats.class_df, textsel.term_stats(X, y).class_df)
            selector = textsel.TermSelector("bns", k=2000).fit(dX, y)
            same = np.array_equal(selector.ranking_, textsel.TermSelector("bns", k=2000).fit(X, y).ranking_)
            print(f"term statistics equal: True; the same 2000 BNS terms selected: {same}")
            model = textsel.WeightedProximalSVC().fit(dX, y)
            in_memory = textsel.WeightedProximalSVC().fit(X, y)
            difference = np.abs(model.coef_ - in_memory.coef_).max()
            print(f"WPSVM coefficients, largest difference from in memory: {difference:.1e}")
            agree = np.mean(model.predict(dX).compute() == in_memory.predict(X))
            print(f"predictions that agree: {agree:.4f}")


if __name__ == "__main__":
    main()
