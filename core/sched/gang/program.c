/*
 * program.c - the control program of a gang schedule (seed 004, sections
 * 3.1.7 and 5.1, Appendix B.3) and the family's result tables.
 *
 * The scalar processor runs, per gang in order: the kernel loads, the
 * preamble, the loop body L times, the postamble. Each section is a list of
 * instructions load, start_P/sync_P (a firing), start_T/sync_T (a
 * transfer), ordered by the time of their event in the schedule (eq. 3.7;
 * a sync sorts before a start at the same instant), every kernel loaded
 * before it starts (eq. 3.8). The loop body is listed once: its firing and
 * token indices are those of the first iteration and advance by the node's
 * loop repetition each iteration, so the program is compact (the thesis's
 * reason for pipelined schedules) however many lines the image has.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sched/gang/gsched.h"

static const char *const instr_names[] = { "load", "start_P", "sync_P", "start_T", "sync_T" };

const char *acs_gang_instr_name(int instr)
{
  return instr >= 0 && instr <= ACS_GANG_I_SYNC_T ? instr_names[instr] : "?";
}

enum { SEC_LOAD, SEC_PRE, SEC_LOOP, SEC_POST };
static const char *const sec_names[] = { "load", "preamble", "loop", "postamble" };

struct instr {
  int32_t gang;
  uint8_t sec, kind;
  int32_t node;          /* gang node (load: the processing node) */
  int64_t k;             /* firing or token index (loop: first iteration) */
  int64_t stride;        /* loop: index increment per iteration */
  int64_t time;          /* from the section's start (loop: the iteration's) */
};

struct prog {
  struct instr *v;
  size_t n, cap;
};

static int push(struct prog *p, struct instr in)
{
  int err = acs_grow((void **)&p->v, sizeof(*p->v), &p->cap, p->n + 1);
  if (err < 0)
    return err;
  p->v[p->n++] = in;
  return ACS_OK;
}

static int cmp_instr(const void *x, const void *y)
{
  const struct instr *a = x, *b = y;
  int sa = a->kind == ACS_GANG_I_SYNC_P || a->kind == ACS_GANG_I_SYNC_T;
  int sb = b->kind == ACS_GANG_I_SYNC_P || b->kind == ACS_GANG_I_SYNC_T;

  if (a->time != b->time)
    return a->time < b->time ? -1 : 1;
  if (sa != sb)
    return sa ? -1 : 1;   /* syncs first: they free what the starts need */
  if (a->node != b->node)
    return a->node < b->node ? -1 : 1;
  return (a->k > b->k) - (a->k < b->k);
}

/* The end of the ascending run of v starting at a (n: the end of v). */
static size_t run_end(const struct instr *v, size_t a, size_t n)
{
  size_t b = a + 1;

  while (b < n && cmp_instr(&v[b - 1], &v[b]) < 0)
    b++;
  return b;
}

/* Sorts v[0..n) by cmp_instr. A segment's instructions come node by node,
 * each node's nearly in order, so a natural merge sort (merging adjacent
 * ascending runs, about one per node) takes O(I log R) for R runs where a
 * general sort takes O(I log I). cmp_instr is a strict total order (no two
 * instructions compare equal), so the order is the one any sort gives. */
static int sort_instrs(struct instr *v, size_t n)
{
  struct instr *tmp, *src = v, *dst;

  if (n < 2 || run_end(v, 0, n) == n)
    return ACS_OK;
  if (!(tmp = malloc(n * sizeof(*tmp))))
    return ACS_ENOMEM;
  dst = tmp;
  for (size_t runs = 2; runs > 1;) {
    struct instr *x;
    runs = 0;
    for (size_t a = 0; a < n; runs++) {
      size_t b = run_end(src, a, n), e = b < n ? run_end(src, b, n) : n, i = a, j = b, k = a;
      while (i < b && j < e)
        dst[k++] = cmp_instr(&src[i], &src[j]) < 0 ? src[i++] : src[j++];
      while (i < b)
        dst[k++] = src[i++];
      while (j < e)
        dst[k++] = src[j++];
      a = e;
    }
    x = src;
    src = dst;
    dst = x;
  }
  if (src != v)
    memcpy(v, src, n * sizeof(*v));
  free(tmp);
  return ACS_OK;
}

