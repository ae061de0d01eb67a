/*
 * html_answers.c - the report's answers to the sizing questions (study_int.h,
 * answers.c): the Answers section at the top of the page, one row per
 * workload, and each workload's sizing tables with every slice.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/plots_int.h"

/* Labels of one answer group shown before "and N more". */
#define GROUP_LABELS 4

void acs__fmt_cycles(double v, char *buf, size_t size)
{
  struct acs__scale sc = acs__scale_cycles(v);

  if (isnan(v))
    snprintf(buf, size, "-");
  else
    snprintf(buf, size, "%.4g %s", v / sc.div, sc.unit);
}

void acs__html_sched(FILE *f, const char *label)
{
  fprintf(f, "<span class=\"sw\" style=\"background:%s\"></span><code>",
          acs__sched_colour(label));
  acs__html_put(f, label);
  fprintf(f, "</code>");
}

/* "+1.6%": how far above ref a makespan is. */
static double above(double mk, double ref)
{
  return 100.0 * (mk / ref - 1.0);
}

/* ---- grouping the slices of an answer by their answer ---- */

/* The value a slice answers with, as a key: the answering point's value,
 * -1 for "none within 5%", -2 for "no reference run" and -3 for "nothing
 * but the reference was swept". */
static double slice_key(const struct acs__slice *sl)
{
  return sl->answer ? sl->answer->v : !sl->ref ? -2 : sl->npt > 1 ? -1 : -3;
}

static void key_html(FILE *f, const struct acs__answer *a, double key)
{
  char v[64];

  if (key == -3) {
    fprintf(f, "<span class=\"muted\">no barrier count swept but no limit</span>");
  } else if (key == -2) {
    fprintf(f, "<span class=\"muted\">no run without a barrier limit</span>");
  } else if (key == -1) {
    fprintf(f, "<b>none</b> of those swept");
  } else if (a->q == ACS__Q_BARRIERS) {
    fprintf(f, "<b>%g</b>", key);
  } else {
    acs__param_label(a->param, key, v, sizeof(v));
    fprintf(f, "<b>");
    acs__html_put(f, v);
    fprintf(f, "</b>");
  }
}

/* The Answers row answers for one platform: the value of each parameter
 * other than the two of a question is its loosest in the study (no barrier
 * limit when swept, else the largest value: the most CMX, PEs, bandwidth),
 * so a row is a line or two; the sizing tables give every configuration. */
static void reference_values(const struct acs__study *s, double *ref)
{
  int zero[ACS__NPARAM] = {0};

  for (int k = 0; k < ACS__NPARAM; k++)
    ref[k] = -INFINITY;
  for (size_t i = 0; i < s->nruns; i++)
    for (int k = 0; k < ACS_PARAM_COUNT + (int)s->nuclass; k++) {
      double v = acs__param(s, &s->runs[i], k);
      ref[k] = fmax(ref[k], v);
      zero[k] |= v == 0;
    }
  if (zero[ACS_P_BARRIERS])
    ref[ACS_P_BARRIERS] = 0;
  if (zero[ACS_P_BARRIER_SLOTS])
    ref[ACS_P_BARRIER_SLOTS] = 0;
}

/* The parameter a question's row lists its answer per. */
static int listed_dim(int q)
{
  return q == ACS__Q_CMX ? ACS_P_BARRIERS : ACS_P_CMX_KIB;
}

static int at_reference(const struct acs__study *s, const struct acs__answer *a,
                        const struct acs__slice *sl, const double *ref)
{
  for (int k = 0; k < ACS_PARAM_COUNT + (int)s->nuclass; k++)
    if (k != a->param && k != listed_dim(a->q) && s->varies[k] &&
        acs__param(s, sl->key, k) != ref[k])
      return 0;
  return 1;
}

/* The values of the listed parameter that share an answer (consecutive in
 * the study's order): their count, the first two and the last. */
struct span {
  size_t n;
  double first, second, last;
};

static void span_add(struct span *sp, double v)
{
  if (sp->n == 0)
    sp->first = v;
  else if (sp->n == 1)
    sp->second = v;
  sp->last = v;
  sp->n++;
}

