/*
 * util.c - error strings, diagnostics, arena, growth helper, PRNG, clock.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/acs.h"

static const volatile sig_atomic_t *g_interrupt;

void acs_interrupt_flag_set(const volatile sig_atomic_t *flag)
{
  g_interrupt = flag;
}

int acs_interrupt_pending(void)
{
  return g_interrupt && *g_interrupt;
}

const char *acs_strerror(int err)
{
  switch (err) {
  case ACS_OK: return "success";
#define XX(code, msg) case ACS_E##code: return msg;
  ACS_ERRNO_MAP(XX)
#undef XX
  default: return "unknown error";
  }
}

const char *acs_err_name(int err)
{
  switch (err) {
  case ACS_OK: return "OK";
#define XX(code, _) case ACS_E##code: return "E" #code;
  ACS_ERRNO_MAP(XX)
#undef XX
  default: return "EUNKNOWN";
  }
}

void acs_diag_init(struct acs_diag *d)
{
  memset(d, 0, sizeof(*d));
}

static void diag_locate(struct acs_diag *d, const char *file, int line, int col)
{
  if (file)
    snprintf(d->file, sizeof(d->file), "%s", file);
  else
    d->file[0] = '\0';
  d->line = line;
  d->col = col;
}

int acs_diag_set(struct acs_diag *d, int err, const char *file, int line,
                 int col, const char *fmt, ...)
{
  va_list ap;

  if (!d)
    return err;
  diag_locate(d, file, line, col);
  va_start(ap, fmt);
  vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
  va_end(ap);
  return err;
}

int acs_diag_msg_prefix(struct acs_diag *d, int err, const char *file, int line, int col,
                        const char *fmt, ...)
{
  char old[sizeof(d->msg)];
  va_list ap;
  size_t n;

  if (!d)
    return err;
  snprintf(old, sizeof(old), "%s", d->msg);
  diag_locate(d, file, line, col);
  va_start(ap, fmt);
  vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
  va_end(ap);
  n = strlen(d->msg);
  snprintf(d->msg + n, sizeof(d->msg) - n, "%s", old);
  return err;
}

void acs_names_join(char *buf, size_t size, const char *const *first, size_t count,
                    size_t stride)
{
  size_t used = 0;

  buf[0] = '\0';
  for (size_t i = 0; i < count && used < size; i++) {
    const char *const *name = (const char *const *)((const char *)first + i * stride);
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", *name);
  }
}

void acs_diag_note(struct acs_diag *d, const char *file, int line, int col,
                   const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  int n;

  if (!d || !d->warn)
    return;
  n = snprintf(msg, sizeof(msg), "%s", ACS_NOTE_PREFIX);
  va_start(ap, fmt);
  vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
  va_end(ap);
  d->warn(d->warn_ctx, file, line, col, msg);
}

void acs_diag_warn(struct acs_diag *d, const char *file, int line, int col,
                   const char *fmt, ...)
{
  char msg[1024];
  va_list ap;

  if (!d)
    return;
  d->nwarn++;
  if (!d->warn)
    return;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  d->warn(d->warn_ctx, file, line, col, msg);
}

void acs_diag_format(const struct acs_diag *d, char *buf, size_t size)
{
  if (d->file[0] && d->line > 0 && d->col > 0)
    snprintf(buf, size, "%s:%d:%d: %s", d->file, d->line, d->col, d->msg);
  else if (d->file[0] && d->line > 0)
    snprintf(buf, size, "%s:%d: %s", d->file, d->line, d->msg);
  else if (d->file[0])
    snprintf(buf, size, "%s: %s", d->file, d->msg);
  else
    snprintf(buf, size, "%s", d->msg);
}

void acs_diag_msgf(struct acs_diag *d, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
  va_end(ap);
}

/* ---- numbers ---- */

