/*
 * sweep.c - the sweep engine (sweep.h): the task list and resume, the
 * worker pool, dispatch, storing and progress.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/proc.h"
#include "report/report.h"
#include "simulate/sim.h"
#include "sweep/records.h"
#include "sweep/sweep.h"
#include "sweep/wire.h"

#define INFLIGHT 2            /* tasks queued per worker */
#define CHECKPOINT_SECONDS 1.0
#define MAX_RESPAWNS 1000

struct worker {
  pid_t pid;
  int task_fd, result_fd;      /* parent's ends; -1 when closed */
  uint32_t inflight[INFLIGHT];
  int ninflight;
  size_t cur, end;             /* tasks claimed, not yet handed out */
};

struct acs_sweep_engine {
  struct acs_sweep_task *tasks;
  size_t *gend;                /* per task: one past the last of its group */
  uint8_t *deaths;             /* per task: times its worker died under it */
  struct acs__records rec;     /* each workload's best and worst run */
  int32_t *pid_of;             /* per platform variant; -1 until stored */
  struct acs_results *res;
  struct worker *w;
  int nw;
  uint32_t *requeue;
  size_t nrequeue, next;
  /* progress */
  double last_draw, last_line, last_checkpoint;
  int tty, dirty, forwarded;
};

/* ---- the task list: what is stored already, what runs ---- */

/* The workload of this sweep a stored row is: by digest, or by name for a
 * row stored without one. O(workloads). */
static int workload_index(const struct acs_sweep *sw, const struct acs_workload_row *row)
{
  for (size_t j = 0; j < sw->cfg.nwls; j++) {
    const struct acs_workload *w = sw->cfg.wls[j];
    if (strcmp(acs_wl_kind_name(w->kind), row->kind) == 0 &&
        (row->digest[0] ? strcmp(w->digest, row->digest) == 0 : strcmp(w->name, row->name) == 0))
      return (int)j;
  }
  return -1;
}

#define KEY_FLAGS (ACS_KEY_NAME | ACS_KEY_PARAMS | ACS_KEY_DIGEST)

/* What the output already holds: the identities of its finished runs
 * (`done`) and of its `error` runs (`failed`, to run again, with the run_id
 * whose row the retry replaces); *legacy when some run's workload has no
 * digest (such runs have name keys, see report.h). Also the records. */
struct existing {
  struct acs_keyset *done, *failed;
  int legacy;
};

static int read_existing(struct acs_sweep *sw, struct existing *ex)
{
  struct acs_results_data data;
  char key[ACS_RUN_KEY_MAX];
  struct acs_diag d;
  int err = ACS_OK;

  if (!(ex->done = acs_keyset_new()) || !(ex->failed = acs_keyset_new()))
    return ACS_ENOMEM;
  if (access(sw->cfg.output, F_OK) != 0)
    return ACS_OK;
  acs_diag_init(&d);
  if ((err = acs_results_read(sw->cfg.output, &data, &d)) < 0) {
    sw->cfg.error(&d);
    return err;
  }
  ex->legacy = !acs_results_digested(&data);
  for (size_t i = 0; i < data.nruns && err >= 0; i++) {
    const struct acs_run_row *r = &data.runs[i];
    const struct acs_workload_row *w = acs_results_workload_of(&data, r);
    int j;
    if (acs_run_key_of(&data, r, KEY_FLAGS, key) < 0)
      continue;
    /* put: of repeated error rows (older files) the latest is replaced. */
    err = strcmp(r->status, "error") == 0 ? acs_keyset_put(ex->failed, key, r->run_id)
                                          : acs_keyset_add(ex->done, key, r->run_id, NULL);
    if (w && (j = workload_index(sw, w)) >= 0)
      acs__records_note(&sw->e->rec, (size_t)j, r);
  }
  acs_results_data_free(&data);
  return err < 0 ? err : ACS_OK;
}

/* Whether task (p, j, k) is already in the output; otherwise *replace gets
 * the run_id of a stored error run of it (0 when none). Stored runs without
 * a workload digest are found by name, as acsim wrote them. */
static int stored(struct acs_sweep *sw, const struct existing *ex, size_t p, size_t j, size_t k,
                  int64_t *replace)
{
  const struct acs_workload *w = sw->cfg.wls[j];
  const char *kind = acs_wl_kind_name(w->kind);
  char key[ACS_RUN_KEY_MAX], name_key[ACS_RUN_KEY_MAX];

  *replace = 0;
  acs_run_key(&sw->cfg.plats[p], w->name, kind, w->digest, sw->cfg.ops[k]->name, sw->cfg.opts[k],
              KEY_FLAGS, key);
  if (acs_keyset_get(ex->done, key, NULL))
    return 1;
  if (ex->legacy) {
    acs_run_key(&sw->cfg.plats[p], w->name, kind, NULL, sw->cfg.ops[k]->name, sw->cfg.opts[k],
                KEY_FLAGS, name_key);
    if (acs_keyset_get(ex->done, name_key, NULL)) {
      sw->n.by_name++;
      return 1;
    }
    if (acs_keyset_get(ex->failed, name_key, replace))
      return 0;
  }
  acs_keyset_get(ex->failed, key, replace);
  return 0;
}

