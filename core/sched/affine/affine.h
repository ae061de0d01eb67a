/*
 * affine.h - the affine scheduler of seed 003 (Feautrier's one-dimensional
 * schedules by the affine form of the Farkas lemma), internal interfaces.
 *
 *   farkas.c    the linear program, built the seed's way: unknowns (the
 *               latency bound phi and every variable's tau and alpha),
 *               Farkas multipliers for the positivity, dependence and
 *               objective constraints, one equality per coefficient;
 *   solve.c     its exact lexicographic minimum (isl's parametric integer
 *               programming, as PIP did for MMAlpha), feasibility tests and
 *               the minimal set of dependences that admits no schedule;
 *   sched.c     the schedule: evaluation, isl notation, the result table;
 *   check.c     the independent checker, by enumeration of instances;
 *   islsched.c  isl's own scheduler in Feautrier mode, for comparison;
 *   lower.c     space allocation, folding and lowering to the common
 *               schedule with transfers between PEs;
 *   affine.c    the variant's ops table.
 *
 * Times: T_A(x, N) = tau_A . (x, N) + alpha_A is the cycle at which the
 * computation of A[x] starts; it ends delay_A cycles later. A dependence
 * "A[x] reads B[F(x)]" requires T_A(x) >= T_B(F(x)) + delay_B (inputs have
 * delay 0). The latency bound f(N) = phi . N + phi_0 is at least
 * T_A(x) + delay_A for every instance, so it bounds the end of the whole
 * computation.
 */
#ifndef ACS_SCHED_AFFINE_AFFINE_H
#define ACS_SCHED_AFFINE_AFFINE_H

#include <signal.h>

#include "core/model/sare.h"
#include "core/model/schedule.h"

/* ---- the linear program (farkas.c) ---- */

enum acs_affine_fk { ACS_AFFINE_FK_POSITIVITY, ACS_AFFINE_FK_DEPENDENCE, ACS_AFFINE_FK_OBJECTIVE };

/* One use of the Farkas lemma: an affine form non-negative on a polyhedron. */
struct acs_affine_farkas {
  int kind;                /* enum acs_affine_fk */
  int32_t index;           /* variable (positivity, objective) or dependence */
  int32_t first_mult;      /* column of its first multiplier (lambda_0 first) */
  int32_t nmult;
  int32_t first_row, nrows;
  int64_t scale;           /* D: multipliers are D times the rational ones */
  int exact;               /* 0 when D could not be computed (integer multipliers) */
};

enum acs_affine_col { ACS_AFFINE_COL_FREE, ACS_AFFINE_COL_NONNEG };

struct acs_affine_lp {
  int32_t nparams, nvars;
  int32_t nunk;            /* unknowns: phi (np + 1), then each variable's block */
  int32_t *var_col;        /* first column of variable v: np params, nx indices, alpha;
                            * -1 for a preloaded input (T = 0) */
  int32_t ncols;           /* unknowns, then multipliers */
  uint8_t *col_kind;       /* enum acs_affine_col */
  int32_t nrows;           /* equalities row . (u, 1) = 0 */
  int64_t *rows;           /* nrows x (ncols + 1) */
  int32_t nfarkas;
  struct acs_affine_farkas *farkas;
};

/*
 * Which constraints to build: dependences (use_dep NULL: all) with
 * strong[e] = 1 for ">= delay" and 0 for ">= 0" (NULL: all strong), the
 * objective or not, and whether inputs get schedules of their own (the
 * seed's way) or are preloaded: available at time 0 in the PEs' memories,
 * as the lowering assumes. With delay 0 and no predecessors, a scheduled
 * input can always take T = 0, so preloading loses no schedule; it drops
 * the inputs' blocks and every dependence on an input (then implied by
 * the reader's positivity), which makes the program about a third
 * smaller. A NULL selection means: all dependences, strong, objective,
 * inputs preloaded.
 */
struct acs_affine_lp_sel {
  const uint8_t *use_dep;
  const uint8_t *strong;
  int objective;
  int inputs;
};

/*
 * Builds the program of system m. Each Farkas use gets its multipliers
 * scaled by D, the least common multiple of the non-zero minors of its
 * polyhedron's constraint matrix, so integer multipliers represent every
 * rational certificate and the integer program loses no schedule; D is
 * computed when the polyhedron has at most 2^16 minors (else exact = 0 and
 * the multipliers are plain integers, which is still sound). O(Farkas uses
 * x (dims + params) x columns) plus the minors.
 */
int acs_affine_lp_build(const struct acs_sare *m, const struct acs_affine_lp_sel *sel,
                        struct acs_affine_lp *lp, struct acs_diag *d);