/* The instructions of one finished segment run, sorted. */
static int segment_instrs(const struct acs_gang_ctx *c, const struct acs_gang *gg,
                          const struct acs_gang_run *run, int32_t gang, int sec, struct prog *p)
{
  size_t first = p->n;
  int err;

  for (int32_t v = 0; v < gg->nnodes; v++) {
    const struct acs_gang_node *n = &gg->nodes[v];
    int proc = n->kind == ACS_GANG_N_PROC;
    for (int64_t k = run->from[v]; k < run->to[v]; k++) {
      int64_t t = run->t_start[run->off[v] + k - run->from[v]];
      int64_t stride = sec == SEC_LOOP ? n->qL : 0;
      struct instr s = {gang,
                        (uint8_t)sec,
                        (uint8_t)(proc ? ACS_GANG_I_START_P : ACS_GANG_I_START_T),
                        v,
                        k,
                        stride,
                        t};
      struct instr e = s;
      e.kind = (uint8_t)(proc ? ACS_GANG_I_SYNC_P : ACS_GANG_I_SYNC_T);
      e.time = t + acs_gang_node_dur(c, n, k);
      if ((err = push(p, s)) < 0 || (err = push(p, e)) < 0)
        return err;
    }
  }
  return sort_instrs(p->v + first, p->n - first);
}

static int gang_program(const struct acs_gang_ctx *c, const struct acs_gang *gg, int32_t gang,
                        struct prog *p)
{
  struct acs_gang_run run;
  int64_t t = 0;
  int err;

  for (int32_t v = 0; v < gg->nnodes; v++)
    if (gg->nodes[v].kind == ACS_GANG_N_PROC) {
      struct instr in = { gang, SEC_LOAD, ACS_GANG_I_LOAD, v, 0, 0, t };
      if ((err = push(p, in)) < 0)
        return err;
      t += acs_platform_ddr_cycles(c->xp.p, c->g->actors[gg->nodes[v].actor].kernel_bytes);
    }
  if ((err = acs_gang_run_init(&run, c, gg)) < 0)
    return err;
  acs_gang_set_pre(gg, gg->r, &run);
  if ((err = acs_gang_run_segment(&run, 1)) < 0 ||
      (err = segment_instrs(c, gg, &run, gang, SEC_PRE, p)) < 0)
    goto out_with_run;
  if (gg->L > 0) {
    acs_gang_set_body(gg, gg->r, &run);
    if ((err = acs_gang_run_segment(&run, 1)) < 0 ||
        (err = segment_instrs(c, gg, &run, gang, SEC_LOOP, p)) < 0)
      goto out_with_run;
  }
  acs_gang_set_post(gg, gg->r, gg->L, &run);
  if ((err = acs_gang_run_segment(&run, 1)) < 0)
    goto out_with_run;
  err = segment_instrs(c, gg, &run, gang, SEC_POST, p);
out_with_run:
  acs_gang_run_free(&run);
  return err;
}

static int build_program(const struct acs_gang_ctx *c, const struct acs_gang_part *pt,
                         struct prog *p)
{
  int err;

  memset(p, 0, sizeof(*p));
  for (int32_t i = 0; i < pt->ngangs; i++)
    if ((err = gang_program(c, &pt->gangs[i], i, p)) < 0) {
      free(p->v);
      return err;
    }
  return ACS_OK;
}

/* "a", "ch:pe0>pe1", "ch:ddr>pe2", "ch:pe1>ddr" */
static void operand(const struct acs_gang_ctx *c, const struct acs_gang_node *n, char *buf,
                    size_t size)
{
  if (n->kind == ACS_GANG_N_PROC)
    snprintf(buf, size, "%s", c->g->actors[n->actor].name);
  else if (n->kind == ACS_GANG_N_XLOCAL)
    snprintf(buf, size, "%s:pe%d>pe%d", c->g->channels[n->chan].name, (int)n->pe_from,
             (int)n->pe_to);
  else if (n->kind == ACS_GANG_N_XIN)
    snprintf(buf, size, "%s:ddr>pe%d", c->g->channels[n->chan].name, (int)n->pe_to);
  else
    snprintf(buf, size, "%s:pe%d>ddr", c->g->channels[n->chan].name, (int)n->pe_from);
}