static int push_task(struct acs_sweep *sw, size_t *cap, uint32_t p, uint32_t j, uint32_t k,
                     int64_t replace)
{
  int err = acs_grow((void **)&sw->e->tasks, sizeof(*sw->e->tasks), cap, sw->n.ntasks + 1);

  if (err < 0)
    return err;
  sw->e->tasks[sw->n.ntasks].plat = p;
  sw->e->tasks[sw->n.ntasks].wl = j;
  sw->e->tasks[sw->n.ntasks].sel = k;
  sw->e->tasks[sw->n.ntasks].replace = replace;
  sw->n.ntasks++;
  sw->n.stored_errors += replace > 0;
  return ACS_OK;
}

struct plat_ref {
  const struct acs_platform *p;
  size_t idx;
};

/* The same SimGrid platform first, then what the schedulers read: the
 * parameters and the unit counts. */
static int plat_class_cmp(const struct acs_platform *a, const struct acs_platform *b)
{
  int c = acs_sim_platform_cmp(a, b);

  for (int i = 0; c == 0 && i < ACS_PARAM_COUNT; i++)
    if (!acs_param_after_scheduling(i) && a->v[i] != b->v[i])
      c = a->v[i] < b->v[i] ? -1 : 1;
  return c ? c : strcmp(a->units, b->units);
}

