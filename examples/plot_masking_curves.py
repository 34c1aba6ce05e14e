"""
Judging top-n subsets by model masking
======================================

Kolcz & Chowdhury (2007) rank terms by the weights of a trained linear SVM and ask how well the
top ``n`` terms would do, for many ``n``, without training a model per ``n``: *masking* keeps
the trained weights of the top ``n`` terms, the *SV set* reuses the trained model's support
vectors and Lagrange multipliers restricted to them.  :func:`textsel.masking.evaluate_subsets`
computes both, and exact re-training for reference, on Boolean unit-length documents as in the
paper.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import normalize

import textsel
from textsel.datasets import get_data_home, load_reuters21578, make_synthetic_corpus
from textsel.masking import evaluate_subsets

# %%
# One binary task: Reuters-21578's "acq" (company acquisitions) against the rest, or a class of
# the synthetic corpus.
if (get_data_home() / "reuters21578.tar.gz").is_file():
    corpus = load_reuters21578()
    c = corpus.target_names.index("acq")
    train, test = corpus.data_train, corpus.data_test
    y, y_test = corpus.target_train[:, c], corpus.target_test[:, c]
    name = "Reuters-21578, acq"
else:
    corpus = make_synthetic_corpus(n_docs=3000)
    labels = (corpus.target == 1).astype(int)
    train, test, y, y_test = train_test_split(corpus.data, labels, test_size=0.3, random_state=0)
    name = "SYNTHETIC corpus, class_1"
vectorizer = CountVectorizer(binary=True, min_df=2)
X = normalize(vectorizer.fit_transform(train).astype(float))
X_test = normalize(vectorizer.transform(test).astype(float))

# %%
# One trained model, twenty subset sizes (fractions of the terms with a nonzero weight).
model = textsel.DualLinearSVC(C=1.0, loss="hinge").fit(X, y)
sizes = np.geomspace(0.005, 1.0, 20)
records = evaluate_subsets(model, X, y, X_test, y_test, sizes)
print(f"{name}: {X.shape[1]} terms, {len(sizes)} subset sizes")
for method in ("exact", "mask", "svset"):
    mine = [r for r in records if r["method"] == method]
    seconds = sum(r["seconds"] for r in mine)
    print(f"{method:>5}: AUC from {mine[0]['auc']:.3f} to {mine[-1]['auc']:.3f}, {seconds:.2f} s")

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for method, style in (("exact", "-"), ("mask", "--"), ("svset", ":")):
    mine = [r for r in records if r["method"] == method]
    ax.plot([r["fraction"] for r in mine], [r["auc"] for r in mine], style, marker=".", label=method)
ax.set_xscale("log")
ax.set_xlabel("share of the ranked terms kept")
ax.set_ylabel("test AUC")
ax.set_title(name)
ax.legend()
fig.tight_layout()
