"""
Scalable term selection against chi2
====================================

Li & Sun (2007) trade how discriminative a term is against how many documents it covers, and
tune the trade-off so that the selected terms give documents a target average vector length
(AVL).  Here :class:`textsel.ScalableTermSelector` and chi2 (the maximum over the classes) each
choose ``k`` terms for a linear SVM; the micro-F1 and the AVL of each selection are printed and
plotted.
"""

import matplotlib.pyplot as plt
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.feature_selection import SelectKBest, chi2
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC

import textsel
from textsel.datasets import get_data_home, load_20newsgroups, make_synthetic_corpus

# %%
if (get_data_home() / "20news-bydate.tar.gz").is_file():
    news = load_20newsgroups()
    train, test, y, y_test = news.data_train, news.data_test, news.target_train, news.target_test
    name = "20 Newsgroups"
else:
    corpus = make_synthetic_corpus(n_docs=3000)
    train, test, y, y_test = train_test_split(corpus.data, corpus.target, test_size=0.3, random_state=0)
    name = "SYNTHETIC corpus"
vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
X, X_test = vectorizer.fit_transform(train), vectorizer.transform(test)
df = (X > 0).sum(axis=0).A1


# %%
# For each k: the selected columns, the AVL they give the training documents, the test micro-F1.
def evaluate(selector):
    cols = selector.fit(X, y).get_support(indices=True)
    f1 = f1_score(y_test, LinearSVC().fit(X[:, cols], y).predict(X_test[:, cols]), average="micro")
    return f1, df[cols].sum() / X.shape[0]


ks = [500, 1000, 2000, 4000]
results = {"STS (textsel)": [], "chi2 (scikit-learn)": []}
for k in ks:
    results["STS (textsel)"].append(evaluate(textsel.ScalableTermSelector(k=k)))
    results["chi2 (scikit-learn)"].append(evaluate(SelectKBest(chi2, k=k)))
print(f"{name}: micro-F1 and average vector length of the selected terms")
for label, rows in results.items():
    print(
        f"  {label:<20}",
        "  ".join(f"k={k}: {f:.3f} (AVL {a:.1f})" for k, (f, a) in zip(ks, rows, strict=True)),
    )

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for label, rows in results.items():
    ax.plot(ks, [f for f, _ in rows], marker="o", label=label)
ax.set_xscale("log")
ax.set_xlabel("terms kept (k)")
ax.set_ylabel("test micro-F1")
ax.set_title(name)
ax.legend()
fig.tight_layout()
