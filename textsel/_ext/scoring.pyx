# cython: language_level=3
"""Forman's filter metrics evaluated cell by cell over a class_df table.

Every metric is a function of four integers per (class, term) cell: tp, fp
and the class sizes pos, neg.  The loops read the int64 count table once and
write the float64 score table once; no temporaries of the table's size.
"""

import numpy as np

from libc.math cimport NAN, fabs, log2, pow
from libc.stdint cimport int64_t, uint64_t
from scipy.special.cython_special cimport ndtri

from .core cimport TS_ERR_ARG, TS_ERR_INTERRUPTED, TS_OK
from .interrupts cimport stop_requested

cdef enum:
    # cells scored between two interrupt checks (a few milliseconds)
    _CHECK_EVERY = 1 << 20

cdef inline bint _stopped(void *stop, int64_t *work, Py_ssize_t cells) noexcept nogil:
    # the interrupt check, once ``cells`` more cells bring the work since the last one to _CHECK_EVERY
    work[0] += cells
    if stop == NULL or work[0] < _CHECK_EVERY:
        return False
    work[0] = 0
    return stop_requested(stop) != 0


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
                double[:, ::1] out,
                object interrupt=None):
    """Fill ``out`` (classes x terms) with one of the non-BNS metrics.

    ``invert`` applies Forman's negative-feature inversion (tpr' = 1 - tpr,
    fpr' = 1 - fpr, i.e. tp' = pos - tp, fp' = neg - fp) where tpr < fpr.
    With ``interrupt`` (a textsel._ext.ccore.Interrupt) Ctrl-C is looked for between classes.
    Returns TS_OK, TS_ERR_ARG if some count is inconsistent, or TS_ERR_INTERRUPTED (``out`` is
    then incomplete).
    """
    cdef Py_ssize_t n_classes = class_df.shape[0]
    cdef Py_ssize_t n_terms = class_df.shape[1]
    cdef Py_ssize_t c, t
    cdef double tp, fp, pos, neg
    cdef int status = TS_OK
    cdef void *stop = NULL if interrupt is None else <void *> interrupt
    cdef int64_t work = 0
    with nogil:
        for c in range(n_classes):
            if _stopped(stop, &work, n_terms):
                status = TS_ERR_INTERRUPTED
                break
            pos = <double> class_sizes[c]
            neg = <double> (n_docs - class_sizes[c])
            for t in range(n_terms):
                tp = <double> class_df[c, t]
                fp = <double> (df[t] - class_df[c, t])
                if tp < 0 or tp > pos or fp < 0 or fp > neg:
                    status = TS_ERR_ARG
                    break
                if invert and tp * neg < fp * pos:
                    tp = pos - tp
                    fp = neg - fp
                out[c, t] = _cell(metric, tp, fp, pos, neg, pow_k, pr_floor)
            if status != TS_OK:
                break
    return status


cdef inline double _z(int64_t k, double size, double clip) noexcept nogil:
    # inverse normal CDF at the rate k/size clipped to [clip, 1 - clip]
    cdef double r = k / size
    if r < clip:
        r = clip
    elif r > 1.0 - clip:
        r = 1.0 - clip
    return ndtri(r)


