# cython: language_level=3
"""One group of a solve's rows (:class:`RowGroup`, ``ts_rowgroup_step`` in csrc/rowblocks.c): its
step of LSQR's row operator, without the GIL, in memory and on a Dask worker alike; and the groups
of an in-memory solve on one thread as one operator in C (:class:`GroupsOperator`,
``ts_row_groups`` in csrc/rowgroups.c)."""

import numpy as np

from cpython.pycapsule cimport PyCapsule_New
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from .ccore cimport _fill_csr
from .core cimport (TS_ERR_NOMEM, TS_ERR_NONFINITE, ts_csr, ts_csr_check, ts_row_block, ts_rowgroup_step,
                   ts_rowop)
from .ccore import check_status


cdef extern from "internal.h" nogil:
    int ts_csr_has_nonfinite(const ts_csr *X)


cdef extern from "textsel.h" nogil:
    ctypedef struct ts_row_groups:
        pass

    int ts_row_groups_init(ts_row_groups *G, const ts_row_block *groups, int64_t n_groups, int64_t n_rows,
                           int64_t n_cols, int fit_intercept, int64_t n_rhs, const double *b,
                           const double *weights, double *u)
    void ts_row_groups_free(ts_row_groups *G)
    ts_rowop ts_row_groups_op(ts_row_groups *G)