/* "no limit and 8-32 barriers", "128 KiB-1 MiB". */
static void dim_label(FILE *f, int dim, const struct span *sp)
{
  double from = sp->first;
  size_t n = sp->n;
  char a[64], b[64];

  if (dim == ACS_P_BARRIERS && sp->first == 0) {
    fprintf(f, "no limit%s", n > 1 ? " and " : "");
    from = sp->second;
    n--;
  }
  if (n == 0)
    return;
  acs__param_label(dim, from, a, sizeof(a));
  acs__param_label(dim, sp->last, b, sizeof(b));
  if (n == 1)
    fprintf(f, "%s", a);
  else
    fprintf(f, "%s%s%s", a, n == 2 ? ", " : "&ndash;", b);
  if (dim == ACS_P_BARRIERS)
    fprintf(f, " barrier%s", n == 1 && from == 1 ? "" : "s");
}

/* One line per run of consecutive values of the listed parameter with the
 * same answer, at the reference values of the others: "1 MiB at 8-32
 * barriers". */
static void compact(FILE *f, const struct acs__study *s, const struct acs__answer *a,
                    const double *ref)
{
  int dim = listed_dim(a->q), lines = 0;
  struct span sp = {0, 0, 0, 0};
  double key = 0;

  for (size_t i = 0; i <= a->nslice; i++) {
    const struct acs__slice *sl = i < a->nslice ? &a->slice[i] : NULL;
    if (sl && !at_reference(s, a, sl, ref))
      continue;
    if (sp.n > 0 && (!sl || slice_key(sl) != key)) {
      fprintf(f, "%s", lines++ ? "<br>" : "");
      key_html(f, a, key);
      fprintf(f, " <span class=\"small\">at ");
      dim_label(f, dim, &sp);
      fprintf(f, "</span>");
      sp.n = 0;
    }
    if (!sl)
      break;
    key = slice_key(sl);
    span_add(&sp, acs__param(s, sl->key, dim));
  }
  if (!lines)
    fprintf(f, "<span class=\"muted\">no run that counts on the reference platform</span>");
}

/* A single slice's answer, with the run behind it. */
static void single(FILE *f, const struct acs__study *s, const struct acs__answer *a)
{
  const struct acs__slice *sl = &a->slice[0];
  char v[64], mk[64];

  key_html(f, a, slice_key(sl));
  if (!sl->answer)
    return;
  fprintf(f, "<br><span class=\"small\">");
  acs__html_put(f, s->sched[sl->answer->best->sched]);
  fprintf(f, ", %+.1f%% over ", above(sl->answer->best->mk, sl->ref->best->mk));
  if (a->q == ACS__Q_BARRIERS) {
    fprintf(f, "no barrier limit");
  } else {
    acs__param_label(a->param, sl->ref->v, v, sizeof(v));
    acs__fmt_cycles(sl->ref->best->mk, mk, sizeof(mk));
    fprintf(f, "the best (%s at ", mk);
    acs__html_put(f, v);
    fprintf(f, ")");
  }
  fprintf(f, "</span>");
}

/* ---- the PE question: speedups from one PE count to the next ---- */

/* The slice with the loosest other constraints: no barrier limit, then the
 * largest CMX; the one the Answers row quotes. */
static const struct acs__slice *loosest(const struct acs__study *s, const struct acs__answer *a)
{
  const struct acs__slice *best = NULL;

  for (size_t i = 0; i < a->nslice; i++) {
    const struct acs__slice *sl = &a->slice[i];
    double b = acs__param(s, sl->key, ACS_P_BARRIERS), c = acs__param(s, sl->key, ACS_P_CMX_KIB);
    if (!best) {
      best = sl;
      continue;
    }
    double bb = acs__param(s, best->key, ACS_P_BARRIERS);
    double bc = acs__param(s, best->key, ACS_P_CMX_KIB);
    if ((b == 0) != (bb == 0) ? b == 0 : c > bc)
      best = sl;
  }
  return best;
}

/* The best at PE count v in slice sl, or NULL. */
static const struct acs__point *at_pes(const struct acs__slice *sl, double v)
{
  for (size_t i = 0; i < sl->npt; i++)
    if (sl->pt[i].v == v)
      return &sl->pt[i];
  return NULL;
}

