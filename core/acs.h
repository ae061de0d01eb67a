/*
 * acs.h - common definitions of the acsim core: error codes, located
 * diagnostics, the arena allocator and checked arithmetic.
 *
 * Library code never prints and never exits; it returns ACS_OK or a negative
 * ACS_E* code and, for input errors, fills a struct acs_diag with the file,
 * line and column of the problem.
 */
#ifndef ACS_ACS_H
#define ACS_ACS_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <signal.h>

#define ACS_VERSION_STRING PACKAGE_VERSION

/* Error codes, one table (libuv style). Values are negative. */
#define ACS_ERRNO_MAP(XX)                                              \
  XX(NOMEM, "out of memory")                                           \
  XX(INVAL, "invalid argument")                                        \
  XX(IO, "input/output error")                                         \
  XX(PARSE, "malformed input")                                         \
  XX(CYCLE, "graph has a cycle")                                       \
  XX(INFEASIBLE, "no feasible schedule")                               \
  XX(TIMEOUT, "time limit reached")                                    \
  XX(UNSUPPORTED, "workload kind not supported by this scheduler")     \
  XX(VERIFY, "schedule violates an invariant")                         \
  XX(RANGE, "value out of range")                                      \
  XX(NOTFOUND, "not found")                                            \
  XX(FORMAT, "file format or schema mismatch")                         \
  XX(SIM, "simulation failed")                                         \
  XX(INTERRUPTED, "interrupted")                                       \
  XX(LIMIT, "beyond a limit on what an input may cost (--max KEY=N raises it)")

enum acs_errno {
  ACS_OK = 0,
#define XX(code, _) ACS_E##code,
  ACS__EFIRST = -1000,
  ACS_ERRNO_MAP(XX)
#undef XX
  ACS__ELAST
};

const char *acs_strerror(int err);
const char *acs_err_name(int err);

/*
 * A located diagnostic. `line` and `col` are 1-based; 0 means "not known".
 * Loaders may also report warnings through `warn`, which is optional; a NULL
 * callback drops them (they are still counted in `nwarn`).
 */
struct acs_diag {
  char file[512];
  int line;
  int col;
  char msg[1024];
  void (*warn)(void *ctx, const char *file, int line, int col,
               const char *msg);
  void *warn_ctx;
  int nwarn;
};