static int plat_ref_cmp(const void *a, const void *b)
{
  const struct plat_ref *x = a, *y = b;
  int c = plat_class_cmp(x->p, y->p);

  return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* A task's place in the dispatch order (order_tasks). */
struct task_key {
  size_t cls, wl, rank, t;
};

static int task_key_cmp(const void *a, const void *b)
{
  const struct task_key *x = a, *y = b;

  if (x->cls != y->cls)
    return x->cls < y->cls ? -1 : 1;
  if (x->wl != y->wl)
    return x->wl < y->wl ? -1 : 1;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return (x->t > y->t) - (x->t < y->t);
}

/* Ranks and class ids of the platform variants: ref sorted, then each
 * variant's position and the class of equal plat_class_cmp it is in. */
static int plat_ranks(const struct acs_sweep *sw, size_t *rank, size_t *cls)
{
  struct plat_ref *ref = malloc(sw->cfg.nplats * sizeof(*ref));
  size_t c = 0;

  if (!ref)
    return ACS_ENOMEM;
  for (size_t p = 0; p < sw->cfg.nplats; p++)
    ref[p] = (struct plat_ref){&sw->cfg.plats[p], p};
  qsort(ref, sw->cfg.nplats, sizeof(*ref), plat_ref_cmp);
  for (size_t r = 0; r < sw->cfg.nplats; r++) {
    if (r > 0 && plat_class_cmp(ref[r - 1].p, ref[r].p) != 0)
      c++;
    rank[ref[r].idx] = r;
    cls[ref[r].idx] = c;
  }
  free(ref);
  return ACS_OK;
}

/*
 * Dispatch order and groups. The canonical grid is reordered so that
 *  - the platform variants that load the same SimGrid platform (those that
 *    differ only in CMX size, barriers, ...) come together: a simulation
 *    process forks from a zygote that loaded its SimGrid platform, and a
 *    worker keeps only a few zygotes; in grid order `--vary cmx_kib=...
 *    --vary dma_gbps=a,b,c --vary ddr_ratio=x,y` cycled through six SimGrid
 *    platforms, restarting SimGrid 29 times per worker for 48 simulations,
 *    and -j 2 was no faster than -j 1;
 *  - within those, the runs of one workload on variants that differ only in
 *    what the barrier pass reads form one group, handed to one worker
 *    whole (dispatch): it schedules and verifies each problem once for all
 *    the barrier counts (cli/job_memo.c; the default study schedules each
 *    CMX size and PE count once instead of five times).
 * Sharding and run identity stay on the canonical grid; only the order runs
 * start in changes. O(P log P + T log T) for P variants and T tasks; sets
 * gend[t], one past the last task of t's group.
 */
static int order_tasks(struct acs_sweep *sw)
{
  size_t *rank, *cls;
  struct task_key *key;
  struct acs_sweep_task *out;
  size_t n = sw->n.ntasks;
  int err = ACS_ENOMEM;

  if (n == 0)
    return ACS_OK;
  rank = malloc(sw->cfg.nplats * sizeof(*rank));
  cls = malloc(sw->cfg.nplats * sizeof(*cls));
  key = malloc(n * sizeof(*key));
  out = malloc(n * sizeof(*out));
  sw->e->gend = malloc(n * sizeof(*sw->e->gend));
  if (!rank || !cls || !key || !out || !sw->e->gend || (err = plat_ranks(sw, rank, cls)) < 0)
    goto out_with_arrays;
  for (size_t t = 0; t < n; t++) {
    const struct acs_sweep_task *k = &sw->e->tasks[t];
    key[t] = (struct task_key){cls[k->plat], k->wl, rank[k->plat], t};
  }
  qsort(key, n, sizeof(*key), task_key_cmp);
  for (size_t t = 0; t < n; t++)
    out[t] = sw->e->tasks[key[t].t];
  memcpy(sw->e->tasks, out, n * sizeof(*out));
  for (size_t t = n; t-- > 0;)
    sw->e->gend[t] = t + 1 < n && key[t + 1].cls == key[t].cls && key[t + 1].wl == key[t].wl
                         ? sw->e->gend[t + 1]
                         : t + 1;
  err = ACS_OK;
out_with_arrays:
  free(out);
  free(key);
  free(cls);
  free(rank);
  return err;
}

/* The grid in its canonical order; keeps this shard's runs not yet stored
 * (and those stored as error). */
static int make_tasks(struct acs_sweep *sw)
{
  struct existing ex = {NULL, NULL, 0};
  size_t cap = 0;
  int err;

  if ((err = read_existing(sw, &ex)) < 0)
    goto out_with_existing;
  for (size_t p = 0; p < sw->cfg.nplats; p++)
    for (size_t j = 0; j < sw->cfg.nwls; j++)
      for (size_t k = 0; k < sw->cfg.nsel; k++) {
        int64_t replace;
        size_t g;
        if (!acs_sched_accepts(sw->cfg.ops[k], sw->cfg.wls[j]->kind))
          continue;
        g = sw->n.grid++;
        if (sw->cfg.shard_n > 0 && (int)(g % (size_t)sw->cfg.shard_n) != sw->cfg.shard_k - 1)
          continue;
        sw->n.in_shard++;
        if (stored(sw, &ex, p, j, k, &replace)) {
          sw->n.skipped++;
          continue;
        }
        if (sw->n.ntasks >= UINT32_MAX - 1) {
          struct acs_diag d;
          acs_diag_init(&d);
          err = acs_diag_set(&d, ACS_ERANGE, NULL, 0, 0,
                             "sweep: more than %u runs; split it with --shard K/N",
                             UINT32_MAX - 2);
          sw->cfg.error(&d);
          goto out_with_existing;
        }
        if ((err = push_task(sw, &cap, (uint32_t)p, (uint32_t)j, (uint32_t)k, replace)) < 0)
          goto out_with_existing;
      }
  if ((err = order_tasks(sw)) < 0)
    goto out_with_existing;
  err = sw->n.ntasks && !(sw->e->deaths = calloc(sw->n.ntasks, sizeof(*sw->e->deaths)))
            ? ACS_ENOMEM
            : ACS_OK;
out_with_existing:
  acs_keyset_free(ex.done);
  acs_keyset_free(ex.failed);
  return err;
}

/* ---- the worker ---- */

/* Runs one task (cfg.run) and sends its message; ACS_EINTERRUPTED when the
 * run was cut short (nothing sent). */
static int worker_task(const struct acs_sweep *sw, uint32_t idx, int out, struct acs_wbuf *buf)
{
  const struct acs_sweep_task *t = &sw->e->tasks[idx];
  struct acs_wire_head h;
  struct acs_schedule s;
  int keep = 0, err;

  memset(&h, 0, sizeof(h));
  h.magic = ACS_WIRE_MAGIC;
  h.task = idx;
  h.ops = h.edges = -1;
  acs_run_row_init(&h.row);
  buf->n = 0;
  err = sw->cfg.run(sw->cfg.run_ctx, t, &h.row, &h.ops, &h.edges, &s, &keep);
  if (err == ACS_EINTERRUPTED) {
    acs_schedule_destroy(&s);
    return err;
  }
  if (keep && sw->cfg.keep != ACS_SWEEP_KEEP_NONE && acs_wire_put_schedule(buf, &s) < 0)
    buf->n = 0; /* out of memory: the row still goes, without its schedule */
  acs_schedule_destroy(&s);
  h.sched_len = buf->n;
  if (acs_wire_write(out, &h, sizeof(h)) < 0 || acs_wire_write(out, buf->p, buf->n) < 0)
    return ACS_EIO;
  return ACS_OK;
}
/*
 * A test hook, so that the tests can make a worker misbehave on a chosen
 * run deterministically (tests/sweep.sh), as the simulator's hooks do
 * (simulate/sim.h): ACSIM_TEST_WORKER="ACTION N" acts on the N-th run (from
 * 1, in this invocation's task order, which is the grid order with the runs
 * already stored left out). ACTION `abort` aborts the worker every time it
 * gets that run, `abort-once` only the first time (a retry in a fresh
 * worker then succeeds), `hang` blocks it until the parent closes its task
 * pipe (Ctrl-C, or the parent's death) so that a test can stop the sweep at
 * a known point without timing. Unset, it costs one getenv per worker.
 */
enum { HOOK_NONE, HOOK_ABORT, HOOK_ABORT_ONCE, HOOK_HANG };
struct test_hook {
  int action;
  unsigned long run;
};

static struct test_hook test_hook_get(void)
{
  struct test_hook h = {HOOK_NONE, 0};
  const char *env = getenv("ACSIM_TEST_WORKER");
  char action[16];

  if (env && sscanf(env, "%15s %lu", action, &h.run) == 2 && h.run > 0)
    h.action = strcmp(action, "abort") == 0 ? HOOK_ABORT
             : strcmp(action, "abort-once") == 0 ? HOOK_ABORT_ONCE
             : strcmp(action, "hang") == 0 ? HOOK_HANG : HOOK_NONE;
  return h;
}

static void test_hook_run(const struct acs_sweep *sw, const struct test_hook *h, uint32_t idx, int in)
{
  uint32_t drain;

  if (h->action == HOOK_NONE || idx + 1ul != h->run)
    return;
  /* sw->e->deaths was copied when this worker was forked: a retry runs in a
   * worker forked after the death, which sees it. */
  if (h->action == HOOK_ABORT || (h->action == HOOK_ABORT_ONCE && sw->e->deaths[idx] == 0)) {
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none); /* a test leaves no core file behind */
    abort();
  }
  if (h->action == HOOK_HANG) {
    while (acs_wire_read(in, &drain, sizeof(drain)) == 1)
      ;
    _exit(0);
  }
}