static void unit_name(const struct acs_gang_node *n, int load, char *buf, size_t size)
{
  if (n->kind == ACS_GANG_N_PROC && !load)
    snprintf(buf, size, "pe%d", (int)n->hw);
  else
    snprintf(buf, size, "dma%d", load ? 0 : (int)n->hw);
}

/* ---- result tables ---- */

static const struct acs_rtab_col gangs_cols[] = {
  { "gang", ACS_RTAB_I64, "" }, { "actors", ACS_RTAB_STR, "" },
  { "loop_iterations", ACS_RTAB_I64, "" }, { "period", ACS_RTAB_I64, "cycles" },
  { "period_bound", ACS_RTAB_I64, "cycles" }, { "period_gap_pct", ACS_RTAB_F64, "%" },
  { "loads", ACS_RTAB_I64, "cycles" }, { "preamble", ACS_RTAB_I64, "cycles" },
  { "postamble", ACS_RTAB_I64, "cycles" }, { "cycles", ACS_RTAB_I64, "cycles" },
  { "cost_bound", ACS_RTAB_I64, "cycles" }, { "retiming_iters", ACS_RTAB_I64, "" },
  { "buffer_iters", ACS_RTAB_I64, "" }, { "schedule", ACS_RTAB_STR, "" },
};
static const struct acs_rtab_col partition_cols[] = {
  { "actor", ACS_RTAB_STR, "" }, { "gang", ACS_RTAB_I64, "" }, { "pe", ACS_RTAB_I64, "" },
  { "kernel_bytes", ACS_RTAB_I64, "bytes" }, { "firings", ACS_RTAB_I64, "" },
};
static const struct acs_rtab_col program_cols[] = {
  { "gang", ACS_RTAB_I64, "" }, { "section", ACS_RTAB_STR, "" },
  { "unit", ACS_RTAB_STR, "" }, { "instruction", ACS_RTAB_STR, "" },
  { "operand", ACS_RTAB_STR, "" }, { "k", ACS_RTAB_I64, "" },
  { "stride", ACS_RTAB_I64, "" }, { "time", ACS_RTAB_I64, "cycles" },
};

#define NCOLS(a) ((int32_t)(sizeof(a) / sizeof((a)[0])))

int acs_gang_rtab_add(struct acs_schedule *s, int which, struct acs_rtab **t)
{
  int err;

  switch (which) {
  case ACS_GANG_RTAB_GANGS:
    if ((err = acs_schedule_add_rtab(s, "gangs", gangs_cols, NCOLS(gangs_cols), t)) < 0)
      return err;
    (*t)->show = 1;
    return ACS_OK;
  case ACS_GANG_RTAB_PARTITION:
    return acs_schedule_add_rtab(s, "partition", partition_cols, NCOLS(partition_cols), t);
  default:
    return acs_schedule_add_rtab(s, "program", program_cols, NCOLS(program_cols), t);
  }
}

static int gangs_table(const struct acs_gang_ctx *c, const struct acs_gang_part *pt,
                       struct acs_schedule *s)
{
  struct acs_rtab *t;
  int err;

