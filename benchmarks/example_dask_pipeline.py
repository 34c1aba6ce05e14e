"""Raw text on disk to a trained classifier on Dask, without the corpus ever in one process.

Text shards (JSON Lines, one ``{"text": ..., "label": ...}`` per line) are read by ``dask.bag``,
one partition per file; each partition is vectorized where it is read by scikit-learn's
stateless HashingVectorizer into a CSR block; the blocks form a Dask array, from which
``TermSelector("bns")`` picks terms (statistics counted on the workers) and a
``WeightedProximalSVC`` is trained on the selected columns (LSQR products on the workers).
The client holds the labels, the (classes x terms) statistics and the LSQR vectors, never
the documents.

    python benchmarks/example_dask_pipeline.py --write-20newsgroups shards/ [--data-home DATA]
    python benchmarks/example_dask_pipeline.py shards/            # train on shards/train-*.jsonl,
                                                                  # test on shards/test-*.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import time

import dask
import dask.array as da
import dask.bag as db
import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.metrics import f1_score

import textsel


def vectorize(records, n_features):
    """One partition's records → (CSR block, labels); stateless, so every worker agrees."""
    vectorizer = HashingVectorizer(n_features=n_features, alternate_sign=False, norm="l2")
    X = vectorizer.transform([r["text"] for r in records]).tocsr()
    return X, np.array([r["label"] for r in records], dtype=object)


def read_corpus(pattern, n_features):
    """A Dask array of CSR row blocks and a Dask array of labels, one block per shard."""
    parts = db.read_text(pattern).map(json.loads).to_delayed()
    pairs = [dask.delayed(vectorize, nout=2)(p, n_features) for p in parts]
    X = da.concatenate(
        [da.from_delayed(x, shape=(np.nan, n_features), dtype=np.float64, meta=sp.csr_matrix((0, n_features)))
         for x, _ in pairs],
        axis=0, allow_unknown_chunksizes=True,
    )  # fmt: skip
    y = da.concatenate(
        [da.from_delayed(labels, shape=(np.nan,), dtype=object) for _, labels in pairs],
        axis=0, allow_unknown_chunksizes=True,
    )  # fmt: skip
    return X, y


def train(directory, n_features=2**18, k=5000):
    """Select ``k`` terms by BNS and fit a WeightedProximalSVC on the training shards."""
    X, y = dask.persist(*read_corpus(os.path.join(directory, "train-*.jsonl"), n_features))
    selector = textsel.TermSelector("bns", k=k).fit(X, y)
    model = textsel.WeightedProximalSVC().fit(selector.transform(X), y)
    return selector, model


def evaluate(directory, selector, model, n_features=2**18):
    """Micro-F1 on the test shards, predicted block by block on the workers."""
    X, y = read_corpus(os.path.join(directory, "test-*.jsonl"), n_features)
    predicted, truth = dask.compute(model.predict(selector.transform(X)), y)
    return f1_score(truth, predicted, average="micro")


def write_shards(directory, texts, labels, prefix, n_shards):
    os.makedirs(directory, exist_ok=True)
    for s, rows in enumerate(np.array_split(np.arange(len(texts)), n_shards)):
        with open(os.path.join(directory, f"{prefix}-{s:03d}.jsonl"), "w") as out:
            for i in rows:
                out.write(json.dumps({"text": texts[i], "label": str(labels[i])}) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?")
    parser.add_argument("--write-20newsgroups", metavar="DIR")
    parser.add_argument(
        "--data-home",
        default=None,
        help="the corpus archives' folder (default: $TEXTSEL_DATA, else ~/textsel_data)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--k", type=int, default=5000)
    args = parser.parse_args()
    if args.write_20newsgroups:
        from textsel.datasets import load_20newsgroups

        try:
            news = load_20newsgroups(args.data_home)
        except (FileNotFoundError, ValueError) as exc:
            raise SystemExit(f"example_dask_pipeline: {exc}") from None
        names = np.asarray(news.target_names)
        write_shards(args.write_20newsgroups, news.data_train, names[news.target_train], "train", 16)
        write_shards(args.write_20newsgroups, news.data_test, names[news.target_test], "test", 8)
        print(f"wrote 16 training and 8 test shards to {args.write_20newsgroups}")
        return
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=args.workers, threads_per_worker=1, dashboard_address=":0") as cluster,
        Client(cluster),
    ):
        start = time.perf_counter()
        selector, model = train(args.directory, k=args.k)
        trained = time.perf_counter() - start
        f1 = evaluate(args.directory, selector, model)
    print(f"{len(model.classes_)} classes, {args.k} terms by BNS out of 2^18 hashed features; "
          f"trained in {trained:.1f} s on {args.workers} workers; test micro-F1 {f1:.4f}")  # fmt: skip


if __name__ == "__main__":
    main()
