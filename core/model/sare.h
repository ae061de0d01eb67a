/*
 * sare.h - systems of affine recurrence equations (seed 003), the model of
 * the affine workload kind.
 *
 * A system has integer parameters (N, K, ...) with a context (N >= 1),
 * variables with polyhedral domains over their indices and the parameters,
 * and reads: "C[i,j,k] reads C[i,j,k-1] where k >= 1". Each variable is an
 * input (read, never computed), a local or an output; every computation of
 * a local or output instance takes `delay` cycles. A read is a dependence:
 * the consumer instance C[x] needs the producer instance B[F(x)], where F is
 * an affine index function, on a sub-domain of C's domain.
 *
 * The sets and maps are isl objects of the model's own isl context (kept
 * for the scheduler's cross-check against isl's own scheduler); the
 * scheduler and the instance enumeration work on the integer matrices
 * extracted here, so they need no isl calls per instance.
 *
 * Conventions: a point z of a variable's space is (x, N): its indices, then
 * the parameters in declaration order. An affine row over that space has
 * nx + np + 1 integers, the constant last; an inequality row r means
 * r . (z, 1) >= 0 and an equality row r . (z, 1) = 0.
 */
#ifndef ACS_MODEL_SARE_H
#define ACS_MODEL_SARE_H

#include "core/acs.h"

struct isl_ctx;
struct isl_set;
struct isl_map;
struct isl_val;
struct isl_basic_set;

#define ACS_SARE_MAX_DIMS 8      /* indices of one variable */
#define ACS_SARE_MAX_PARAMS 8
#define ACS_SARE_NAME_MAX 64     /* identifiers, NUL included */
#define ACS_SARE_MAX_VALUE (INT64_C(1) << 20)   /* |parameter value| */
#define ACS_SARE_MAX_DELAY (INT64_C(1) << 30)   /* cycles of one computation */
enum acs_sare_kind { ACS_SARE_INPUT, ACS_SARE_LOCAL, ACS_SARE_OUTPUT };
const char *acs_sare_kind_name(int kind);  /* "input", "local", "output" */

/* A polyhedron { z : ineq . (z,1) >= 0, eq . (z,1) = 0 } over ncols - 1
 * dimensions. */
struct acs_sare_poly {
  int32_t ncols;
  int32_t nineq, neq;
  int64_t *ineq;           /* nineq x ncols, row-major */
  int64_t *eq;             /* neq x ncols */
};

/* A union of polyhedra (a domain as written, not convexified). */
struct acs_sare_union {
  int32_t n;
  struct acs_sare_poly *piece;
};

struct acs_sare_var {
  const char *name;
  int kind;                /* enum acs_sare_kind */
  int32_t ndims;
  const char *dim[ACS_SARE_MAX_DIMS];  /* index names as declared (i, j, k) */
  int64_t delay;           /* cycles of one computation; 0 for inputs */
  const char *text;        /* the domain as written */
  int line, col;           /* where the declaration starts */
  struct isl_set *domain;  /* with the context */
  struct acs_sare_union pieces;   /* the domain's polyhedra, over (x, N) */
  struct acs_sare_poly hull;      /* their convex hull (the seed's convexisation) */
};

/*
 * One read, after splitting: the consumer dst reads src[F(x, N)] for x in
 * the sub-domain. A read whose index function isl gives piecewise becomes
 * one dependence per piece.
 */
struct acs_sare_dep {
  int32_t dst, src;        /* variable indices; dst is computed */
  int line, col;           /* the read statement */
  const char *text;
  struct isl_map *map;     /* dst instance -> src instance, on the sub-domain */
  /* F: src ndims rows of dst ndims + np + 1 integers */
  int64_t *fn;
  struct acs_sare_union pieces;   /* the sub-domain over dst's (x, N) */
  struct acs_sare_poly hull;
};

struct acs_sare {
  struct acs_arena arena;
  struct isl_ctx *ctx;
  const char *path;
  int32_t nparams;
  const char *param[ACS_SARE_MAX_PARAMS];
  struct isl_set *context;        /* parameters only */
  struct acs_sare_poly context_poly; /* over the parameters: ncols = np + 1 */
  int has_value[ACS_SARE_MAX_PARAMS];
  int64_t value[ACS_SARE_MAX_PARAMS];  /* bound values (bind line, path suffix) */
  int bind_line, bind_col;        /* the bind statement (0: none) */
  int32_t nvars;
  struct acs_sare_var *vars;
  int32_t ndeps;
  struct acs_sare_dep *deps;
};

