/*
 * wire.c - flattening schedules for the sweep's worker pipes (see
 * wire.h).
 *
 * Layout: a header of counts and limits, then per resource its capacity and
 * name, per op its struct acs_sop (name pointer cleared) and name, the
 * demand matrix, the edges and the waits. Names are a uint32 length and the
 * bytes.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep/wire.h"
#include "core/proc.h"

struct wire_hdr {
  int32_t norig, nops, nres, nedges, nwaits;
  int32_t res_pe, res_dma, res_cmx;
  int32_t barriers, barrier_slots;
  int64_t cmx_capacity, cmx_align, makespan;
};

void acs_wbuf_free(struct acs_wbuf *b)
{
  free(b->p);
  memset(b, 0, sizeof(*b));
}

static int put(struct acs_wbuf *b, const void *p, size_t len)
{
  size_t need;
  int err;

  if (len == 0)
    return ACS_OK;
  if (__builtin_add_overflow(b->n, len, &need))
    return ACS_ENOMEM;
  if ((err = acs_grow((void **)&b->p, 1, &b->cap, need)) < 0)
    return err;
  memcpy(b->p + b->n, p, len);
  b->n = need;
  return ACS_OK;
}

static int put_str(struct acs_wbuf *b, const char *s)
{
  uint32_t len = (uint32_t)strlen(s ? s : "");
  int err = put(b, &len, sizeof(len));

  return err < 0 ? err : put(b, s, len);
}

static int put_array(struct acs_wbuf *b, const void *p, size_t n, size_t elem)
{
  size_t bytes;

  if (acs_mul_size(n, elem, &bytes))
    return ACS_ENOMEM;
  return put(b, p, bytes);
}

static int put_i32(struct acs_wbuf *b, int32_t v)
{
  return put(b, &v, sizeof(v));
}

/* A result-table value of the given type. */
static int put_val(struct acs_wbuf *b, int type, union acs_rtab_val v)
{
  if (type == ACS_RTAB_I64)
    return put(b, &v.i, sizeof(v.i));
  if (type == ACS_RTAB_F64)
    return put(b, &v.f, sizeof(v.f));
  return put_str(b, v.s);
}

/* The family's result tables: name, shown flag, columns, cells by row,
 * attributes. O(rows x columns + attributes). */
static int put_rtabs(struct acs_wbuf *b, const struct acs_schedule *s)
{
  int err = put_i32(b, s->ntables);

  for (int32_t k = 0; err == ACS_OK && k < s->ntables; k++) {
    const struct acs_rtab *t = s->tables[k];
    if ((err = put_str(b, t->name)) < 0 || (err = put_i32(b, t->show)) < 0 ||
        (err = put_i32(b, t->ncols)) < 0)
      return err;
    for (int32_t c = 0; err == ACS_OK && c < t->ncols; c++)
      if ((err = put_str(b, t->cols[c].name)) == ACS_OK &&
          (err = put_i32(b, t->cols[c].type)) == ACS_OK)
        err = put_str(b, t->cols[c].units);
    if (err == ACS_OK)
      err = put(b, &t->nrows, sizeof(t->nrows));
    for (int64_t r = 0; err == ACS_OK && r < t->nrows; r++)
      for (int32_t c = 0; err == ACS_OK && c < t->ncols; c++)
        err = put_val(b, t->cols[c].type, acs_rtab_get(t, r, c));
    if (err == ACS_OK)
      err = put_i32(b, t->nattrs);
    for (int32_t a = 0; err == ACS_OK && a < t->nattrs; a++)
      if ((err = put_str(b, t->attrs[a].name)) == ACS_OK &&
          (err = put_i32(b, t->attrs[a].type)) == ACS_OK)
        err = put_val(b, t->attrs[a].type, t->attrs[a].v);
  }
  return err;
}