static void worker_main(const struct acs_sweep *sw, int in, int out)
{
  struct acs_wbuf buf = {0};
  struct test_hook hook = test_hook_get();
  uint32_t idx;

  /* The parent reports a dead pipe; a worker just leaves. */
  signal(SIGPIPE, SIG_IGN);
  while (!*sw->cfg.interrupted && acs_wire_read(in, &idx, sizeof(idx)) == 1) {
    if (idx >= sw->n.ntasks)
      break;
    test_hook_run(sw, &hook, idx, in);
    if (worker_task(sw, idx, out, &buf) < 0)
      break;
  }
  if (sw->cfg.worker_exit)
    sw->cfg.worker_exit();
  /* _exit: no atexit handler of the parent (HDF5's among them) runs here. */
  _exit(0);
}

static int spawn(struct acs_sweep *sw, int slot)
{
  int tp[2], rp[2];
  pid_t pid;

  if (pipe(tp) < 0)
    return ACS_EIO;
  if (pipe(rp) < 0) {
    close(tp[0]);
    close(tp[1]);
    return ACS_EIO;
  }
  fflush(stdout);
  fflush(stderr);
  if ((pid = fork()) < 0) {
    close(tp[0]);
    close(tp[1]);
    close(rp[0]);
    close(rp[1]);
    return ACS_EIO;
  }
  if (pid == 0) {
    /* Only stdio and this worker's two pipe ends stay open: other workers'
     * pipes must close or they would never see end of file, and the study
     * file's descriptors (and HDF5's lock on them) must not outlive a
     * parent that was killed. */
    acs_close_other_fds(tp[0], rp[1]);
    worker_main(sw, tp[0], rp[1]);
  }
  close(tp[0]);
  close(rp[1]);
  sw->e->w[slot].pid = pid;
  sw->e->w[slot].task_fd = tp[1];
  sw->e->w[slot].result_fd = rp[0];
  sw->e->w[slot].ninflight = 0;
  return ACS_OK;
}

/*
 * A schedule not kept still keeps its family's result tables (a cascade's
 * plans and Pareto front, a modulo schedule's II): they are small, and the
 * report plots them for every run. 1 and the tables (no ops) in *s when
 * the run has some.
 */
static int tables_only(const void *blob, size_t len, struct acs_schedule *s)
{
  if (acs_wire_get_tables(blob, len, s) != ACS_OK || s->ntables == 0) {
    acs_schedule_destroy(s);
    return 0;
  }
  return 1;
}

/* ---- the parent: storing results ---- */

