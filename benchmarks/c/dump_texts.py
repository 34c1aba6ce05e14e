"""Write a corpus's training texts, lowercased, in the binary layout bench_tokens.c reads.

    python benchmarks/c/dump_texts.py 20newsgroups /tmp/news.txt.bin [--data-home ../shared/data]

Layout: the number of documents as int64; the word bitmap (one bit per code point below
0x110000, code point c at byte c / 8, bit c % 8: ``str.isalnum()`` or ``_``, the characters
Python's ``re`` calls ``\\w``); then each document as its kind (1, 2 or 4 bytes a code point,
the narrowest that holds it, as CPython stores it) and its length in code points, both int64,
and its code points in that width, little-endian.
"""

import argparse
import os

import numpy as np

from textsel.datasets import load_20newsgroups, load_reuters21578, load_sms_spam

CODE_POINTS = 0x110000


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", choices=("reuters21578", "20newsgroups", "sms"))
    parser.add_argument("out")
    parser.add_argument("--data-home", default=os.environ.get("TEXTSEL_DATA", "../shared/data"))
    args = parser.parse_args()
    if args.corpus == "reuters21578":
        texts = load_reuters21578(args.data_home).data_train
    elif args.corpus == "20newsgroups":
        texts = load_20newsgroups(args.data_home).data_train
    else:
        texts = load_sms_spam().data
    write_texts_file(args.out, [t.lower() for t in texts])
    print(f"{args.out}: {len(texts)} documents, {sum(map(len, texts))} code points")


def word_bitmap() -> np.ndarray:
    """Python's word characters as a bitmap over every code point."""
    word = np.fromiter((chr(c).isalnum() for c in range(CODE_POINTS)), dtype=bool, count=CODE_POINTS)
    word[ord("_")] = True
    return np.packbits(word, bitorder="little")


def write_texts_file(path, texts) -> None:
    """Write ``texts`` (str) in the layout above."""
    with open(path, "wb") as f:
        np.array([len(texts)], dtype=np.int64).tofile(f)
        word_bitmap().tofile(f)
        for text in texts:
            top = max(map(ord, text), default=0)
            kind, dtype = (1, np.uint8) if top < 256 else (2, np.uint16) if top < 65536 else (4, np.uint32)
            np.array([kind, len(text)], dtype=np.int64).tofile(f)
            np.fromiter(map(ord, text), dtype=dtype, count=len(text)).astype(f"<u{kind}").tofile(f)


if __name__ == "__main__":
    main()
