/*
 * psplib.c - PSPLIB single-mode RCPSP instances (.sm).
 *
 * The file is read in the order PSPLIB writes it: the header gives the job
 * count N and the number K of renewable resources; PRECEDENCE RELATIONS has
 * one row per job with its successors; REQUESTS/DURATIONS one row per job
 * with its duration and K requests; RESOURCEAVAILABILITIES the K capacities.
 * Resources become named resources "R1".."RK" (their capacities are known
 * only at the end, so they are filled in then); job N becomes op "j<N>",
 * a sync op when its duration is 0 (the dummy source and sink) and a shave op
 * otherwise; successor lists become data edges. Ops are created as rows
 * appear, so memory is bounded by the file, not by the N it claims. O(file).
 */
#include "config.h"

#include "core/load/load.h"
#include "core/load/load_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sm_edge {
  int32_t src;
  int64_t dst;           /* job number, checked when read */
};

struct sm_reader {
  const char *path;
  struct acs__lines lr;
  char *raw;             /* the current line, untokenized */
  size_t cap_raw;
  struct acs_graph *g;
  int64_t njobs;         /* -1 until the header line is seen */
  int64_t nres;          /* -1 likewise */
  struct sm_edge *edges;
  size_t nedges, cap_edges;
};

/* Reads the next line and splits it; returns 1, 0 at end of file, or < 0. */
static int next_line(struct sm_reader *r, struct acs_diag *d)
{
  int rc = acs__lines_next(&r->lr, d);
  if (rc <= 0)
    return rc;
  size_t len = strlen(r->lr.buf);
  if (acs_grow((void **)&r->raw, 1, &r->cap_raw, len + 1) != 0)
    return ACS_ENOMEM;
  memcpy(r->raw, r->lr.buf, len + 1);
  rc = acs__lines_split(&r->lr);
  return rc < 0 ? rc : 1;
}

/* The next line where the file must have one: 1, or < 0 (at the end of the
 * file: "file ends before " what fmt says). */
static int line_before_end(struct sm_reader *r, struct acs_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int line_before_end(struct sm_reader *r, struct acs_diag *d, const char *fmt, ...)
{
  char what[128];
  va_list ap;
  int rc = next_line(r, d);

  if (rc != 0)
    return rc;
  va_start(ap, fmt);
  vsnprintf(what, sizeof(what), fmt, ap);
  va_end(ap);
  return acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, 0, "file ends before %s", what);
}

/* The integer token k of the current line, >= min, with a located error. */
/* "key : value ..." header lines: the first token after the colon. */
static int header_value(struct sm_reader *r, const char *what, int64_t *out,
                        struct acs_diag *d)
{
  for (size_t k = 0; k < r->lr.ntok; k++) {
    const char *colon = strchr(r->lr.tok[k].s, ':');
    if (!colon)
      continue;
    if (colon[1] != '\0') /* "key:value" */
      return acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line,
                          r->lr.tok[k].col + (int)(colon - r->lr.tok[k].s) + 1,
                          "expected a blank after ':'");
    if (k + 1 >= r->lr.ntok)
      return acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, 0,
                          "missing value for %s", what);
    return ACS__RTOK_INT(r, k + 1, what, 0, out, d);
  }
  return acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, 0,
                      "expected ':' and a value for %s", what);
}

static int starts_with(const char *s, const char *prefix)
{
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* One header line before PRECEDENCE RELATIONS. */
static int header_line(struct sm_reader *r, struct acs_diag *d)
{
  const char *s = r->raw + strspn(r->raw, " \t");
  int64_t v;
  if (starts_with(s, "jobs")) {
    int rc = header_value(r, "the number of jobs", &r->njobs, d);
    if (rc == 0 && r->njobs < 2)
      rc = acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, r->lr.tok[r->lr.ntok - 1].col,
                        "a project needs at least 2 jobs (source and sink)");
    if (rc == 0)
      rc = acs_limit_check(ACS_LIMIT_OPS, r->njobs, d, r->path, r->lr.line,
                           r->lr.tok[r->lr.ntok - 1].col, "a project of %lld jobs",
                           (long long)r->njobs);
    return rc;
  }
  if (starts_with(s, "- renewable"))
    return header_value(r, "the number of renewable resources", &r->nres, d);
  if (starts_with(s, "- nonrenewable") || starts_with(s, "- doubly")) {
    int rc = header_value(r, "a resource count", &v, d);
    if (rc == 0 && v != 0)
      rc = acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, 0,
                        "nonrenewable and doubly constrained resources are not "
                        "supported (single-mode RCPSP only)");
    return rc;
  }
  return ACS_OK;
}