int acs_wire_put_schedule(struct acs_wbuf *b, const struct acs_schedule *s)
{
  struct wire_hdr h = {s->norig,  s->nops,     s->nres,         s->nedges,       s->nwaits,
                       s->res_pe, s->res_dma,  s->res_cmx,      s->barriers,     s->barrier_slots,
                       s->cmx_capacity, s->cmx_align, s->makespan};
  int err = put(b, &h, sizeof(h));

  for (int32_t r = 0; err == ACS_OK && r < s->nres; r++)
    if ((err = put(b, &s->res_cap[r], sizeof(s->res_cap[r]))) == ACS_OK)
      err = put_str(b, s->res_name[r]);
  for (int32_t i = 0; err == ACS_OK && i < s->nops; i++) {
    struct acs_sop op = s->ops[i];
    op.name = NULL;
    if ((err = put(b, &op, sizeof(op))) == ACS_OK)
      err = put_str(b, s->ops[i].name);
  }
  if (err == ACS_OK && s->nres > 0)
    err = put_array(b, s->demand, (size_t)s->nops * (size_t)s->nres, sizeof(*s->demand));
  if (err == ACS_OK)
    err = put_array(b, s->edges, (size_t)s->nedges, sizeof(*s->edges));
  if (err == ACS_OK)
    err = put_array(b, s->waits, (size_t)s->nwaits, sizeof(*s->waits));
  if (err == ACS_OK)
    err = put_rtabs(b, s);
  return err;
}

struct rbuf {
  const unsigned char *p;
  size_t n, off;
};

static int get(struct rbuf *r, void *out, size_t len)
{
  if (len > r->n - r->off)
    return ACS_EFORMAT;
  memcpy(out, r->p + r->off, len);
  r->off += len;
  return ACS_OK;
}

/* A name copied into the schedule's arena. */
static int get_str(struct rbuf *r, struct acs_schedule *s, const char **out)
{
  uint32_t len;
  char *str;

  if (get(r, &len, sizeof(len)) < 0 || len > r->n - r->off)
    return ACS_EFORMAT;
  if (!(str = acs_arena_alloc(&s->arena, (size_t)len + 1)))
    return ACS_ENOMEM;
  memcpy(str, r->p + r->off, len);
  str[len] = '\0';
  r->off += len;
  *out = str;
  return ACS_OK;
}

static int get_ops(struct rbuf *r, struct acs_schedule *s, int32_t nops)
{
  char small[256];
  int err;

  for (int32_t i = 0; i < nops; i++) {
    struct acs_sop op;
    uint32_t len;
    char *name;
    /* The name goes through add_op, which copies it: read it into a
     * terminated buffer first (on the stack unless it is long). */
    if (get(r, &op, sizeof(op)) < 0 || get(r, &len, sizeof(len)) < 0 || len > r->n - r->off)
      return ACS_EFORMAT;
    name = len < sizeof(small) ? small : malloc((size_t)len + 1);
    if (!name)
      return ACS_ENOMEM;
    memcpy(name, r->p + r->off, len);
    name[len] = '\0';
    r->off += len;
    op.name = name;
    err = acs_schedule_add_op(s, &op);
    if (name != small)
      free(name);
    if (err < 0)
      return err;
  }
  return ACS_OK;
}

/* Steps over n records of `size` bytes. */
static int skip(struct rbuf *r, size_t n, size_t size)
{
  size_t len;

  if (acs_mul_size(n, size, &len) || len > r->n - r->off)
    return ACS_EFORMAT;
  r->off += len;
  return ACS_OK;
}

/* Steps over the ops, demands, edges and waits of h. */
static int skip_ops(struct rbuf *r, const struct wire_hdr *h)
{
  uint32_t len;

  for (int32_t i = 0; i < h->nops; i++)
    if (skip(r, 1, sizeof(struct acs_sop)) < 0 || get(r, &len, sizeof(len)) < 0 ||
        skip(r, len, 1) < 0)
      return ACS_EFORMAT;
  if (skip(r, (size_t)h->nops * (size_t)h->nres, sizeof(int64_t)) < 0 ||
      skip(r, (size_t)h->nedges, sizeof(struct acs_edge)) < 0 ||
      skip(r, (size_t)h->nwaits, sizeof(struct acs_wait)) < 0)
    return ACS_EFORMAT;
  return ACS_OK;
}