  if ((err = acs_gang_rtab_add(s, ACS_GANG_RTAB_GANGS, &t)) < 0)
    return err;
  for (int32_t i = 0; i < pt->ngangs; i++) {
    const struct acs_gang *gg = &pt->gangs[i];
    char names[1024];
    size_t used = 0;
    int64_t row = acs_rtab_add_row(t);
    if (row < 0)
      return (int)row;
    names[0] = '\0';
    for (int32_t k = 0; k < gg->nact && used < sizeof(names) - 1; k++) {
      int w = snprintf(names + used, sizeof(names) - used, "%s%s@pe%d", k ? "," : "",
                       c->g->actors[gg->act[k]].name, (int)gg->pe[k]);
      if (w < 0)
        break;
      used += (size_t)w;
    }
    acs_rtab_set_i64(t, row, 0, i);
    acs_rtab_set_str(t, row, 1, names);
    acs_rtab_set_i64(t, row, 2, gg->L);
    acs_rtab_set_i64(t, row, 3, gg->P);
    acs_rtab_set_i64(t, row, 4, gg->Pstar);
    acs_rtab_set_f64(t, row, 5, gg->L > 0 && gg->Pstar > 0 ? 100.0 * (double)(gg->P - gg->Pstar) / (double)gg->Pstar
                                                           : 0.0 / 0.0);
    acs_rtab_set_i64(t, row, 6, gg->t_load);
    acs_rtab_set_i64(t, row, 7, gg->t_pre);
    acs_rtab_set_i64(t, row, 8, gg->t_post);
    acs_rtab_set_i64(t, row, 9, gg->total);
    acs_rtab_set_i64(t, row, 10, gg->bound);
    acs_rtab_set_i64(t, row, 11, gg->iters_r);
    acs_rtab_set_i64(t, row, 12, gg->iters_b);
    acs_rtab_set_str(t, row, 13, acs_gang_mode_name(gg->mode));
  }
  acs_rtab_attr_i64(t, "gangs", pt->ngangs);
  acs_rtab_attr_i64(t, "makespan", pt->makespan);
  return ACS_OK;
}

/* The operand and unit of every node of one gang, formatted once and
 * owned by the table, so that each of its rows shares them: a program
 * lists each node's firings (every one for a gang listed whole), all with
 * the same names. */
struct names {
  int32_t gang;          /* whose names these are (-1: none yet) */
  const char **op, **unit;
};

static int names_of(const struct acs_gang_ctx *c, const struct acs_gang *gg, int32_t gang,
                    struct acs_rtab *t, struct names *nm)
{
  char op[512], unit[32];

  if (nm->gang == gang)
    return ACS_OK;
  free(nm->op);
  free(nm->unit);
  nm->gang = -1;
  nm->op = malloc(((size_t)gg->nnodes + 1) * sizeof(*nm->op));
  nm->unit = malloc(((size_t)gg->nnodes + 1) * sizeof(*nm->unit));
  if (!nm->op || !nm->unit)
    return ACS_ENOMEM;
  for (int32_t v = 0; v < gg->nnodes; v++) {
    operand(c, &gg->nodes[v], op, sizeof(op));
    unit_name(&gg->nodes[v], 0, unit, sizeof(unit));
    if (!(nm->op[v] = acs_rtab_own_str(t, op)) || !(nm->unit[v] = acs_rtab_own_str(t, unit)))
      return ACS_ENOMEM;
  }
  nm->gang = gang;
  return ACS_OK;
}

/* The section and instruction names, owned by the table once. */
struct words {
  const char *sec[4], *instr[ACS_GANG_I_SYNC_T + 1], *load_unit;
};

static int words_of(struct acs_rtab *t, struct words *w)
{
  char unit[32];
  struct acs_gang_node any;

  memset(&any, 0, sizeof(any));
  unit_name(&any, 1, unit, sizeof(unit));   /* loads: always DMA channel 0 */
  if (!(w->load_unit = acs_rtab_own_str(t, unit)))
    return ACS_ENOMEM;
  for (int i = 0; i < 4; i++)
    if (!(w->sec[i] = acs_rtab_own_str(t, sec_names[i])))
      return ACS_ENOMEM;
  for (int i = 0; i <= ACS_GANG_I_SYNC_T; i++)
    if (!(w->instr[i] = acs_rtab_own_str(t, acs_gang_instr_name(i))))
      return ACS_ENOMEM;
  return ACS_OK;
}