static int store(struct acs_sweep *sw, const struct acs_wire_head *h, const unsigned char *blob)
{
  const struct acs_sweep_task *t = &sw->e->tasks[h->task];
  const struct acs_workload *w = sw->cfg.wls[t->wl];
  struct acs_workload_row wrow;
  struct acs_run_row row = h->row;
  struct acs_schedule s;
  int err, st, with = 0, tables = 0;

  if (sw->e->pid_of[t->plat] < 0 &&
      (err = acs_results_add_platform(sw->e->res, &sw->cfg.plats[t->plat], &sw->e->pid_of[t->plat])) < 0)
    return err;
  acs_results_workload_row(w, h->ops, h->edges, &wrow);
  if ((err = acs_results_add_workload(sw->e->res, &wrow, &row.workload_id)) < 0)
    return err;
  row.platform_id = sw->e->pid_of[t->plat];
  /* Every schedule, or its result tables only (records.h: a record's
   * schedule is written when the sweep ends). */
  if (h->sched_len > 0 && sw->cfg.keep == ACS_SWEEP_KEEP_ALL) {
    if (acs_wire_get_schedule(blob, h->sched_len, &s) == ACS_OK)
      with = 1;
    else
      acs_schedule_destroy(&s);
  } else {
    tables = h->sched_len > 0 && tables_only(blob, h->sched_len, &s);
  }
  /* A retried error run takes the place of its stored row. */
  row.run_id = t->replace;
  err = t->replace > 0 ? acs_results_replace_run(sw->e->res, &row, with || tables ? &s : NULL)
                       : acs_results_add_run(sw->e->res, &row, with || tables ? &s : NULL);
  if (with || tables)
    acs_schedule_destroy(&s);
  if (err < 0)
    return err;
  if (sw->cfg.keep == ACS_SWEEP_KEEP_EXTREMES && h->sched_len > 0)
    err = acs__records_offer(&sw->e->rec, t->wl, &row, blob, (size_t)h->sched_len);
  else
    acs__records_note(&sw->e->rec, t->wl, &row);
  if (err == ACS_OK && acs__records_full(&sw->e->rec))
    err = acs__records_flush(&sw->e->rec, sw->e->res, &sw->n.nstored);
  if (err < 0)
    return err;
  st = acs_status_parse(row.status);
  sw->n.nstatus[st >= 0 && st < 4 ? st : ACS_ST_ERROR]++;
  sw->n.nstored += (size_t)with;
  sw->n.done++;
  sw->e->dirty = 1;
  return ACS_OK;
}

