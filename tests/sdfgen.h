/*
 * sdfgen.h - random SDF and CSDF graphs as SDF3 XML, from a seed, for the
 * SDF family's property test and its benchmark sweep.
 *
 * A graph has 2 to 9 actors in a random DAG (each actor after the first
 * reads from one or two earlier ones), a graph input and a graph output,
 * up to two back edges that close cycles and self-edges that order an
 * actor's firings, each with the initial tokens of one graph iteration (one
 * for a self-edge), so every graph is live. Rates come from the repetition
 * vector drawn first, so every graph is consistent; a third of the graphs
 * are CSDF (phases 1 to 3, rate sequences with zeros). Execution times are
 * log-uniform in [10, 200000] cycles, token sizes 16 B to 4 KiB, kernels 0
 * to 16 KiB, some kernels pipelineable on their input only or not at all,
 * some input ports absorb a token (filters), and the run is 1 to 200
 * graph iterations, at most about max_firings firings in all.
 */
#ifndef ACS_TESTS_SDFGEN_H
#define ACS_TESTS_SDFGEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/acs.h"
#include "core/model/platform.h"

/* Writes graph `seed` into buf; returns its length, or -1 when buf is too
 * small (64 KiB always suffices). */
int sdfgen_xml(uint64_t seed, int64_t max_firings, char *buf, size_t size);

/* The four SDF variants on one graph: gang first, then the baselines. */
enum { SDFGEN_NVAR = 4 };
extern const char *const sdfgen_variants[SDFGEN_NVAR];

struct sdfgen_outcome {
  struct acs_diag load;          /* why the file did not load */
  int err[SDFGEN_NVAR];          /* the variant's result, then the common verifier's */
  int64_t makespan[SDFGEN_NVAR]; /* planned; -1 unless err is ACS_OK */
  char msg[SDFGEN_NVAR][1024];
  double seconds[SDFGEN_NVAR];   /* CPU time of the variant */
  int64_t ddr[SDFGEN_NVAR];      /* cycles of the plan's transfers to or from DDR, summed */
  char gang_mode[16];            /* how gang's first gang is scheduled */
};

/* Loads the SDF3 file at `path` and runs every variant with its default
 * options on platform p, each schedule through acs_schedule_verify (each
 * variant runs the family's own checker itself). Returns < 0 with
 * o->load when the file does not load. */
int sdfgen_run(const char *path, const struct acs_platform *p, struct sdfgen_outcome *o);
/* The shortest baseline plan of o, -1 when every baseline failed. */
int64_t sdfgen_best_baseline(const struct sdfgen_outcome *o);

#endif
