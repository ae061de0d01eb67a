/*
 * bench-sim.c - the cost of simulating a schedule with acsim, side by side
 * with bare-sim (the same DAG, one bare SimGrid actor per op, no acsim
 * code), in one run.
 *
 * Each measurement runs in a fresh process. Time is the simulation phase:
 * for acsim the whole acs_sim_run (plan, zygote with SimGrid's start and
 * the platform, the simulation process, results back into the schedule);
 * for bare-sim from building its dependency arrays to the end of
 * simgrid_run. Wall time and CPU time (every process of the phase: for
 * acsim the caller, the zygote and the simulation process) are both shown:
 * wall time is what the targets are about, CPU time is what a loaded
 * machine disturbs least. Memory is the peak RSS of the largest process of
 * the measurement (wait4; for acsim the simulation process, which counts
 * the DAG and schedule it inherited, as bare-sim's count its own), per op,
 * and the marginal cost per op between the two sizes. Best of REPEAT (5)
 * runs: the machine may be shared.
 *
 * Targets (issue 10): acsim <= 0.5 x bare-sim's time, <= 1 KiB per op.
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

static double cpu_seconds(int who)
{
  struct rusage ru;

  getrusage(who, &ru);
  return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
         (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

static int one_acsim(int32_t n, uint64_t seed)
{
  struct simdag b;
  struct acs_sim_result r;
  struct acs_diag d;
  double c0;
  int err;

  if (simdag_build(&b, n, seed) < 0)
    return 1;
  acs_diag_init(&d);
  c0 = cpu_seconds(RUSAGE_SELF);
  err = acs_sim_run(&b.pb.plat, &b.s, NULL, &r, &d);
  if (err < 0) {
    fprintf(stderr, "bench-sim: %s: %s\n", acs_strerror(err), d.msg);
    return 1;
  }
  /* Ends the zygote, so its CPU time and the simulation process's (which
   * it reaped) count as this process's children. */
  acs_sim_shutdown();
  printf("seconds=%.4f cpu=%.4f makespan=%.6f edges=%d planned=%lld\n", r.sim_seconds,
         cpu_seconds(RUSAGE_SELF) - c0 + cpu_seconds(RUSAGE_CHILDREN), r.makespan_cycles,
         (int)b.s.nedges, (long long)b.s.makespan);
  simdag_destroy(&b);
  return 0;
}

struct sample {
  double seconds, cpu, makespan, rss_mib;
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
  if (sscanf(buf, "seconds=%lf cpu=%lf makespan=%lf", &out->seconds, &out->cpu,
             &out->makespan) != 3)
    return -1;
  if (strstr(buf, "edges="))
    sscanf(strstr(buf, "edges="), "edges=%d planned=%lld", &out->edges, &out->planned);
  out->rss_mib = (double)ru.ru_maxrss / 1024.0;
  return 0;
}

/* Best time, best CPU time and smallest peak RSS of REPEAT runs. */
static int best_of(char *const argv[], struct sample *best)
{
  struct sample s;

  for (int k = 0; k < REPEAT; k++) {
    if (measure(argv, &s) < 0) {
      fprintf(stderr, "bench-sim: %s failed\n", argv[0]);
      return -1;
    }
    if (k == 0) {
      *best = s;
      continue;
    }
    best->seconds = s.seconds < best->seconds ? s.seconds : best->seconds;
    best->cpu = s.cpu < best->cpu ? s.cpu : best->cpu;
    best->rss_mib = s.rss_mib < best->rss_mib ? s.rss_mib : best->rss_mib;
  }
  return 0;
}

static void print_row(const char *ops, const struct sample *a, const struct sample *b)
{
  double n = atof(ops);

  printf("%8s %8d %8.3f %8.3f %6.2f %8.3f %8.3f %6.2f %7.0f %7.0f %6.0f %6.0f  %.1f / %.1f / %lld%s\n",
         ops, a->edges, a->seconds, b->seconds, a->seconds / b->seconds, a->cpu, b->cpu,
         a->cpu / b->cpu, a->rss_mib, b->rss_mib, a->rss_mib * 1048576.0 / n,
         b->rss_mib * 1048576.0 / n, a->makespan, b->makespan, a->planned,
         a->makespan == b->makespan ? "" : "  MISMATCH");
}

int main(int argc, char **argv)
{
  static const char *const dflt[] = {"20000", "100000"};
  char self[4096], bare[4096], nbuf[32], dir[4096];
  const char *const *sizes = dflt;
  int nsizes = 2;
  struct sample pa = {0}, pb = {0};
  double pn = 0;

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
         "platform (4 PEs, 2 DMA channels), greedy schedule; best of %d runs each.\n"
         "Time of the simulation phase (wall, and CPU of all its processes); memory: peak\n"
         "RSS of the largest process, per op. Targets: acsim/bare <= 0.50, <= 1024 B/op.\n",
         REPEAT);
  printf("%8s %8s %8s %8s %6s %8s %8s %6s %7s %7s %6s %6s  %s\n", "ops", "edges", "acsim_s",
         "bare_s", "ratio", "acsim_c", "bare_c", "c_rat", "ac_MiB", "ba_MiB", "ac_B", "ba_B",
         "sim makespan (acsim / bare / planned)");
  for (int k = 0; k < nsizes; k++) {
    struct sample a, b;
    char *av[] = {self, "--acsim", nbuf, NULL}, *bv[] = {bare, nbuf, NULL};
    double n = atof(sizes[k]);
    snprintf(nbuf, sizeof(nbuf), "%s", sizes[k]);
    if (best_of(av, &a) < 0 || best_of(bv, &b) < 0)
      return 1;
    print_row(sizes[k], &a, &b);
    if (pn > 0)
      printf("%8s x%.1f ops: time acsim x%.2f, bare x%.2f; per op acsim %.2f us, bare %.2f us;\n"
             "%8s marginal memory per op: acsim %.0f B, bare %.0f B\n",
             "", n / pn, a.seconds / pa.seconds, b.seconds / pb.seconds, 1e6 * a.seconds / n,
             1e6 * b.seconds / n, "", (a.rss_mib - pa.rss_mib) * 1048576.0 / (n - pn),
             (b.rss_mib - pb.rss_mib) * 1048576.0 / (n - pn));
    pa = a, pb = b, pn = n;
  }
  return 0;
}