/* A run whose worker died under it twice. */
static int store_lost(struct acs_sweep *sw, uint32_t idx, int wstatus)
{
  struct acs_wire_head h;

  memset(&h, 0, sizeof(h));
  h.task = idx;
  h.ops = h.edges = -1;
  acs_run_row_init(&h.row);
  snprintf(h.row.scheduler, sizeof(h.row.scheduler), "%s",
           sw->cfg.ops[sw->e->tasks[idx].sel]->name);
  snprintf(h.row.options, sizeof(h.row.options), "%s", sw->cfg.opts[sw->e->tasks[idx].sel]);
  snprintf(h.row.status, sizeof(h.row.status), "error");
  if (WIFSIGNALED(wstatus))
    snprintf(h.row.message, sizeof(h.row.message),
             "the sweep worker running this was killed by signal %d (%s), also when retried "
             "in a fresh worker; running the sweep again retries it",
             WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
  else
    snprintf(h.row.message, sizeof(h.row.message),
             "the sweep worker running this exited (status %d) without a result, also when "
             "retried in a fresh worker; running the sweep again retries it",
             WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
  return store(sw, &h, NULL);
}

static void close_worker(struct worker *w)
{
  if (w->task_fd >= 0)
    close(w->task_fd);
  if (w->result_fd >= 0)
    close(w->result_fd);
  w->task_fd = w->result_fd = -1;
}

/* Tasks not yet handed to any worker: requeued, in a claimed range, or in
 * groups nobody claimed. O(workers). */
static int tasks_left(const struct acs_sweep *sw)
{
  if (sw->e->nrequeue > 0 || sw->e->next < sw->n.ntasks)
    return 1;
  for (int i = 0; i < sw->e->nw; i++)
    if (sw->e->w[i].cur < sw->e->w[i].end)
      return 1;
  return 0;
}

/* A worker's pipe ended: reap it. Its first task in flight was running:
 * unless we are stopping, it is retried once in the replacement worker, and
 * stored as error when it was the retry that died. The others go back in
 * the queue. */
static int worker_gone(struct acs_sweep *sw, int i)
{
  struct worker *w = &sw->e->w[i];
  int wstatus = 0, err = ACS_OK, retry = 0;
  uint32_t idx = 0;

  close_worker(w);
  while (waitpid(w->pid, &wstatus, 0) < 0 && errno == EINTR)
    ;
  w->pid = -1;
  if (!*sw->cfg.interrupted && w->ninflight > 0) {
    idx = w->inflight[0];
    if (sw->e->deaths[idx]++ == 0) {
      retry = 1;
      sw->n.retried++;
    } else {
      err = store_lost(sw, idx, wstatus);
    }
    for (int k = 1; k < w->ninflight; k++)
      sw->e->requeue[sw->e->nrequeue++] = w->inflight[k];
  }
  w->ninflight = 0;
  /* A replacement, unless stopping; a bounded number, in case something
   * kills workers faster than they work. */
  if (err == ACS_OK && !*sw->cfg.interrupted &&
      (retry || tasks_left(sw)) && sw->n.respawns++ < MAX_RESPAWNS)
    err = spawn(sw, i);
  if (retry) {
    /* First in the fresh worker's queue; if there is none (the respawn
     * limit), whichever worker asks next. */
    if (err == ACS_OK && w->pid > 0 && acs_wire_write(w->task_fd, &idx, sizeof(idx)) == ACS_OK)
      w->inflight[w->ninflight++] = idx;
    else
      sw->e->requeue[sw->e->nrequeue++] = idx;
  }
  return err;
}

/* Reads one message of worker i. */
static int receive(struct acs_sweep *sw, int i)
{
  struct worker *w = &sw->e->w[i];
  struct acs_wire_head h;
  unsigned char *blob = NULL;
  int rc, err;

  rc = acs_wire_read(w->result_fd, &h, sizeof(h));
  if (rc != 1 || h.magic != ACS_WIRE_MAGIC || w->ninflight == 0 || h.task != w->inflight[0] ||
      h.sched_len > ((uint64_t)1 << 40))
    return worker_gone(sw, i);
  if (h.sched_len > 0) {
    if (!(blob = malloc((size_t)h.sched_len)))
      return ACS_ENOMEM;
    if (acs_wire_read(w->result_fd, blob, (size_t)h.sched_len) != 1) {
      free(blob);
      return worker_gone(sw, i);
    }
  }
  memmove(w->inflight, w->inflight + 1, (size_t)(w->ninflight - 1) * sizeof(w->inflight[0]));
  w->ninflight--;
  err = store(sw, &h, blob);
  free(blob);
  return err;
}

/* ---- the parent: progress ---- */

static void fmt_duration(double s, char *buf, size_t size)
{
  long t = (long)(s + 0.5);

  if (t >= 3600)
    snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
}

static void progress(struct acs_sweep *sw, int final)
{
  double now = acs_now_seconds(), el = now - sw->n.t0;
  size_t n = sw->n.ntasks, d = sw->n.done;
  char eta[32], elapsed[32];

  if (sw->cfg.quiet) /* -q: no warnings and no progress, as in every command */
    return;

  fmt_duration(el, elapsed, sizeof(elapsed));
  if (d > 0 && d < n)
    fmt_duration(el / (double)d * (double)(n - d), eta, sizeof(eta));
  else
    snprintf(eta, sizeof(eta), "--:--");
  if (sw->e->tty) {
    struct winsize ws;
    int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
    int width = cols - 50, fill;
    if (!final && now - sw->e->last_draw < 0.1)
      return;
    sw->e->last_draw = now;
    if (width > 40)
      width = 40;
    if (width < 10)
      width = 10;
    fill = n ? (int)((double)width * (double)d / (double)n) : width;
    fprintf(stderr, "\r\033[K[");
    for (int i = 0; i < width; i++)
      fputc(i < fill ? '#' : '-', stderr);
    fprintf(stderr, "] %zu/%zu %3.0f%%  %s  ETA %s  %zu err", d, n,
            n ? 100.0 * (double)d / (double)n : 100.0, elapsed, eta, sw->n.nstatus[ACS_ST_ERROR]);
    if (final)
      fputc('\n', stderr);
    fflush(stderr);
    return;
  }
  /* Not a terminal (a log, CI): a plain line every 10 s and at the end. */
  if (!final && now - sw->e->last_line < 10.0)
    return;
  sw->e->last_line = now;
  fprintf(stderr, "sweep: %zu/%zu runs (%.0f%%), %s elapsed, ETA %s\n", d, n,
          n ? 100.0 * (double)d / (double)n : 100.0, elapsed, eta);
  fflush(stderr);
}

/* ---- the parent: the loop ---- */

/*
 * The next task for worker w, or -1. Retries first; then the rest of the
 * group it claimed; then the next whole group (order_tasks); when no
 * group is left, the upper half of the largest range another worker (or a
 * worker that is gone) has claimed, so that no worker idles while another
 * has a queue. A group split so plans once more in the second worker; the
 * runs are the same.
 */
static long next_task(struct acs_sweep *sw, struct worker *w)
{
  struct worker *v = NULL;

  if (sw->e->nrequeue > 0)
    return sw->e->requeue[--sw->e->nrequeue];
  if (w->cur >= w->end && sw->e->next < sw->n.ntasks) {
    w->cur = sw->e->next;
    w->end = sw->e->next = sw->e->gend[sw->e->next];
  }
  if (w->cur >= w->end) {
    for (int i = 0; i < sw->e->nw; i++)
      if (&sw->e->w[i] != w && (!v || sw->e->w[i].end - sw->e->w[i].cur > v->end - v->cur))
        v = &sw->e->w[i];
    if (!v || v->cur >= v->end)
      return -1;
    /* A worker that is gone gives all; a working one keeps the lower half. */
    w->end = v->end;
    w->cur = v->end = v->pid > 0 ? v->cur + (v->end - v->cur) / 2 : v->cur;
    if (w->cur >= w->end)
      return -1;
  }
  return (long)w->cur++;
}

static int dispatch(struct acs_sweep *sw)
{
  for (int i = 0; i < sw->e->nw && !*sw->cfg.interrupted; i++) {
    struct worker *w = &sw->e->w[i];
    long idx;
    while (w->pid > 0 && w->ninflight < INFLIGHT && (idx = next_task(sw, w)) >= 0) {
      uint32_t t = (uint32_t)idx;
      if (acs_wire_write(w->task_fd, &t, sizeof(t)) < 0) {
        sw->e->requeue[sw->e->nrequeue++] = t; /* it died; its pipe will say so */
        break;
      }
      w->inflight[w->ninflight++] = t;
    }
  }
  return ACS_OK;
}

/* When no task is left to hand out, closing a worker's task pipe lets it
 * finish what it has and leave. */
static void release_idle(struct acs_sweep *sw)
{
  if (tasks_left(sw))
    return;
  for (int i = 0; i < sw->e->nw; i++)
    if (sw->e->w[i].task_fd >= 0) {
      close(sw->e->w[i].task_fd);
      sw->e->w[i].task_fd = -1;
    }
}

static void forward_interrupt(struct acs_sweep *sw)
{
  if (!*sw->cfg.interrupted || sw->e->forwarded)
    return;
  sw->e->forwarded = 1;
  /* Workers finish (or cut short) the run they have and leave; closing the
   * task pipes wakes one that waits for a task. */
  for (int i = 0; i < sw->e->nw; i++)
    if (sw->e->w[i].pid > 0) {
      kill(sw->e->w[i].pid, SIGTERM);
      if (sw->e->w[i].task_fd >= 0) {
        close(sw->e->w[i].task_fd);
        sw->e->w[i].task_fd = -1;
      }
    }
}

static int poll_workers(struct acs_sweep *sw)
{
  struct pollfd pfd[64];
  int map[64], n = 0, rc, err;

  for (int i = 0; i < sw->e->nw && n < 64; i++)
    if (sw->e->w[i].pid > 0 && sw->e->w[i].result_fd >= 0) {
      pfd[n].fd = sw->e->w[i].result_fd;
      pfd[n].events = POLLIN;
      map[n++] = i;
    }
  if (n == 0)
    return 0;
  rc = poll(pfd, (nfds_t)n, 100);
  if (rc < 0)
    return errno == EINTR ? 1 : ACS_EIO;
  for (int k = 0; k < n; k++)
    if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR))
      if ((err = receive(sw, map[k])) < 0)
        return err;
  return 1;
}

