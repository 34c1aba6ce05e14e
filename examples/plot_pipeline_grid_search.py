"""
A pipeline with grid search
===========================

:class:`textsel.TermSelector` is a scikit-learn selector, so the metric and the number of terms
are hyper-parameters like any other: here a grid search chooses them by cross-validation inside
a pipeline that starts from raw text.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC

import textsel
from textsel.datasets import get_data_home, load_20newsgroups, make_synthetic_corpus

# %%
# Four newsgroups, or the synthetic corpus.
if (get_data_home() / "20news-bydate.tar.gz").is_file():
    news = load_20newsgroups()
    groups = [
        news.target_names.index(g) for g in ("comp.graphics", "rec.autos", "sci.med", "talk.politics.guns")
    ]
    keep = [i for i, t in enumerate(news.target_train) if t in groups]
    keep_test = [i for i, t in enumerate(news.target_test) if t in groups]
    texts, y = [news.data_train[i] for i in keep], news.target_train[keep]
    texts_test, y_test = [news.data_test[i] for i in keep_test], news.target_test[keep_test]
    name = "20 Newsgroups, four groups"
else:
    corpus = make_synthetic_corpus(n_docs=2000, n_classes=4)
    texts, y = corpus.data[:1500], corpus.target[:1500]
    texts_test, y_test = corpus.data[1500:], corpus.target[1500:]
    name = "SYNTHETIC corpus"

# %%
# The selector's metric and k, searched by 3-fold cross-validation.
pipeline = Pipeline(
    [
        ("tfidf", TfidfVectorizer(sublinear_tf=True, min_df=2)),
        ("select", textsel.TermSelector("bns", k=1000)),
        ("svm", LinearSVC()),
    ]
)
grid = GridSearchCV(pipeline, {"select__metric": ["bns", "ig", "chi2"], "select__k": [300, 3000]}, cv=3)
grid.fit(texts, y)
print(f"{name}: best {grid.best_params_}, cross-validated accuracy {grid.best_score_:.3f}")
print(f"test accuracy of the refitted pipeline: {grid.score(texts_test, y_test):.3f}")
for params, score in zip(grid.cv_results_["params"], grid.cv_results_["mean_test_score"], strict=True):
    print(f"  {params['select__metric']:>5} k={params['select__k']:<5} {score:.3f}")

# %%
# Cross-validated accuracy of each metric at each number of terms.
metrics, ks = ["bns", "ig", "chi2"], [300, 3000]
scores = {
    (p["select__metric"], p["select__k"]): s
    for p, s in zip(grid.cv_results_["params"], grid.cv_results_["mean_test_score"], strict=True)
}
fig, ax = plt.subplots(figsize=(6, 4))
for i, k in enumerate(ks):
    ax.bar(
        np.arange(len(metrics)) + 0.4 * i - 0.2, [scores[m, k] for m in metrics], width=0.4, label=f"k = {k}"
    )
ax.set_xticks(range(len(metrics)), metrics)
low = min(scores.values())
ax.set_ylim(low - 0.05, 1.0)
ax.set_ylabel("cross-validated accuracy")
ax.set_title(name)
ax.legend()
fig.tight_layout()
