"""``TermSelector.partial_fit`` over any chunking of a corpus equals one ``fit`` on it.

Statistics of disjoint chunks add up exactly, so the chunks a user feeds (in any sizes, sorted by
class as a folder per class gives them, one class or none of some in a chunk) must choose the
terms ``fit`` chooses on their concatenation, with the same counts; a chunk is never refused for
holding one class, and until some class has documents on both sides nothing is chosen and
``transform`` says why.  Hypothesis draws the corpora and the chunkings.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

import textsel


@st.composite
def streams(draw):
    """A corpus, its labels (1-D integers, strings or an indicator), an order of its documents
    (shuffled or sorted by class) and the cut points of its chunks."""
    n_docs = draw(st.integers(5, 60))
    n_classes = draw(st.integers(2, 4))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    X = sp.random(n_docs, 25, density=0.3, format="csr", random_state=rng)
    X.data = np.ceil(X.data * 3)
    y = rng.integers(0, n_classes, n_docs)
    y[:n_classes] = np.arange(n_classes)  # every class in the corpus (fit needs them)
    kind = draw(st.sampled_from(["int", "str", "indicator"]))
    if draw(st.booleans()):  # sorted by class: the stream starts with chunks of one class
        order = np.argsort(y, kind="stable")
        X, y = X[order], y[order]
    cuts = sorted(set(draw(st.lists(st.integers(1, n_docs - 1), max_size=6))))
    if kind == "str":
        labels = np.array(["neg", "pos", "mid", "odd"])[y]
    elif kind == "indicator":
        labels = np.eye(n_classes, dtype=int)[y]
        extra = rng.random(n_docs) < 0.2
        extra[:n_classes] = False  # some documents in two classes, never every one in a class
        labels[extra, -1] = 1
    else:
        labels = y
    given_classes = kind != "indicator" and draw(st.booleans())
    return X, labels, [0, *cuts, n_docs], given_classes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(), st.sampled_from(["bns", "ig", "chi2"]), st.sampled_from(["round_robin", "max"]))
def test_any_chunking_chooses_what_fit_chooses_on_the_whole(stream, metric, multiclass):
    X, labels, bounds, given_classes = stream
    whole = textsel.TermSelector(metric, k=6, multiclass=multiclass).fit(X, labels)
    chunked = textsel.TermSelector(metric, k=6, multiclass=multiclass)
    classes = np.unique(labels) if given_classes else None
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        chunked.partial_fit(X[lo:hi], labels[lo:hi], classes=classes)  # never refused for its classes
    assert chunked.stats_ == whole.stats_
    np.testing.assert_array_equal(chunked.get_support(), whole.get_support())
    np.testing.assert_array_equal(chunked.ranking_, whole.ranking_)


def test_a_class_sorted_stream_starts_with_chunks_of_one_class_and_counts_them():
    """A folder per class: the first chunks hold one class each.  They are counted (not refused,
    so not lost), nothing is chosen until the second class arrives, and ``transform`` says so."""
    rng = np.random.default_rng(3)
    X = sp.random(90, 30, density=0.3, format="csr", random_state=rng)
    y = np.repeat(["earn", "grain", "trade"], 30)
    selector = textsel.TermSelector("bns", k=5)
    selector.partial_fit(X[:15], y[:15], classes=["earn", "grain", "trade"])
    selector.partial_fit(X[15:30], y[15:30])
    assert selector.stats_.n_docs == 30 and list(selector.stats_.class_sizes) == [30, 0, 0]
    with pytest.raises(NotFittedError, match=r"30 documents .* \(classes 'earn'\) .* another class"):
        selector.transform(X)
    for lo in range(30, 90, 15):
        selector.partial_fit(X[lo : lo + 15], y[lo : lo + 15])
    whole = textsel.TermSelector("bns", k=5).fit(X, y)
    assert selector.stats_ == whole.stats_
    np.testing.assert_array_equal(selector.transform(X).toarray(), whole.transform(X).toarray())


def test_labels_outside_the_classes_given_are_refused_naming_y():
    X = sp.random(20, 10, density=0.3, format="csr", random_state=0)
    y = np.array([0, 1] * 10)
    selector = textsel.TermSelector(k=3).partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match=r"y holds labels not in classes: \[2\]"):
        selector.partial_fit(X, y + 1)
    assert selector.stats_.n_docs == 20  # the refused chunk was not counted