void acs_affine_lp_free(struct acs_affine_lp *lp);
/* The column of variable v's tau for index k (k < nx) or parameter p. */
static inline int32_t acs_affine_col_idx(const struct acs_affine_lp *lp, int32_t v, int32_t k)
{
  return lp->var_col[v] + lp->nparams + k;
}
static inline int32_t acs_affine_col_par(const struct acs_affine_lp *lp, int32_t v, int32_t p)
{
  return lp->var_col[v] + p;
}
/* The lcm of the non-zero minors of a k x n matrix (row-major); 0 when
 * there are more than `limit` minors to look at, -1 on overflow. */
int64_t acs_affine_minors_lcm(const int64_t *a, int32_t k, int32_t n, int64_t limit);

/* ---- the solution (solve.c, sched.c) ---- */

struct acs_affine_sched {
  int32_t nparams, nvars;
  int64_t phi[ACS_SARE_MAX_PARAMS + 1];   /* latency bound: params, then constant */
  int64_t *coef;           /* per variable: np params, nx indices, alpha (lp->var_col layout) */
  int32_t *off;            /* nvars: offset of variable v in coef; -1: T_v = 0 */
};

struct isl_ctx;

/*
 * The lexicographic minimum of the program, in the seed's order: the
 * latency's parameter coefficients first, then its constant, then each
 * variable's parameter coefficients, index coefficients and alpha, then
 * the multipliers. Exact: the latency's coefficients by exact linear
 * programs, then isl's integer lexmin (solve.c says why that is the same
 * point as one integer lexmin over everything, which is the fallback).
 * Integer programming is exponential in the worst case; each shipped
 * example takes milliseconds (bench-affine).
 * Returns ACS_OK with *s filled, ACS_EINFEASIBLE when no schedule exists,
 * ACS_EINTERRUPTED when *interrupted became non-zero between steps, or
 * ACS_ERANGE when a value reached the bound of the free unknowns (2^30).
 */
int acs_affine_solve(struct isl_ctx *ctx, const struct acs_affine_lp *lp,
                     const volatile sig_atomic_t *interrupted, struct acs_affine_sched *s,
                     struct acs_diag *d);
/* Whether the program has any solution (1), none (0), or an error (< 0). */
int acs_affine_feasible(struct isl_ctx *ctx, const struct acs_affine_lp *lp);
void acs_affine_sched_free(struct acs_affine_sched *s);

/*
 * When system m has no one-dimensional schedule: a minimal set of
 * dependences that admits none (a deletion filter over the dependences, one
 * feasibility test each), written into msg as the cycle of variables they
 * form and each dependence with its line. O(dependences) programs.
 */
int acs_affine_explain_infeasible(struct isl_ctx *ctx, const struct acs_sare *m, char *msg,
                                  size_t size);

/*
 * Multidimensional schedules (Feautrier's part II), for systems without a
 * one-dimensional one: rows T^1, ..., T^d, executed in lexicographic order.
 * Row k weakly satisfies (>= 0) every dependence not carried by an earlier
 * row and strongly satisfies (>= delay) a maximal set of them, which it
 * carries; the set is chosen greedily in the order of the dependences (one
 * feasibility test each), then the row is the lexicographic minimum of the
 * program for that choice, as in one dimension. ACS_EINFEASIBLE (message
 * in d) when maxdims rows do not carry every dependence.
 */
#define ACS_AFFINE_MAX_DIMS 8
struct acs_affine_msched {
  int32_t ndims;
  struct acs_affine_sched row[ACS_AFFINE_MAX_DIMS];
  int32_t *level;          /* per dependence: the row that carries it, -1 none */
};
int acs_affine_solve_multi(struct isl_ctx *ctx, const struct acs_sare *m, int32_t maxdims,
                           const volatile sig_atomic_t *interrupted,
                           struct acs_affine_msched *out, struct acs_diag *d);
void acs_affine_msched_free(struct acs_affine_msched *ms);
/* "[N] -> { S[i,j] -> [(i), (j)] }" (with the constants when with_alpha). */
void acs_affine_text_multi(const struct acs_affine_msched *ms, const struct acs_sare *m,
                           int32_t v, int with_alpha, char *buf, size_t size);

/* An all-zero schedule of m's computed variables (inputs preloaded). */
int acs_affine_sched_init(struct acs_affine_sched *s, const struct acs_sare *m);

/* T_v(x, N) (start cycle) for variable v at point x, parameters values. */
int acs_affine_eval(const struct acs_affine_sched *s, const struct acs_sare *m, int32_t v,
                    const int64_t *x, const int64_t *values, int64_t *out);
