/*
 * bench-sim.c - the cost of simulating a schedule with acsim, side by side
 * with bare-sim (the same DAG, bare SimGrid actors, no acsim code).
 *
 * Each measurement runs in a fresh process, so its peak RSS (from wait4,
 * which covers the process and the children it reaped: for acsim, the
 * simulation child) belongs to that measurement alone. The time is the
 * simulation phase: for acsim the whole acs_sim_run (plan, XML, fork,
 * SimGrid, results back into the schedule); for bare-sim from building its
 * dependency arrays to the end of simgrid_run. Best of REPEAT (5) runs: the machine may be shared.
 *
 * Usage: bench-sim [N...]   (default 20000 100000)
 *        bench-sim --acsim N [SEED]   (one measurement; used by the driver)
 */
/* wait4 (peak RSS of one child and its reaped children) is not POSIX. */
#define _DEFAULT_SOURCE 1
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/simdag.h"
#include "simulate/sim.h"

#define REPEAT 5

static int one_acsim(int32_t n, uint64_t seed)
{
  struct simdag b;
  struct acs_sim_result r;
  struct acs_diag d;
  int err;

  if (simdag_build(&b, n, seed) < 0)
    return 1;
  acs_diag_init(&d);
  err = acs_sim_run(&b.pb.plat, &b.s, NULL, &r, &d);
  if (err < 0) {
    fprintf(stderr, "bench-sim: %s: %s\n", acs_strerror(err), d.msg);
    return 1;
  }
  printf("seconds=%.4f makespan=%.6f edges=%d planned=%lld\n", r.sim_seconds, r.makespan_cycles,
         (int)b.s.nedges, (long long)b.s.makespan);
  simdag_destroy(&b);
  return 0;
}

struct sample {
  double seconds, makespan, rss_mib;
  int edges;
  long long planned;
};

/* Runs argv in a child, parses its one output line, takes its peak RSS. */
static int measure(char *const argv[], struct sample *out)
{
  int fds[2], status;
  char buf[512];
  ssize_t got;
  size_t len = 0;
  struct rusage ru;
  pid_t pid;

  if (pipe(fds) < 0)
    return -1;
  fflush(NULL);
  if ((pid = fork()) == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execv(argv[0], argv);
    _exit(127);
  }
  close(fds[1]);
  while ((got = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0 ||
         (got < 0 && errno == EINTR))
    len += got > 0 ? (size_t)got : 0;
  close(fds[0]);
  buf[len] = '\0';
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return -1;
  memset(out, 0, sizeof(*out));
  if (sscanf(buf, "seconds=%lf makespan=%lf", &out->seconds, &out->makespan) != 2)
    return -1;
  if (strstr(buf, "edges="))
    sscanf(strstr(buf, "edges="), "edges=%d planned=%lld", &out->edges, &out->planned);
  out->rss_mib = (double)ru.ru_maxrss / 1024.0;
  return 0;
}

static int best_of(char *const argv[], struct sample *best)
{
  struct sample s;

  for (int k = 0; k < REPEAT; k++) {
    if (measure(argv, &s) < 0) {
      fprintf(stderr, "bench-sim: %s failed\n", argv[0]);
      return -1;
    }
    if (k == 0 || s.seconds < best->seconds)
      *best = s;
  }
  return 0;
}

int main(int argc, char **argv)
{
  static const char *const dflt[] = {"20000", "100000"};
  char self[4096], bare[4096], nbuf[32], dir[4096];
  const char *const *sizes = dflt;
  int nsizes = 2;
  double prev_a = 0, prev_b = 0, prev_n = 0;

  if (argc >= 3 && strcmp(argv[1], "--acsim") == 0)
    return one_acsim(atoi(argv[2]), argc > 3 ? strtoull(argv[3], NULL, 10) : 1);
  if (argc > 1) {
    sizes = (const char *const *)argv + 1;
    nsizes = argc - 1;
  }
  snprintf(dir, sizeof(dir), "%s", argv[0]);
  snprintf(self, sizeof(self), "%s", argv[0]);
  snprintf(bare, sizeof(bare), "%s/bare-sim", dirname(dir));
  printf("bench-sim: random layered DAG (3/4 dpu, 1/4 DDR transfers of 1-64 KiB), default\n"
         "platform (4 PEs, 2 DMA channels), greedy schedule; best of %d runs each\n", REPEAT);
  printf("%8s %8s %9s %9s %6s %10s %9s  %s\n", "ops", "edges", "acsim_s", "bare_s", "ratio",
         "acsim_MiB", "bare_MiB", "sim makespan (acsim / bare / planned)");
  for (int k = 0; k < nsizes; k++) {
    struct sample a, b;
    char *av[] = {self, "--acsim", nbuf, NULL}, *bv[] = {bare, nbuf, NULL};
    double n = atof(sizes[k]);
    snprintf(nbuf, sizeof(nbuf), "%s", sizes[k]);
    if (best_of(av, &a) < 0 || best_of(bv, &b) < 0)
      return 1;
    printf("%8s %8d %9.3f %9.3f %6.2f %10.1f %9.1f  %.1f / %.1f / %lld%s\n", sizes[k], a.edges,
           a.seconds, b.seconds, a.seconds / b.seconds, a.rss_mib, b.rss_mib, a.makespan,
           b.makespan, a.planned, a.makespan == b.makespan ? "" : "  MISMATCH");
    if (prev_n > 0)
      printf("%8s scaling x%.1f ops: acsim x%.2f, bare x%.2f (per op: acsim %.2f us, bare %.2f us)\n",
             "", n / prev_n, a.seconds / prev_a, b.seconds / prev_b, 1e6 * a.seconds / n,
             1e6 * b.seconds / n);
    prev_a = a.seconds, prev_b = b.seconds, prev_n = n;
  }
  return 0;
}
