# cython: language_level=3
"""Forman's filter metrics evaluated cell by cell over a class_df table.

Every metric is a function of four integers per (class, term) cell: tp, fp
and the class sizes pos, neg.  The loops read the int64 count table once and
write the float64 score table once; no temporaries of the table's size.
"""

from libc.math cimport fabs, log2, pow
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free, malloc
from scipy.special.cython_special cimport ndtri

# Metric codes shared with textsel/metrics.py (_CODES).
cdef enum:
    ACC = 0
    ACC2 = 1
    BNS = 2
    CHI2 = 3
    DFREQ = 4
    F1 = 5
    IG = 6
    ODDN = 7
    ODDS = 8
    POW = 9
    PR = 10


cdef inline double _plogp(double x, double total) noexcept nogil:
    # x/total * log2(x/total) with the limit 0 at x = 0
    if x <= 0 or total <= 0:
        return 0.0
    cdef double p = x / total
    return p * log2(p)


cdef inline double _entropy(double x, double y) noexcept nogil:
    return -_plogp(x, x + y) - _plogp(y, x + y)


cdef inline double _cell(int metric, double tp, double fp, double pos, double neg,
                         double pow_k, double pr_floor) noexcept nogil:
    cdef double tpr = tp / pos
    cdef double fpr = fp / neg
    cdef double fn = pos - tp
    cdef double tn = neg - fp
    cdef double n = pos + neg
    cdef double word, num, den, pword
    if metric == ACC:
        return tp - fp
    if metric == ACC2:
        return fabs(tpr - fpr)
    if metric == CHI2:
        # full 2x2 table: N (tp tn - fp fn)^2 / (row and column margins);
        # a zero margin means the term carries no information: score 0
        den = (tp + fp) * (fn + tn) * pos * neg
        if den == 0:
            return 0.0
        num = tp * tn - fp * fn
        return n * num * num / den
    if metric == DFREQ:
        return tp + fp
    if metric == F1:
        return 2.0 * tp / (pos + tp + fp)
    if metric == IG:
        word = tp + fp
        pword = word / n
        return (_entropy(pos, neg) - pword * _entropy(tp, fp)
                - (1.0 - pword) * _entropy(fn, tn))
    if metric == ODDN:
        return tpr * (1.0 - fpr)
    if metric == ODDS:
        # tpr (1-fpr) / ((1-tpr) fpr) = tp tn / (fn fp); a zero count in the
        # denominator is replaced by one (Forman 2003, Table 1 notes)
        return tp * tn / ((fn if fn > 0 else 1.0) * (fp if fp > 0 else 1.0))
    if metric == POW:
        return pow(1.0 - fpr, pow_k) - pow(1.0 - tpr, pow_k)
    if metric == PR:
        return tpr / (fpr if fpr > 0 else pr_floor)
    return 0.0


def score_table(int metric,
                const int64_t[:, ::1] class_df,
                const int64_t[::1] df,
                const int64_t[::1] class_sizes,
                int64_t n_docs,
                bint invert,
                double pow_k,
                double pr_floor,
                double[:, ::1] out):
    """Fill ``out`` (classes x terms) with one of the non-BNS metrics.

    ``invert`` applies Forman's negative-feature inversion (tpr' = 1 - tpr,
    fpr' = 1 - fpr, i.e. tp' = pos - tp, fp' = neg - fp) where tpr < fpr.
    """
    cdef Py_ssize_t n_classes = class_df.shape[0]
    cdef Py_ssize_t n_terms = class_df.shape[1]
    cdef Py_ssize_t c, t
    cdef double tp, fp, pos, neg
    with nogil:
        for c in range(n_classes):
            pos = <double> class_sizes[c]
            neg = <double> (n_docs - class_sizes[c])
            for t in range(n_terms):
                tp = <double> class_df[c, t]
                fp = <double> (df[t] - class_df[c, t])
                if invert and tp * neg < fp * pos:
                    tp = pos - tp
                    fp = neg - fp
                out[c, t] = _cell(metric, tp, fp, pos, neg, pow_k, pr_floor)


cdef inline void _fill_z(double *table, int64_t *needed, Py_ssize_t n_needed,
                         double size, double clip) noexcept nogil:
    # inverse normal CDF at the clipped rates k/size for the listed k only
    cdef Py_ssize_t i
    cdef int64_t k
    cdef double r
    for i in range(n_needed):
        k = needed[i]
        r = k / size
        if r < clip:
            r = clip
        elif r > 1.0 - clip:
            r = 1.0 - clip
        table[k] = ndtri(r)


def bns_table(const int64_t[:, ::1] class_df,
              const int64_t[::1] df,
              const int64_t[::1] class_sizes,
              int64_t n_docs,
              double clip,
              double w_pos,
              double w_neg,
              double[:, ::1] out):
    """Fill ``out`` with Bi-Normal Separation, |F^-1(tpr) - F^-1(fpr)|.

    Per class, a first sweep over the row records which grid points k/pos and
    k/neg some term reaches; F^-1 is evaluated once at each (a few hundred per
    class, against pos + neg + 2 for a full table), and a second sweep looks
    the scores up.  Positive features (tpr > fpr) are scaled by ``w_pos`` and
    negative ones by ``w_neg``.  Returns 0, or -1 when the scratch tables
    could not be allocated.
    """
    cdef Py_ssize_t n_classes = class_df.shape[0]
    cdef Py_ssize_t n_terms = class_df.shape[1]
    cdef Py_ssize_t c, t, n_tp, n_fp
    cdef int64_t pos, neg, tp, fp, stamp
    cdef double d, w_diff = w_pos - w_neg
    cdef const int64_t *row
    cdef double *orow
    # z values, "seen in class c" stamps and the lists of k to evaluate, for
    # the tp side (indices 0..n_docs) and the fp side (n_docs+1..2 n_docs+1)
    cdef Py_ssize_t width = n_docs + 1
    cdef double *z = <double *> malloc(2 * width * sizeof(double))
    cdef int64_t *seen = <int64_t *> calloc(2 * width, sizeof(int64_t))
    cdef int64_t *needed = <int64_t *> malloc(2 * width * sizeof(int64_t))
    cdef double *ztp
    cdef double *zfp
    cdef int64_t *seen_tp
    cdef int64_t *seen_fp
    if z == NULL or seen == NULL or needed == NULL:
        free(z)
        free(seen)
        free(needed)
        return -1
    ztp, zfp = z, z + width
    seen_tp, seen_fp = seen, seen + width
    with nogil:
        for c in range(n_classes):
            pos = class_sizes[c]
            neg = n_docs - pos
            row = &class_df[c, 0]
            orow = &out[c, 0]
            stamp = c + 1
            n_tp = 0
            n_fp = 0
            for t in range(n_terms):
                tp = row[t]
                fp = df[t] - tp
                if seen_tp[tp] != stamp:
                    seen_tp[tp] = stamp
                    needed[n_tp] = tp
                    n_tp += 1
                if seen_fp[fp] != stamp:
                    seen_fp[fp] = stamp
                    needed[width + n_fp] = fp
                    n_fp += 1
            _fill_z(ztp, needed, n_tp, <double> pos, clip)
            _fill_z(zfp, needed + width, n_fp, <double> neg, clip)
            for t in range(n_terms):
                tp = row[t]
                d = ztp[tp] - zfp[df[t] - tp]
                # arithmetic select: the sign of d is data-dependent, and a
                # mispredicted branch per cell costs more than the multiply
                orow[t] = fabs(d) * (w_neg + (d > 0) * w_diff)
    free(z)
    free(seen)
    free(needed)
    return 0
