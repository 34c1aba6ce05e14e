"""The papers' claims that the reproductions test, entered from the papers as data.

Each entry: where the paper makes the claim (figure, table or section) and its words (in quotes
where quoted) or numbers.
"""

#: Forman (2003), JMLR 3: 1289-1305.  Sections by their titles (the text at hand lost their
#: numbers); each claim quotes the paper verbatim and says "reading:" for what the row tests.
FORMAN = {
    "wide_margin": (
        'Sec. "Empirical Results", Fig. 4',
        '"BNS performed best by a wide margin when using 500 to 1000 features."; reading: at 500 and '
        "1000 features BNS's macro-F1 is above every other metric's (\"wide\" is given no number)",
    ),
    "all_terms": (
        'Sec. "Empirical Results", Fig. 4',
        '"The most striking feature is that the only metrics to perform better than using all the '
        'features available are BNS (the boldface curve) and to a limited extent IG (dashed)."; '
        "reading: at their best number of features BNS and IG are above the SVM on all features, and no "
        "other metric is",
    ),
    "t_test": (
        'Sec. "Empirical Results", Fig. 4',
        '"the significance level, even in the barely visible gap between BNS and IG at 100 features, is '
        'greater than 99% confidence in a paired t-test of the 229*5 runs"',
    ),
    "small_k": (
        'Sec. "Empirical Results", Fig. 4',
        '"If for scalability reasons one is limited to 20-50 features, the best available metric is IG '
        '(or Acc2, which is simpler to program)."; reading: at 20 and 50 features no metric is above both '
        "IG and Acc2",
    ),
    "acc2": (
        'Sec. "Empirical Results", Fig. 4',
        '"Surprisingly, Acc2, which ignores class skew, outperformed Acc, which accounts for skew."; '
        "reading: over the figure's numbers of features (their mean)",
    ),
    "ig_chi": (
        'Sec. "Empirical Results", Fig. 4',
        '"IG dominates the performance of Chi at every size of feature set."',
    ),
    "dfreq": (
        'Sec. "Empirical Results", Fig. 4',
        '"DFreq has poor performance for small numbers of frequent features, as we expect, but rises '
        "quickly.\"; reading: at 10 features under half of BNS's macro-F1, by 2000 within 10% of it",
    ),
    "accuracy": (
        'Sec. "Empirical Results" (Accuracy; the figure is in Appendix D)',
        '"BNS again performed the best by a smaller, but still >99% confident, margin. At 100 features '
        "and below, however, IG again performed best, with Acc2 being statistically indistinguishable at "
        "20 features.\"; reading: above 100 features BNS's macro-accuracy is above every other metric's, "
        "at 100 and below IG's (Acc2 excepted at 20)",
    ),
    "recall": (
        'Sec. "Empirical Results" (Precision-Recall Tradeoffs), Fig. 5',
        '"We see that the success of BNS with regard to its high F-measure is because it obtained on '
        'average much higher recall than any other method." (1000 features)',
    ),
    "precision": (
        'Sec. "Empirical Results" (Precision-Recall Tradeoffs), Fig. 5',
        '"If, on the other hand, precision is the central goal, IG and Chi perform best by a smaller but '
        'still significant margin to the other metrics." (1000 features); reading: IG and Chi each above '
        "every metric but the other",
    ),
    "precision_small": (
        'Sec. "Empirical Results" (Precision-Recall Tradeoffs), text (no figure: Fig. 5 is at 1000 features)',
        '"(At 500 features and below, IG dominated all other metrics.)" (precision)',
    ),
    "skew_spread": (
        'Sec. "Class Skew Analysis", Fig. 6',
        '"We see that for lower values of class skew, the SVM classifier usually achieves good F-measure, '
        'but as the skew increases, the results vary more widely." (BNS at 1000 features); reading: the '
        "F1 of the tasks above the median skew spreads wider (standard deviation) than at or below it",
    ),
    "low_f1": (
        'Sec. "Class Skew Analysis", Fig. 7',
        '"Observe that under low skew, BNS performed best overall, but if one is limited to just a few '
        "features, then IG is a much better choice.\"; reading: under low skew BNS's best macro-F1 over the "
        "numbers of features is above each other metric's best, and IG is above BNS at 10 and 20 features",
    ),
    "high_f1": (
        'Sec. "Class Skew Analysis", Fig. 7',
        '"In contrast, under high skew, BNS performed best by a wide margin for any number of features '
        'selected."',
    ),
    "low_precision": (
        'Sec. "Class Skew Analysis", Fig. 8',
        '"Under low skew, IG performs best and eventually reaches the performance of using all features."; '
        "reading: IG above each other metric over the figure's numbers of features (their mean), and at 2000 "
        "features within 0.01 of the SVM on all features or above it",
    ),
    "high_precision": (
        'Sec. "Class Skew Analysis", Fig. 8',
        '"Under high skew, on the other hand, BNS performed substantially better than IG."; reading: over '
        "the figure's numbers of features (their mean)",
    ),
    "tolerance": (
        'Sec. "Best Chances of Attaining Maximum Performance", Fig. 9a',
        '"We see that BNS attained within 1% of best performance for 65% of the 229 problems, beating IG '
        "at just 40%.\"; reading: BNS's share of the tasks above IG's (the 65% and 40% are shares of his "
        "229 problems)",
    ),
    "goals": (
        'Sec. "Best Chances of Attaining Maximum Performance", Fig. 9b',
        '"Figure 9b shows similar results for Accuracy, F-measure, Precision and Recall (but using 0.1% '
        "tolerance for accuracy, since large class skew compresses the range). Note that for precision, "
        "there is no single clear winner, and that several metrics beat BNS, notably IG.\"; reading: BNS's "
        "share is above each other metric's for accuracy, F-measure and recall, and IG's above BNS's for "
        "precision",
    ),
    "precision_tolerance": (
        'Sec. "Best Chances of Attaining Maximum Performance", Fig. 10a',
        '"IG consistently dominates at higher tolerances, though the margin is less striking than for BNS '
        "in Figure 9a.\"; reading: IG's share of the tasks above each other metric's at tolerances 5% to "
        "10%",
    ),
    "residual": (
        'Sec. "Residual Win Analysis", Fig. 10b',
        '"Indeed, whenever IG failed to attain the maximum, Chi had the most correlated failures and was '
        "as bad as Rand. When IG failed, BNS performed the best\"; reading: on the tasks where IG's "
        "precision is not within 1% of the best, Chi rescues fewer than each other metric and as many as "
        "Rand, BNS more than each other",
    ),
    "pairs": (
        'Sec. "Residual Win Analysis", Fig. 10b',
        '"The best pair found for precision is BNS+Odds" ... "For recall, BNS+F1 was best by a very wide '
        "margin compared to other pairs. Less strikingly, BNS+IG was best for F-measure, and BNS+OddN was "
        "best for accuracy.\"; reading: each pair's share of the tasks is above every other pair's",
    ),
    "cutoff": (
        'Sec. "Sensitivity to the Rare Word Cutoff", Fig. 11',
        '"As shown in Figure 11, each of these performance measures tends to drop as the threshold '
        'increases." ... "As an exception to the trend, recall first experiences a slight rise up to a '
        'threshold of about ten occurrences." (Cora, BNS at 1000 features, cutoffs up to 25); reading: '
        "F-measure and precision lower at the largest cutoff than at 1, recall higher at 10 than at 1",
    ),
    "negative": (
        "Appendix C, Fig. 13",
        '"Note that BNS selects many more negative features." (the 100 words each metric selects); '
        "reading: BNS's share of negative terms among a task's top 100 is above each other metric's",
    ),
}

