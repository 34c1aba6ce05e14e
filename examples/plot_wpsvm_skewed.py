"""
The weighted proximal SVM on skewed classes
===========================================

Zhuang et al. (2006) weight each class's documents so that a rare class is not drowned by the
rest, and solve the weighted proximal SVM by LSQR in time proportional to the non-zeros.  Here
:class:`textsel.WeightedProximalSVC`, the unweighted :class:`textsel.ProximalSVC` and
scikit-learn's ``LinearSVC`` are compared per class, with the classes grouped by training skew
(negatives per positive), as in the paper.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import label_binarize

from textsel.datasets import get_data_home, load_reuters21578, make_synthetic_corpus
from textsel.study import proximal_by_skew

# %%
# A multi-label corpus (one-vs-rest for every class): Reuters-21578, or a skewed synthetic one.
if (get_data_home() / "reuters21578.tar.gz").is_file():
    corpus = load_reuters21578()
    train, test, Y, Y_test = corpus.data_train, corpus.data_test, corpus.target_train, corpus.target_test
    name = "Reuters-21578"
else:
    corpus = make_synthetic_corpus(n_docs=4000, n_classes=12, skew=4.0)
    Y_all = label_binarize(corpus.target, classes=np.arange(12))
    train, test, Y, Y_test = train_test_split(corpus.data, Y_all, test_size=0.3, random_state=0)
    name = "SYNTHETIC corpus"
vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
X, X_test = vectorizer.fit_transform(train), vectorizer.transform(test)

# %%
# Per-class F1 of the three models, then the mean within groups of classes by skew.
records = proximal_by_skew(X, Y, X_test, Y_test)
edges = [0, 30, 100, 300, np.inf]
models = ["WeightedProximalSVC", "ProximalSVC", "LinearSVC"]
table = {m: [] for m in models}
labels = []
for lo, hi in zip(edges[:-1], edges[1:], strict=True):
    group = [r for r in records if lo <= r["skew"] < hi]
    if not group:
        continue
    labels.append(f"{lo:g}-{hi:g} ({len(group) // len(models)})")
    for m in models:
        table[m].append(np.mean([r["f1"] for r in group if r["model"] == m]))
print(f"{name}: mean per-class F1 by skew (classes)")
for m in models:
    print(f"  {m:<20}", " ".join(f"{v:.3f}" for v in table[m]))

# %%
fig, ax = plt.subplots(figsize=(6.5, 4))
width = 0.27
for i, m in enumerate(models):
    ax.bar(np.arange(len(labels)) + (i - 1) * width, table[m], width, label=m)
ax.set_xticks(np.arange(len(labels)), labels)
ax.set_xlabel("training negatives per positive (classes)")
ax.set_ylabel("mean per-class F1")
ax.set_title(name)
ax.legend()
fig.tight_layout()
