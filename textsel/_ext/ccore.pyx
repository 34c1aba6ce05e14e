# cython: language_level=3
"""Calls into the C core (csrc/): buffers in, results out, the GIL released around the work."""

import numpy as np

from cpython.pycapsule cimport PyCapsule_GetPointer

from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc

from .core cimport (TS_LANES, TS_ERR_ARG, TS_ERR_CALLBACK, TS_ERR_INDEX, TS_ERR_INDPTR, TS_ERR_INTERRUPTED,
                   TS_ERR_NEGATIVE, TS_ERR_NOMEM, TS_ERR_NONFINITE, TS_HINGE, TS_OK, TS_SQUARED_HINGE, ts_csr,
                   ts_csr_matmat, ts_csr_matmat_panels, ts_csr_row_sumsq, ts_dcd_svm, ts_l2svm_newton,
                   ts_lsqr_options, ts_lsqr_result, ts_lsqr_rowop, ts_nested_svm, ts_rowop, ts_svm_options,
                   ts_svm_result)
from .interrupts cimport stop_requested
from .._errors import clear_locals, status_error

#: ``ts_status`` of csrc/textsel.h, name -> value, as the compiler read the header: the one list
#: of the codes every compiled kernel returns
STATUS = {
    "TS_OK": TS_OK,
    "TS_ERR_ARG": TS_ERR_ARG,
    "TS_ERR_NOMEM": TS_ERR_NOMEM,
    "TS_ERR_INDEX": TS_ERR_INDEX,
    "TS_ERR_NONFINITE": TS_ERR_NONFINITE,
    "TS_ERR_CALLBACK": TS_ERR_CALLBACK,
    "TS_ERR_INTERRUPTED": TS_ERR_INTERRUPTED,
    "TS_ERR_NEGATIVE": TS_ERR_NEGATIVE,
    "TS_ERR_INDPTR": TS_ERR_INDPTR,
}
_NAMES = {code: name for name, code in STATUS.items()}


def check_status(int code, str where, interrupt=None, *, array=None, position=None, block=None,
                 detail=None):
    """The one route from a kernel's status to Python: return for ``TS_OK``, else raise.

    Once ``interrupt`` (the call's :class:`Interrupt`) has recorded an exception, the
    KeyboardInterrupt of a signal handler or what an operator callback raised, any failed status
    of the call re-raises it, once the kernel has unwound: a kernel stopped for it may have left
    another thread's fault unreached, and the user asked to stop.  Otherwise a code raises the
    exception of :func:`textsel._errors.status_error`, naming ``where`` it came from and, where
    the kernel reports them, the array, position and block of the fault.  A code outside the enum
    is a ``RuntimeError``.
    """
    if code == TS_OK:
        return
    if code not in _NAMES:
        raise RuntimeError(f"{where}: unknown textsel status {code}")
    if interrupt is not None and interrupt.error is not None:
        raise interrupt.error
    raise status_error(_NAMES[code], code, where, array=array, position=position, block=block, detail=detail)


cdef class _Buffers:
    """Holds the typed views whose pointers a ts_csr borrows, for as long as it is used."""


cdef _Buffers _fill_csr(ts_csr *X, const double[::1] data, indices, indptr, int64_t n_rows,
                        int64_t n_cols):
    """Point X at the CSR buffers (int32 or int64 indices, one dtype for both arrays)."""
    cdef _Buffers keep = _Buffers()
    keep.data = data
    X.n_rows = n_rows
    X.n_cols = n_cols
    # no stored values: never read, but the core wants valid pointers
    X.data = &keep.data[0] if data.shape[0] else &keep.dummy
    X.indices32 = X.indptr32 = NULL
    X.indices64 = X.indptr64 = NULL
    if indices.dtype == np.int32:
        keep.ind32 = indices
        keep.ptr32 = indptr
        X.indptr32 = &keep.ptr32[0]
        X.indices32 = &keep.ind32[0] if keep.ind32.shape[0] else X.indptr32
    else:
        keep.ind64 = indices
        keep.ptr64 = indptr
        X.indptr64 = &keep.ptr64[0]
        X.indices64 = &keep.ind64[0] if keep.ind64.shape[0] else X.indptr64
    return keep