#: Forman's best pairs of metrics, by goal (his Fig. 10b and the text after it)
FORMAN_PAIRS = {
    "precision": ("bns", "odds"),
    "recall": ("bns", "f1"),
    "f1": ("bns", "ig"),
    "accuracy": ("bns", "oddn"),
}

#: Kolcz & Chowdhury (2007), IJCAI.  The available text of the paper lost its tables' and
#: figures' numbers (and the figures' numbering), so the claims are its statements about them.
#: Kolcz & Chowdhury (2007), IJCAI.  The only text of the paper at hand is an extraction that lost
#: its stop words, numbers and layout (two columns run into each other): each claim quotes the
#: extraction's words verbatim, "..." where the other column's words interleave, and says
#: "reading:" for the sentence the row tests.
KOLCZ = {
    "svset_auc": (
        "Sec. 4.1 (accuracy effects), Table 1",
        '"pvalues show  collections best auc performance achieved sv set approach statistically '
        "equivalent exact\"; reading: in both collections the SV set's best AUC is statistically "
        "equivalent to exact re-training's",
    ),
    "mask_auc": (
        "Sec. 4.1 (accuracy effects)",
        '"best performance normalbased masking underperformed"; reading: normal-based masking\'s best '
        "AUC falls below exact re-training's",
    ),
    "cosine": (
        "Sec. 4.2 (correlation effects), weight-vector figure",
        '"long sizable fraction original" (one column of the garbled text) and "weight vec ... tors close '
        'each" (the next, interleaved with it); reading: the masked and the re-trained weight vectors are '
        "close (high cosine) as long as a sizable fraction of the original features is used, less so for "
        "smaller n",
    ),
    "overlap": (
        "Sec. 4.2 (correlation effects), support-set figure",
        '"sv set overlap quite high ... fraction overlap goes mainly decrease  topn features used small"; '
        "reading: the original and re-trained SV sets overlap highly, the overlap falling when few "
        "top-n features are used",
    ),
    "containment": (
        "Sec. 4.2 (correlation effects), support-set figure",
        '"fraction orig ... inal svs used remains consistently high"; reading: the share of the '
        "re-trained model's SVs that are original ones stays high at every subset size",
    ),
    "cost": (
        "abstract",
        '"proposed techniques result substan ... tial gains terms computational efﬁciency"; reading: '
        "masking and the SV set judge the subsets at a fraction of re-training's time",
    ),
}
#: each Kolcz quote marked as the extraction's words, where a reader meets it
_EXTRACTED = " [the words of an extraction without stop words or punctuation]; reading:"
KOLCZ = {key: (where, text.replace("; reading:", _EXTRACTED, 1)) for key, (where, text) in KOLCZ.items()}

