"""
Feature sampling with SRLS
==========================

Dasgupta et al. (2007) keep a small random subset of the terms, drawn with probabilities from
the subspace (leverage) scores of the document-term matrix and rescaled, and train regularized
least squares on it (SRLS).  Here subspace sampling ("ss") and uniform sampling ("us") are
compared at several budgets by their micro-F1 relative to RLS on all the terms, as in the
paper's Fig. 5.
"""

import matplotlib.pyplot as plt
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

import textsel
from textsel.datasets import get_data_home, load_20newsgroups, make_synthetic_corpus

# %%
# 20 Newsgroups, or the synthetic corpus; tf-idf rows.
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


def micro_f1(model):
    return f1_score(y_test, model.fit(X, y).predict(X_test), average="micro")


# %%
# RLS on every term, then SRLS at each budget r (the expected number of terms kept).
full = micro_f1(textsel.RLSClassifier(alpha=1.0))
budgets = [250, 500, 1000, 2000, 4000]
relative = {}
for strategy in ("ss", "us"):
    relative[strategy] = [
        micro_f1(textsel.SRLSClassifier(r=r, strategy=strategy, k=20, alpha=1.0, random_state=0)) / full
        for r in budgets
    ]
    print(strategy, " ".join(f"r={r}: {v:.3f}" for r, v in zip(budgets, relative[strategy], strict=True)))
print(f"{name}: RLS on all {X.shape[1]} terms, micro-F1 {full:.3f}")

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for strategy, label in (("ss", "subspace sampling"), ("us", "uniform sampling")):
    ax.plot(budgets, relative[strategy], marker="o", label=label)
ax.set_xscale("log")
ax.set_xlabel("sampling budget r")
ax.set_ylabel("micro-F1 relative to all terms")
ax.set_title(name)
ax.legend()
fig.tight_layout()