/* f(N). */
int acs_affine_latency(const struct acs_affine_sched *s, const int64_t *values, int64_t *out);
/* isl notation: "[N] -> { C[i,j,k] -> [(i + j + k)] }" (the whole T when
 * with_alpha, else its linear part), "[N] -> { [(3N - 2)] }" for f. */
void acs_affine_text_var(const struct acs_affine_sched *s, const struct acs_sare *m, int32_t v,
                         int with_alpha, char *buf, size_t size);
void acs_affine_text_latency(const struct acs_affine_sched *s, const struct acs_sare *m,
                             char *buf, size_t size);

/* ---- the checker (check.c) ---- */

struct acs_affine_check {
  int64_t instances;       /* points checked, inputs included */
  int64_t dep_instances;
  int64_t latency;         /* max over computed instances of T + delay */
  int64_t bound;           /* f(N) */
};

/*
 * Checks schedule s of m by enumerating every instance for the parameter
 * values: T >= 0 on every domain, T_dst(x) >= T_src(F(x)) + delay_src for
 * every dependence instance, and (with_bound) f(N) equal to the latest end
 * of a computed instance. Returns ACS_OK or ACS_EVERIFY with the first
 * violation (instances named) in d. Independent of the program: it only
 * evaluates the affine functions. O(instances + dependence instances).
 */
int acs_affine_check_values(const struct acs_sare *m, const struct acs_affine_sched *s,
                            const int64_t *values, int with_bound, struct acs_affine_check *r,
                            struct acs_diag *d);

/*
 * The checker of a multidimensional schedule, by enumeration: every row is
 * >= 0 on every point, and for every dependence instance the difference
 * T(consumer) - T(producer) is lexicographically positive (so the order
 * of the rows is a topological order of the instances). O(d (instances +
 * dependence instances)).
 */
int acs_affine_check_multi(const struct acs_sare *m, const struct acs_affine_msched *ms,
                           const int64_t *values, struct acs_affine_check *r,
                           struct acs_diag *d);

/* ---- isl's scheduler (islsched.c) ---- */

/*
 * Runs isl's scheduler in Feautrier mode on m's dependences (a delay of d
 * cycles becomes a chain of d - 1 copy statements, since isl's dependences
 * carry distance one) and returns the first dimension of its schedule as
 * an affine schedule of the computed variables (inputs get 0; phi is left
 * 0). ACS_EINFEASIBLE (message in d) when that first dimension does not
 * carry every dependence, i.e. isl found no one-dimensional schedule.
 */
int acs_affine_isl_feautrier(const struct acs_sare *m, struct acs_affine_sched *s,
                             struct acs_diag *d);
/*
 * The latency of isl's schedule at the parameter values (values NULL: the
 * bound ones): its first dimension, shifted to start at 0 (isl may start
 * below 0), checked by enumeration, then max end - 0. ACS_EINFEASIBLE with
 * the reason in d when the first dimension is no one-dimensional schedule.
 */
int acs_affine_isl_latency(const struct acs_sare *m, const int64_t *values, int64_t *latency,
                           struct acs_diag *d);

/* ---- lowering (lower.c) ---- */

enum acs_affine_fold { ACS_AFFINE_FOLD_CYCLIC, ACS_AFFINE_FOLD_BLOCK };

struct acs_affine_place {
  int64_t u[ACS_SARE_MAX_DIMS];  /* projection direction; all zero: none */
  int64_t vpes;            /* virtual PEs of the variable */
};

struct acs_affine_lowered {
  struct acs_affine_place *var;  /* nvars (inputs: no PEs) */
  int64_t virtual_pes;     /* of the whole array */
  int64_t pe_count;
  int folded;              /* virtual_pes > pe_count */
  int64_t transfers, transfer_bytes;
  int64_t at_affine_time;  /* ops that start exactly at T */
  int64_t makespan;        /* of the lowered schedule */
};

/*
 * Lowers the schedule rows[0..nrows) of m, instances `in` (the same
 * enumeration as the instance DAG pb->g), into out (initialised from pb):
 * start, end and PE of every op, plus transfer ops and their edges. With
 * one row, ops start no earlier than T (exactly at T when unfolded); with
 * several, the rows give the order only. fold is enum acs_affine_fold.
 * O(I (C + log I) + E), see lower.c.
 */
int acs_affine_lower(const struct acs_problem *pb, const struct acs_sare *m,
                     const struct acs_sare_inst *in, const struct acs_affine_sched *rows,
                     int32_t nrows, int fold, const volatile sig_atomic_t *interrupted,
                     struct acs_schedule *out, struct acs_affine_lowered *r,
                     struct acs_diag *d);
void acs_affine_lowered_free(struct acs_affine_lowered *r);

#endif
