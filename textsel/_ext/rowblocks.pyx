# cython: language_level=3
"""One group of a solve's rows (:class:`RowGroup`, ``ts_rowgroup_step`` in csrc/rowblocks.c): its
step of LSQR's row operator, without the GIL, in memory and on a Dask worker alike; and the groups
of an in-memory solve as one operator in C (:class:`GroupsOperator`, ``ts_row_groups`` in
csrc/rowgroups.c), its tasks on the calling thread or on a team of threads that wait for them
without the GIL (no call into Python per iteration)."""

import numpy as np

from cpython.pycapsule cimport PyCapsule_New
from cpython.pythread cimport (PyThread_acquire_lock, PyThread_allocate_lock, PyThread_free_lock,
                               PyThread_release_lock, PyThread_type_lock, WAIT_LOCK)
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free, malloc

from .ccore cimport _fill_csr
from .core cimport (TS_ERR_NOMEM, TS_ERR_NONFINITE, ts_csr, ts_csr_check, ts_row_block, ts_rowgroup_step,
                   ts_rowop)
from .ccore import check_status


cdef extern from "internal.h" nogil:
    int ts_csr_has_nonfinite(const ts_csr *X)


cdef extern from "textsel.h" nogil:
    ctypedef int (*ts_task)(void *arg, int64_t t) noexcept
    ctypedef int (*ts_parallel_for)(void *ctx, int64_t n_tasks, ts_task task, void *arg) noexcept

    ctypedef struct ts_row_groups:
        pass

    int ts_row_groups_parallel(ts_row_groups *G, ts_parallel_for run, void *ctx, int64_t n_threads)
    int ts_row_groups_init(ts_row_groups *G, const ts_row_block *groups, int64_t n_groups, int64_t n_rows,
                           int64_t n_cols, int fit_intercept, int64_t n_rhs, const double *b,
                           const double *weights, double *u)
    void ts_row_groups_free(ts_row_groups *G)
    ts_rowop ts_row_groups_op(ts_row_groups *G)
    int ts_row_groups_start(void *ctx, int64_t n_vec, const int64_t *cols, const int *exps, double *maxabs,
                            double *unorm, double *g)
    int ts_row_groups_step(void *ctx, int64_t n_vec, const int64_t *cols, const double *v, const double *vcoef,
                           const double *ucoef, double *unorm, double *g)


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


# -- a team of threads for the operator's tasks ------------------------------------------------
# The caller's thread is member 0; each other member is a thread of C alone (started by
# PyThread_start_new_thread: no Python object, no thread state, never the GIL) that waits on its
# own lock, runs its share of a round's tasks when released and releases its "done" lock.  A round
# costs two lock hand-overs per member.  Invariant: every lock the team allocated is held except
# while a hand-over is under way, so that each is released exactly once before it is freed.

cdef extern from "pythread.h":
    unsigned long PyThread_start_new_thread(void (*func)(void *) noexcept nogil, void *arg)


cdef struct member_arg:
    void *team
    int64_t w


cdef struct team_state:
    int64_t size            # members running, the caller's thread included
    int64_t capacity        # members the arrays below were allocated for
    ts_task task
    void *arg
    int64_t n_tasks
    int stop
    int *status             # each member's status in the round
    PyThread_type_lock *go  # released by the caller: a round (or the end) for member w
    PyThread_type_lock *done
    member_arg *members


cdef int _share(team_state *T, int64_t member) noexcept nogil:
    """Member ``member``'s tasks of the round: a run of consecutive ones, every one run."""
    cdef int64_t t, first = T.n_tasks * member // T.size, end = T.n_tasks * (member + 1) // T.size
    cdef int status = 0, s
    for t in range(first, end):
        s = T.task(T.arg, t)
        if s != 0 and status == 0:
            status = s
    return status


