/*
 * stg.c - Kasahara Standard Task Graph files (.stg).
 *
 * The first line is the number N of real tasks; then one line per task,
 * dummy entry 0 and dummy exit N+1 included: task id, processing time,
 * number of predecessors, predecessor ids. Ids are in topological order, so
 * every predecessor has a smaller id. Lines starting with '#' are comments
 * (the generator's statistics at the end of each file). Task N becomes op
 * "t<N>" on resource "pe" (the platform's pe_count identical processors):
 * a shave op demanding one PE, or a sync op with no demand when its time is 0.
 * O(file).
 */
#include "config.h"

#include "core/load/load.h"
#include "core/load/load_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a task line holds, for the error of a line with the wrong count. */
#define TASK_FIELDS "task id, processing time, number of predecessors and the predecessor ids"

struct stg_reader {
  const char *path;
  struct acs__lines lr;
  struct acs_graph *g;
  int res_pe;
};

/* The next line that is not blank or a comment: 1, 0 at end of file, or < 0. */
static int next_content(struct stg_reader *r, struct acs_diag *d)
{
  for (;;) {
    int rc = acs__lines_next(&r->lr, d);
    if (rc <= 0)
      return rc;
    rc = acs__lines_split(&r->lr);
    if (rc < 0)
      return rc;
    if (r->lr.ntok > 0 && r->lr.tok[0].s[0] != '#')
      return 1;
  }
}

static int add_task(struct stg_reader *r, int64_t id, int64_t time)
{
  int32_t op_id = acs__lines_add_task(&r->lr, r->g, 't', id,
                                      time == 0 ? ACS_OP_SYNC : ACS_OP_SHAVE, time);
  if (op_id < 0)
    return op_id;
  return acs_graph_set_demand(r->g, op_id, r->res_pe, time > 0);
}

/* One task line; task ids run 0..N+1 in order. */
static int task_line(struct stg_reader *r, int64_t expect, struct acs_diag *d)
{
  int64_t id, time, npred, p;
  int rc = r->lr.ntok < 3 ? acs__lines_expect(&r->lr, 3, TASK_FIELDS, d) : ACS_OK;
  if (rc == 0)
    rc = ACS__RTOK_INT(r, 0, "the task id", 0, &id, d);
  if (rc == 0 && id != expect)
    rc = acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, r->lr.tok[0].col,
                      "expected task %lld, got %lld (tasks must be listed in order)",
                      (long long)expect, (long long)id);
  if (rc == 0)
    rc = ACS__RTOK_INT(r, 1, "the processing time", 0, &time, d);
  if (rc == 0)
    rc = ACS__RTOK_INT(r, 2, "the number of predecessors", 0, &npred, d);
  if (rc == 0 && (uint64_t)npred != r->lr.ntok - 3)
    rc = acs__lines_expect(&r->lr, (size_t)npred + 3, TASK_FIELDS, d);
  if (rc == 0)
    rc = add_task(r, id, time);
  for (size_t k = 3; k < r->lr.ntok && rc == 0; k++) {
    rc = ACS__RTOK_INT(r, k, "a predecessor id", 0, &p, d);
    if (rc == 0 && p >= id)
      rc = acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, r->lr.tok[k].col,
                        "predecessor %lld of task %lld is not an earlier task "
                        "(0..%lld)", (long long)p, (long long)id,
                        (long long)id - 1);
    if (rc == 0)
      rc = acs_graph_check_cost(r->g->nops, (int64_t)r->g->nedges + 1, 1, d, r->path,
                                r->lr.line, r->lr.tok[k].col, "the predecessors so far");
    if (rc == 0)
      rc = acs_graph_add_edge(r->g, (int32_t)p, (int32_t)id, ACS_EDGE_DATA);
  }
  return rc;
}

static int read_tasks(struct stg_reader *r, struct acs_diag *d)
{
  int64_t n = 0;
  int rc = next_content(r, d);
  if (rc == 0)
    return acs_diag_set(d, ACS_EPARSE, r->path, 1, 1,
                        "empty file: no task count");
  if (rc < 0)
    return rc;
  if (r->lr.ntok != 1)
    rc = acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, r->lr.tok[1].col,
                      "the first line must hold only the number of tasks");
  else
    rc = ACS__RTOK_INT(r, 0, "the number of tasks", 1, &n, d);
  if (rc == 0 && n > INT32_MAX - 2)
    rc = acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, r->lr.tok[0].col,
                      "too many tasks (%lld)", (long long)n);
  if (rc == 0)
    rc = acs_limit_check(ACS_LIMIT_OPS, n + 2, d, r->path, r->lr.line, r->lr.tok[0].col,
                         "%lld tasks and the entry and exit", (long long)n);
  for (int64_t i = 0; rc == 0 && i < n + 2; i++) {
    rc = next_content(r, d);
    if (rc == 0)
      return acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, 0,
                          "file ends after %lld of %lld task lines (tasks 0..%lld)",
                          (long long)i, (long long)n + 2, (long long)n + 1);
    if (rc > 0)
      rc = task_line(r, i, d);
  }
  if (rc != 0)
    return rc;
  rc = next_content(r, d);
  if (rc > 0)
    return acs_diag_set(d, ACS_EPARSE, r->path, r->lr.line, r->lr.tok[0].col,
                        "unexpected content after the last task (%lld)",
                        (long long)n + 1);
  return rc;
}

/* Every task runs on the one PE resource, added before the first task. */
static int read_file(void *arg, struct acs_diag *d)
{
  struct stg_reader *r = arg;

  if ((r->res_pe = acs_graph_add_resource(r->g, "pe", ACS_RES_PE, 0)) < 0)
    return r->res_pe;
  return read_tasks(r, d);
}

int acs_stg_load(const char *path, struct acs_graph *g, struct acs_diag *d)
{
  struct stg_reader r;

  memset(&r, 0, sizeof(r));
  r.path = path;
  r.g = g;
  return acs__lines_read_graph(path, g, &r.lr, read_file, &r, d);
}
