/*
 * trace.c - schedules as Chrome Trace Event JSON (Perfetto, chrome://tracing).
 *
 * Layout: {"traceEvents":[...], "otherData":{...}}. Each run is a process
 * (pid 1, 2, ... in the order added) named by the caller; its threads are
 * the PEs, the DMA channels and, when used, "no unit"; each op is one
 * complete event ("ph":"X"); a counter ("ph":"C") shows the DDR transfers in
 * flight, where contention happens. Times are cycles written as the format's
 * microseconds, so the viewer's "us" reads as cycles.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "simulate/sim.h"

struct acs_sim_trace {
  FILE *f;
  char *path, *tmp;
  int nproc;
  long nevents;
};

/* ---- JSON text ---- */

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0. */
static int utf8_len(const unsigned char *s)
{
  unsigned char lo = 0x80, hi = 0xbf;
  int n;

  if (s[0] >= 0xc2 && s[0] <= 0xdf)
    n = 2;
  else if (s[0] >= 0xe0 && s[0] <= 0xef)
    n = 3;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4)
    n = 4;
  else
    return 0;
  if (s[0] == 0xe0)
    lo = 0xa0;
  else if (s[0] == 0xed)
    hi = 0x9f;
  else if (s[0] == 0xf0)
    lo = 0x90;
  else if (s[0] == 0xf4)
    hi = 0x8f;
  if (s[1] < lo || s[1] > hi)
    return 0;
  for (int k = 2; k < n; k++)
    if ((s[k] & 0xc0) != 0x80)
      return 0;
  return n;
}

/* Writes s as a JSON string: quotes, backslashes and control characters
 * escaped, invalid UTF-8 replaced by U+FFFD so the file always parses. */
static void json_str(FILE *f, const char *str)
{
  const unsigned char *s = (const unsigned char *)(str ? str : "");

  fputc('"', f);
  while (*s) {
    if (*s == '"' || *s == '\\') {
      fputc('\\', f);
      fputc(*s++, f);
    } else if (*s < 0x20) {
      fprintf(f, "\\u%04x", *s++);
    } else if (*s < 0x80) {
      fputc(*s++, f);
    } else {
      int n = utf8_len(s);
      if (n == 0) {
        fputs("\\ufffd", f);
        s++;
      } else {
        fwrite(s, 1, (size_t)n, f);
        s += n;
      }
    }
  }
  fputc('"', f);
}

/* Starts an event object (the separator, then the common fields). */
static void event_begin(struct acs_sim_trace *t, const char *ph, const char *name,
                        int tid)
{
  fputs(t->nevents++ ? ",\n" : "\n", t->f);
  fprintf(t->f, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,\"name\":", ph, t->nproc, tid);
  json_str(t->f, name);
}

static void meta(struct acs_sim_trace *t, const char *what, int tid, const char *key,
                 const char *sval, int ival)
{
  event_begin(t, "M", what, tid);
  fprintf(t->f, ",\"args\":{\"%s\":", key);
  if (sval)
    json_str(t->f, sval);
  else
    fprintf(t->f, "%d", ival);
  fputs("}}", t->f);
}

/* ---- open and close ---- */

int acs_sim_trace_open(const char *path, struct acs_sim_trace **out, struct acs_diag *d)
{
  struct acs_sim_trace *t = calloc(1, sizeof(*t));
  size_t len = strlen(path);
  int fd;

  *out = NULL;
  if (!t || !(t->path = strdup(path)) || !(t->tmp = malloc(len + 8)))
    goto out_nomem;
  /* A temporary name in the same directory, so the final rename is atomic. */
  snprintf(t->tmp, len + 8, "%s.XXXXXX", path);
  if ((fd = mkstemp(t->tmp)) < 0) {
    acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot create the trace: %s", strerror(errno));
    free(t->path), free(t->tmp), free(t);
    return ACS_EIO;
  }
  /* mkstemp makes the file private; a trace is an ordinary output file. */
  {
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
  }
  if (!(t->f = fdopen(fd, "w"))) {
    close(fd);
    unlink(t->tmp);
    goto out_nomem;
  }
  fputs("{\"traceEvents\":[", t->f);
  *out = t;
  return ACS_OK;

out_nomem:
  if (t)
    free(t->path), free(t->tmp);
  free(t);
  return ACS_ENOMEM;
}

static void trace_free(struct acs_sim_trace *t)
{
  free(t->path);
  free(t->tmp);
  free(t);
}