#: Zhuang, Zhang, Yang, Yan, Chen and Chen, "Efficient text classification by weighted proximal SVM".
#: Table 2: average F1 over RCV1-v2's 101 Topics; SVM.1 and SVM.2 are the values of Lewis et al.
ZHUANG_TABLE2 = {
    "PSVM": (0.767, 0.354),
    "SVM light": (0.804, 0.472),
    "WPSVM": (0.808, 0.589),
    "SVM.2": (0.810, 0.557),
    "SVM.1": (0.816, 0.619),
}
#: Table 4: training seconds (2006 hardware) for 23,149 to 804,414 training documents
ZHUANG_TABLE4 = {
    "sizes": (23149, 222477, 421816, 621392, 804414),
    "CCAT (balanced, 47.4%)": {
        "WPSVM": (1.6, 42.7, 80.5, 194.4, 273.4),
        "SVM light": (43, 1313, 3306, 5110, 10986),
    },
    "GDIP (unbalanced)": {"WPSVM": (2.1, 35, 100, 171, 276), "SVM light": (9.1, 317, 884, 1599, 2458)},
}
ZHUANG = {
    "macro_order": (
        "Sec. 5.1, Table 2",
        '"It can be seen that the overall performance of WPSVM, SVM.1 and SVM.2 are better than that of '
        'SVM light and PSVM. SVM.1 has the best average effectiveness, especially in average macro F1."; '
        "Table 2's macro-F1: PSVM 0.354, SVM light 0.472, SVM.2 0.557, WPSVM 0.589, SVM.1 0.619; reading: "
        "on macro-F1, each of WPSVM, SVM.1 and SVM.2 above SVM light and PSVM, and SVM.1 above WPSVM and "
        "SVM.2",
    ),
    "micro_close": (
        "Sec. 6, Table 2",
        '"The experiments showed that our proposed method can achieve comparable classification quality '
        "as the standard SVM when supplemented with validation techniques\"; Table 2's micro-F1: WPSVM "
        "0.808, SVM.2 (SVM light with j chosen by leave-one-out) 0.810, SVM.1 (SVM light with SCutFBR.1 "
        "thresholds) 0.816; reading: on micro-F1, WPSVM within 0.01 of SVM.2 and of SVM.1, both "
        "the standard SVM with a validation technique",
    ),
    "balanced": (
        "Sec. 5.1, Fig. 5",
        '"From the results we can see that when the training data is relatively balanced (the right part '
        'Figure 5), the F1 measure for the five algorithms has no big differences."; reading: on the '
        "categories with at least 1% positive training documents (where the right part starts is not "
        "given), the five macro-F1 within 0.05 of each other",
    ),
    "unbalanced": (
        "Sec. 5.1, Fig. 5",
        '"When the training data is unbalanced (the left part of Figure 5), the classification quality of '
        'WPSVM is between SVM.1 and SVM2 Both have better classification quality than SVM light and PSVM."; '
        "reading: on the categories with 0.1% to 1% positive training documents, WPSVM's macro-F1 between "
        "SVM.1's and SVM.2's (within 0.01), and WPSVM, SVM.1 and SVM.2 each above SVM light and PSVM",
    ),
    "extreme": (
        "Sec. 5.1, Table 2",
        '"This is mainly because when the training data are extremely unbalanced (eg the positive ratio is '
        'less than 0.1%), the threshold adjustment method is better than both WPSVM and SVM2"; reading: on '
        "the categories under 0.1% positive training documents, SVM.1's macro-F1 above WPSVM's and SVM.2's",
    ),
    "psvm_falls": (
        "Sec. 5.1, Fig. 5",
        '"Figure 5 also shows the classification quality of PSVM deteriorates more quickly than that of SVM '
        "light when the data become unbalanced.\"; reading: PSVM's macro-F1 falls more than SVM light's "
        "from the relatively balanced categories to the unbalanced ones",
    ),
    "time": (
        "Sec. 5.2, Table 4",
        '"We can see that the training time of WPSVM is far less than the training time of SVM light and '
        'is not affected by the data unbalanced ness problem."; Table 4: CCAT 1.6 s against 43 s at 23,149 '
        "documents, 273 s against 10,986 s at 804,414; reading: SVM light's time over WPSVM's above 2 at "
        "every size, and WPSVM's time on the unbalanced task within a factor of 2 of the balanced one's",
    ),
    "linear": (
        "Sec. 4.2",
        '"Usually this kind of algorithms has O(KZ) time complexity and O(Z) space complexity where K is '
        'the number of iterations and Z is the number of non zero elements in the training vectors."; '
        "reading: WPSVM's time per LSQR iteration grows no faster than the stored values (within a factor "
        "of 1.5)",
    ),
    "memory": (
        "Sec. 5.2, Fig. 6",
        '"We can see that the memory requirement of WPSVM is slightly less than SVM light."; reading: '
        "WPSVM's peak extra memory below SVM light's at the largest size",
    ),
}

