"""Write a corpus's tf-idf matrix and one-vs-rest targets in the binary layout bench_lsqr.c reads.

    python benchmarks/c/dump_matrix.py reuters21578 /tmp/reuters.bin [--data-home ../shared/data]

Layout: m, n, nnz as int64; indptr (m + 1) and indices (nnz) as int32; data (nnz) float64;
then the m x K targets (+1/-1), row-major float64.
"""

import argparse
import os

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from textsel.datasets import load_20newsgroups, load_reuters21578


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", choices=("reuters21578", "20newsgroups"))
    parser.add_argument("out")
    parser.add_argument("--data-home", default=os.environ.get("TEXTSEL_DATA", "../shared/data"))
    args = parser.parse_args()
    if args.corpus == "reuters21578":
        b = load_reuters21578(args.data_home)
        texts, T = b.data_train, np.where(b.target_train > 0, 1.0, -1.0)
    else:
        b = load_20newsgroups(args.data_home)
        texts = b.data_train
        T = np.where(b.target_train[:, None] == np.arange(len(b.target_names))[None, :], 1.0, -1.0)
    X = TfidfVectorizer(sublinear_tf=True, min_df=2).fit_transform(texts)
    write_matrix_file(args.out, X, T)
    print(f"{args.out}: {X.shape[0]} x {X.shape[1]}, {X.nnz} nonzeros, {T.shape[1]} targets")


def write_matrix_file(path, X, T) -> None:
    """Write CSR ``X`` and the targets ``T`` (documents x K, +1/-1) in the layout above."""
    with open(path, "wb") as f:
        np.array([X.shape[0], X.shape[1], X.nnz], dtype=np.int64).tofile(f)
        X.indptr.astype(np.int32).tofile(f)
        X.indices.astype(np.int32).tofile(f)
        X.data.astype(np.float64).tofile(f)
        np.ascontiguousarray(T, dtype=np.float64).tofile(f)


if __name__ == "__main__":
    main()