static void pe_cell(FILE *f, const struct acs__study *s, const struct acs__answer *a)
{
  const struct acs__slice *ref = loosest(s, a);
  char label[ACS__LABEL];

  for (size_t i = 0; ref && i + 1 < ref->npt; i++) {
    double lo = INFINITY, hi = 0, sp = ref->pt[i].best->mk / ref->pt[i + 1].best->mk;
    size_t n = 0;
    for (size_t k = 0; k < a->nslice; k++) {
      const struct acs__point *x = at_pes(&a->slice[k], ref->pt[i].v);
      const struct acs__point *y = at_pes(&a->slice[k], ref->pt[i + 1].v);
      if (!x || !y)
        continue;
      lo = fmin(lo, x->best->mk / y->best->mk);
      hi = fmax(hi, x->best->mk / y->best->mk);
      n++;
    }
    fprintf(f, "%s%g &rarr; %g PEs: speedup <b>&times;%.2f</b>", i ? "<br>" : "", ref->pt[i].v,
            ref->pt[i + 1].v, sp);
    if (n > 1)
      fprintf(f, " <span class=\"small\">(&times;%.2f&ndash;%.2f over %zu configurations)</span>",
              lo, hi, n);
  }
  acs__slice_label(s, a, ref, label, sizeof(label));
  if (ref && ref->npt > 1 && label[0]) {
    fprintf(f, "<br><span class=\"small\">at ");
    acs__html_put(f, label);
    fprintf(f, "</span>");
  } else if (!ref || ref->npt < 2) {
    fprintf(f, "<span class=\"muted\">one PE count has runs</span>");
  }
}

/* ---- the Answers section ---- */

static const struct acs__srun *best_of(const struct acs__study *s, int wl, int eligible)
{
  const struct acs__srun *b = NULL;

  for (size_t i = 0; i < s->nruns; i++)
    if (s->runs[i].wl == wl && s->runs[i].ok && s->runs[i].eligible == eligible &&
        acs__better(&s->runs[i], b))
      b = &s->runs[i];
  return b;
}

static void best_cell(FILE *f, const struct acs__study *s, int wl)
{
  const struct acs__srun *b = best_of(s, wl, 1), *t = best_of(s, wl, 0);
  char mk[64], at[ACS__LABEL];

  if (!b) {
    fprintf(f, "<td class=\"muted\">no feasible run</td>");
    return;
  }
  acs__fmt_cycles(b->mk, mk, sizeof(mk));
  fprintf(f, "<td><b>%s</b><br><span class=\"small\">", mk);
  acs__html_sched(f, s->sched[b->sched]);
  /* The parameters that vary say which platform: shorter than its name. */
  acs__config_label(s, b, -1, at, sizeof(at));
  fprintf(f, " at ");
  acs__html_put(f, at[0] ? at : b->p->name);
  if (t && t->mk < b->mk) {
    acs__fmt_cycles(t->mk, mk, sizeof(mk));
    fprintf(f, "<br>optimistic bound %s (", mk);
    acs__html_put(f, s->sched[t->sched]);
    fprintf(f, ", transient)");
  }
  fprintf(f, "</span></td>");
}

static void netbound_cell(FILE *f, const struct acs__study *s, int wl)
{
  const struct acs__srun *b = best_of(s, wl, 1);
  char nb[64];

  if (!b || isnan(b->netbound)) {
    fprintf(f, "<td class=\"muted\">-</td>");
    return;
  }
  acs__fmt_cycles(b->netbound, nb, sizeof(nb));
  fprintf(f, "<td class=\"n\"><b>%+.1f%%</b><br><span class=\"small\">bound %s</span></td>",
          above(b->mk, b->netbound), nb);
}