cdef class Interrupt:
    """A Ctrl-C shared by the kernels of one call.

    Every compiled loop checks it at bounded intervals (``textsel/_ext/interrupts.pxd``).  On the
    main thread the check runs Python's signal handlers; once one raised (KeyboardInterrupt), or
    an operator callback or the caller recorded an exception here (``error``), every kernel of the
    call, on any thread, stops at its next check, and :func:`check_status` raises that exception.
    """

    cdef public object error

    def __init__(self):
        self.error = None


cdef ts_lsqr_options _lsqr_options(double atol, double btol, double conlim, int64_t iter_lim,
                                   Interrupt interrupt):
    """The options; they point at ``interrupt`` without holding it: the caller must."""
    cdef ts_lsqr_options options
    options.atol = atol
    options.btol = btol
    options.conlim = conlim
    options.iter_lim = iter_lim
    options.interrupted = stop_requested
    options.interrupt_ctx = <void *> interrupt
    return options


cdef dict _lsqr_report(ts_lsqr_result *res, int64_t K):
    cdef int64_t k
    return {
        "istop": np.array([res[k].istop for k in range(K)], dtype=np.int64),
        "itn": np.array([res[k].itn for k in range(K)], dtype=np.int64),
        "r1norm": np.array([res[k].r1norm for k in range(K)]),
        "r2norm": np.array([res[k].r2norm for k in range(K)]),
        "anorm": np.array([res[k].anorm for k in range(K)]),
        "acond": np.array([res[k].acond for k in range(K)]),
        "arnorm": np.array([res[k].arnorm for k in range(K)]),
        "xnorm": np.array([res[k].xnorm for k in range(K)]),
    }


cdef class _RowOperator:
    """What the row operator's C callbacks reach: the Python operator, its shape, and the call's
    interrupt, where what it raises is recorded."""
    cdef object op
    cdef Interrupt interrupt
    cdef int64_t n_unknowns
    cdef bint lanes

    cdef object view(self, double *buf, int64_t n_vec):
        """The solver's buffer ``buf`` as the operator takes it: (n_unknowns, n_vec) row-major, or
        its lane blocks (ceil(n_vec / TS_LANES), n_unknowns, TS_LANES)."""
        cdef int64_t blocks = (n_vec + TS_LANES - 1) // TS_LANES
        if not self.n_unknowns:
            return np.zeros((blocks, 0, TS_LANES)) if self.lanes else np.zeros((0, n_vec))
        if self.lanes:
            return np.asarray(<double[:blocks, :self.n_unknowns, :TS_LANES]> buf)
        return np.asarray(<double[:self.n_unknowns, :n_vec]> buf)


cdef int _failed(_RowOperator c, BaseException exc):
    """``exc``, raised by the operator, recorded to be raised once the solver has stopped.  Its
    frames' locals are cleared: they hold views of the solver's buffers (v, g, unorm), freed
    when the call returns, which a kept error (a notebook's, a post-mortem debugger's) would read."""
    clear_locals(exc)
    if c.interrupt.error is None:
        c.interrupt.error = exc
    return TS_ERR_CALLBACK


cdef int _row_start(void *ctx, int64_t n_vec, const int64_t *cols, const int *exps, double *maxabs,
                    double *unorm, double *g) noexcept with gil:
    cdef _RowOperator c = <_RowOperator> ctx
    try:
        ids = np.asarray(<const int64_t[:n_vec]> cols).copy()
        if exps == NULL:
            c.op.start(ids, None, np.asarray(<double[:n_vec]> maxabs), None, None)
        else:
            scales = np.asarray(<const int[:n_vec]> exps).astype(np.int64)
            c.op.start(ids, scales, None, np.asarray(<double[:n_vec]> unorm), c.view(g, n_vec))
        return 0
    except BaseException as exc:  # KeyboardInterrupt too: re-raised once the solver has stopped
        return _failed(c, exc)


cdef int _row_step(void *ctx, int64_t n_vec, const int64_t *cols, const double *v, const double *vcoef,
                   const double *ucoef, double *unorm, double *g) noexcept with gil:
    cdef _RowOperator c = <_RowOperator> ctx
    try:
        ids = np.asarray(<const int64_t[:n_vec]> cols).copy()
        vin, out = c.view(<double *> v, n_vec), c.view(g, n_vec)
        vin.flags.writeable = False
        c.op.step(ids, vin, np.asarray(<const double[:n_vec]> vcoef).copy(),
                  np.asarray(<const double[:n_vec]> ucoef).copy(), np.asarray(<double[:n_vec]> unorm), out)
        return 0
    except BaseException as exc:
        return _failed(c, exc)