int acs_parse_i64(const char *text, int64_t *out)
{
  long long v;
  char *end;

  /* strtoll would skip leading blanks and read "12x" as 12. */
  if (!text || !*text || isspace((unsigned char)*text))
    return ACS_EPARSE;
  errno = 0;
  v = strtoll(text, &end, 10);
  if (end == text || *end != '\0')
    return ACS_EPARSE;
  if (errno == ERANGE)
    return ACS_ERANGE;
  *out = (int64_t)v;
  return ACS_OK;
}

int acs_parse_double(const char *text, double *out)
{
  double v;
  char *end;

  if (!text || !*text || isspace((unsigned char)*text))
    return ACS_EPARSE;
  errno = 0;
  v = strtod(text, &end);
  if (end == text || *end != '\0' || isnan(v))
    return ACS_EPARSE;
  if (isinf(v) || (errno == ERANGE && fabs(v) > 1.0))
    return ACS_ERANGE; /* "inf", "1e999"; an underflow to a tiny value is accepted */
  *out = v;
  return ACS_OK;
}

/* ---- arena ---- */

struct acs_arena_chunk {
  struct acs_arena_chunk *next;
  size_t size;
  max_align_t data[];
};

#define ARENA_MIN_CHUNK ((size_t)64 * 1024)

void acs_arena_init(struct acs_arena *a)
{
  a->head = NULL;
  a->used = 0;
  a->cap = 0;
}

void *acs_arena_alloc(struct acs_arena *a, size_t size)
{
  const size_t align = sizeof(max_align_t);
  size_t rounded, chunk_size;
  struct acs_arena_chunk *c;
  void *p;

  if (size == 0)
    size = 1;
  if (size > SIZE_MAX - align)
    return NULL;
  rounded = (size + align - 1) / align * align;
  if (!a->head || a->cap - a->used < rounded) {
    /* Big requests get a chunk of their own so the arena wastes at most
     * one small tail per chunk. */
    chunk_size = rounded > ARENA_MIN_CHUNK ? rounded : ARENA_MIN_CHUNK;
    c = malloc(sizeof(*c) + chunk_size);
    if (!c)
      return NULL;
    c->size = chunk_size;
    c->next = a->head;
    a->head = c;
    a->used = 0;
    a->cap = chunk_size;
  }
  p = (char *)a->head->data + a->used;
  a->used += rounded;
  return p;
}

void *acs_arena_calloc(struct acs_arena *a, size_t n, size_t size)
{
  size_t total;
  void *p;

  if (acs_mul_size(n, size, &total))
    return NULL;
  p = acs_arena_alloc(a, total);
  if (p)
    memset(p, 0, total);
  return p;
}

char *acs_arena_strdup(struct acs_arena *a, const char *s)
{
  size_t n = strlen(s) + 1;
  char *p = acs_arena_alloc(a, n);

  if (p)
    memcpy(p, s, n);
  return p;
}

void acs_arena_destroy(struct acs_arena *a)
{
  struct acs_arena_chunk *c = a->head, *next;

  while (c) {
    next = c->next;
    free(c);
    c = next;
  }
  acs_arena_init(a);
}

int acs_grow(void **arr, size_t elem, size_t *cap, size_t need)
{
  size_t ncap, bytes;
  void *p;

  if (need <= *cap)
    return ACS_OK;
  ncap = *cap ? *cap : 16;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2)
      return ACS_ENOMEM;
    ncap *= 2;
  }
  if (acs_mul_size(ncap, elem, &bytes))
    return ACS_ENOMEM;
  p = realloc(*arr, bytes);
  if (!p)
    return ACS_ENOMEM;
  *arr = p;
  *cap = ncap;
  return ACS_OK;
}

/* ---- PRNG: xoshiro256** seeded through splitmix64 ---- */