void acs_diag_init(struct acs_diag *d);
/* Sets the error location and message; returns `err` for `return acs_diag_set(...)`. */
int acs_diag_set(struct acs_diag *d, int err, const char *file, int line,
                 int col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
void acs_diag_warn(struct acs_diag *d, const char *file, int line, int col,
                   const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A note: information about how an input was read, not a problem with it.
 * It goes through `warn` with the message prefixed by ACS_NOTE_PREFIX and
 * is not counted in `nwarn`. */
#define ACS_NOTE_PREFIX "note: "
void acs_diag_note(struct acs_diag *d, const char *file, int line, int col,
                   const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Formats "file:line:col: msg" (omitting unknown parts) into buf. */
void acs_diag_format(const struct acs_diag *d, char *buf, size_t size);
/* Sets the error location and puts a message formatted from fmt in front of
 * d's current one: a caller restates a callee's error in its own terms
 * without losing what the callee said. Returns `err`. */
int acs_diag_msg_prefix(struct acs_diag *d, int err, const char *file, int line, int col,
                        const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Writes the names of a table's `count` entries into buf as "a, b, c" (cut
 * short where buf ends), for messages that list what is known: `first` is
 * the name field of entry 0, and entry i's is `stride` bytes on from the
 * one before (stride = sizeof an entry). */
void acs_names_join(char *buf, size_t size, const char *const *first, size_t count,
                    size_t stride);
/* Sets d->msg alone from a format (no error code, file or position). */
void acs_diag_msgf(struct acs_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Arena: many small allocations freed at once (names, CSR arrays). */
struct acs_arena_chunk;
struct acs_arena {
  struct acs_arena_chunk *head;
  size_t used, cap;
};
void acs_arena_init(struct acs_arena *a);
void *acs_arena_alloc(struct acs_arena *a, size_t size);
void *acs_arena_calloc(struct acs_arena *a, size_t n, size_t size);
char *acs_arena_strdup(struct acs_arena *a, const char *s);
void acs_arena_destroy(struct acs_arena *a);

/* Checked size arithmetic: returns 0 and sets *out, or -1 on overflow. */
static inline int acs_mul_size(size_t a, size_t b, size_t *out)
{
  return __builtin_mul_overflow(a, b, out) ? -1 : 0;
}
static inline int acs_mul_i64(int64_t a, int64_t b, int64_t *out)
{
  return __builtin_mul_overflow(a, b, out) ? -1 : 0;
}
static inline int acs_add_i64(int64_t a, int64_t b, int64_t *out)
{
  return __builtin_add_overflow(a, b, out) ? -1 : 0;
}
/* Saturating: INT64_MAX on overflow (the callers' values are not negative). */
static inline int64_t acs_sat_add_i64(int64_t a, int64_t b)
{
  int64_t r;
  return acs_add_i64(a, b, &r) ? INT64_MAX : r;
}
static inline int64_t acs_sat_mul_i64(int64_t a, int64_t b)
{
  int64_t r;
  return acs_mul_i64(a, b, &r) ? INT64_MAX : r;
}
/* a / b rounded up and rounded down, for any a and b > 0 (C's / rounds
 * toward zero, which is the ceiling only below zero and the floor only
 * above). */
static inline int64_t acs_ceil_div_i64(int64_t a, int64_t b)
{
  return a / b + (a % b != 0 && a > 0);
}
static inline int64_t acs_floor_div_i64(int64_t a, int64_t b)
{
  return a / b - (a % b != 0 && a < 0);
}
/* a mod m in [0, m), for m > 0 (C's % keeps the sign of a). */
static inline int64_t acs_mod_i64(int64_t a, int64_t m)
{
  int64_t r = a % m;
  return r < 0 ? r + m : r;
}
/* The greatest common divisor, non-negative (0 when both are 0). */
int64_t acs_gcd64(int64_t a, int64_t b);
/* qsort comparators of int32_t and int64_t, ascending. */
int acs_cmp_i32(const void *a, const void *b);
int acs_cmp_i64(const void *a, const void *b);
/* Sort v ascending in place, without qsort's indirect comparisons: O(n log
 * d) for d distinct values (three-way partitions) in practice, O(n log n)
 * at worst, O(log n) stack. */
void acs_sort_i64(int64_t *v, size_t n);
void acs_sort_i32(int32_t *v, size_t n);
/* FNV-1a of a string, for name hash tables. */
uint64_t acs_str_hash(const char *s);

/*
 * The largest workload quantity acsim accepts: cycles of one op, the sum of
 * all durations of a problem, MACs, bytes, demands and capacities. 2^53 is
 * where float64 (the HDF5 columns, the ILP's coefficients) stops counting
 * exactly, and it leaves room to add a few of them, or to multiply one by a
 * platform factor below 2^10, in int64_t without overflow. At 10 GHz it is
 * ten days of cycles; no real tensor comes near 8 PiB.
 */
#define ACS_QTY_MAX ((int64_t)1 << 53)

/*
 * Strict number parsing: the whole text must be the number, no blanks around
 * it. Integers are read as integers (never through a double, so every int64
 * is exact). Return ACS_OK, ACS_EPARSE (not a number, or for i64 not an
 * integer: "1.5", "1e3") or ACS_ERANGE (beyond int64_t; for doubles beyond
 * +-DBL_MAX: an underflow to a tiny value is accepted).
 */
int acs_parse_i64(const char *text, int64_t *out);
int acs_parse_double(const char *text, double *out);

/* Grows *arr (of elements of `elem` bytes) to hold at least `need`. */
int acs_grow(void **arr, size_t elem, size_t *cap, size_t need);

/* Deterministic PRNG (splitmix64 seeded xoshiro256**). */
struct acs_rng { uint64_t s[4]; };
void acs_rng_seed(struct acs_rng *r, uint64_t seed);
uint64_t acs_rng_next(struct acs_rng *r);
/* Uniform in [0, n) without modulo bias; n > 0. */
uint64_t acs_rng_below(struct acs_rng *r, uint64_t n);
double acs_rng_unit(struct acs_rng *r); /* [0, 1) */

double acs_now_seconds(void); /* monotonic clock */
/* The CPUs online, from 1 to max (1 when the system does not say). */
int acs_cpus_online(int max);

/*
 * The process's interrupt flag, for the linear phases that take no
 * scheduler context (the verifier, the results writer): NULL by default,
 * or a flag a SIGINT/SIGTERM handler sets, registered once by the program.
 * Such phases poll acs_interrupt_pending() between steps of bounded cost
 * and return ACS_EINTERRUPTED, so Ctrl-C stops a phase within a second
 * even on schedules of 10^6 ops. Schedulers poll their context's own flag
 * (struct acs_sched_ctx), which the program points at the same variable.
 */
void acs_interrupt_flag_set(const volatile sig_atomic_t *flag);
int acs_interrupt_pending(void);

/*
 * Limits on the work one workload may ask for (limits.c; docs/fuzzing.md
 * "Limits"). A file of a few hundred bytes can describe millions of ops
 * (an SDF rate, a loop unrolled, a polyhedral domain), so every reader and
 * builder that expands its model computes what the expansion will cost
 * (ops, edges, bytes) before it allocates, in time linear in the model,
 * and refuses with ACS_ELIMIT and a located message naming the limit what
 * exceeds one. The defaults keep what a workload builds under a gigabyte
 * and a few seconds; a program raises them for the whole
 * process (acsim's --max KEY=N), and forked workers inherit them.
 *
 * XX(ID, key, default, what it bounds)
 */
#define ACS_LIMIT_MAP(XX)                                                  \
  XX(OPS, ops, INT64_C(1) << 21,                                           \
     "ops of one graph: layer tiles, SDF firings, affine instances, unrolled loop ops") \
  XX(EDGES, edges, INT64_C(1) << 23,                                       \
     "edges of one graph, and the dependence instances a builder walks to find them") \
  XX(BYTES, bytes, INT64_C(1) << 30,                                       \
     "estimated bytes of one graph and of the tables its builder fills")   \
  XX(ISL_OPS, isl_ops, INT64_C(5000000),                                   \
     "operations of the isl library to read one system of affine recurrence equations, or to enumerate its instances")

enum acs_limit {
#define XX(id, key, def, doc) ACS_LIMIT_##id,
  ACS_LIMIT_MAP(XX)
#undef XX
  ACS_LIMIT__COUNT
};

/* The key ("ops"), default and one-line description of a limit. */
const char *acs_limit_key(int which);
int64_t acs_limit_default(int which);
const char *acs_limit_doc(int which);
/* The value in force (the default until set). */
int64_t acs_limit_get(int which);
/* Sets a limit for the whole process (value >= 1); ACS_EINVAL otherwise. */
int acs_limit_set(int which, int64_t value);
/* Restores every default. */
void acs_limits_reset(void);
/*
 * "key=N" (the --max form): N an integer from 1 to 2^62. Errors read
 * "--max key=N: ..." (d->file empty): ACS_ENOTFOUND for an unknown key
 * (the message lists the keys), ACS_EPARSE or ACS_ERANGE for a bad value.
 */
int acs_limit_set_kv(const char *kv, struct acs_diag *d);
/*
 * Refuses `amount` of limit `which` planned by a reader or builder: ACS_OK
 * when it is within the limit, else ACS_ELIMIT with "<what> would need
 * AMOUNT KEY, more than the limit KEY=LIMIT (--max KEY=N raises it)"
 * located at file:line:col (what is printf-formatted).
 */
int acs_limit_check(int which, int64_t amount, struct acs_diag *d, const char *file, int line,
                    int col, const char *what_fmt, ...) __attribute__((format(printf, 7, 8)));

#endif