static void answer_cell(FILE *f, const struct acs__study *s, const struct acs__answer *a,
                        const double *ref)
{
  fprintf(f, "<td>");
  if (a->why == ACS__WHY_NORUN)
    fprintf(f, "<span class=\"muted\">no feasible run</span>");
  else if (a->why == ACS__WHY_NOREF)
    fprintf(f, "<span class=\"muted\">no run without a barrier limit to compare with</span>");
  else if (a->q == ACS__Q_PES)
    pe_cell(f, s, a);
  else if (a->nslice == 1)
    single(f, s, a);
  else
    compact(f, s, a, ref);
  fprintf(f, "</td>");
}

/* Sentences for the questions this study cannot answer, and how to ask. */
static void unanswered(FILE *f, const struct acs__study *s)
{
  static const struct {
    int param;
    const char *what, *vary;
  } q[] = {
    {ACS_P_CMX_KIB, "the smallest CMX", "--vary cmx_kib=128..4096*2"},
    {ACS_P_BARRIERS, "the fewest barriers", "--vary barriers=0,4..32*2"},
    {ACS_P_PE_COUNT, "what more PEs buy", "--vary pe_count=4,8"},
  };

  for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
    if (!s->varies[q[i].param])
      fprintf(f, "<p class=\"small muted\">This study does not vary <code>%s</code>, so it "
                 "cannot say %s: sweep with <code>%s</code>.</p>", acs_param_table[q[i].param].name,
              q[i].what, q[i].vary);
}

/* Which platform the CMX and barrier answers are for, when parameters
 * besides those two vary. */
static void reference_note(FILE *f, const struct acs__study *s, const double *ref)
{
  char name[ACS_UNIT_CLASS_MAX + 8], v[64];
  int n = 0;

  for (int k = 0; k < ACS_PARAM_COUNT + (int)s->nuclass; k++) {
    if (!s->varies[k] || k == ACS_P_CMX_KIB || k == ACS_P_BARRIERS)
      continue;
    acs__param_label(k, ref[k], v, sizeof(v));
    fprintf(f, "%s<code>%s</code> = ", n++ ? ", " : "<p class=\"small muted\">The CMX and "
               "barrier answers are for the loosest values swept of the other parameters: ",
            acs__param_name(s, k, name, sizeof(name)));
    acs__html_put(f, v);
  }
  if (n)
    fprintf(f, ". Each workload's sizing tables give every configuration.</p>");
}

int acs__html_answers(FILE *f, const struct acs__study *s)
{
  struct acs__answer a;
  double ref[ACS__NPARAM];
  int err;

  reference_values(s, ref);

  fprintf(f, "<section id=\"answers\"><h2>Answers</h2><p class=\"lead\">The best run of a "
             "configuration is its fastest run of a scheduler that keeps tensors resident in "
             "CMX (transient figures are optimistic bounds); within 5%% is at most 1.05 times "
             "the best.</p>\n<div class=\"card tablecard\"><table class=\"answers\"><tr>"
             "<th>workload</th><th>best run</th><th>smallest CMX within 5%% of the best, per "
             "barrier count</th><th>fewest barriers within 5%% of no limit, per CMX size</th>"
             "<th>what more PEs buy</th>%s</tr>\n",
          s->has_netbound ? "<th class=\"n\">best vs the network bound</th>" : "");
  for (size_t wl = 0; wl < s->nwl; wl++) {
    fprintf(f, "<tr><td><a href=\"#wl%zu\">", wl);
    acs__html_put(f, s->wl[wl]);
    fprintf(f, "</a></td>");
    best_cell(f, s, (int)wl);
    for (int q = 0; q < ACS__Q__N; q++) {
      if ((err = acs__answer_make(s, (int)wl, q, &a)) < 0)
        return err;
      if (a.why == ACS__WHY_FIXED)
        fprintf(f, "<td class=\"muted\">-</td>");
      else
        answer_cell(f, s, &a, ref);
      acs__answer_free(&a);
    }
    if (s->has_netbound)
      netbound_cell(f, s, (int)wl);
    fprintf(f, "</tr>\n");
  }
  fprintf(f, "</table></div>\n");
  reference_note(f, s, ref);
  unanswered(f, s);
  fprintf(f, "</section>\n");
  return ACS_OK;
}

/* ---- a workload's sizing tables ---- */