#: Li & Sun (2007), "Scalable term selection for text categorization" (EMNLP-CoNLL).
LI_SUN = {
    "fig8": (
        "Sec. 5.1, Fig. 8; Sec. 6.2",
        '"Same experiments are done on 20NG and the results are shown in Figure 8, Figure 9 and Figure '
        '10. The performance improvements is not as significant as on the CE collection" (Sec. 5.1); "20NG. '
        "The F1 improvements at low dimensionalities is not quite significant, but AVL remains a lower "
        "level. For higher k, there is less difference in F1, but the smaller AVL yield lower "
        'computational cost than χ2." (Sec. 6.2); reading: on 20NG, STS at its tuned AVL* not below chi2 at '
        "the low k (1,000 and fewer), its gain there allowed to be too small to be significant, and its AVL "
        "below chi2's at every k",
    ),
    "formula": (
        "Sec. 5.1",
        '"This characteristic of STS guarantee that the empirical AVL°(k) has a very close performance '
        'to AVL*(k)"',
    ),
    "sensitivity": (
        "Sec. 5.1",
        '"the performance of STS is not very sensitive to a small value change of AVL. For instance, at '
        "k = 4000, AVL* = 120 and the F1 peak is 85.8824%, and for AVL = 110 and 130 the corresponding "
        'F1 are 85.8683% and 85.6583%" (on CE)',
    ),
    "avl_k": (
        "Sec. 5.1, Figs. 6 and 9",
        '"We can see that log(AVL*) is almost proportional to log(k) when k is not too large." (CE); on '
        '20NG "The conspicuous relations between AVL*, λ* and k remain the same."',
    ),
    "lambda_k": (
        "Sec. 5.1, Figs. 7 and 10",
        '"The corresponding values of λ* are shown in Figure 7; the relation is nearly linear between λ* '
        'and log(k)." (CE), the same on 20NG',
    ),
    "gamma": (
        "Sec. 5.2, Fig. 11",
        '"This hypothesis is confirmed (not for too high dimensionalities) by Figure 11" ... "From the '
        'figure, we get the value of this ratio (the base of log is set to e):" γ = (log AVL*(k) / log '
        "AVL_T) / log k ≅ 0.085 (its display formula); reading: on 20NG, γ is about 0.085 at the k that are "
        "not too high",
    ),
    "spearman": (
        "Sec. 6.1",
        '"An investigation shows that for a quite large range of λ, term rankings by ζ(ti; λ) and χ2(ti) '
        "have a strong correlation (the Spearman's rank correlation coefficient is bigger than 0.999).\"",
    ),
}