static int get_i32(struct rbuf *r, int32_t *v)
{
  return get(r, v, sizeof(*v));
}

static int get_val(struct rbuf *r, struct acs_schedule *s, int type, union acs_rtab_val *v)
{
  if (type == ACS_RTAB_I64)
    return get(r, &v->i, sizeof(v->i));
  if (type == ACS_RTAB_F64)
    return get(r, &v->f, sizeof(v->f));
  return get_str(r, s, &v->s);
}

static int get_cells(struct rbuf *r, struct acs_schedule *s, struct acs_rtab *t)
{
  int64_t nrows;
  union acs_rtab_val v;

  /* Each cell takes at least 4 bytes on the wire: a bound on the row
   * count before anything is allocated for it. */
  if (get(r, &nrows, sizeof(nrows)) < 0 || nrows < 0 ||
      (uint64_t)nrows > (r->n - r->off) / 4 / (uint64_t)t->ncols + 1)
    return ACS_EFORMAT;
  for (int64_t row = 0; row < nrows; row++) {
    int64_t added = acs_rtab_add_row(t);
    if (added < 0)
      return (int)added;
    for (int32_t c = 0; c < t->ncols; c++) {
      if (get_val(r, s, t->cols[c].type, &v) < 0)
        return ACS_EFORMAT;
      t->cells[row * t->ncols + c] = v; /* strings already in s's arena */
    }
  }
  return ACS_OK;
}

static int get_attrs(struct rbuf *r, struct acs_schedule *s, struct acs_rtab *t)
{
  int32_t n, type;
  const char *name;
  union acs_rtab_val v;
  int err = ACS_OK;

  if (get_i32(r, &n) < 0 || n < 0)
    return ACS_EFORMAT;
  for (int32_t a = 0; err == ACS_OK && a < n; a++) {
    if (get_str(r, s, &name) < 0 || get_i32(r, &type) < 0 || type < ACS_RTAB_I64 ||
        type > ACS_RTAB_STR || get_val(r, s, type, &v) < 0)
      return ACS_EFORMAT;
    err = type == ACS_RTAB_I64   ? acs_rtab_attr_i64(t, name, v.i)
          : type == ACS_RTAB_F64 ? acs_rtab_attr_f64(t, name, v.f)
                                 : acs_rtab_attr_str(t, name, v.s);
  }
  return err == ACS_EINVAL ? ACS_EFORMAT : err;
}

static int get_rtab(struct rbuf *r, struct acs_schedule *s)
{
  struct acs_rtab_col cols[ACS_RTAB_MAX_COLS];
  const char *name;
  int32_t show, ncols;
  struct acs_rtab *t;
  int err;

  if (get_str(r, s, &name) < 0 || get_i32(r, &show) < 0 || get_i32(r, &ncols) < 0 ||
      ncols <= 0 || ncols > ACS_RTAB_MAX_COLS)
    return ACS_EFORMAT;
  for (int32_t c = 0; c < ncols; c++)
    if (get_str(r, s, &cols[c].name) < 0 || get_i32(r, &cols[c].type) < 0 ||
        get_str(r, s, &cols[c].units) < 0)
      return ACS_EFORMAT;
  if ((err = acs_schedule_add_rtab(s, name, cols, ncols, &t)) < 0)
    return err == ACS_EINVAL ? ACS_EFORMAT : err;
  t->show = show != 0;
  if ((err = get_cells(r, s, t)) < 0)
    return err;
  return get_attrs(r, s, t);
}

/* The result tables, the last part of a schedule. */
static int get_rtabs(struct rbuf *r, struct acs_schedule *s)
{
  int32_t ntables;
  int err;

  if (get_i32(r, &ntables) < 0 || ntables < 0)
    return ACS_EFORMAT;
  for (int32_t k = 0; k < ntables; k++)
    if ((err = get_rtab(r, s)) < 0)
      return err;
  return r->off == r->n ? ACS_OK : ACS_EFORMAT;
}