def lsqr_rowop(op, int64_t n_rows, int64_t n_cols, bint fit_intercept, int64_t n_rhs,
               const double[::1] damp, double atol, double btol, double conlim, int64_t iter_lim,
               Interrupt interrupt=None):
    """Run ts_lsqr_rowop on a Python row operator, which keeps the right-hand sides, the row
    weights and LSQR's u (n_rows x n_rhs) itself (on a cluster, beside its row blocks):

    - ``op.start(cols, None, maxabs, None, None)`` writes max |D b| of each column ``cols[p]``
      into ``maxabs[p]``;
    - ``op.start(cols, exps, None, unorm, g)`` sets u = 2^-exps D b for those columns and writes
      ||u|| into ``unorm`` and A'D u into ``g`` ((n_cols + fit_intercept) x len(cols));
    - ``op.step(cols, v, vcoef, ucoef, unorm, g)`` sets u = vcoef D A v + ucoef u, then writes
      ``unorm`` and ``g`` as ``start`` does;

    with v and g as the solver's own lane blocks ((ceil(len(cols) / 8), n_cols + fit_intercept,
    8): column p of row i at ``[p // 8, i, p % 8]``, no copy; the lanes past len(cols) of v hold
    other columns, those of g are not read) where ``op.lanes`` is true, else row-major
    ((n_cols + fit_intercept) x len(cols));

    or, where ``op`` has a ``rowop_capsule`` (:class:`textsel._ext.rowblocks.GroupsOperator`), the
    C operator it holds, called with no return to Python.

    ``A`` is [X, 1] with ``fit_intercept``; the views it is given are the solver's buffers and
    must not be kept beyond the call.  An exception raised there is raised here once the solver
    has stopped.  Returns ``x`` ((n_cols + fit_intercept) x n_rhs) and a dict of per-column arrays
    (``istop``, ``itn``, ``r1norm``, ``r2norm``, ``anorm``, ``acond``, ``arnorm``, ``xnorm``).
    """
    cdef ts_rowop A
    cdef const ts_rowop *given = NULL
    cdef _RowOperator c = _RowOperator()
    cdef ts_lsqr_options options
    cdef ts_lsqr_result *res
    cdef int status
    cdef int64_t n_unknowns = n_cols + (1 if fit_intercept else 0)
    if damp.shape[0] != n_rhs:
        raise ValueError(f"damp has {damp.shape[0]} entries for {n_rhs} right-hand sides")
    if interrupt is None:
        interrupt = Interrupt()  # held here: the options keep only a pointer to it
    c.op, c.interrupt, c.n_unknowns, c.lanes = op, interrupt, n_unknowns, bool(getattr(op, "lanes", False))
    capsule = getattr(op, "rowop_capsule", None)
    if capsule is not None:  # an operator in C (rowblocks.GroupsOperator): no call into Python
        given = <const ts_rowop *> PyCapsule_GetPointer(capsule, b"textsel.ts_rowop")
        if given.n_rows != n_rows or given.n_cols != n_cols or given.fit_intercept != fit_intercept:
            raise ValueError("the operator's shape is not the problem's")
    A.n_rows, A.n_cols, A.fit_intercept, A.lanes = n_rows, n_cols, fit_intercept, c.lanes
    A.start, A.step, A.ctx = _row_start, _row_step, <void *> c
    options = _lsqr_options(atol, btol, conlim, iter_lim, interrupt)
    x = np.zeros((n_unknowns, n_rhs), dtype=np.float64)
    cdef double[:, ::1] xv = x
    res = <ts_lsqr_result *> malloc(n_rhs * sizeof(ts_lsqr_result))
    if res == NULL:
        check_status(TS_ERR_NOMEM, "lsqr")
    try:
        with nogil:
            status = ts_lsqr_rowop(given if given != NULL else &A, n_rhs, &damp[0], &options,
                                   &xv[0, 0] if n_unknowns else NULL, res)
        check_status(status, "lsqr", interrupt)
        report = _lsqr_report(res, n_rhs)
    finally:
        free(res)
    return x, report


