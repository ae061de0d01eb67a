/*
 * bprog_width.c - the width of the order of barrier uses (Dilworth).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/antichain.h"
#include "core/model/bprog.h"

#define FAIL(d, ...) acs_diag_set((d), ACS_EVERIFY, NULL, 0, 0, __VA_ARGS__)

static const char *op_name(const struct acs_schedule *s, int32_t i)
{
  return s->ops[i].name;
}

/* ---- with the transitive closure ---- */

struct closure {
  int32_t n;
  size_t words;
  uint64_t *rows;   /* strict descendants of every op */
};


/* Members of use u that must be done before the next use of its barrier. */
static void use_end(const struct acs_bprog *bp, int32_t u, const int32_t **m, int32_t *nm)
{
  if (bp->cons_off[u + 1] > bp->cons_off[u]) {
    *m = bp->cons + bp->cons_off[u];
    *nm = bp->cons_off[u + 1] - bp->cons_off[u];
  } else {
    *m = bp->prod + bp->prod_off[u];
    *nm = bp->prod_off[u + 1] - bp->prod_off[u];
  }
}

/* Row X of the use order: every use Y != X all of whose producers are in
 * R = the intersection over X's end members e of (descendants of e, and e). */
static void use_row(const struct acs_bprog *bp, const struct closure *c, int32_t x,
                    uint64_t *r, int32_t *cnt, int32_t *touched, uint64_t *urow)
{
  const int32_t *m;
  int32_t nm, nt = 0;

  use_end(bp, x, &m, &nm);
  for (size_t w = 0; w < c->words; w++)
    r[w] = ~(uint64_t)0;
  for (int32_t k = 0; k < nm; k++) {
    const uint64_t *row = c->rows + (size_t)m[k] * c->words;
    uint64_t self[1];
    for (size_t w = 0; w < c->words; w++) {
      self[0] = (size_t)m[k] >> 6 == w ? (uint64_t)1 << (m[k] & 63) : 0;
      r[w] &= row[w] | self[0];
    }
  }
  for (size_t w = 0; w < c->words; w++)
    for (uint64_t bits = r[w]; bits; bits &= bits - 1) {
      int32_t p = (int32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
      int32_t y = p < c->n ? bp->use_of[p] : -1;
      if (y >= 0 && cnt[y]++ == 0)
        touched[nt++] = y;
    }
  for (int32_t k = 0; k < nt; k++) {
    int32_t y = touched[k];
    if (y != x && cnt[y] == bp->prod_off[y + 1] - bp->prod_off[y])
      acs_bit_set(urow, y);
    cnt[y] = 0;
  }
}

/* The width of the use order, a largest antichain of uses in members. */
static int use_width(const struct acs_bprog *bp, const struct closure *c, int32_t *width,
                     int32_t *members)
{
  int32_t nu = bp->nuses;
  size_t uw = acs_bits_words(nu), bytes;
  uint64_t *urows = NULL, *r = malloc((c->words + 1) * sizeof(*r));
  int32_t *cnt = calloc((size_t)nu + 1, sizeof(*cnt));
  int32_t *touched = malloc(((size_t)nu + 1) * sizeof(*touched));
  int err = ACS_ENOMEM;

  if (!acs_mul_size((size_t)nu, uw * sizeof(uint64_t), &bytes))
    urows = calloc(bytes + 1, 1);
  if (urows && r && cnt && touched) {
    for (int32_t x = 0; x < nu; x++)
      use_row(bp, c, x, r, cnt, touched, urows + (size_t)x * uw);
    err = acs_poset_width(nu, urows, uw, width, members);
  }
  free(urows), free(r), free(cnt), free(touched);
  return err;
}

static int check_width(const struct acs_schedule *s, const struct acs_bprog *bp,
                       const struct closure *c, struct acs_diag *d)
{
  int32_t width = 0, *members = malloc(((size_t)bp->nuses + 1) * sizeof(*members));
  int err = ACS_ENOMEM;

  if (!members || (err = use_width(bp, c, &width, members)) < 0)
    goto out_with_members;
  if (width > s->barriers) {
    char list[256] = "";
    size_t len = 0;
    for (int32_t k = 0; k < width && k < 6 && len < sizeof(list); k++)
      len += (size_t)snprintf(list + len, sizeof(list) - len, "%s'%s'", k ? ", " : "",
                              op_name(s, bp->prod[bp->prod_off[members[k]]]));
    err = FAIL(d, "%d barrier uses can be live at once in some execution, more than the %d "
                  "barriers (largest antichain by Dilworth's theorem: the uses updated by "
                  "%s%s)", width, s->barriers, list, width > 6 ? ", ..." : "");
  }
out_with_members:
  free(members);
  return err;
}

static int closure_init(struct closure *c, const struct acs_schedule *s,
                        const struct acs_bprog *bp)
{
  size_t bytes;

  c->n = s->nops;
  c->words = acs_bits_words(s->nops);
  if (acs_mul_size((size_t)s->nops, c->words * sizeof(uint64_t), &bytes) ||
      !(c->rows = calloc(bytes + 1, 1)))
    return ACS_ENOMEM;
  acs_dag_descendants(s->nops, bp->succ_off, bp->succ, bp->order, c->rows);
  return ACS_OK;
}

int acs__bprog_check_width(const struct acs_schedule *s, const struct acs_bprog *bp,
                           struct acs_diag *d)
{
  struct closure c;
  int err;

  if (s->nops > ACS_BARRIER_CHECK_MAX_OPS) {
    acs_diag_warn(d, NULL, 0, 0,
                  "barrier antichain bound not checked: %d ops, more than %d (linear "
                  "barrier checks only)", s->nops, ACS_BARRIER_CHECK_MAX_OPS);
    return ACS_OK;
  }
  if ((err = closure_init(&c, s, bp)) < 0)
    return err;
  err = check_width(s, bp, &c, d);
  free(c.rows);
  return err;
}

int acs_bprog_use_width(const struct acs_schedule *s, int32_t *width)
{
  struct acs_bprog bp;
  struct closure c;
  int err;

  if (s->nops > ACS_BARRIER_CHECK_MAX_OPS)
    return ACS_ERANGE;
  if ((err = acs_bprog_build(s, &bp)) < 0)
    return err;
  if ((err = closure_init(&c, s, &bp)) == ACS_OK) {
    err = use_width(&bp, &c, width, NULL);
    free(c.rows);
  }
  acs_bprog_destroy(&bp);
  return err;
}