#: Dasgupta, Drineas, Harb, Josifovski and Mahoney (2007), "Feature selection methods for text
#: classification" (KDD).  The text at hand lost the subsections' dots (its "633" is Sec. 6.3.3);
#: each claim quotes the paper verbatim and says "reading:" for what the row tests.
DASGUPTA = {
    "lambda": (
        "Sec. 6.3.1, Fig. 2 (caption)",
        '"The optimal Micro averaged and Macro averaged F1 values occur at λ = 0.4 for this split." (the '
        "first 20 Newsgroups split); reading: on the first split, no λ of the sweep 0.1 ... 1 gives a micro- "
        "or macro-F1 above λ = 0.4's by more than a small margin",
    ),
    "ninety": (
        "Sec. 6.3.3, Fig. 5a",
        '"Both the SS (for k = 1500) and IG strategies achieve about 90% of the micro averaged F1 '
        'performance of the full feature set with roughly 5K of the total 60K features."; reading: '
        '"about 90%" as 0.85 to 0.95 of the all-terms micro-F1, at 5,000 terms',
    ),
    "ig_dominates": (
        "Sec. 6.3.3, Fig. 5a",
        '"The IG based strategy dominates the performance, being particulary better than the others at '
        'the aggressive levels."; reading: IG above every other method on the mean over the numbers of '
        "terms, and at each number of terms of 500 and fewer (the aggressive levels)",
    ),
    "ss100": (
        "Sec. 6.3.3, Fig. 5a",
        '"We see the same effect of SS with k = 100 being better among all unsupervised methods for '
        'aggressive selection."; reading: at 500 terms and fewer (under 1% of the vocabulary), SS with '
        "k = 100 above each other unsupervised method",
    ),
    "ss1500": (
        "Sec. 6.3.3, Fig. 5a",
        '"In general, SS with k = 1500 strategy outperforms the other unsupervised feature selection '
        "strategies; however, it is only marginally better than the WS and DF methods. As expected, "
        'uniformly random feature selection falls far behind rest."; reading: over the numbers of terms '
        "from 1,000 (their mean), SS with k = 1500 above the other unsupervised strategies (WS, DF and "
        "US; SS with k = 100 is the same strategy at another k), by at most 0.03 over WS and DF "
        "(marginally), and by more than 0.05 over US (far)",
    ),
    "hellinger": (
        "Sec. 6.3.2, Fig. 4c",
        '"In terms of Hellinger distance, WS is closer to SS for higher values of k." (TechTC-100, k from 1 '
        "to 100); reading: the distance at the largest k is below the distance at the smallest",
    ),
    "reuters_gain": (
        "Sec. 6.3.4, Fig. 5b",
        '"Under feature selection, the performance of this dataset actually improves marginally over the '
        'full set of features."; reading: the best method at its best number of terms is above the '
        "all-terms micro-F1 (the best chosen again in each resample)",
    ),
    "reuters_ig": (
        "Sec. 6.3.4, Fig. 5b and 5c",
        '"As with 20 Newsgroups, the IGbased feature selection strategy performs marginally better than '
        "the others. In fact, for this dataset, the DF selection strategy also slightly outperforms the "
        'subspace based methods."; reading: over the numbers of terms (their mean), IG above every other '
        "method and DF above both SS, on micro-F1 (Fig. 5b) and on macro-F1 (Fig. 5c, which the paper adds "
        'because "the Reuters dataset has a wide skew in the sizes of different classes")',
    ),
}

#: the sizes the papers give their claims, where they give one, as the row's quantity measures
#: it: {paper: {row: (size, unit)}}.  A row's power is its design's chance of finding the claim
#: were it true by this size (:mod:`textsel.reproduce.power`); a row without one says which size
#: its design finds.
SIZES = {
    # Fig. 9a: "BNS attained within 1% of best performance for 65% of the 229 problems, beating IG
    # at just 40%": 25 points of the tasks' share
    "forman": {"tolerance": (0.25, " (65% - 40% of the tasks)")},
    # Sec. 5.1: F1 85.8824% at AVL*, 85.8683% and 85.6583% at AVL* -+ 10: drops of 0.00014 and
    # 0.0022; the larger is taken for both sides
    "li-sun": {"sensitivity": (0.0022, " (the F1 drop of its example, 0.858824 - 0.856583)")},
}
