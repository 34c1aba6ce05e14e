"""Binary skewed tasks: WeightedProximalSVC against the baseline a practitioner reaches for,
scikit-learn's LinearSVC(class_weight="balanced"), and plain LinearSVC(), same run, same data.

Tasks (sublinear tf-idf, min_df=2, fitted on the training documents):

- 20 Newsgroups bydate, one group against the other nineteen: talk.religion.misc (the smallest
  group, 3.3% of the training documents) and sci.space (5.2%);
- the SMS Spam Collection with its spam cut to 2% of the messages (a random 2% kept, seed 0), split
  in halves stratified by class (seed 0): the collection has no published split.

For each model: the training time (best of --repeat fits), the test F1 of the positive class, and
for WeightedProximalSVC the F1 difference from LinearSVC(class_weight="balanced") with a 95%
paired bootstrap interval over the test documents (2,000 resamples): "wins" where the interval is
above 0, "loses" where it is below, "ties" otherwise.

    python benchmarks/bench_skewed.py [--data-home ../shared/data] [--repeat 3]
"""

from __future__ import annotations

import numpy as np
from corpora import argument_parser, best_of
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.model_selection import train_test_split
from sklearn.svm import LinearSVC

import textsel
from textsel.datasets import load_20newsgroups, load_sms_spam

MODELS = {
    "LinearSVC()": lambda: LinearSVC(),
    'LinearSVC(class_weight="balanced")': lambda: LinearSVC(class_weight="balanced"),
    "WeightedProximalSVC()": lambda: textsel.WeightedProximalSVC(),
    'WeightedProximalSVC(threshold="scut")': lambda: textsel.WeightedProximalSVC(threshold="scut"),
}
BASELINE = 'LinearSVC(class_weight="balanced")'


def tasks(data_home):
    """(name, X, y, X_test, y_test) of each binary task, y 1 for the positive class."""
    news = load_20newsgroups(data_home)
    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
    X, X_test = vectorizer.fit_transform(news.data_train), vectorizer.transform(news.data_test)
    for group in ("talk.religion.misc", "sci.space"):
        k = news.target_names.index(group)
        yield (
            f"20 Newsgroups, {group} vs rest",
            X,
            (news.target_train == k) * 1,
            X_test,
            (news.target_test == k) * 1,
        )
    texts, spam = load_sms_spam(return_X_y=True)
    rng = np.random.default_rng(0)
    ham, spams = np.flatnonzero(spam == 0), np.flatnonzero(spam == 1)
    n_spam = round(0.02 * ham.size / 0.98)
    keep = np.sort(np.concatenate([ham, rng.choice(spams, n_spam, replace=False)]))
    docs, y = [texts[i] for i in keep], spam[keep]
    train, test, y_train, y_test = train_test_split(docs, y, test_size=0.5, stratify=y, random_state=0)
    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=2)
    yield ("SMS spam cut to 2%", vectorizer.fit_transform(train), np.asarray(y_train),
           vectorizer.transform(test), np.asarray(y_test))  # fmt: skip


def f1(y, pred) -> float:
    tp = np.sum((pred == 1) & (y == 1))
    return 2 * tp / max(1, np.sum(pred == 1) + np.sum(y == 1))


def paired_interval(y, a, b, resamples=2000, seed=0):
    """95% percentile bootstrap over the test documents of F1(a) - F1(b)."""
    rng = np.random.default_rng(seed)
    diffs = np.empty(resamples)
    for r in range(resamples):
        i = rng.integers(0, y.size, y.size)
        diffs[r] = f1(y[i], a[i]) - f1(y[i], b[i])
    return np.percentile(diffs, [2.5, 97.5])


def main():
    args = argument_parser(__doc__.splitlines()[0], repeat=3).parse_args()
    for name, X, y, X_test, y_test in tasks(args.data_home):
        print(f"{name}: train {X.shape[0]} ({y.sum()} positive, {y.mean():.1%}), test {X_test.shape[0]} "
              f"({y_test.sum()} positive)")  # fmt: skip
        print(f"  {'model':<40}{'train s':>9}{'F1':>8}")
        preds = {}
        for label, make in MODELS.items():
            seconds, fitted = best_of(lambda make=make, X=X, y=y: make().fit(X, y), args.repeat)
            preds[label] = np.asarray(fitted.predict(X_test)).ravel()
            print(f"  {label:<40}{seconds:>9.3f}{f1(y_test, preds[label]):>8.3f}")
        for label in ("WeightedProximalSVC()", 'WeightedProximalSVC(threshold="scut")'):
            diff = f1(y_test, preds[label]) - f1(y_test, preds[BASELINE])
            low, high = paired_interval(y_test, preds[label], preds[BASELINE])
            word = "wins" if low > 0 else ("loses" if high < 0 else "ties")
            print(f"  {label} - {BASELINE}: {diff:+.3f} [{low:+.3f}, {high:+.3f}]: {word}")


if __name__ == "__main__":
    main()
