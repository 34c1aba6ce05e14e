"""Reuters-21578, Distribution 1.0, ModApte split."""

from __future__ import annotations

import html
import re
import tarfile

import numpy as np

from ._home import find_archive, reading_archive
from ._results import LoaderBunch, check_subset, one_subset

ARCHIVE = "reuters21578.tar.gz"

_DOC = re.compile(r"<REUTERS(?P<attrs>[^>]*)>(?P<body>.*?)</REUTERS>", re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_TOPICS = re.compile(r"<TOPICS>(.*?)</TOPICS>", re.S)
_D = re.compile(r"<D>(.*?)</D>", re.S)
_TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S)
_BODY = re.compile(r"<BODY>(.*?)</BODY>", re.S)


def _parse(sgml: str):
    """Yield (newid, lewissplit, topics_yes, topics, text) for every article."""
    for m in _DOC.finditer(sgml):
        attrs = dict(_ATTR.findall(m.group("attrs")))
        body = m.group("body")
        tm = _TOPICS.search(body)
        topics = _D.findall(tm.group(1)) if tm else []
        title = _TITLE.search(body)
        text = _BODY.search(body)
        parts = [p.group(1) for p in (title, text) if p]
        try:
            newid = int(attrs.get("NEWID", -1))
        except ValueError:
            raise ValueError(f"NEWID {attrs['NEWID']!r} is not an integer") from None
        yield (
            newid,
            attrs.get("LEWISSPLIT", ""),
            attrs.get("TOPICS", "") == "YES",
            topics,
            html.unescape("\n".join(parts)),
        )


def load_reuters21578(
    data_home=None, *, min_docs_per_split=1, keep_unlabeled=False, subset=None, return_X_y=False
):
    """Load Reuters-21578 with the ModApte split, as raw texts and a label indicator matrix.

    ModApte: articles with ``TOPICS="YES"`` and ``LEWISSPLIT`` TRAIN (9,603) or
    TEST (3,299).  The categories kept are those with at least
    ``min_docs_per_split`` documents in both splits (90 with the default), and
    by default only the documents carrying one of them are returned
    (7,770 / 3,019).  Text is the title and body, read as latin-1 with SGML
    character entities decoded.

    Parameters
    ----------
    data_home : path, optional
        Folder holding ``reuters21578.tar.gz`` (the 22 ``reut2-0NN.sgm`` files at
        the archive root); defaults to ``TEXTSEL_DATA`` or ``~/textsel_data``.
    min_docs_per_split : int, default 1
        A category is kept if it has this many train and this many test documents.
    keep_unlabeled : bool, default False
        Keep ModApte documents that carry none of the kept categories (with an
        all-zero label row).
    subset : {"train", "test", "all"}, optional
        One split, as scikit-learn's fetchers give one (``fetch_rcv1(subset=...)``, also
        multi-label): ``data``, ``target`` (the indicator array) and ``ids`` of the training set,
        the test set, or both ("all": train, then test).  None (the default): both splits, apart.
    return_X_y : bool, default False
        With ``subset``, return ``(data, target)`` instead of a Bunch, as scikit-learn's fetchers do.

    Returns
    -------
    Bunch or tuple
        By default ``data_train``, ``data_test`` (lists of str), ``target_train``,
        ``target_test`` (int8 indicator arrays, documents x categories), ``target_names``
        (sorted category names), ``ids_train``, ``ids_test`` (NEWID), ``DESCR``.  With
        ``subset``: ``data``, ``target``, ``ids``, ``target_names``, ``DESCR``; with
        ``return_X_y`` too: ``(data, target)``.  (``y_train``, ``y_test`` and ``description``,
        the names before scikit-learn's, still read, with a ``FutureWarning``.)
    """
    check_subset(subset, return_X_y)
    path = find_archive(data_home, ARCHIVE)
    docs = {"TRAIN": [], "TEST": []}
    with reading_archive(path), tarfile.open(path, "r:gz") as tar:
        members = sorted(
            (m for m in tar.getmembers() if re.search(r"reut2-\d{3}\.sgm$", m.name)),
            key=lambda m: m.name,
        )
        if not members:
            raise ValueError(f"{path} holds no reut2-NNN.sgm files")
        for member in members:
            sgml = tar.extractfile(member).read().decode("latin-1")
            try:
                articles = list(_parse(sgml))
            except ValueError as exc:
                raise ValueError(f"{path}: {member.name}: {exc}") from None
            for newid, split, topics_yes, topics, text in articles:
                if topics_yes and split in docs:
                    docs[split].append((newid, topics, text))
    train, test = docs["TRAIN"], docs["TEST"]

    def counts(split):
        c = {}
        for _, topics, _ in split:
            for t in set(topics):
                c[t] = c.get(t, 0) + 1
        return c

    c_train, c_test = counts(train), counts(test)
    names = sorted(
        t for t in c_train if c_train[t] >= min_docs_per_split and c_test.get(t, 0) >= min_docs_per_split
    )
    index = {t: i for i, t in enumerate(names)}

    def assemble(split):
        y = np.zeros((len(split), len(names)), dtype=np.int8)
        for row, (_, topics, _) in enumerate(split):
            for t in topics:
                if t in index:
                    y[row, index[t]] = 1
        keep = np.ones(len(split), dtype=bool) if keep_unlabeled else y.any(axis=1)
        texts = [doc[2] for doc, k in zip(split, keep, strict=True) if k]
        ids = np.array([doc[0] for doc in split], dtype=np.int64)[keep]
        return texts, y[keep], ids

    data_train, y_train, ids_train = assemble(train)
    data_test, y_test, ids_test = assemble(test)
    description = "Reuters-21578, Distribution 1.0, ModApte split"
    if subset is not None:
        split = {"train": {"data": data_train, "target": y_train, "ids": ids_train},
                 "test": {"data": data_test, "target": y_test, "ids": ids_test}}  # fmt: skip
        return one_subset(split, subset, {"target_names": names, "DESCR": description}, return_X_y)
    return LoaderBunch(
        data_train=data_train,
        data_test=data_test,
        target_train=y_train,
        target_test=y_test,
        target_names=names,
        ids_train=ids_train,
        ids_test=ids_test,
        DESCR=description,
    )
