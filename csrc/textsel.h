/*
 * textsel's C core: plain C99, no Python headers.
 *
 * Every fallible function returns an int status (TS_OK = 0, negative on
 * error) and writes results through out-pointers.  Non-convergence is a
 * result, not an error.  Symbols are prefixed ts_.
 */
#ifndef TEXTSEL_H
#define TEXTSEL_H

#include <stddef.h>
#include <stdint.h>

/* Right-hand sides taken together by the many-column kernels: a lane block of 8 doubles is one
 * cache line per stored value (the lanes layout of ts_rowop). */
#define TS_LANES 8

#ifdef __cplusplus
extern "C" {
#endif

enum ts_status {
    TS_OK = 0,
    TS_ERR_ARG = -1,       /* a size, pointer or option is invalid */
    TS_ERR_NOMEM = -2,     /* workspace could not be allocated */
    TS_ERR_INDEX = -3,     /* a CSR column index (or, in the solvers, a row pointer) is out of range */
    TS_ERR_NONFINITE = -4, /* a value, weight or right-hand side is NaN or infinite, or a result
                              overflowed the double range */
    TS_ERR_CALLBACK = -5,  /* an operator's callback failed (its caller knows why) */
    TS_ERR_INTERRUPTED = -6, /* the options' interrupt check asked the solver to stop */
    TS_ERR_NEGATIVE = -7,  /* a value that must be a count or weight is negative (the counting kernel) */
    TS_ERR_INDPTR = -8     /* a CSR row pointer is out of range or decreasing (the counting kernel) */
};
/* The codes form one vocabulary for every compiled kernel, the C core's and the Cython ones
 * (textsel/_ext/counting.pyx returns TS_ERR_NEGATIVE and TS_ERR_INDPTR, which the C core does
 * not); textsel/_errors.py turns each into its Python exception. */

/* A CSR matrix (n_rows x n_cols) with float64 values and int32 or int64
 * indices: exactly one of indices32/indices64 is set, and the matching
 * indptr (n_rows + 1 entries). */
typedef struct {
    int64_t n_rows;
    int64_t n_cols;
    const double *data;
    const int32_t *indices32;
    const int32_t *indptr32;
    const int64_t *indices64;
    const int64_t *indptr64;
} ts_csr;

/* Stopping rules of LSQR (Paige & Saunders 1982), as in
 * scipy.sparse.linalg.lsqr. */
/* An interrupt check: NULL, or called at bounded intervals of a long solve (ts_lsqr_rowop: before
 * every iteration; ts_dcd_svm: before every pass and every 2^16 coordinate steps); a nonzero
 * return stops the solver with TS_ERR_INTERRUPTED, its memory freed and its outputs unspecified.
 * The check runs on the solver's thread and must be quick (Python's signal check, say). */
typedef int (*ts_interrupt_check)(void *ctx);

typedef struct {
    double atol;
    double btol;
    double conlim;
    int64_t iter_lim; /* < 0: twice the number of unknowns */
    ts_interrupt_check interrupted; /* NULL, or see ts_interrupt_check */
    void *interrupt_ctx;
} ts_lsqr_options;

/* What LSQR reports for one right-hand side; istop as in scipy:
 * 0 x = 0 is exact, 1 Ax - b small (atol, btol), 2 least-squares solution
 * good enough (atol), 3 cond(A) estimate exceeded conlim, 4-6 the same at
 * machine precision, 7 iteration limit. */
typedef struct {
    int istop;
    int64_t itn;
    double r1norm;
    double r2norm;
    double anorm;
    double acond;
    double arnorm;
    double xnorm;
} ts_lsqr_result;

/*
 * A row operator: the matrix D_k [X, 1] (fit_intercept) or D_k X, its right-hand sides b and
 * row weights D, and LSQR's row vector u (n_rows per right-hand side) all kept by the operator
 * itself (row blocks on other processes, u beside them), so that nothing of length n_rows
 * passes through the solver.  Vectors are dense and row-major with n_vec columns, the columns of
 * the problem given by cols[0..n_vec) (right-hand sides still running); the unknowns are
 * n_cols + fit_intercept.
 *
 *   start(ctx, n_vec, cols, NULL, maxabs, NULL, NULL)   maxabs[p] = max |D b| of column cols[p]
 *   start(ctx, n_vec, cols, exps, NULL, unorm, g)       u = 2^-exps[p] D b; unorm[p] = ||u||,
 *                                                       g = A'D u (n_cols + fit_intercept rows)
 *   step(ctx, n_vec, cols, v, vcoef, ucoef, unorm, g)   u = vcoef[p] D A v + ucoef[p] u, then
 *                                                       unorm and g as above
 *
 * Each returns TS_OK or a negative status, which ts_lsqr_rowop passes on (TS_ERR_CALLBACK for a
 * failure the caller records in ctx, positive values included); a norm or product that is not
 * finite stops the solve with TS_ERR_NONFINITE.
 *
 * lanes 0: v and g are row-major, n_vec columns.  lanes 1: they are the solver's own lane
 * blocks, ceil(n_vec / TS_LANES) blocks of (n_cols + fit_intercept) rows x TS_LANES, column p of
 * row i at ((p / TS_LANES) * (n_cols + fit_intercept) + i) * TS_LANES + p % TS_LANES: no copy
 * either way.  The lanes past n_vec of v hold other columns' values, which no result may depend
 * on; those of g are not read.
 */
typedef struct {
    int64_t n_rows;
    int64_t n_cols;
    int fit_intercept;
    int lanes;
    int (*start)(void *ctx, int64_t n_vec, const int64_t *cols, const int *exps, double *maxabs,
                 double *unorm, double *g);
    int (*step)(void *ctx, int64_t n_vec, const int64_t *cols, const double *v, const double *vcoef,
                const double *ucoef, double *unorm, double *g);
    void *ctx;
} ts_rowop;

/*
 * Solve, for each of n_rhs right-hand sides k at once,
 *
 *     min_x || D_k (A x - b_k) ||^2 + damp_k^2 || x ||^2,   A = X or [X, 1],
 *
 * by LSQR on the row operator A (which keeps X, b, D and u): one call of the operator per
 * iteration serves every right-hand side still running; each keeps its own scalars and stops on
 * its own tests.  A D b far from 1 in magnitude is solved as 2^-e D b (exact) and x scaled back.
 *
 * damp     n_rhs values >= 0.
 * x        out: (n_cols + fit_intercept) x n_rhs, row-major.
 * result   out: n_rhs records.
 *
 * Returns TS_OK, TS_ERR_ARG, TS_ERR_NOMEM, TS_ERR_NONFINITE, TS_ERR_INTERRUPTED, or what a
 * callback returns; on error x and result are unspecified.  Memory is freed on every path.
 */
int ts_lsqr_rowop(const ts_rowop *A, int64_t n_rhs, const double *damp, const ts_lsqr_options *options,
                  double *x, ts_lsqr_result *result);

/*
 * Row blocks of a ts_rowop kept together by one process (the worker of a distributed solve),
 * and the operator's step on them.  A block holds its rows X (every block the same n_cols), its
 * row weights D (n_rows x n_rhs, NULL: all 1) and LSQR's u (n_rows x n_rhs, unnormalised), for
 * every right-hand side, both row-major (col_stride 0: element (i, c) at i * n_rhs + c) or both
 * column-major (element (i, c) at c * col_stride + i, col_stride >= n_rows; ts_rowgroup_step
 * only), where each column's rows are read as one stream.
 */
typedef struct {
    ts_csr X;
    const double *weights;
    double *u;
    int64_t col_stride;
} ts_row_block;

/*
 * One row group's part of a row operator's step.  For each running column c = cols[p] (p <
 * n_vec, distinct, below n_rhs) and A = [X, 1] (fit_intercept) or X, on the rows of B:
 *
 *   u[:, c] <- vcoef[p] D A v[:, p] + ucoef[p] u[:, c]   (vb NULL: u as it is, vcoef and ucoef
 *                                                        unused)
 *   scale[p], ssq[p]                                     ||u[:, c]|| as scale sqrt(ssq): scale 1
 *                                                        unless the plain sum of squares leaves
 *                                                        the double range, then the largest |u|
 *                                                        (as BLAS nrm2 scales); a NaN in u gives
 *                                                        a NaN ssq
 *   gb = A'D u
 *
 * in two passes over the stored values per eight columns (u and its norm gathering from v, then
 * A'D u scattering into gb; one pass for a column alone), sums in row order.  The in-memory solve
 * runs one call per group on its threads and adds the groups' parts in a fixed order, so that its
 * answer does not depend on the number of threads; a worker of a distributed solve runs the same
 * call on each of its blocks.
 *
 * vb and gb hold ceil(n_vec / L) lane blocks of n_cols + fit_intercept rows x L doubles, L = 8
 * (TS_LANES), or 1 for one column alone: column p of row i at ((p / L) * (n_cols +
 * fit_intercept) + i) * L + p % L.  vb's lanes past n_vec are read into no result (they may hold
 * other columns); gb is overwritten whole, 0 in those lanes.  A column's sums are the same
 * whichever lanes it runs in.
 *
 * B->X must have passed ts_csr_check: this runs once per iteration, so it checks only what
 * takes constant time (and the columns).  Returns TS_OK or TS_ERR_ARG.
 */
int ts_rowgroup_step(const ts_row_block *B, int64_t n_cols, int fit_intercept, int64_t n_rhs,
                     int64_t n_vec, const int64_t *cols, const double *vb, const double *vcoef,
                     const double *ucoef, double *scale, double *ssq, double *gb);

/*
 * The row operator of ts_lsqr_rowop on row groups kept in memory, run on the calling thread or,
 * after ts_row_groups_parallel, as tasks on the caller's threads: the in-memory solve, with no
 * call out of C per iteration but the caller's parallel_for.  Each group is a ts_row_block whose u and weights are column-major views
 * (col_stride n_rows) of the whole u and weights; b, the weights and u hold each right-hand
 * side's n_rows contiguously (element (i, c) at c * n_rows + i).  A step takes the running
 * columns TS_LANES at a time (one alone in a block of one lane), runs ts_rowgroup_step on every
 * group, and adds the groups' parts, of A'D u and of the norms, by one fixed binary tree (the
 * largest power of two below their number on the left): the same sums, in the same order, on
 * any number of threads, and the same as a distributed solve forms from the same groups.
 *
 * ts_row_groups_init checks the shapes and allocates the scratch (TS_ERR_ARG, TS_ERR_NOMEM);
 * ts_row_groups_free releases it.  ts_row_groups_start and ts_row_groups_step are the ts_rowop's
 * start and step (ctx: the ts_row_groups).
 */
/*
 * Runs task(arg, t) once for every t in [0, n_tasks), in any order and on any threads, and
 * returns when all have run: TS_OK, or the status of a task that failed (every task still runs).
 * The caller of the core supplies it (the core starts no thread of its own).
 */
typedef int (*ts_task)(void *arg, int64_t t);
typedef int (*ts_parallel_for)(void *ctx, int64_t n_tasks, ts_task task, void *arg);

typedef struct {
    const ts_row_block *groups;
    int64_t n_groups;
    int64_t n_rows;
    int64_t n_cols;
    int fit_intercept;
    int64_t n_rhs;
    const double *b;
    const double *weights;
    double *u;
    double *scratch; /* one column's v, then each (lane block, group)'s part of A'D u and norms */
    int64_t wave;    /* lane blocks computed together (ts_row_groups_parallel) */
    int64_t slabs;   /* runs of rows the parts are added in, one task each */
    ts_parallel_for parallel; /* NULL: every task on the calling thread */
    void *parallel_ctx;
} ts_row_groups;

int ts_row_groups_init(ts_row_groups *G, const ts_row_block *groups, int64_t n_groups, int64_t n_rows,
                       int64_t n_cols, int fit_intercept, int64_t n_rhs, const double *b,
                       const double *weights, double *u);
void ts_row_groups_free(ts_row_groups *G);
/* Run G's steps as tasks of run(ctx, ...) for n_threads threads: each (lane block, group) pair
 * one task, ceil(n_threads / n_groups) lane blocks at a time so that every thread has one, then
 * the groups' parts added by the tree in n_threads runs of rows, one task each.  No sum changes:
 * each task computes what it computes on one thread, the tree is the same for every row.
 * Reallocates the scratch (TS_ERR_NOMEM leaves G as it was); TS_ERR_ARG for n_threads < 1. */
int ts_row_groups_parallel(ts_row_groups *G, ts_parallel_for run, void *ctx, int64_t n_threads);
/* The ts_rowop of G (lanes 1: ts_row_groups_start and ts_row_groups_step take v and write g in
 * the solver's lane blocks). */
ts_rowop ts_row_groups_op(ts_row_groups *G);
int ts_row_groups_start(void *ctx, int64_t n_vec, const int64_t *cols, const int *exps, double *maxabs,
                        double *unorm, double *g);
int ts_row_groups_step(void *ctx, int64_t n_vec, const int64_t *cols, const double *v, const double *vcoef,
                       const double *ucoef, double *unorm, double *g);

/* The plain product of a CSR matrix and a dense row-major n_vec-column matrix (the scores of a
 * Dask array's row blocks): Y = X V (V: n_cols x n_vec, Y: n_rows x n_vec), Y overwritten, each
 * row summed in stored order.  Returns TS_OK, TS_ERR_ARG or TS_ERR_INDEX (the structure is
 * checked first). */
int ts_csr_matmat(const ts_csr *X, int64_t n_vec, const double *V, double *Y);

/* The sum of squares of each row of X into out (n_rows): the values of a column repeated in a
 * row added up first, as the matrix they stand for has them; the squares added in stored order.
 * mark and acc are the caller's scratch of n_cols each (mark is reset here).  Returns TS_OK,
 * TS_ERR_ARG or TS_ERR_INDEX (the structure is checked first). */
int ts_csr_row_sumsq(const ts_csr *X, double *out, int64_t *mark, double *acc);

/* Y = X V as ts_csr_matmat, the same sums in the same order, walked in panels of panel_cols
 * columns so that the rows of V in use stay in cache (for V too large for it; effective when
 * each row's column indices ascend, correct in any order).  cursor is the caller's scratch of
 * n_rows int64.  Returns TS_OK, TS_ERR_ARG or TS_ERR_INDEX (the structure is checked first). */
int ts_csr_matmat_panels(const ts_csr *X, int64_t n_vec, const double *V, double *Y,
                         int64_t panel_cols, int64_t *cursor);

/* Losses of the linear SVM: hinge (L1-loss) or squared hinge (L2-loss). */
enum ts_svm_loss { TS_HINGE = 1, TS_SQUARED_HINGE = 2 };

/* An early stop for a solve whose model serves only the signs of some margins (held-out
 * predictions).  ts_dcd_svm calls it after some passes with its current weights w (n_cols +
 * fit_intercept, as its output) and a radius such that the optimum's weights w* satisfy
 * ||w - w*|| <= radius.  It returns the largest radius * ||x|| / |w'x| over the caller's
 * documents x (the constant feature included; infinity for a zero margin): below 1, every one
 * of those margins has the sign of the optimum's, and the solver stops there. */
typedef double (*ts_certify)(void *ctx, const double *w, double radius);

/* Options of the dual coordinate-descent SVM (Hsieh et al., ICML 2008). */
typedef struct {
    int loss;                 /* TS_HINGE or TS_SQUARED_HINGE */
    double C_pos;             /* C for documents with y = +1 */
    double C_neg;             /* C for documents with y = -1 */
    double tol;               /* stop when the projected gradient's spread is at most tol */
    int64_t max_iter;         /* outer passes over the data */
    int fit_intercept;        /* learn a bias as the weight of a constant feature ... */
    double intercept_scaling; /* ... of this value (the bias is regularized like any weight) */
    int shrinking;            /* drop bound-constrained variables unlikely to move */
    uint64_t seed;            /* the permutation RNG's state: same seed, same model */
    const double *weights;    /* NULL, or n_rows non-negative multipliers of each document's C */
    int newton;               /* finish with Newton steps on the free multipliers (see below) */
    ts_interrupt_check interrupted; /* NULL, or see ts_interrupt_check */
    void *interrupt_ctx;
    ts_certify certify;       /* NULL, or see ts_certify (ts_dcd_svm only) */
    void *certify_ctx;
} ts_svm_options;

typedef struct {
    int64_t n_iter; /* outer passes made */
    int converged;  /* 1 if the tolerance was met before max_iter */
    int certified;  /* 1 if options->certify stopped the solve first (converged is then 0) */
} ts_svm_result;

/*
 * Train a linear SVM on X (n_rows x n_cols, CSR) with labels y (+1/-1) by dual coordinate
 * descent:  min_alpha 1/2 alpha' Qbar alpha - e' alpha,  0 <= alpha_i <= U_i,
 * Q_ij = y_i y_j x_i'x_j, Qbar = Q + D; hinge: U_i = C_i, D = 0; squared hinge: U_i = inf,
 * D_ii = 1/(2 C_i), C_i = C_pos or C_neg times weights[i].  Random permutation per outer pass,
 * shrinking, projected-gradient stopping.  With options->newton, whenever a pass leaves every
 * multiplier on the same side of its bounds, the solver also tries the exact minimiser on that
 * face (conjugate gradients on the free multipliers) and keeps it, or the feasible part of the
 * way to it; the stopping test is the same, checked over every variable.
 *
 * alpha0  NULL (start from 0) or n_rows starting multipliers (a warm start).
 * w       out: n_cols + fit_intercept weights; the last is the constant feature's, and the
 *         intercept is w[n_cols] * intercept_scaling.
 * alpha   out: n_rows multipliers, in input order.
 */
int ts_dcd_svm(const ts_csr *X, const double *y, const ts_svm_options *options,
               const double *alpha0, double *w, double *alpha, ts_svm_result *result);

/*
 * The squared-hinge SVM of ts_dcd_svm by Newton's method on the primal, for few features: each
 * step factors a dense (n_cols + fit_intercept)-square Hessian, so it pays up to a few dozen
 * features.  Arguments, outputs and stopping test as ts_dcd_svm (alpha0 seeds w = sum y alpha0 x;
 * shrinking, seed and newton are not used; n_iter counts Newton steps); options->loss must be
 * TS_SQUARED_HINGE, else TS_ERR_ARG.
 */
int ts_l2svm_newton(const ts_csr *X, const double *y, const ts_svm_options *options,
                    const double *alpha0, double *w, double *alpha, ts_svm_result *result);

/*
 * The squared-hinge or hinge SVM of ts_dcd_svm on the top-k columns of one ranking, for each k
 * of ks, each tested on held-out documents: one fold and one metric of Forman's protocol.
 *
 * train_t  the training documents by column: n_features x n_train, CSR of the transpose (a
 *          scipy CSC matrix's buffers).  y: n_train labels +1/-1.
 * test_t   the held-out documents the same way (n_features x n_test); y_test: their labels.
 * order    n_order feature indices, best first; the top-k subset is order[0 .. k).
 * ks       n_ks increasing sizes in 1 .. n_order.
 * options  as ts_dcd_svm's, with weights NULL; every fit uses its seed and starts from the
 *          previous k's multipliers (the first from zero).
 * max_share  while the distinct training rows of a top-k subset (same label, same values) are
 *          at most this share of the documents, that k is solved on one copy of each with its
 *          C multiplied by its copies (the same optimum); 0 never groups.
 * certify  nonzero: coordinate descent stops as soon as the duality gap proves that every
 *          held-out margin has the sign of the exact optimum's (ts_certify), so the counts are
 *          the exact optimum's, often in far fewer passes; otherwise, or when that proof does
 *          not come, the stopping test of options->tol.  0: options->tol only.
 * confusion  out: n_ks x 3, per k the held-out true positives, false positives and false
 *          negatives (predicted positive when the margin is above 0).
 * results  NULL, or out: n_ks solver reports.
 * Returns TS_OK, TS_ERR_ARG, TS_ERR_INDEX (an order entry out of range), TS_ERR_NONFINITE,
 * TS_ERR_NOMEM, TS_ERR_INTERRUPTED, or what ts_dcd_svm returns.
 */
int ts_nested_svm(const ts_csr *train_t, const double *y, const ts_csr *test_t, const double *y_test,
                  const int64_t *order, int64_t n_order, int64_t n_ks, const int64_t *ks,
                  const ts_svm_options *options, double max_share, int certify, int64_t *confusion,
                  ts_svm_result *results);

/* Checks that a CSR matrix's row pointers and column indices are in range. */
int ts_csr_check(const ts_csr *X);

/* ---- words from text (csrc/tokens.c) ---- */

/* The code points a text may hold (Unicode's range), for the word bitmap below. */
#define TS_CODE_POINTS 0x110000u

/* A document's text as CPython's str holds it: `length` code points of `kind` bytes each (1, 2
 * or 4). */
typedef struct {
    const void *data;
    int64_t length;
    int kind;
} ts_text;

/* Terms (strings of code points) numbered in the order first added.  Word n-grams counted into
 * a vocabulary are kept as pairs of ids, their code points written out when first asked for:
 * the functions that read or look up terms by code points may allocate, and so take the
 * vocabulary as non-const; none of them may run on one vocabulary from two threads at once. */
typedef struct ts_vocab ts_vocab;

ts_vocab *ts_vocab_new(void); /* NULL when out of memory */
void ts_vocab_free(ts_vocab *v);
int64_t ts_vocab_size(const ts_vocab *v);
/* A term's hash, as ts_vocab_find and ts_vocab_add take it. */
uint64_t ts_term_hash(const uint32_t *cps, int64_t len);
/* *id: the id of the term (cps, len) of hash h, or -1. */
int ts_vocab_find(ts_vocab *v, const uint32_t *cps, int64_t len, uint64_t h, int64_t *id);
/* The id of the term, added (with the next id) if new. */
int ts_vocab_add(ts_vocab *v, const uint32_t *cps, int64_t len, uint64_t h, int64_t *id);
/* Term `id`'s code points (owned by v, valid until the vocabulary next changes or is asked for
 * another term); TS_ERR_INDEX for an id that is no term. */
int ts_vocab_term(ts_vocab *v, int64_t id, const uint32_t **cps, int64_t *len);
/* Every term made findable by its code points (the n-grams counted as pairs written out), so
 * that threads may share the vocabulary as ts_count_terms' fixed one or a stop list. */
int ts_vocab_flatten(ts_vocab *v);
/* Add `part`'s terms to `into` in part's order; map[t] is part's term t's id in `into`. */
int ts_vocab_merge(ts_vocab *into, ts_vocab *part, int64_t *map);
/* order[r] is the position in ids[0 .. n) of the term of rank r in Python's order of str (code
 * point by code point, a prefix first); ids NULL stands for 0 .. n-1.  TS_ERR_INDEX for an id
 * that is no term. */
int ts_vocab_order(ts_vocab *v, const int64_t *ids, int64_t n, int64_t *order);

/* How ts_count_terms reads words: a token is a maximal run of two or more code points whose
 * bits are set in `word` (TS_CODE_POINTS bits, code point c at word[c / 8] bit c % 8: Python's
 * \w, str.isalnum() or '_'), as re.findall(r"(?u)\b\w\w+\b") finds them; tokens in `stop`
 * are dropped before n-grams of ngram_min..ngram_max tokens are joined by single spaces, in
 * scikit-learn's order (all n-grams of the smallest n by position, then the next n). */
typedef struct {
    const uint8_t *word;
    const ts_vocab *stop; /* NULL: none; else flattened (TS_ERR_ARG otherwise) */
    int64_t ngram_min;
    int64_t ngram_max;
    int fixed;            /* 1: count only the terms already in the vocabulary (it is not changed;
                             flattened, TS_ERR_ARG otherwise) */
    ts_interrupt_check interrupted; /* NULL, or checked every 1024 documents */
    void *interrupt_ctx;
    const uint8_t *lower; /* NULL, or 256 bytes: the code points one-byte documents (kind 1) are
                             read as, Python's str.lower() on Latin-1 (documents of other kinds
                             are read as given: the caller lowercases them) */
} ts_count_options;

/* Count the terms of docs[0 .. n_docs) into rows: indptr (n_docs + 1 entries, the caller's),
 * and *ids / *counts (*nnz entries each, allocated here, freed by the caller with free()): each
 * row's term ids sorted, with the number of times the term occurs in the document.  New terms are
 * added to `vocab` in the order first seen, unless options->fixed.  On an error nothing is
 * allocated; the vocabulary may hold terms of the documents before the error. */
int ts_count_terms(const ts_text *docs, int64_t n_docs, ts_vocab *vocab, const ts_count_options *options,
                   int64_t *indptr, int64_t **ids, int64_t **counts, int64_t *nnz);
/* scikit-learn's HashingVectorizer's counts: each feature (read as ts_count_terms reads them;
 * options->fixed is ignored) in column abs(h) mod n_features of h, the signed MurmurHash3_x86_32
 * of its UTF-8 bytes with seed 0 (abs(-2^31) read as 2^31 - 1 - (n_features - 1)), counted -1
 * where alternate_sign and h < 0; each row's columns sorted and the entries of a column summed
 * (a zero sum stays an entry, as scipy's sum_duplicates leaves it).  TS_ERR_ARG for a feature
 * holding a lone surrogate, which has no UTF-8 form.  Memory as ts_count_terms. */
int ts_hash_terms(const ts_text *docs, int64_t n_docs, const ts_count_options *options, int64_t n_features,
                  int alternate_sign, int64_t *indptr, int64_t **indices, int64_t **values, int64_t *nnz);
/* ids[k] = map[ids[k]] for the rows' entries, each row then sorted again (counts follow). */
void ts_remap_rows(const int64_t *indptr, int64_t n_rows, int64_t *ids, int64_t *counts, const int64_t *map);

/* Test hook: the allocation number (1-based) at which the core's allocator (ts_calloc)
 * fails, or 0 for never.  Lets the C tests walk every failure path. */
void ts_debug_fail_alloc_at(int64_t k);

/* Test hook: ts_nested_svm keeps its solved rows' indices in 64 bits above this many stored
 * values (2^31 - 1 unless set; test builds only).  Lets the C tests reach the wide path. */
void ts_debug_nested_narrow_limit(int64_t limit);

#ifdef __cplusplus
}
#endif

#endif /* TEXTSEL_H */