/* One row per instruction. O(I + nodes). */
static int program_table(const struct acs_gang_ctx *c, const struct acs_gang_part *pt,
                         const struct prog *p, struct acs_schedule *s)
{
  struct names nm = { -1, NULL, NULL };
  struct words w;
  struct acs_rtab *t;
  int err;

  if ((err = acs_gang_rtab_add(s, ACS_GANG_RTAB_PROGRAM, &t)) < 0 || (err = words_of(t, &w)) < 0)
    return err;
  for (size_t i = 0; i < p->n; i++) {
    const struct instr *in = &p->v[i];
    int64_t row = acs_rtab_add_row(t);
    if (row < 0) {
      err = (int)row;
      break;
    }
    if ((err = names_of(c, &pt->gangs[in->gang], in->gang, t, &nm)) < 0)
      break;
    acs_rtab_set_i64(t, row, 0, in->gang);
    acs_rtab_set_str_owned(t, row, 1, w.sec[in->sec]);
    acs_rtab_set_str_owned(t, row, 2,
                           in->kind == ACS_GANG_I_LOAD ? w.load_unit : nm.unit[in->node]);
    acs_rtab_set_str_owned(t, row, 3, w.instr[in->kind]);
    acs_rtab_set_str_owned(t, row, 4, nm.op[in->node]);
    acs_rtab_set_i64(t, row, 5, in->k);
    acs_rtab_set_i64(t, row, 6, in->stride);
    acs_rtab_set_i64(t, row, 7, in->time);
  }
  free(nm.op);
  free(nm.unit);
  if (err < 0)
    return err;
  acs_rtab_attr_i64(t, "instructions", (int64_t)p->n);
  return ACS_OK;
}

static int partition_table(const struct acs_gang_ctx *c, const struct acs_gang_part *pt,
                           struct acs_schedule *s)
{
  struct acs_rtab *t;
  int err;

  if ((err = acs_gang_rtab_add(s, ACS_GANG_RTAB_PARTITION, &t)) < 0)
    return err;
  for (int32_t i = 0; i < pt->ngangs; i++)
    for (int32_t k = 0; k < pt->gangs[i].nact; k++) {
      int32_t a = pt->gangs[i].act[k];
      int64_t row = acs_rtab_add_row(t);
      if (row < 0)
        return (int)row;
      acs_rtab_set_str(t, row, 0, c->g->actors[a].name);
      acs_rtab_set_i64(t, row, 1, i);
      acs_rtab_set_i64(t, row, 2, pt->gangs[i].pe[k]);
      acs_rtab_set_i64(t, row, 3, c->g->actors[a].kernel_bytes);
      acs_rtab_set_i64(t, row, 4, c->g->actors[a].total);
    }
  return ACS_OK;
}

int acs_gang_part_tables(const struct acs_gang_ctx *c, const struct acs_gang_part *pt,
                         struct acs_schedule *s)
{
  struct prog p;
  int err;

  if (pt->dyn)
    return acs_gang_dyn_tables(c, pt->dyn, s);
  if ((err = build_program(c, pt, &p)) < 0)
    return err;
  if ((err = gangs_table(c, pt, s)) == ACS_OK && (err = partition_table(c, pt, s)) == ACS_OK)
    err = program_table(c, pt, &p, s);
  free(p.v);
  return err;
}

/* ---- the text file ---- */