static int checkpoint(struct acs_sweep *sw, int force)
{
  struct acs_diag d;
  double now = acs_now_seconds();
  int err;

  if (!sw->e->dirty || (!force && now - sw->e->last_checkpoint < CHECKPOINT_SECONDS))
    return ACS_OK;
  acs_diag_init(&d);
  if ((err = acs_results_checkpoint(sw->e->res, &d)) < 0) {
    sw->cfg.error(&d);
    return err;
  }
  sw->e->last_checkpoint = now;
  sw->e->dirty = 0;
  return ACS_OK;
}

static int run_workers(struct acs_sweep *sw)
{
  int err = ACS_OK, nw = sw->cfg.jobs;

  if ((size_t)nw > sw->n.ntasks)
    nw = (int)sw->n.ntasks;
  if (nw > 64)
    nw = 64;
  if (!(sw->e->w = calloc((size_t)(nw ? nw : 1), sizeof(*sw->e->w))) ||
      !(sw->e->requeue = calloc((size_t)(nw ? nw : 1) * INFLIGHT + 1, sizeof(*sw->e->requeue))))
    return ACS_ENOMEM;
  for (int i = 0; i < nw; i++)
    sw->e->w[i].task_fd = sw->e->w[i].result_fd = -1, sw->e->w[i].pid = -1;
  for (int i = 0; i < nw && err == ACS_OK; i++) {
    sw->e->nw = i; /* the child closes the pipes of workers 0..i-1 */
    err = spawn(sw, i);
  }
  sw->e->nw = nw;
  while (err == ACS_OK) {
    int rc;
    forward_interrupt(sw);
    dispatch(sw);
    release_idle(sw);
    if ((rc = poll_workers(sw)) <= 0) {
      err = rc;
      break;
    }
    progress(sw, 0);
    err = checkpoint(sw, 0);
  }
  return err;
}