def csr_row_sumsq(const double[::1] data, indices, indptr, int64_t n_cols, double[::1] out):
    """The sum of squares of each row of the CSR buffers into ``out`` (n_rows), a column repeated
    in a row counted once with its values added, without the GIL."""
    cdef ts_csr X
    cdef int64_t n_rows = indptr.shape[0] - 1
    cdef int status
    cdef int64_t[::1] mark = np.empty(max(n_cols, 1), dtype=np.int64)
    cdef double[::1] acc = np.empty(max(n_cols, 1))
    if out.shape[0] != n_rows:
        raise ValueError(f"out has {out.shape[0]} entries for {n_rows} rows")
    if n_rows == 0:
        return
    keep = _fill_csr(&X, data, indices, indptr, n_rows, n_cols)
    with nogil:
        status = ts_csr_row_sumsq(&X, &out[0], &mark[0], &acc[0])
    check_status(status, "row_norms")


def csr_matmat(const double[::1] data, indices, indptr, int64_t n_cols, const double[:, ::1] V,
               double[:, ::1] out=None, int64_t panel_cols=0):
    """X V for CSR buffers and a dense (n_cols, P) V, without the GIL; written into ``out`` (and
    ``out`` returned) if given: a row block of a larger result, with no temporary.  With
    ``panel_cols`` > 0 the product walks panels of that many columns, keeping the rows of V in
    use in cache (the same sums in the same order; fast when rows' indices ascend)."""
    cdef ts_csr X
    cdef int64_t n_rows = indptr.shape[0] - 1, P = V.shape[1]
    cdef int status = 0
    cdef int64_t[::1] cursor
    if V.shape[0] != n_cols:
        raise ValueError(f"V has {V.shape[0]} rows, X {n_cols} columns")
    if out is None:
        out = np.empty((n_rows, P), dtype=np.float64)
    elif out.shape[0] != n_rows or out.shape[1] != P:
        raise ValueError(f"out has shape {(out.shape[0], out.shape[1])}, expected {(n_rows, P)}")
    if n_rows == 0 or P == 0:
        return np.asarray(out)
    keep = _fill_csr(&X, data, indices, indptr, n_rows, n_cols)
    if panel_cols > 0:
        cursor = np.empty(n_rows, dtype=np.int64)
        with nogil:
            status = ts_csr_matmat_panels(&X, P, &V[0, 0], &out[0, 0], panel_cols, &cursor[0])
    else:
        with nogil:
            status = ts_csr_matmat(&X, P, &V[0, 0], &out[0, 0])
    check_status(status, "csr_matmat")
    return np.asarray(out)


cdef void _svm_options(ts_svm_options *options, str loss, double C_pos, double C_neg, double tol,
                       int64_t max_iter, bint fit_intercept, double intercept_scaling, bint shrinking,
                       uint64_t seed, bint newton, Interrupt interrupt):
    """Fill the options (weights NULL); they point at ``interrupt`` without holding it: the caller
    must."""
    options.weights = NULL
    options.newton = newton
    options.loss = TS_HINGE if loss == "hinge" else TS_SQUARED_HINGE
    options.C_pos = C_pos
    options.C_neg = C_neg
    options.tol = tol
    options.max_iter = max_iter
    options.fit_intercept = fit_intercept
    options.intercept_scaling = intercept_scaling
    options.shrinking = shrinking
    options.seed = seed
    options.interrupted = stop_requested
    options.interrupt_ctx = <void *> interrupt
    options.certify = NULL
    options.certify_ctx = NULL