static int write_text(FILE *f, const struct acs_gang_ctx *c, const struct acs_gang_part *pt,
                      const struct prog *p)
{
  int32_t gang = -1, sec = -1;

  fprintf(f, "# acsim control program (seed 004): graph %s, %d gangs, makespan %lld cycles\n",
          c->g->name, (int)pt->ngangs, (long long)pt->makespan);
  fprintf(f, "# one instruction per line: INSTRUCTION UNIT OPERAND[INDEX] @TIME; in a loop\n"
             "# body INDEX is k+i*stride for iteration i and TIME counts from the iteration's "
             "start\n");
  for (size_t i = 0; i < p->n; i++) {
    const struct instr *in = &p->v[i];
    const struct acs_gang *gg = &pt->gangs[in->gang];
    const struct acs_gang_node *n = &gg->nodes[in->node];
    char op[512], unit[32];
    if (in->gang != gang) {
      if (sec == SEC_LOOP)
        fprintf(f, "ENDLOOP\n");
      gang = in->gang;
      sec = -1;
      fprintf(f, "\nGANG %d  loop %lld x period %lld (eq. 5.1 bound %lld)  %lld cycles\n",
              (int)gang, (long long)gg->L, (long long)gg->P, (long long)gg->Pstar,
              (long long)gg->total);
    }
    if (in->sec != sec) {
      if (sec == SEC_LOOP)
        fprintf(f, "ENDLOOP\n");
      sec = in->sec;
      fprintf(f, "#%s\n", sec_names[sec]);
      if (sec == SEC_LOOP)
        fprintf(f, "LOOP i 0 -> %lld\n", (long long)gg->L);
    }
    operand(c, n, op, sizeof(op));
    unit_name(n, in->kind == ACS_GANG_I_LOAD, unit, sizeof(unit));
    if (in->kind == ACS_GANG_I_LOAD)
      fprintf(f, "  LOAD      %-6s %s @%lld\n", unit, op, (long long)in->time);
    else if (in->sec == SEC_LOOP)
      fprintf(f, "  %-9s %-6s %s[%lld+i*%lld] @%lld\n", acs_gang_instr_name(in->kind), unit, op,
              (long long)in->k, (long long)in->stride, (long long)in->time);
    else
      fprintf(f, "  %-9s %-6s %s[%lld] @%lld\n", acs_gang_instr_name(in->kind), unit, op,
              (long long)in->k, (long long)in->time);
  }
  if (sec == SEC_LOOP)
    fprintf(f, "ENDLOOP\n");
  return ferror(f) ? ACS_EIO : ACS_OK;
}

/* Written to PATH.tmp and renamed, so a failure never leaves half a file. */
int acs_gang_program_write(const struct acs_gang_ctx *c, const struct acs_gang_part *pt,
                           const char *path, struct acs_diag *d)
{
  char tmp[ACS_OPT_STR_MAX + 8];
  struct prog p;
  FILE *f;
  int err;

  memset(&p, 0, sizeof(p));
  if (!pt->dyn && (err = build_program(c, pt, &p)) < 0)
    return err;
  snprintf(tmp, sizeof(tmp), "%s.tmp", path);
  if (!(f = fopen(tmp, "w"))) {
    free(p.v);
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot write the control program: %s",
                        strerror(errno));
  }
  err = pt->dyn ? acs_gang_dyn_program_text(f, c, pt->dyn) : write_text(f, c, pt, &p);
  if (fclose(f) != 0 && err == ACS_OK)
    err = ACS_EIO;
  free(p.v);
  if (err == ACS_OK && rename(tmp, path) != 0)
    err = ACS_EIO;
  if (err < 0) {
    unlink(tmp);
    return acs_diag_set(d, err, path, 0, 0, "cannot write the control program: %s",
                        strerror(errno));
  }
  return ACS_OK;
}

/*
 * The control program against the plan: the instructions of each section
 * in non-decreasing event time (eq. 3.7), start before sync for each
 * activity, loads first (eq. 3.8), and, expanded (loop bodies repeated with
 * their strides and the period), exactly the plan's firings and transfers
 * at the plan's times. O(I + A log A).
 */
static const struct acs_gang_plan *sort_plan;

static int cmp_act_time(const void *x, const void *y)
{
  const struct acs_gang_act *a = &sort_plan->acts[*(const int32_t *)x];
  const struct acs_gang_act *b = &sort_plan->acts[*(const int32_t *)y];

  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return (a->k > b->k) - (a->k < b->k);
}

/* Whether the plan has an activity of node n with index k starting at t. */
static int plan_has(const struct acs_gang_plan *pl, const int32_t *idx, int32_t nidx,
                    const struct acs_gang_node *n, int64_t k, int64_t t)
{
  int32_t lo = 0, hi = nidx;

  while (lo < hi) {
    int32_t mid = (lo + hi) / 2;
    const struct acs_gang_act *a = &pl->acts[idx[mid]];
    if (a->start < t || (a->start == t && a->k < k))
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < nidx; lo++) {
    const struct acs_gang_act *x = &pl->acts[idx[lo]];
    if (x->start != t || x->k != k)
      return 0;
    if (n->kind == ACS_GANG_N_PROC ? x->kind == ACS_GANG_FIRE && x->actor == n->actor
                                   : x->kind == ACS_GANG_XFER && x->chan == n->chan &&
                                         x->pe == n->pe_to && x->pe_from == n->pe_from)
      return 1;
  }
  return 0;
}