cdef int _team_for(void *ctx, int64_t n_tasks, ts_task task, void *arg) noexcept nogil:
    """``ts_parallel_for`` on a team: the round's tasks shared out, the caller's share run here."""
    cdef team_state *T = <team_state *> ctx
    cdef int64_t w
    cdef int status
    T.task, T.arg, T.n_tasks = task, arg, n_tasks
    for w in range(1, T.size):
        PyThread_release_lock(T.go[w])
    status = _share(T, 0)
    for w in range(1, T.size):
        PyThread_acquire_lock(T.done[w], WAIT_LOCK)
        if status == 0:
            status = T.status[w]
    return status


cdef void _member(void *arg) noexcept nogil:
    """A member's thread: rounds until the team stops."""
    cdef member_arg *m = <member_arg *> arg
    cdef team_state *T = <team_state *> m.team
    cdef int64_t w = m.w
    while True:
        PyThread_acquire_lock(T.go[w], WAIT_LOCK)
        if T.stop:
            PyThread_release_lock(T.done[w])  # the last touch of T: the caller frees it next
            return
        T.status[w] = _share(T, w)
        PyThread_release_lock(T.done[w])


cdef void _stop_team(team_state *T) noexcept nogil:
    """End the running members: each released once more, told to stop, waited for."""
    cdef int64_t w
    T.stop = 1
    for w in range(1, T.size):
        PyThread_release_lock(T.go[w])
    for w in range(1, T.size):
        PyThread_acquire_lock(T.done[w], WAIT_LOCK)
    T.size = 1


