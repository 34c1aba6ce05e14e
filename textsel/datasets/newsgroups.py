"""20 Newsgroups, "bydate" version."""

from __future__ import annotations

import tarfile

import numpy as np

from ._home import find_archive, reading_archive
from ._results import LoaderBunch, check_subset, one_subset

ARCHIVE = "20news-bydate.tar.gz"
_SPLITS = {"20news-bydate-train": "train", "20news-bydate-test": "test"}


def load_20newsgroups(data_home=None, *, subset=None, return_X_y=False):
    """Load the bydate 20 Newsgroups split (11,314 train / 7,532 test) as raw texts.

    Reads ``20news-bydate.tar.gz`` (``20news-bydate-{train,test}/<group>/<id>``)
    in place, decoding each message as latin-1, in the order scikit-learn's
    fetcher uses (group, then numeric message id).  Headers, signatures and
    quotes are kept; strip them with your own preprocessing if you need to.

    Parameters
    ----------
    data_home : path, optional
        Folder holding the archive; defaults to ``TEXTSEL_DATA`` or ``~/textsel_data``.
    subset : {"train", "test", "all"}, optional
        One split as scikit-learn's ``fetch_20newsgroups(subset=...)`` gives it: ``data`` and
        ``target`` of the training set, the test set, or both ("all": train, then test).  Unlike
        scikit-learn's fetcher, which shuffles by default, the order is the one above; shuffle
        with :func:`sklearn.utils.shuffle` if you need to.  None (the default): both splits, apart.
    return_X_y : bool, default False
        With ``subset``, return ``(data, target)`` instead of a Bunch, as scikit-learn's fetchers do.

    Returns
    -------
    Bunch or tuple
        By default ``data_train``, ``data_test`` (lists of str), ``target_train``,
        ``target_test`` (int64 indices into ``target_names``), ``target_names``
        (sorted group names), ``DESCR``.  With ``subset``: ``data``, ``target``,
        ``target_names``, ``DESCR``; with ``return_X_y`` too: ``(data, target)``.  (``description``
        still reads, with a ``FutureWarning``.)

    Examples
    --------
    >>> from textsel.datasets import load_20newsgroups
    >>> texts, target = load_20newsgroups(subset="train", return_X_y=True)  # doctest: +SKIP
    >>> len(texts), target.max() + 1  # doctest: +SKIP
    (11314, 20)
    """
    check_subset(subset, return_X_y)
    path = find_archive(data_home, ARCHIVE)
    found = {"train": [], "test": []}
    with reading_archive(path), tarfile.open(path, "r:gz") as tar:
        for member in tar:
            parts = member.name.split("/")
            if not member.isfile() or len(parts) != 3 or parts[0] not in _SPLITS:
                continue
            text = tar.extractfile(member).read().decode("latin-1")
            key = (parts[1], int(parts[2]) if parts[2].isdigit() else parts[2])
            found[_SPLITS[parts[0]]].append((key, text))
    if not found["train"] or not found["test"]:
        raise ValueError(f"{path} does not hold 20news-bydate-train/ and 20news-bydate-test/")
    names = sorted({key[0] for split in found.values() for key, _ in split})
    index = {g: i for i, g in enumerate(names)}
    out = {}
    for split, items in found.items():
        items.sort(key=lambda item: (item[0][0], str(item[0][1]).zfill(12)))
        out[f"data_{split}"] = [text for _, text in items]
        out[f"target_{split}"] = np.array([index[key[0]] for key, _ in items], dtype=np.int64)
    description = "20 Newsgroups, bydate version"
    if subset is not None:
        split = {s: {"data": out[f"data_{s}"], "target": out[f"target_{s}"]} for s in ("train", "test")}
        return one_subset(split, subset, {"target_names": names, "DESCR": description}, return_X_y)
    return LoaderBunch(**out, target_names=names, DESCR=description)