cdef class RowGroup:
    """One group of a matrix's rows in an in-memory solve: its CSR rows, their row weights D and
    LSQR's u (views of the whole solve's arrays, never copied), the rows' structure and values
    checked once, here, so that :meth:`step` (``ts_rowgroup_step``), run every iteration, need not.

    Parameters
    ----------
    data, indices, indptr : ndarray
        The group's rows in CSR form (float64 values; int32 or int64 indices and ``indptr``, which
        starts at 0).
    n_cols : int
        Columns of X; A = [X, 1] when ``fit_intercept``.
    fit_intercept : bool
    u : ndarray
        (K, rows) float64, each column of the problem a contiguous row (a column slice of the
        solve's (K, m) array), updated in place by :meth:`step`.
    weights : ndarray or None
        The group's row weights, laid out as ``u``; None: all 1.
    check : bool
        Check the rows' structure and values (the default).  False only for arrays a RowGroup
        built with True has checked already and that nothing wrote since (a Dask worker's group,
        checked when it was set up, rebuilt over a fresh u every iteration).
    """

    cdef ts_row_block block
    cdef object keep
    cdef readonly int64_t n_rows, n_cols, n_rhs
    cdef readonly bint fit_intercept

    def __cinit__(self, const double[::1] data, indices, indptr, int64_t n_cols, bint fit_intercept,
                  double[:, :] u, weights, bint check=True):
        cdef const double[:, :] wv
        cdef int status
        self.n_rhs, self.n_rows, self.n_cols, self.fit_intercept = u.shape[0], u.shape[1], n_cols, fit_intercept
        if indptr.shape[0] != self.n_rows + 1:
            raise ValueError(f"indptr has {indptr.shape[0]} entries for {self.n_rows} rows")
        if u.strides[1] != sizeof(double) or u.strides[0] % sizeof(double) or u.strides[0] < u.shape[1] * 8:
            raise ValueError(f"u must hold each column's rows contiguously, got strides "
                             f"{(u.strides[0], u.strides[1])}")
        self.keep = [_fill_csr(&self.block.X, data, indices, indptr, self.n_rows, n_cols), u, weights]
        self.block.u = &u[0, 0] if self.n_rows and self.n_rhs else NULL
        self.block.col_stride = max(u.strides[0] // sizeof(double), 1)
        self.block.weights = NULL
        if weights is not None:
            wv = weights
            if wv.shape[0] != u.shape[0] or wv.shape[1] != u.shape[1] or (
                    self.n_rows and self.n_rhs and (wv.strides[0] != u.strides[0] or wv.strides[1] != u.strides[1])):
                raise ValueError(f"weights {np.shape(weights)} must be laid out as u {np.shape(u)}")
            self.block.weights = &wv[0, 0] if self.n_rows and self.n_rhs else NULL
        if not check:
            return
        with nogil:
            status = ts_csr_check(&self.block.X)
            if status == 0 and ts_csr_has_nonfinite(&self.block.X):
                status = TS_ERR_NONFINITE
        check_status(status, "lsqr")

    def step(self, const int64_t[::1] cols, vb, vcoef, ucoef, double[::1] scale, double[::1] ssq,
             double[:, :, ::1] gb):
        """The group's part of one step for the columns ``cols``: u = vcoef D A v + ucoef u (``vb``
        None: u as it is), then its ||u|| as ``scale`` and ``ssq`` and its A'D u into ``gb``.

        ``vb`` and ``gb`` are lane blocks, (ceil(len(cols) / L), n_cols + fit_intercept, L) with L
        = 8, or 1 for one column alone: the vectors' column p in block p // L, lane p % L; ``vb``'s
        lanes past ``len(cols)`` are 0.
        """
        cdef int64_t P = cols.shape[0], n1 = self.n_cols + (1 if self.fit_intercept else 0)
        cdef int64_t L = 1 if P == 1 else 8
        cdef int64_t n_lanes = (P + L - 1) // L
        cdef const double[:, :, ::1] vv
        cdef const double[::1] vc, uc
        cdef const double *vptr = NULL
        cdef const double *vcptr = NULL
        cdef const double *ucptr = NULL
        cdef int status
        if P == 0:
            return
        if gb.shape[0] != n_lanes or gb.shape[1] != n1 or gb.shape[2] != L or scale.shape[0] != P \
                or ssq.shape[0] != P:
            raise ValueError(f"gb {np.shape(gb)}, scale {scale.shape[0]} and ssq {ssq.shape[0]} for "
                             f"{P} columns of {n1} unknowns")
        if vb is not None:
            vv = vb
            vc = vcoef
            uc = ucoef
            if vv.shape[0] != n_lanes or vv.shape[1] != n1 or vv.shape[2] != L or vc.shape[0] != P \
                    or uc.shape[0] != P:
                raise ValueError(f"vb {np.shape(vb)}, vcoef {vc.shape[0]} and ucoef {uc.shape[0]} for "
                                 f"{P} columns of {n1} unknowns")
            vptr, vcptr, ucptr = &vv[0, 0, 0], &vc[0], &uc[0]
        with nogil:
            status = ts_rowgroup_step(&self.block, self.n_cols, self.fit_intercept, self.n_rhs, P, &cols[0],
                                      vptr, vcptr, ucptr, &scale[0], &ssq[0], &gb[0, 0, 0])
        check_status(status, "lsqr")


cdef class GroupsOperator:
    """The groups of an in-memory solve as one row operator in C, run on the calling thread:
    ``ts_lsqr_rowop`` then iterates with no call into Python (:func:`textsel._ext.ccore.lsqr_rowop`
    takes it by :attr:`rowop_capsule`).  The same sums as the groups run on threads.

    Parameters
    ----------
    groups : list of RowGroup
        The solve's groups, in row order, their u and weights views of ``u`` and ``weights``.
    b, weights, u : ndarray
        (K, m) float64, C-contiguous: the right-hand sides, the row weights (or None) and LSQR's
        u, each right-hand side's rows contiguous.
    n_cols : int
    fit_intercept : bool
    """

    cdef ts_row_groups G
    cdef ts_rowop A
    cdef ts_row_block *blocks
    cdef object keep
    cdef readonly object rowop_capsule

    def __cinit__(self, list groups, const double[:, ::1] b, weights, double[:, ::1] u, int64_t n_cols,
                  bint fit_intercept):
        cdef RowGroup group
        cdef const double[:, ::1] wv
        cdef const double *wptr = NULL
        cdef int64_t k, n_groups = len(groups)
        cdef int status
        if n_groups == 0 or b.shape[0] != u.shape[0] or b.shape[1] != u.shape[1]:
            raise ValueError(f"{n_groups} groups, b ({b.shape[0]}, {b.shape[1]}) and u ({u.shape[0]}, {u.shape[1]})")
        if weights is not None:
            wv = weights
            if wv.shape[0] != u.shape[0] or wv.shape[1] != u.shape[1]:
                raise ValueError(f"weights ({wv.shape[0]}, {wv.shape[1]}) must be shaped as u ({u.shape[0]}, {u.shape[1]})")
            if u.shape[0] and u.shape[1]:
                wptr = &wv[0, 0]
        self.blocks = <ts_row_block *> malloc(n_groups * sizeof(ts_row_block))
        if self.blocks == NULL:
            check_status(TS_ERR_NOMEM, "lsqr")
        for k in range(n_groups):
            group = groups[k]
            self.blocks[k] = group.block
        self.keep = (groups, b, weights, u)
        status = ts_row_groups_init(&self.G, self.blocks, n_groups, u.shape[1], n_cols, fit_intercept, u.shape[0],
                                    &b[0, 0] if u.shape[0] and u.shape[1] else NULL, wptr,
                                    &u[0, 0] if u.shape[0] and u.shape[1] else NULL)
        check_status(status, "lsqr")
        self.A = ts_row_groups_op(&self.G)
        self.rowop_capsule = PyCapsule_New(<void *> &self.A, b"textsel.ts_rowop", NULL)

    def __dealloc__(self):
        ts_row_groups_free(&self.G)
        free(self.blocks)
