"""
BNS against chi2 on a skewed task
=================================

Forman (2003) compared twelve filter metrics on one-vs-rest text tasks, most of them skewed
(a small class against the rest), and recommends Bi-Normal Separation.  Here each rare class is
told from the rest by a linear SVM on Boolean features (Forman's representation), keeping the
top ``k`` terms by BNS (:class:`textsel.TermSelector`) or by chi2 (scikit-learn's
``SelectKBest``), and the test F1, averaged over the rare classes, is plotted against ``k``.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.feature_selection import SelectKBest, chi2
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

import textsel
from textsel.datasets import get_data_home, load_reuters21578, make_synthetic_corpus

# %%
# Rare classes: Reuters-21578's categories holding 0.5-2% of the training documents, or the
# three smallest classes of a skewed synthetic corpus.
if (get_data_home() / "reuters21578.tar.gz").is_file():
    corpus = load_reuters21578()
    share = corpus.target_train.mean(axis=0)
    rare = np.flatnonzero((share >= 0.005) & (share <= 0.02) & (corpus.target_test.sum(axis=0) > 0))
    train, test = corpus.data_train, corpus.data_test
    tasks = {corpus.target_names[c]: (corpus.target_train[:, c], corpus.target_test[:, c]) for c in rare}
    name = f"Reuters-21578, {len(tasks)} categories with 0.5-2% of the documents"
else:
    corpus = make_synthetic_corpus(n_docs=3000, n_classes=8, skew=3.0)
    train, test, y_train, y_test = train_test_split(
        corpus.data, corpus.target, test_size=0.3, stratify=corpus.target, random_state=0
    )
    tasks = {f"class_{c}": ((y_train == c).astype(int), (y_test == c).astype(int)) for c in (5, 6, 7)}
    name = "SYNTHETIC corpus, its three smallest classes"
print(name)
for task, (y_train, _) in tasks.items():
    print(f"{task}: {y_train.sum()} positives of {len(y_train)} training documents")

# %%
# Boolean features, then each selector and a linear SVM, for every k.
vectorizer = CountVectorizer(binary=True, min_df=2)
X_train = vectorizer.fit_transform(train)
X_test = vectorizer.transform(test)
ks = [10, 20, 50, 100, 200, 500, 1000]
selectors = {
    "BNS (textsel)": lambda k: textsel.TermSelector("bns", k=k),
    "chi2 (scikit-learn)": lambda k: SelectKBest(chi2, k=k),
}
f1 = {}
for label, make in selectors.items():
    f1[label] = [
        np.mean(
            [
                f1_score(y_te, make_pipeline(make(k), LinearSVC()).fit(X_train, y_tr).predict(X_test))
                for y_tr, y_te in tasks.values()
            ]
        )
        for k in ks
    ]
    print(label, " ".join(f"k={k}: {v:.3f}" for k, v in zip(ks, f1[label], strict=True)))

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for label, values in f1.items():
    ax.plot(ks, values, marker="o", label=label)
ax.set_xscale("log")
ax.set_xlabel("terms kept (k)")
ax.set_ylabel("test F1, mean of the rare classes")
ax.set_title(name)
ax.legend()
fig.tight_layout()