static int add_resources(struct sm_reader *r, struct acs_diag *d)
{
  if (r->njobs < 0)
    return acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, 0,
                        "missing 'jobs (incl. supersource/sink ):' line before "
                        "PRECEDENCE RELATIONS");
  if (r->nres < 0)
    return acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, 0,
                        "missing '- renewable :' line before PRECEDENCE RELATIONS");
  if (r->nres > ACS_MAX_RES)
    return acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, 0,
                        "%lld resources; at most %d are supported",
                        (long long)r->nres, ACS_MAX_RES);
  for (int64_t k = 0; k < r->nres; k++) {
    char name[32];
    snprintf(name, sizeof(name), "R%d", (int)k + 1);
    int rc = acs_graph_add_resource(r->g, name, ACS_RES_NAMED, 0);
    if (rc < 0)
      return rc;
  }
  return ACS_OK;
}

/* Skips to the line that starts with `title`, reading header lines on the way
 * when `header` is set. */
static int find_section(struct sm_reader *r, const char *title, int header,
                        struct acs_diag *d)
{
  for (;;) {
    int rc = line_before_end(r, d, "the '%s' section", title);
    if (rc < 0)
      return rc;
    if (starts_with(r->raw, title))
      return ACS_OK;
    if (header && (rc = header_line(r, d)) != 0)
      return rc;
  }
}

/*
 * Reads the next table row of a section. Before the first row, lines that do
 * not start with a number (column titles, the "---" rule) are skipped; a
 * "***" rule, which closes a section, means the section ended early.
 */
static int table_row(struct sm_reader *r, const char *section, int64_t done,
                     struct acs_diag *d)
{
  for (;;) {
    int rc = line_before_end(r, d, "%s has all %lld rows (it has %lld)", section,
                             (long long)r->njobs, (long long)done);
    if (rc < 0)
      return rc;
    if (r->lr.ntok == 0)
      continue;
    if (r->lr.tok[0].s[0] == '*')
      return acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, 1,
                          "%s ends after %lld of %lld jobs", section,
                          (long long)done, (long long)r->njobs);
    if (done == 0 && (r->lr.tok[0].s[0] < '0' || r->lr.tok[0].s[0] > '9'))
      continue;
    return ACS_OK;
  }
}

static int job_number(struct sm_reader *r, int64_t expect, struct acs_diag *d)
{
  int64_t job;
  int rc = ACS__RTOK_INT(r, 0, "the job number", 1, &job, d);
  if (rc == 0 && job != expect)
    rc = acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, r->lr.tok[0].col,
                      "expected job %lld, got %lld (jobs must be listed in order)",
                      (long long)expect, (long long)job);
  return rc;
}

/* One PRECEDENCE RELATIONS row: creates op j<i> and remembers its successors. */
static int precedence_row(struct sm_reader *r, int64_t i, struct acs_diag *d)
{
  int64_t modes, nsucc;
  int rc = job_number(r, i, d);
  if (rc == 0 && r->lr.ntok < 3)
    rc = acs__lines_expect(&r->lr, 3, "jobnr, #modes, #successors and the successors", d);
  if (rc == 0)
    rc = ACS__RTOK_INT(r, 1, "the number of modes", 1, &modes, d);
  if (rc == 0 && modes != 1)
    rc = acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, r->lr.tok[1].col,
                      "job %lld has %lld modes; only single-mode (.sm) "
                      "instances are supported", (long long)i, (long long)modes);
  if (rc == 0)
    rc = ACS__RTOK_INT(r, 2, "the number of successors", 0, &nsucc, d);
  if (rc == 0 && (size_t)nsucc != r->lr.ntok - 3)
    rc = acs__lines_expect(&r->lr, (size_t)nsucc + 3,
                       "jobnr, #modes, #successors and the successors", d);
  if (rc != 0)
    return rc;
  int32_t id = acs__lines_add_task(&r->lr, r->g, 'j', i, ACS_OP_SYNC, 0);
  if (id < 0)
    return id;
  for (size_t k = 3; k < r->lr.ntok; k++) {
    int64_t s;
    rc = ACS__RTOK_INT(r, k, "a successor", 1, &s, d);
    if (rc == 0 && s > r->njobs)
      rc = acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, r->lr.tok[k].col,
                        "successor %lld of job %lld is out of range 1..%lld",
                        (long long)s, (long long)i, (long long)r->njobs);
    if (rc == 0)
      rc = acs_graph_check_cost(r->njobs, (int64_t)r->nedges + 1, (int)r->nres, d, r->path,
                                r->lr.line, r->lr.tok[k].col, "the precedence relations so far");
    if (rc == 0 && acs_grow((void **)&r->edges, sizeof(*r->edges), &r->cap_edges,
                            r->nedges + 1) != 0)
      rc = ACS_ENOMEM;
    if (rc != 0)
      return rc;
    r->edges[r->nedges].src = id;
    r->edges[r->nedges].dst = s;
    r->nedges++;
  }
  return ACS_OK;
}

