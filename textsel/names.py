"""The names textsel's choices are made of, importable without numpy.

Each tuple lists the values a parameter or an option takes, so that a program can offer them
(a menu, a grid of settings) without importing the numerical stack.  The library's modules take
their vocabularies from here (``textsel.metrics.METRICS`` is this ``METRICS``), and so does the
command line, whose parser, ``--help`` and ``--version`` thus cost no import of numpy, scipy or
scikit-learn: a command that only parses its arguments starts in a tenth of a second.
"""

#: Forman's (2003) twelve filter metrics, in alphabetical order (:func:`textsel.score`)
METRICS = ("acc", "acc2", "bns", "chi2", "dfreq", "f1", "ig", "oddn", "odds", "pow", "pr", "rand")

#: how :class:`textsel.TermSelector` combines the classes' scores: by their maximum, by their
#: prior-weighted mean, or by taking each class's best remaining term in turn (Forman 2004)
MULTICLASS = ("max", "mean", "round_robin")

#: the layouts :func:`textsel.datasets.load_texts` reads raw text from
TEXT_FORMATS = ("auto", "csv", "tsv", "jsonl", "folder")

#: the labelled-matrix formats the command line reads ("auto": by the file's name)
MATRIX_FORMATS = ("auto", "arff", "svmlight", "cluto")

#: the formats ``textsel select`` writes the selected terms in
OUTPUT_FORMATS = ("tsv", "csv", "json")

#: the corpora ``textsel demo`` runs on: the embedded SMS Spam Collection (the default) or synthetic
#: corpus, or a real one from the data home
CORPORA = ("sms-spam", "synthetic", "reuters21578", "20newsgroups")

#: the numbers of terms of Forman's study (:func:`textsel.study.forman`)
FORMAN_KS = (10, 20, 50, 100, 200, 500, 1000, 2000)

#: the losses of :class:`textsel.DualLinearSVC`: L1 hinge (the paper's SMO) and squared hinge
LOSSES = ("hinge", "squared_hinge")

#: Dasgupta et al.'s feature sampling: subspace, weight-based and uniform probabilities
STRATEGIES = ("ss", "ws", "us")

#: how :func:`textsel.masking.evaluate_subsets` judges a subset: exact re-training, masking the
#: trained weights, or rebuilding them from the kept support vectors (Kolcz & Chowdhury 2007)
MASKING_METHODS = ("exact", "mask", "svset")

__all__ = ["CORPORA", "FORMAN_KS", "LOSSES", "MASKING_METHODS", "MATRIX_FORMATS", "METRICS", "MULTICLASS",
           "N_JOBS_RULE", "OUTPUT_FORMATS", "REPRODUCTIONS", "STRATEGIES", "TEXT_FORMATS"]  # fmt: skip

#: the values every ``n_jobs`` (and ``--n-jobs``) takes (:func:`textsel.check_n_jobs`)
N_JOBS_RULE = "-1 (every core this process may use) or a count of 1 or more"

#: the papers ``textsel reproduce`` reproduces (textsel.reproduce.PAPERS)
REPRODUCTIONS = ("forman", "li-sun", "dasgupta", "kolcz", "zhuang")