static int get_res(struct rbuf *r, const struct wire_hdr *h, struct acs_schedule *s)
{
  int err;

  for (int32_t k = 0; k < h->nres; k++)
    if ((err = get(r, &s->res_cap[k], sizeof(s->res_cap[k]))) < 0 ||
        (err = get_str(r, s, &s->res_name[k])) < 0)
      return err;
  return ACS_OK;
}

static int get_body(struct rbuf *r, const struct wire_hdr *h, struct acs_schedule *s)
{
  size_t nd;
  int err;

  if ((err = get_res(r, h, s)) < 0)
    return err;
  if ((err = get_ops(r, s, h->nops)) < 0)
    return err;
  if (acs_mul_size((size_t)h->nops, (size_t)h->nres, &nd) ||
      acs_mul_size(nd, sizeof(*s->demand), &nd) || (nd > 0 && get(r, s->demand, nd) < 0))
    return ACS_EFORMAT;
  for (int32_t e = 0; e < h->nedges; e++) {
    struct acs_edge ed;
    if (get(r, &ed, sizeof(ed)) < 0)
      return ACS_EFORMAT;
    if ((err = acs_schedule_add_edge(s, ed.src, ed.dst, ed.kind)) < 0)
      return err == ACS_EINVAL ? ACS_EFORMAT : err;
  }
  for (int32_t w = 0; w < h->nwaits; w++) {
    struct acs_wait wt;
    if (get(r, &wt, sizeof(wt)) < 0)
      return ACS_EFORMAT;
    if ((err = acs_schedule_add_wait(s, wt.op, wt.barrier)) < 0)
      return err == ACS_EINVAL ? ACS_EFORMAT : err;
  }
  return get_rtabs(r, s);
}

/* Reads the header of a schedule into s (initialised here). */
static int get_head(struct rbuf *r, struct wire_hdr *h, struct acs_schedule *s)
{
  acs_schedule_init(s);
  if (get(r, h, sizeof(*h)) < 0 || h->nres < 0 || h->nres > ACS_MAX_RES || h->nops < 0 ||
      h->nedges < 0 || h->nwaits < 0 || h->norig < 0 || h->norig > h->nops)
    return ACS_EFORMAT;
  s->nres = h->nres;
  s->norig = h->norig;
  s->res_pe = h->res_pe;
  s->res_dma = h->res_dma;
  s->res_cmx = h->res_cmx;
  s->barriers = h->barriers;
  s->barrier_slots = h->barrier_slots;
  s->cmx_capacity = h->cmx_capacity;
  s->cmx_align = h->cmx_align;
  return ACS_OK;
}

int acs_wire_get_schedule(const unsigned char *p, size_t len, struct acs_schedule *s)
{
  struct rbuf r = {p, len, 0};
  struct wire_hdr h;
  int err;

  if ((err = get_head(&r, &h, s)) < 0 || (err = get_body(&r, &h, s)) < 0) {
    acs_schedule_destroy(s);
    acs_schedule_init(s);
    return err;
  }
  s->makespan = h.makespan;
  return ACS_OK;
}

int acs_wire_get_tables(const unsigned char *p, size_t len, struct acs_schedule *s)
{
  struct rbuf r = {p, len, 0};
  struct wire_hdr h;
  int err;

  if ((err = get_head(&r, &h, s)) < 0 || (err = get_res(&r, &h, s)) < 0 ||
      (err = skip_ops(&r, &h)) < 0 ||
      (err = get_rtabs(&r, s)) < 0) {
    acs_schedule_destroy(s);
    acs_schedule_init(s);
    return err;
  }
  s->norig = 0;
  return ACS_OK;
}

int acs_wire_write(int fd, const void *p, size_t len)
{
  return acs_write_all(fd, p, len) == 0 ? ACS_OK : ACS_EIO;
}

int acs_wire_read(int fd, void *p, size_t len)
{
  int rc = acs_read_all(fd, p, len);

  return rc == 0 ? 1 : rc == 1 ? 0 : ACS_EIO;
}