static void stop_workers(struct acs_sweep *sw)
{
  for (int i = 0; sw->e->w && i < sw->e->nw; i++) {
    if (sw->e->w[i].pid <= 0)
      continue;
    close_worker(&sw->e->w[i]);
    kill(sw->e->w[i].pid, SIGTERM);
    while (waitpid(sw->e->w[i].pid, NULL, 0) < 0 && errno == EINTR)
      ;
    sw->e->w[i].pid = -1;
  }
}

/* ---- the API ---- */

int acs_sweep_plan(struct acs_sweep *sw)
{
  int err;

  memset(&sw->n, 0, sizeof(sw->n));
  if (!sw->e && !(sw->e = calloc(1, sizeof(*sw->e))))
    return ACS_ENOMEM;
  if ((err = acs__records_init(&sw->e->rec, sw->cfg.nwls)) < 0)
    return err;
  if ((err = make_tasks(sw)) < 0)
    return err;
  if (!(sw->e->pid_of = malloc((sw->cfg.nplats ? sw->cfg.nplats : 1) * sizeof(*sw->e->pid_of))))
    return ACS_ENOMEM;
  for (size_t i = 0; i < sw->cfg.nplats; i++)
    sw->e->pid_of[i] = -1;
  return ACS_OK;
}

int acs_sweep_open(struct acs_sweep *sw, const char *cmdline, struct acs_diag *d)
{
  return acs_results_open(sw->cfg.output, cmdline, &sw->e->res, d);
}

/*
 * The /platforms and /workloads rows of every variant and workload some
 * task runs, in the order of the grid, before any result arrives: with
 * several workers results arrive in any order, and ids given on arrival
 * would differ from one sweep to the next (the report orders its columns
 * by them). A workload whose graph does not depend on the platform has
 * its size in its row (acs_results_workload_row), known from its graph.
 * Rows already in a resumed file keep their ids. O(T + P + W).
 */
static int store_ids(struct acs_sweep *sw)
{
  unsigned char *used_p = calloc(sw->cfg.nplats + 1, 1), *used_w = calloc(sw->cfg.nwls + 1, 1);
  int err = used_p && used_w ? ACS_OK : ACS_ENOMEM;

  for (size_t t = 0; err == ACS_OK && t < sw->n.ntasks; t++)
    used_p[sw->e->tasks[t].plat] = used_w[sw->e->tasks[t].wl] = 1;
  for (size_t p = 0; err == ACS_OK && p < sw->cfg.nplats; p++)
    if (used_p[p])
      err = acs_results_add_platform(sw->e->res, &sw->cfg.plats[p], &sw->e->pid_of[p]);
  for (size_t k = 0; err == ACS_OK && k < sw->cfg.nwls; k++) {
    const struct acs_workload *w = sw->cfg.wls[k];
    struct acs_workload_row wrow;
    int32_t id;
    if (!used_w[k])
      continue;
    acs_results_workload_row(w, w->graph ? w->graph->nops : -1, w->graph ? w->graph->nedges : -1,
                             &wrow);
    err = acs_results_add_workload(sw->e->res, &wrow, &id);
  }
  free(used_p);
  free(used_w);
  return err;
}

int acs_sweep_run(struct acs_sweep *sw)
{
  int err;

  if (sw->n.ntasks > 0 && (err = store_ids(sw)) < 0)
    return err;
  sw->e->tty = isatty(STDERR_FILENO);
  sw->n.t0 = sw->e->last_checkpoint = acs_now_seconds();
  err = sw->n.ntasks > 0 ? run_workers(sw) : ACS_OK;
  stop_workers(sw);
  progress(sw, 1);
  return err;
}

int acs_sweep_commit(struct acs_sweep *sw, struct acs_diag *d)
{
  struct acs_results *res = sw->e->res;
  int err = ACS_OK, rc;

  sw->e->res = NULL;
  /* The records' schedules, unless Ctrl-C asked to stop now: the rows are
   * what an interrupted sweep must keep (records.h). */
  if (!*sw->cfg.interrupted)
    err = acs__records_flush(&sw->e->rec, res, &sw->n.nstored);
  if ((rc = acs_results_commit(res, d)) < 0 || err >= 0 || err == ACS_EINTERRUPTED)
    return rc;
  return acs_diag_set(d, err, sw->cfg.output, 0, 0,
                      "the runs are stored, but not the schedules of the best and worst runs: "
                      "%s", acs_strerror(err));
}

void acs_sweep_free(struct acs_sweep *sw)
{
  struct acs_sweep_engine *e = sw->e;

  if (!e)
    return;
  stop_workers(sw);
  if (e->res)
    acs_results_abort(e->res);
  free(e->tasks);
  free(e->gend);
  free(e->deaths);
  acs__records_free(&e->rec);
  free(e->pid_of);
  free(e->w);
  free(e->requeue);
  free(e);
  sw->e = NULL;
}
