"""The SMS Spam Collection, shipped inside the package: a real, skewed text task that needs no
data home (the default corpus of ``textsel demo``)."""

from __future__ import annotations

import gzip
from importlib import resources

import numpy as np

from ._results import LoaderBunch

#: the label of each class, in the order of ``target``: 0 = ham, 1 = spam
TARGET_NAMES = ("ham", "spam")


def _read(name: str) -> bytes:
    # importlib.resources reads package data from a wheel, an sdist install or a zip alike
    return resources.files(__package__).joinpath("data", name).read_bytes()


def load_sms_spam(*, return_X_y=False):
    """Load the SMS Spam Collection (5,574 messages, 747 of them spam), embedded in textsel.

    The collection of Almeida, Gómez Hidalgo and Yamakami (2011), licensed CC BY 4.0, ships
    inside the package unchanged, so this loader reads no file of yours and needs no data home.
    Messages keep their published order.  The collection has no published train/test split, so
    there is no ``subset=``: split it with scikit-learn
    (:func:`sklearn.model_selection.train_test_split`, ``stratify=target``).

    Parameters
    ----------
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch, as scikit-learn's loaders do.

    Returns
    -------
    Bunch or tuple
        ``data`` (list of 5,574 str, the messages), ``target`` (int64: 0 ham, 1 spam),
        ``target_names`` (``["ham", "spam"]``), ``DESCR`` (the collection's description, source,
        license and the paper to cite) and ``description`` (one line); with ``return_X_y``,
        ``(data, target)``.

    Examples
    --------
    >>> from textsel.datasets import load_sms_spam
    >>> sms = load_sms_spam()
    >>> len(sms.data), int(sms.target.sum()), sms.target_names
    (5574, 747, ['ham', 'spam'])
    """
    text = gzip.decompress(_read("sms_spam.txt.gz")).decode("utf-8")
    labels, messages = [], []
    for line in text.splitlines():
        label, message = line.split("\t", 1)
        labels.append(TARGET_NAMES.index(label))
        messages.append(message)
    if not isinstance(return_X_y, (bool, np.bool_)):
        raise ValueError(f"return_X_y must be True or False, got {return_X_y!r}")
    if return_X_y:
        return messages, np.array(labels, dtype=np.int64)
    return LoaderBunch(
        data=messages,
        target=np.array(labels, dtype=np.int64),
        target_names=list(TARGET_NAMES),
        DESCR=_read("sms_spam.rst").decode("utf-8"),
    )