static uint64_t splitmix64(uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void acs_rng_seed(struct acs_rng *r, uint64_t seed)
{
  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

uint64_t acs_rng_next(struct acs_rng *r)
{
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;

  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t acs_rng_below(struct acs_rng *r, uint64_t n)
{
  /* Rejection sampling keeps every value equally likely. */
  uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;

  do
    x = acs_rng_next(r);
  while (x >= limit);
  return x % n;
}

double acs_rng_unit(struct acs_rng *r)
{
  return (double)(acs_rng_next(r) >> 11) * 0x1.0p-53;
}

double acs_now_seconds(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int acs_cpus_online(int max)
{
  long n = sysconf(_SC_NPROCESSORS_ONLN);

  return n < 1 ? 1 : n > max ? max : (int)n;
}

int64_t acs_gcd64(int64_t a, int64_t b)
{
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

int acs_cmp_i32(const void *a, const void *b)
{
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

  return (x > y) - (x < y);
}

int acs_cmp_i64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

  return (x > y) - (x < y);
}

/*
 * acs_sort_i64 and acs_sort_i32, one definition for both widths.
 *
 * Quicksort with three-way partitions around the median of three (values
 * equal to the pivot are done at once, so inputs with few distinct values,
 * such as the edges of tiles that share rows, sort in O(n log d)), looping
 * on the larger side and recursing on the smaller (depth O(log n)), and
 * insertion sort on the short runs the partitions leave. An input that
 * defeats the median of three would make it quadratic: after 2 log2 n
 * partitions of one range, the rest goes to qsort (O(n log n)).
 */
#define ACS_SORT_DEFINE(T, NAME, CMP)                                                      \
  static void swap_##NAME(T *a, T *b)                                                      \
  {                                                                                        \
    T t = *a;                                                                              \
    *a = *b;                                                                               \
    *b = t;                                                                                \
  }                                                                                        \
  static void insert_sort_##NAME(T *v, size_t n)                                           \
  {                                                                                        \
    for (size_t i = 1; i < n; i++) {                                                       \
      T x = v[i];                                                                          \
      size_t j = i;                                                                        \
      for (; j > 0 && v[j - 1] > x; j--)                                                   \
        v[j] = v[j - 1];                                                                   \
      v[j] = x;                                                                            \
    }                                                                                      \
  }                                                                                        \
  static void sort_##NAME(T *v, size_t n, int budget)                                      \
  {                                                                                        \
    while (n > 16) {                                                                       \
      if (budget-- == 0) {                                                                 \
        qsort(v, n, sizeof(*v), CMP);                                                      \
        return;                                                                            \
      }                                                                                    \
      T a = v[0], b = v[n / 2], c = v[n - 1];                                              \
      T pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);         \
      size_t lt = 0, i = 0, gt = n; /* [0, lt) < pivot, [lt, i) ==, [gt, n) > */          \
      while (i < gt) {                                                                     \
        if (v[i] < pivot)                                                                  \
          swap_##NAME(&v[lt++], &v[i++]);                                                  \
        else if (v[i] > pivot)                                                             \
          swap_##NAME(&v[i], &v[--gt]);                                                    \
        else                                                                               \
          i++;                                                                             \
      }                                                                                    \
      if (lt < n - gt) {                                                                   \
        sort_##NAME(v, lt, budget);                                                        \
        v += gt;                                                                           \
        n -= gt;                                                                           \
      } else {                                                                             \
        sort_##NAME(v + gt, n - gt, budget);                                               \
        n = lt;                                                                            \
      }                                                                                    \
    }                                                                                      \
    insert_sort_##NAME(v, n);                                                              \
  }                                                                                        \
  void acs_sort_##NAME(T *v, size_t n)                                                     \
  {                                                                                        \
    int budget = 0;                                                                        \
    for (size_t m = n; m > 1; m >>= 1)                                                     \
      budget += 2;                                                                         \
    sort_##NAME(v, n, budget);                                                             \
  }

ACS_SORT_DEFINE(int64_t, i64, acs_cmp_i64)
ACS_SORT_DEFINE(int32_t, i32, acs_cmp_i32)

uint64_t acs_str_hash(const char *s)
{
  uint64_t h = 1469598103934665603ULL;

  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}