def bns_table(const int64_t[:, ::1] class_df,
              const int64_t[::1] df,
              const int64_t[::1] class_sizes,
              const int64_t[::1] order,
              int64_t n_docs,
              double clip,
              double w_pos,
              double w_neg,
              double[::1] z,
              int64_t[::1] touched,
              double[:, ::1] out,
              object interrupt=None):
    """Fill ``out`` with Bi-Normal Separation, |F^-1(tpr) - F^-1(fpr)|.

    F^-1 is evaluated only at grid points: on the tp side at every k/pos
    (the class sizes add up to the number of labels, so this is cheap), on
    the fp side only at the k/neg that some term of the class reaches (a few
    hundred per class, against neg + 1 for a full table), each when the sweep
    over the row first meets it: an fp grid point not evaluated yet holds NaN,
    which no grid value is, so the check costs no load beyond the lookup
    itself.  Only the points evaluated are reset to NaN for the next class
    size, so a call costs the cells plus the points used, not a pass over the
    grid per class (a grid has n_docs + 1 points).  Classes are visited in
    ``order`` (a permutation of the rows, by class size): classes of equal
    size share their grid, so values computed for one are reused.  Positive
    features (tpr > fpr) are scaled by ``w_pos`` and negative ones by
    ``w_neg``.

    Scratch: ``z`` (float64) of 2 (n_docs + 1) entries, whose second half
    must hold NaN on entry and holds NaN again on return (so one scratch
    serves many calls, see :func:`bns_scratch`), and ``touched`` (int64) of
    n_docs + 1.  With ``interrupt`` (a textsel._ext.ccore.Interrupt) Ctrl-C is looked for between
    classes.  Returns TS_OK, TS_ERR_ARG if some count is inconsistent (tp > pos, fp > neg, or
    negative), or TS_ERR_INTERRUPTED, in which case ``out`` is incomplete.
    """
    cdef Py_ssize_t n_classes = class_df.shape[0]
    cdef Py_ssize_t n_terms = class_df.shape[1]
    cdef Py_ssize_t width = n_docs + 1
    cdef Py_ssize_t c, j, t, n_touched = 0
    cdef int64_t pos, neg, tp, fp, k, prev_pos = -1
    # w_pos where d > 0 and w_neg where d < 0, without a data-dependent branch:
    # |d| (w_pos + w_neg)/2 + d (w_pos - w_neg)/2
    cdef double zf, d, w_avg = 0.5 * (w_pos + w_neg), w_half = 0.5 * (w_pos - w_neg)
    cdef int status = TS_OK
    cdef void *stop = NULL if interrupt is None else <void *> interrupt
    cdef int64_t work = 0
    cdef const int64_t *row
    cdef const int64_t *dfp = &df[0]
    cdef double *orow
    cdef double *ztp
    cdef double *zfp
    cdef int64_t *used = &touched[0]
    if z.shape[0] < 2 * width or touched.shape[0] < width:
        raise ValueError("BNS scratch arrays are too short")
    if class_sizes.shape[0] != n_classes:
        raise ValueError("class_sizes must have one entry per row")
    ztp, zfp = &z[0], &z[width]
    with nogil:
        for j in range(order.shape[0]):
            if _stopped(stop, &work, n_terms):
                status = TS_ERR_INTERRUPTED
                break
            c = order[j]
            if <uint64_t> c >= <uint64_t> n_classes:
                status = TS_ERR_ARG
                break
            pos = class_sizes[c]
            neg = n_docs - pos
            if pos < 0 or neg < 0:
                status = TS_ERR_ARG
                break
            row = &class_df[c, 0]
            orow = &out[c, 0]
            if pos != prev_pos:
                # a new class size: new grids (same size, same grids)
                prev_pos = pos
                for k in range(pos + 1):
                    ztp[k] = _z(k, <double> pos, clip)
                for k in range(n_touched):
                    zfp[used[k]] = NAN  # not evaluated yet for this size
                n_touched = 0
            for t in range(n_terms):
                tp = row[t]
                fp = dfp[t] - tp
                # one unsigned compare also catches negative counts
                if <uint64_t> tp > <uint64_t> pos or <uint64_t> fp > <uint64_t> neg:
                    status = TS_ERR_ARG
                    break
                zf = zfp[fp]
                if zf != zf:
                    # the fp grid point's first use for this class size: evaluated here, once
                    zf = zfp[fp] = _z(fp, <double> neg, clip)
                    used[n_touched] = fp
                    n_touched += 1
                d = ztp[tp] - zf
                orow[t] = fabs(d) * w_avg + d * w_half
            if status != TS_OK:
                break
        for k in range(n_touched):
            zfp[used[k]] = NAN  # as the caller gave it
    return status


def bns_scratch(int64_t n_docs):
    """The scratch of :func:`bns_table` for ``n_docs`` documents: ``(z, touched)``, the fp half of
    ``z`` already NaN."""
    width = n_docs + 1
    z = np.empty(2 * width)
    z[width:] = np.nan
    return z, np.empty(width, dtype=np.int64)