void acs_sim_trace_abort(struct acs_sim_trace *t)
{
  if (!t)
    return;
  if (t->f)
    fclose(t->f);
  unlink(t->tmp);
  trace_free(t);
}

int acs_sim_trace_close(struct acs_sim_trace *t, struct acs_diag *d)
{
  int err = ACS_OK;

  fprintf(t->f, "\n],\n\"otherData\":{\"generator\":\"acsim %s\","
          "\"time_unit\":\"1 us in this trace is 1 platform cycle\"}}\n", PACKAGE_VERSION);
  if (ferror(t->f) | (fclose(t->f) != 0)) {
    err = acs_diag_set(d, ACS_EIO, t->path, 0, 0, "cannot write the trace: %s",
                       strerror(errno));
    unlink(t->tmp);
  } else if (rename(t->tmp, t->path) < 0) {
    err = acs_diag_set(d, ACS_EIO, t->path, 0, 0, "cannot rename the trace into place: %s",
                       strerror(errno));
    unlink(t->tmp);
  }
  t->f = NULL;
  trace_free(t);
  return err;
}

/* ---- one run ---- */

struct layout {
  int npe, ndma;
  int times;                 /* enum acs_sim_times */
  int32_t *wait_off, *wait;  /* wait barriers per op, CSR */
};

static int op_tid(const struct layout *l, const struct acs_sop *o)
{
  if (o->unit < 0)
    return 1 + l->npe + l->ndma;
  return o->kind == ACS_OP_DMA ? 1 + l->npe + o->unit : 1 + o->unit;
}

static int op_times(const struct layout *l, const struct acs_sop *o, double *t0, double *t1)
{
  if (l->times == ACS_SIM_TIMES_PLANNED) {
    *t0 = (double)o->start;
    *t1 = (double)o->end;
    return o->start >= 0 && o->end >= o->start;
  }
  *t0 = o->sim_start;
  *t1 = o->sim_end;
  return isfinite(*t0) && isfinite(*t1);
}

static void op_args(struct acs_sim_trace *t, const struct layout *l,
                    const struct acs_schedule *s, int32_t i)
{
  const struct acs_sop *o = &s->ops[i];
  FILE *f = t->f;

  fprintf(f, ",\"args\":{\"op\":%d,\"kind\":\"%s\",\"unit\":%d", (int)i,
          acs_op_kind_name(o->kind), (int)o->unit);
  if (o->kind == ACS_OP_DMA)
    fprintf(f, ",\"bytes\":%lld,\"src\":\"%s\",\"dst\":\"%s\"", (long long)o->bytes,
            acs_mem_name(o->src), acs_mem_name(o->dst));
  if (o->cmx_offset >= 0 && o->cmx_bytes >= 0)
    fprintf(f, ",\"cmx\":\"[%lld, %lld)\"", (long long)o->cmx_offset,
            (long long)(o->cmx_offset + o->cmx_bytes));
  if (o->update_barrier >= 0)
    fprintf(f, ",\"update_barrier\":%d", (int)o->update_barrier);
  if (l->wait_off[i + 1] > l->wait_off[i]) {
    fputs(",\"waits\":[", f);
    for (int32_t k = l->wait_off[i]; k < l->wait_off[i + 1]; k++)
      fprintf(f, "%s%d", k > l->wait_off[i] ? "," : "", (int)l->wait[k]);
    fputc(']', f);
  }
  fprintf(f, ",\"planned_start\":%lld,\"planned_end\":%lld", (long long)o->start,
          (long long)o->end);
  if (isfinite(o->sim_start) && isfinite(o->sim_end))
    fprintf(f, ",\"sim_start\":%.15g,\"sim_end\":%.15g", o->sim_start, o->sim_end);
  fputs("}}", f);
}

static void op_event(struct acs_sim_trace *t, const struct layout *l,
                     const struct acs_schedule *s, int32_t i)
{
  const struct acs_sop *o = &s->ops[i];
  double t0, t1;

  if (!op_times(l, o, &t0, &t1))
    return;
  event_begin(t, "X", o->name, op_tid(l, o));
  fprintf(t->f, ",\"cat\":\"%s\",\"ts\":%.15g,\"dur\":%.15g", acs_op_kind_name(o->kind),
          t0, t1 - t0);
  op_args(t, l, s, i);
}

struct step {
  double t;
  int delta;
};

static int cmp_step(const void *a, const void *b)
{
  const struct step *x = a, *y = b;

  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return x->delta - y->delta; /* ends before starts at one instant */
}