def dcd_svm_csr(const double[::1] data, indices, indptr, int64_t n_cols, const double[::1] y,
                str loss, double C_pos, double C_neg, double tol, int64_t max_iter,
                bint fit_intercept, double intercept_scaling, bint shrinking, uint64_t seed,
                alpha0=None, weights=None, bint newton=True, Interrupt interrupt=None, bint primal=False):
    """Run ts_dcd_svm on CSR buffers (or, with ``primal``, ts_l2svm_newton: squared hinge, few
    features); y holds +1/-1.  Returns (w, alpha, n_iter, converged)."""
    cdef ts_csr X
    cdef ts_svm_options options
    cdef ts_svm_result result
    cdef int status
    cdef const double[::1] a0
    cdef const double *a0ptr = NULL
    cdef const double[::1] wts
    cdef int64_t m = y.shape[0]
    if interrupt is None:
        interrupt = Interrupt()  # held here: the options keep only a pointer to it
    keep = _fill_csr(&X, data, indices, indptr, m, n_cols)
    w = np.zeros(n_cols + (1 if fit_intercept else 0), dtype=np.float64)
    alpha = np.zeros(max(m, 1), dtype=np.float64)
    cdef double[::1] wv = w
    cdef double[::1] av = alpha
    if alpha0 is not None:
        a0 = alpha0
        if a0.shape[0] != m:
            raise ValueError(f"alpha0 must hold one multiplier per document ({m}), got {a0.shape[0]}")
        if m:
            a0ptr = &a0[0]
    _svm_options(&options, loss, C_pos, C_neg, tol, max_iter, fit_intercept, intercept_scaling, shrinking,
                 seed, newton, interrupt)
    if weights is not None:
        wts = weights
        if wts.shape[0] != m:
            raise ValueError(f"sample_weight must hold one weight per document ({m}), got {wts.shape[0]}")
        if m:
            options.weights = &wts[0]
    with nogil:
        if primal:
            status = ts_l2svm_newton(&X, &y[0], &options, a0ptr, &wv[0], &av[0], &result)
        else:
            status = ts_dcd_svm(&X, &y[0], &options, a0ptr, &wv[0], &av[0], &result)
    check_status(status, "DualLinearSVC", interrupt)
    return w, alpha[:m], result.n_iter, bool(result.converged)


def nested_svm_csc(const double[::1] train_data, train_indices, train_indptr, const double[::1] y,
                   const double[::1] test_data, test_indices, test_indptr, const double[::1] y_test,
                   const int64_t[::1] order, const int64_t[::1] ks, str loss, double C_pos, double C_neg,
                   double tol, int64_t max_iter, bint fit_intercept, double intercept_scaling, uint64_t seed,
                   bint newton=True, double max_share=0.7, bint certify=True, Interrupt interrupt=None):
    """Run ts_nested_svm on the CSC buffers of the training and held-out documents (one index
    dtype per matrix; features are the CSC columns, so ``train_indptr`` has n_features + 1
    entries).  Returns (confusion of shape (len(ks), 3): tp, fp, fn; n_iter; converged;
    certified: stopped once the held-out predictions were proven the exact optimum's)."""
    cdef ts_csr train, test
    cdef ts_svm_options options
    cdef int status
    cdef int64_t n_features = train_indptr.shape[0] - 1, n_ks = ks.shape[0]
    if test_indptr.shape[0] - 1 != n_features:
        raise ValueError("the training and held-out documents must have the same features")
    if n_ks == 0 or order.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError("ks, order and the training labels y must not be empty")
    if interrupt is None:
        interrupt = Interrupt()  # held here: the options keep only a pointer to it
    keep_train = _fill_csr(&train, train_data, train_indices, train_indptr, n_features, y.shape[0])
    keep_test = _fill_csr(&test, test_data, test_indices, test_indptr, n_features, y_test.shape[0])
    confusion = np.zeros((n_ks, 3), dtype=np.int64)
    n_iter = np.zeros(n_ks, dtype=np.int64)
    converged = np.zeros(n_ks, dtype=bool)
    certified = np.zeros(n_ks, dtype=bool)
    cdef int64_t[:, ::1] cv = confusion
    cdef ts_svm_result *res = <ts_svm_result *> malloc(n_ks * sizeof(ts_svm_result))
    if res == NULL:
        check_status(TS_ERR_NOMEM, "nested_svm")
    _svm_options(&options, loss, C_pos, C_neg, tol, max_iter, fit_intercept, intercept_scaling, True, seed,
                 newton, interrupt)
    cdef const double *yt = &y_test[0] if y_test.shape[0] else &y[0]
    try:
        with nogil:
            status = ts_nested_svm(&train, &y[0], &test, yt, &order[0], order.shape[0], n_ks, &ks[0],
                                   &options, max_share, certify, &cv[0, 0], res)
        check_status(status, "nested_svm", interrupt)
        for i in range(n_ks):
            n_iter[i] = res[i].n_iter
            converged[i] = res[i].converged
            certified[i] = res[i].certified
    finally:
        free(res)
    return confusion, n_iter, converged, certified