/* Frees everything the model holds, its isl context included. */
void acs_sare_free(struct acs_sare *m);
/* Index of a variable or parameter by name, or -1. */
int32_t acs_sare_find_var(const struct acs_sare *m, const char *name);
int32_t acs_sare_find_param(const struct acs_sare *m, const char *name);
/* Whether variable v is computed (local or output). */
static inline int acs_sare_computed(const struct acs_sare *m, int32_t v)
{
  return m->vars[v].kind != ACS_SARE_INPUT;
}

/* Polyhedra: evaluation with overflow checks. */
void acs_sare_poly_free(struct acs_sare_poly *p);
void acs_sare_union_free(struct acs_sare_union *u);
/* Whether z (ncols - 1 values) satisfies every row. */
int acs_sare_poly_contains(const struct acs_sare_poly *p, const int64_t *z);
int acs_sare_union_contains(const struct acs_sare_union *u, const int64_t *z);
/* r . (z, 1) for a row of n + 1 integers; -1 on overflow. */
int acs_sare_row_eval(const int64_t *row, int32_t n, const int64_t *z, int64_t *out);

/*
 * The instances of a system with every parameter bound (values in
 * m->value, or given): per variable, its points in lexicographic order.
 * Computed instances are the ops of the instance DAG, numbered variable by
 * variable in declaration order, points in lexicographic order; inputs are
 * enumerated too (the checker needs them) but are no ops.
 */
struct acs_sare_vinst {
  int64_t count;           /* points of the domain */
  int32_t first_op;        /* op id of the first point; -1 for inputs */
  int64_t lo[ACS_SARE_MAX_DIMS], hi[ACS_SARE_MAX_DIMS];  /* bounding box */
  int32_t *pt;             /* count x ndims coordinates, in lexicographic order */
};

struct acs_sare_inst {
  int32_t nparams, nvars;
  int64_t value[ACS_SARE_MAX_PARAMS];
  struct acs_sare_vinst *var;
  int32_t nops;            /* computed instances */
  int32_t *op_var;         /* nops: the variable of each op */
};

/*
 * Enumerates the instances for the given parameter values (NULL: m->value,
 * each of which must be bound; sare_inst.c). Values outside the context
 * or an index beyond 32 bits are ACS_ERANGE with a message; more instances
 * (inputs included) than the ops limit, or a scan of more than 256 steps
 * per op that limit allows, ACS_ELIMIT naming the limit. O(instances +
 * the scan's dead ends) x constraints, and memory O(instances); polls
 * acs_interrupt_pending().
 */
int acs_sare_inst_build(const struct acs_sare *m, const int64_t *values,
                        struct acs_sare_inst *out, struct acs_diag *d);
void acs_sare_inst_free(struct acs_sare_inst *in);
/* Rank of point x in variable v's enumeration, or -1 when outside.
 * O(dims log points). */
int64_t acs_sare_inst_rank(const struct acs_sare_inst *in, const struct acs_sare *m,
                           int32_t v, const int64_t *x);
/* src[F(x, N)] for dependence e at consumer point x: fills y (src ndims);
 * -1 on overflow. */
int acs_sare_dep_apply(const struct acs_sare *m, const struct acs_sare_dep *e,
                       const int64_t *x, const int64_t *values, int64_t *y);
/*
 * Every dependence instance: for dependence e and each consumer point x
 * (rank xr among dst's points) in e's sub-domain, calls fn with the
 * producer point y = F(x) and its rank yr among src's points (-1 when y
 * lies outside src's domain, which the reader rules out). A non-zero
 * return of fn stops the walk with that value. O(sum over dependences of
 * the consumer's points x (constraints + log points)); polls
 * acs_interrupt_pending().
 */
typedef int (*acs_sare_dep_fn)(void *user, int32_t e, int64_t xr, const int64_t *x,
                               int64_t yr, const int64_t *y);
int acs_sare_foreach_dep_instance(const struct acs_sare *m, const struct acs_sare_inst *in,
                                  acs_sare_dep_fn fn, void *user);

/* "C[1,2,3]" for point x of variable v. */
void acs_sare_point_name(const struct acs_sare *m, int32_t v, const int64_t *x,
                         char *buf, size_t size);

#endif