static void point_html(FILE *f, const struct acs__study *s, const struct acs__answer *a,
                       const struct acs__point *pt, const struct acs__point *ref)
{
  char v[64], mk[64];

  acs__param_label(a->param, pt->v, v, sizeof(v));
  acs__fmt_cycles(pt->best->mk, mk, sizeof(mk));
  fprintf(f, "<b>");
  acs__html_put(f, v);
  fprintf(f, "</b> %s", mk);
  if (ref && ref != pt)
    fprintf(f, " (%+.1f%%)", above(pt->best->mk, ref->best->mk));
  fprintf(f, "<br><span class=\"small\">");
  acs__html_sched(f, s->sched[pt->best->sched]);
  fprintf(f, "</span>");
}

/* No barrier count within 5%: the one that comes closest, so the reader
 * sees how far off the limit is. */
static void closest(FILE *f, const struct acs__slice *sl)
{
  const struct acs__point *c = NULL;

  for (size_t i = 0; i < sl->npt; i++)
    if (sl->pt[i].v > 0 && (!c || acs__better(sl->pt[i].best, c->best)))
      c = &sl->pt[i];
  fprintf(f, "<b>none</b> of the barrier counts swept");
  if (c)
    fprintf(f, "<br><span class=\"small\">closest: %g barriers, %+.1f%%</span>", c->v,
            above(c->best->mk, sl->ref->best->mk));
}

static void sizing_row(FILE *f, const struct acs__study *s, const struct acs__answer *a,
                       const struct acs__slice *sl)
{
  char label[ACS__LABEL];

  acs__slice_label(s, a, sl, label, sizeof(label));
  fprintf(f, "<tr><td>");
  acs__html_put(f, label[0] ? label : "every run");
  fprintf(f, "</td>");
  if (a->q == ACS__Q_PES) {
    fprintf(f, "<td>");
    for (size_t i = 0; i < sl->npt; i++) {
      fprintf(f, "%s", i ? "<br>" : "");
      point_html(f, s, a, &sl->pt[i], i ? &sl->pt[i - 1] : NULL);
    }
    fprintf(f, "</td></tr>\n");
    return;
  }
  fprintf(f, "<td>");
  if (sl->ref)
    point_html(f, s, a, sl->ref, NULL);
  else
    fprintf(f, "<span class=\"muted\">no run without a barrier limit</span>");
  fprintf(f, "</td><td>");
  if (sl->answer)
    point_html(f, s, a, sl->answer, sl->ref);
  else if (sl->ref && sl->npt > 1)
    closest(f, sl);
  else if (sl->ref)
    fprintf(f, "<span class=\"muted\">no barrier count swept here but no limit</span>");
  fprintf(f, "</td></tr>\n");
}

static const char *const sizing_head[ACS__Q__N] = {
  "<th>at</th><th>best run (its CMX)</th><th>smallest CMX within 5% of it</th>",
  "<th>at</th><th>without a barrier limit</th><th>fewest barriers within 5% of it</th>",
  "<th>at</th><th>best run at each PE count (change from the previous count)</th>",
};

int acs__html_sizing(FILE *f, const struct acs__study *s, int wl)
{
  struct acs__answer a;
  int err, any = 0;

  for (int q = 0; q < ACS__Q__N; q++) {
    if ((err = acs__answer_make(s, wl, q, &a)) < 0)
      return err;
    if (a.why == ACS__WHY_OK && a.nslice > 0) {
      /* Folded: every configuration is long, and the plots come next. */
      if (!any++)
        fprintf(f, "<details class=\"card\"><summary><b>Sizing</b>: every configuration "
                   "behind the answers</summary>");
      fprintf(f, "<div class=\"tablecard\"><table class=\"sizing\"><tr>%s</tr>\n", sizing_head[q]);
      for (size_t i = 0; i < a.nslice; i++)
        sizing_row(f, s, &a, &a.slice[i]);
      fprintf(f, "</table></div>\n");
    }
    acs__answer_free(&a);
  }
  if (any)
    fprintf(f, "<p class=\"small muted\">Each row fixes the other parameters; its best run is "
               "the fastest run of a scheduler that counts (resident, when the workload has "
               "one).</p></details>\n");
  return ACS_OK;
}