/* The number of DDR transfers in flight, one counter value per instant at
 * which it changes. O(V log V). */
static int ddr_counter(struct acs_sim_trace *t, const struct layout *l,
                       const struct acs_schedule *s)
{
  struct step *st = malloc(((size_t)s->nops * 2 + 1) * sizeof(*st));
  size_t n = 0;
  int cur = 0;

  if (!st)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < s->nops; i++) {
    const struct acs_sop *o = &s->ops[i];
    double t0, t1;
    if (o->kind != ACS_OP_DMA || o->unit < 0 || o->bytes <= 0 ||
        (o->src != ACS_MEM_DDR && o->dst != ACS_MEM_DDR) || !op_times(l, o, &t0, &t1))
      continue;
    st[n++] = (struct step){t0, 1};
    st[n++] = (struct step){t1, -1};
  }
  qsort(st, n, sizeof(*st), cmp_step);
  for (size_t k = 0; k < n; k++) {
    cur += st[k].delta;
    if (k + 1 < n && st[k + 1].t == st[k].t)
      continue;
    event_begin(t, "C", "ddr transfers in flight", 0);
    fprintf(t->f, ",\"ts\":%.15g,\"args\":{\"transfers\":%d}}", st[k].t, cur);
  }
  free(st);
  return ACS_OK;
}

static int build_waits(struct layout *l, const struct acs_schedule *s)
{
  int32_t *cur;

  l->wait_off = calloc((size_t)s->nops + 1, sizeof(*l->wait_off));
  l->wait = malloc(((size_t)s->nwaits + 1) * sizeof(*l->wait));
  cur = malloc(((size_t)s->nops + 1) * sizeof(*cur));
  if (!l->wait_off || !l->wait || !cur) {
    free(cur);
    return ACS_ENOMEM;
  }
  for (int32_t w = 0; w < s->nwaits; w++)
    if (s->waits[w].op >= 0 && s->waits[w].op < s->nops)
      l->wait_off[s->waits[w].op + 1]++;
  for (int32_t i = 0; i < s->nops; i++)
    l->wait_off[i + 1] += l->wait_off[i];
  memcpy(cur, l->wait_off, (size_t)s->nops * sizeof(*cur));
  for (int32_t w = 0; w < s->nwaits; w++)
    if (s->waits[w].op >= 0 && s->waits[w].op < s->nops)
      l->wait[cur[s->waits[w].op]++] = s->waits[w].barrier;
  free(cur);
  return ACS_OK;
}

static void threads(struct acs_sim_trace *t, const struct layout *l,
                    const struct acs_schedule *s)
{
  char name[32];
  int unitless = 0;

  for (int i = 0; i < l->npe + l->ndma; i++) {
    if (i < l->npe)
      snprintf(name, sizeof(name), "pe%d", i);
    else
      snprintf(name, sizeof(name), "dma%d", i - l->npe);
    meta(t, "thread_name", 1 + i, "name", name, 0);
    meta(t, "thread_sort_index", 1 + i, "sort_index", NULL, 1 + i);
  }
  for (int32_t i = 0; i < s->nops && !unitless; i++)
    unitless = s->ops[i].unit < 0;
  if (unitless) {
    meta(t, "thread_name", 1 + l->npe + l->ndma, "name", "no unit", 0);
    meta(t, "thread_sort_index", 1 + l->npe + l->ndma, "sort_index", NULL,
         1 + l->npe + l->ndma);
  }
}

int acs_sim_trace_add(struct acs_sim_trace *t, const char *process_name,
                      const struct acs_platform *p, const struct acs_schedule *s,
                      int times)
{
  struct layout l;
  int err;

  memset(&l, 0, sizeof(l));
  l.npe = (int)acs_platform_get(p, ACS_P_PE_COUNT);
  l.ndma = (int)acs_platform_get(p, ACS_P_DMA_CHANNELS);
  l.times = times;
  if ((err = build_waits(&l, s)) < 0)
    goto out_with_layout;
  t->nproc++;
  meta(t, "process_name", 0, "name", process_name, 0);
  meta(t, "process_sort_index", 0, "sort_index", NULL, t->nproc);
  threads(t, &l, s);
  for (int32_t i = 0; i < s->nops; i++)
    op_event(t, &l, s, i);
  err = ddr_counter(t, &l, s);
  if (err == ACS_OK && ferror(t->f))
    err = ACS_EIO;

out_with_layout:
  free(l.wait_off);
  free(l.wait);
  return err;
}