/* One REQUESTS/DURATIONS row: the duration and the K requests of job i. */
static int request_row(struct sm_reader *r, int64_t i, struct acs_diag *d)
{
  int64_t mode, dur, req;
  char layout[96];
  snprintf(layout, sizeof(layout), "jobnr, mode, duration and %lld requests",
           (long long)r->nres);
  int rc = job_number(r, i, d);
  if (rc == 0)
    rc = acs__lines_expect(&r->lr, 3 + (size_t)r->nres, layout, d);
  if (rc == 0)
    rc = ACS__RTOK_INT(r, 1, "the mode", 1, &mode, d);
  if (rc == 0)
    rc = ACS__RTOK_INT(r, 2, "the duration", 0, &dur, d);
  if (rc != 0)
    return rc;
  int32_t id = (int32_t)(i - 1);
  r->g->ops[id].cycles = dur;
  r->g->ops[id].kind = dur == 0 ? ACS_OP_SYNC : ACS_OP_SHAVE;
  for (int64_t k = 0; k < r->nres; k++) {
    rc = ACS__RTOK_INT(r, 3 + (size_t)k, "a resource request", 0, &req, d);
    if (rc == 0)
      rc = acs_graph_set_demand(r->g, id, (int)k, req);
    if (rc != 0)
      return rc;
  }
  return ACS_OK;
}

static int read_availabilities(struct sm_reader *r, struct acs_diag *d)
{
  int rc = find_section(r, "RESOURCEAVAILABILITIES", 0, d);
  while (rc == 0) {
    if ((rc = line_before_end(r, d, "the resource capacities")) < 0)
      return rc;
    if (r->lr.ntok > 0 && r->lr.tok[0].s[0] == '*')
      return acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, 1,
                          "RESOURCEAVAILABILITIES has no capacities");
    if (r->lr.ntok > 0 && r->lr.tok[0].s[0] >= '0' && r->lr.tok[0].s[0] <= '9')
      break;
    rc = ACS_OK; /* the "R 1 R 2 ..." title line */
  }
  if (rc < 0)
    return rc;
  rc = acs__lines_expect(&r->lr, (size_t)r->nres, "one capacity per resource", d);
  for (int64_t k = 0; k < r->nres && rc == 0; k++)
    rc = ACS__RTOK_INT(r, (size_t)k, "a resource capacity", 1, &r->g->res[k].capacity, d);
  return rc;
}

static int read_sections(struct sm_reader *r, struct acs_diag *d)
{
  int rc = find_section(r, "PRECEDENCE RELATIONS", 1, d);
  if (rc == 0)
    rc = add_resources(r, d);
  for (int64_t i = 1; i <= r->njobs && rc == 0; i++) {
    rc = table_row(r, "PRECEDENCE RELATIONS", i - 1, d);
    if (rc == 0)
      rc = precedence_row(r, i, d);
  }
  if (rc == 0)
    rc = find_section(r, "REQUESTS/DURATIONS", 0, d);
  for (int64_t i = 1; i <= r->njobs && rc == 0; i++) {
    rc = table_row(r, "REQUESTS/DURATIONS", i - 1, d);
    if (rc == 0)
      rc = request_row(r, i, d);
  }
  if (rc == 0)
    rc = read_availabilities(r, d);
  for (size_t e = 0; e < r->nedges && rc == 0; e++)
    rc = acs_graph_add_edge(r->g, r->edges[e].src, (int32_t)(r->edges[e].dst - 1),
                            ACS_EDGE_DATA);
  return rc;
}

static int read_file(void *r, struct acs_diag *d)
{
  return read_sections(r, d);
}

int acs_psplib_load(const char *path, struct acs_graph *g, struct acs_diag *d)
{
  struct sm_reader r;
  int rc;

  memset(&r, 0, sizeof(r));
  r.path = path;
  r.g = g;
  r.njobs = r.nres = -1;
  rc = acs__lines_read_graph(path, g, &r.lr, read_file, &r, d);
  free(r.raw);
  free(r.edges);
  return rc;
}