cdef class GroupsOperator:
    """The groups of an in-memory solve as one row operator in C: ``ts_lsqr_rowop`` iterates with
    no call into Python (:func:`textsel._ext.ccore.lsqr_rowop` takes it by :attr:`rowop_capsule`),
    each step's tasks on the calling thread or, with ``n_threads`` > 1, on a team of that many
    threads (the caller's among them) started here and ended by :meth:`close`.  The same bits on
    any number of threads.

    Parameters
    ----------
    groups : list of RowGroup
        The solve's groups, in row order, their u and weights views of ``u`` and ``weights``.
    b, weights, u : ndarray
        (K, m) float64, C-contiguous: the right-hand sides, the row weights (or None) and LSQR's
        u, each right-hand side's rows contiguous.
    n_cols : int
    fit_intercept : bool
    n_threads : int, default=1
    """

    cdef ts_row_groups G
    cdef ts_rowop A
    cdef ts_row_block *blocks
    cdef team_state T
    cdef object keep
    cdef readonly object rowop_capsule

    def __cinit__(self, list groups, const double[:, ::1] b, weights, double[:, ::1] u, int64_t n_cols,
                  bint fit_intercept, int64_t n_threads=1):
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
        self.T.size = 1
        if n_threads > 1:
            self._start_team(n_threads)
        self.A = ts_row_groups_op(&self.G)
        self.rowop_capsule = PyCapsule_New(<void *> &self.A, b"textsel.ts_rowop", NULL)

    cdef _start_team(self, int64_t size):
        """Start up to ``size - 1`` members (as many as the system gives: a thread or a lock it
        cannot make leaves the team smaller, never the solve); nothing here can be interrupted
        between a thread's start and its count."""
        cdef int64_t w
        cdef PyThread_type_lock lock
        self.T.status = <int *> calloc(size, sizeof(int))
        self.T.go = <PyThread_type_lock *> calloc(size, sizeof(PyThread_type_lock))
        self.T.done = <PyThread_type_lock *> calloc(size, sizeof(PyThread_type_lock))
        self.T.members = <member_arg *> calloc(size, sizeof(member_arg))
        if self.T.status == NULL or self.T.go == NULL or self.T.done == NULL or self.T.members == NULL:
            return  # no room for a team: the calling thread alone
        self.T.capacity = size
        for w in range(1, size):
            lock = PyThread_allocate_lock()
            if lock == NULL:
                break
            PyThread_acquire_lock(lock, WAIT_LOCK)  # held: the member waits for its first round
            self.T.go[w] = lock
            lock = PyThread_allocate_lock()
            if lock == NULL:
                break
            PyThread_acquire_lock(lock, WAIT_LOCK)
            self.T.done[w] = lock
            self.T.members[w].team, self.T.members[w].w = <void *> &self.T, w
            if PyThread_start_new_thread(_member, &self.T.members[w]) == <unsigned long> -1:
                break
            self.T.size = w + 1
        if self.T.size > 1 and ts_row_groups_parallel(&self.G, _team_for, <void *> &self.T, self.T.size) != 0:
            _stop_team(&self.T)  # no room for the rounds' parts: the calling thread alone

    # -- the row operator's two calls from Python (lsqr_rowop's protocol: v and g row-major) ----

    def start(self, cols, exps, maxabs, unorm, g):
        """max |D b| of each column ``cols[p]`` into ``maxabs`` (``exps`` None), or u = 2^-exps D b
        and its norm and A'D u into ``unorm`` and ``g`` ((n_cols + fit_intercept, len(cols)))."""
        cdef const int64_t[::1] ids = np.ascontiguousarray(cols, dtype=np.int64)
        cdef int64_t P = ids.shape[0]
        cdef int[::1] scales
        cdef double[::1] top
        cdef int status
        if P == 0:
            return
        if exps is None:
            top = maxabs
            with nogil:
                status = ts_row_groups_start(&self.G, P, &ids[0], NULL, &top[0], NULL, NULL)
            check_status(status, "lsqr")
            return
        scales = np.ascontiguousarray(exps, dtype=np.intc)
        self._products(ids, scales, None, None, None, unorm, g)

    def step(self, cols, v, vcoef, ucoef, unorm, g):
        """u = vcoef D A v + ucoef u for the columns ``cols``, its norm into ``unorm`` and A'D u
        into ``g``."""
        cdef const int64_t[::1] ids = np.ascontiguousarray(cols, dtype=np.int64)
        if ids.shape[0]:
            self._products(ids, None, v, vcoef, ucoef, unorm, g)

    def _products(self, const int64_t[::1] ids, scales, v, vcoef, ucoef, unorm, g):
        """One start (``scales``) or step (``v``) through the solver's lane blocks."""
        cdef int64_t P = ids.shape[0], n1 = self.A.n_cols + self.A.fit_intercept, blocks = (P + 7) // 8, j
        cdef int[::1] sv
        cdef const double[:, :, ::1] vv
        cdef const double[::1] vc, uc
        cdef double[:, :, ::1] gv
        cdef double[::1] nv = unorm
        cdef int status
        packed_g = np.zeros((blocks, n1, 8))
        gv = packed_g
        if scales is not None:
            sv = scales
            with nogil:
                status = ts_row_groups_start(&self.G, P, &ids[0], &sv[0], NULL, &nv[0], &gv[0, 0, 0])
        else:
            packed_v = np.zeros((blocks, n1, 8))
            for j in range(blocks):
                packed_v[j, :, : min(8, P - 8 * j)] = v[:, 8 * j : 8 * j + 8]
            vv, vc, uc = packed_v, np.ascontiguousarray(vcoef, dtype=np.float64), np.ascontiguousarray(ucoef, dtype=np.float64)
            with nogil:
                status = ts_row_groups_step(&self.G, P, &ids[0], &vv[0, 0, 0], &vc[0], &uc[0], &nv[0], &gv[0, 0, 0])
        check_status(status, "lsqr")
        for j in range(blocks):
            g[:, 8 * j : 8 * j + 8] = packed_g[j, :, : min(8, P - 8 * j)]

    def close(self):
        """End the team's threads (waiting for each to leave its loop); idempotent.  The operator
        still runs, on the calling thread alone."""
        with nogil:
            _stop_team(&self.T)

    def __dealloc__(self):
        cdef int64_t w
        _stop_team(&self.T)  # a team left running: its members need no GIL to stop
        for w in range(1, self.T.capacity):  # every lock is held here: released once, then freed
            if self.T.go[w] != NULL:
                PyThread_release_lock(self.T.go[w])
                PyThread_free_lock(self.T.go[w])
            if self.T.done[w] != NULL:
                PyThread_release_lock(self.T.done[w])
                PyThread_free_lock(self.T.done[w])
        free(self.T.status)
        free(self.T.go)
        free(self.T.done)
        free(self.T.members)
        ts_row_groups_free(&self.G)
        free(self.blocks)
