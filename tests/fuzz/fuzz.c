/*
 * fuzz.c - the harnesses' shared helpers (see fuzz.h).
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/model/layer.h"
#include "core/model/problem.h"
#include "tests/fuzz/fuzz.h"

static char scratch[512];

/* Removes the scratch files (one level: the harnesses make no directories). */
static void remove_scratch(void)
{
  DIR *dir = opendir(scratch);
  struct dirent *e;
  char path[1024];

  if (!dir)
    return;
  while ((e = readdir(dir)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    snprintf(path, sizeof(path), "%s/%s", scratch, e->d_name);
    unlink(path);
  }
  closedir(dir);
  rmdir(scratch);
}

void acs_fuzz_init(void)
{
  const char *base = getenv("TMPDIR");

  if (scratch[0])
    return;
  /* Memory-backed when it exists: the harnesses write a file per input. */
  if (!base || !*base)
    base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(scratch, sizeof(scratch), "%s/acsim-fuzz-XXXXXX", base);
  if (!mkdtemp(scratch)) {
    perror("acsim fuzz: mkdtemp");
    abort();
  }
  atexit(remove_scratch);
  if (acs_limit_set(ACS_LIMIT_OPS, ACS_FUZZ_OPS) < 0 ||
      acs_limit_set(ACS_LIMIT_EDGES, ACS_FUZZ_EDGES) < 0 ||
      acs_limit_set(ACS_LIMIT_BYTES, ACS_FUZZ_BYTES) < 0 ||
      acs_limit_set(ACS_LIMIT_ISL_OPS, ACS_FUZZ_ISL_OPS) < 0)
    abort();
}

void acs_fuzz_init_limits(int64_t ops, int64_t edges)
{
  acs_fuzz_init();
  if (acs_limit_get(ACS_LIMIT_OPS) != ops &&
      (acs_limit_set(ACS_LIMIT_OPS, ops) < 0 || acs_limit_set(ACS_LIMIT_EDGES, edges) < 0))
    abort();
}

const char *acs_fuzz_srcdir(void)
{
  const char *src = getenv("ACS_SRCDIR");

  return src && *src ? src : ACS_SRCDIR;
}

const char *acs_fuzz_dir(void)
{
  acs_fuzz_init();
  return scratch;
}

const char *acs_fuzz_file(const char *name, const void *data, size_t size)
{
  static char path[8][1024];
  static unsigned next;
  char *p = path[next++ % 8];
  FILE *f;

  snprintf(p, sizeof(path[0]), "%s/%s", acs_fuzz_dir(), name);
  f = fopen(p, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
    perror(p);
    abort();
  }
  return p;
}

void acs_fuzz_fail(const char *what, const struct acs_diag *d)
{
  char buf[2048] = "";

  if (d)
    acs_diag_format(d, buf, sizeof(buf));
  fprintf(stderr, "acsim fuzz: %s%s%s\n", what, d ? ": " : "", buf);
  abort();
}

void acs_fuzz_check_refusal(int err, const struct acs_diag *d)
{
  /* Out of memory and an interrupt have nothing to locate. */
  if (err < 0 && err != ACS_ENOMEM && err != ACS_EINTERRUPTED && !d->msg[0]) {
    char what[128];
    snprintf(what, sizeof(what), "%s without a message", acs_err_name(err));
    acs_fuzz_fail(what, d);
  }
}

/* A built graph: finalized, ordered, within the limits, and a problem the
 * schedulers would get (durations and bounds for this platform). */
static void check_graph(const struct acs_workload *w, const struct acs_platform *p,
                        struct acs_graph *g)
{
  struct acs_problem pb;
  struct acs_diag d;
  int err;

  if (!g->finalized || (g->nops > 0 && !g->topo))
    acs_fuzz_fail("a built graph is not finalized", NULL);
  if (g->nops > acs_limit_get(ACS_LIMIT_OPS) || g->nedges > acs_limit_get(ACS_LIMIT_EDGES))
    acs_fuzz_fail("a built graph exceeds the limits its builder checked", NULL);
  acs_diag_init(&d);
  err = acs_problem_init(&pb, g, p, &d);
  acs_fuzz_check_refusal(err, &d);
  if (err == ACS_OK) {
    acs_workload_bind(w, &pb);
    (void)acs_bound_best(&pb);
    acs_problem_destroy(&pb);
  }
}

static void build_on(const struct acs_workload *w, const struct acs_platform *p)
{
  struct acs_graph g;
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  err = acs_workload_build(w, p, &g, &d);
  acs_fuzz_check_refusal(err, &d);
  if (err < 0)
    return;
  check_graph(w, p, &g);
  acs_graph_destroy(&g);
}

int acs_fuzz_workload(const char *path, int build)
{
  struct acs_workload *w = NULL;
  struct acs_platform p;
  struct acs_diag d;
  int err;

  acs_fuzz_init();
  acs_diag_init(&d);
  err = acs_workload_load(path, &w, &d);
  acs_fuzz_check_refusal(err, &d);
  if (err < 0)
    return err;
  if (build) {
    acs_platform_init(&p);
    build_on(w, &p);
    /* Layers tiled to a small CMX; a loop unrolled a few times. */
    if (acs_platform_set_kv(&p, "cmx_kib=256", &d) < 0 ||
        acs_platform_set_kv(&p, "loop_iterations=3", &d) < 0)
      acs_fuzz_fail("the second platform", &d);
    build_on(w, &p);
  }
  acs_workload_free(w);
  return ACS_OK;
}

void acs_fuzz_split(const uint8_t *data, size_t size, const char *sep, size_t *n1,
                    const uint8_t **rest, size_t *n2)
{
  size_t k = strlen(sep);

  for (size_t i = 0; k > 0 && i + k <= size; i++)
    if (memcmp(data + i, sep, k) == 0) {
      *n1 = i;
      *rest = data + i + k;
      *n2 = size - i - k;
      return;
    }
  *n1 = size;
  *rest = data + size;
  *n2 = 0;
}