int acs_gang_program_verify(const struct acs_gang_ctx *c, const struct acs_gang_part *pt,
                            const struct acs_gang_plan *pl, struct acs_diag *d)
{
  struct prog p;
  int64_t base = 0, nexp = 0, nplan = 0;
  int32_t *idx, nidx = 0;
  int err = ACS_OK;

  if (pt->dyn)
    return acs_gang_dyn_program_verify(c, pt->dyn, pl, d);
  if ((err = build_program(c, pt, &p)) < 0)
    return err;
  if (!(idx = malloc(((size_t)pl->nacts + 1) * sizeof(*idx)))) {
    free(p.v);
    return ACS_ENOMEM;
  }
  for (int32_t i = 0; i < pl->nacts; i++)
    if (pl->acts[i].kind != ACS_GANG_LOAD)
      idx[nidx++] = i;
  nplan = nidx;
  sort_plan = pl;
  qsort(idx, (size_t)nidx, sizeof(*idx), cmp_act_time);
  for (size_t i = 0; i < p.n && err == ACS_OK; i++) {
    const struct instr *in = &p.v[i];
    if (i > 0 && p.v[i - 1].gang == in->gang && p.v[i - 1].sec == in->sec &&
        p.v[i - 1].time > in->time)
      err = acs_diag_set(d, ACS_EVERIFY, NULL, 0, 0,
                         "control program: instruction %zu of gang %d (%s) at %lld follows one at "
                         "%lld", i, (int)in->gang, sec_names[in->sec], (long long)in->time,
                         (long long)p.v[i - 1].time);
    if (i > 0 && p.v[i - 1].gang == in->gang && p.v[i - 1].sec > in->sec)
      err = acs_diag_set(d, ACS_EVERIFY, NULL, 0, 0, "control program: sections out of order");
  }
  /* Expand and match against the plan (starts only; syncs are start + duration). */
  for (int32_t gi = 0; gi < pt->ngangs && err == ACS_OK; gi++) {
    const struct acs_gang *gg = &pt->gangs[gi];
    int64_t t_pre = base + gg->t_load, t_loop = t_pre + gg->t_pre, t_post = t_loop + gg->L * gg->P;
    for (size_t i = 0; i < p.n && err == ACS_OK; i++) {
      const struct instr *in = &p.v[i];
      int64_t reps = in->sec == SEC_LOOP ? gg->L : 1;
      if (in->gang != gi || (in->kind != ACS_GANG_I_START_P && in->kind != ACS_GANG_I_START_T))
        continue;
      for (int64_t r = 0; r < reps && err == ACS_OK; r++) {
        const struct acs_gang_node *n = &gg->nodes[in->node];
        int64_t t = in->time + (in->sec == SEC_PRE ? t_pre : in->sec == SEC_POST ? t_post
                                                                                 : t_loop + r * gg->P);
        int64_t k = in->k + r * in->stride;
        nexp++;
        if (!plan_has(pl, idx, nidx, n, k, t))
          err = acs_diag_set(d, ACS_EVERIFY, NULL, 0, 0,
                             "control program: %s of index %lld in gang %d at %lld matches no "
                             "activity of the schedule",
                             acs_gang_instr_name(in->kind), (long long)k, (int)gi, (long long)t);
      }
    }
    base += gg->total;
  }
  if (err == ACS_OK && nexp != nplan)
    err = acs_diag_set(d, ACS_EVERIFY, NULL, 0, 0,
                       "control program: it starts %lld activities, the schedule has %lld",
                       (long long)nexp, (long long)nplan);
  free(p.v);
  free(idx);
  return err;
}
