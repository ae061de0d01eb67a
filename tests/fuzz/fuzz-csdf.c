/*
 * fuzz-csdf.c - the (C)SDF model below the XML: graphs made from compact
 * binary inputs through the model's own builders (actors, ports with
 * cyclo-static rate sequences, channels with initial tokens, absorbed
 * tokens, iterations), so the fuzzer spends its effort on rates and
 * phases rather than on XML syntax (fuzz-sdf3 covers that). Then finalize
 * (repetition vector, deadlock check, cost against the limits) and the
 * firing DAG, which must hold one op per firing. (The throughput analyses
 * of sdf_thr.c are the SDF schedulers' and are not fuzzed here: the
 * self-timed one lets a zero-rate self-loop start 10^6 firings at once.)
 *
 * Input, one byte per number (taken modulo its range; missing bytes are 0):
 *   actors-1 (1..5), iterations-1 (1..4),
 *   per actor: an execution-time sequence,
 *   channels (0..7), per channel: source, destination, source rates,
 *     destination rates, initial tokens (0..7), absorbed tokens (0..2),
 *   free ports (0..2), per port: actor, direction, rates;
 * a sequence is a length-1 (1..3) then its entries, an entry with the high
 * bit set written as "2*v".
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "core/model/graph.h"
#include "core/model/sdf.h"
#include "tests/fuzz/fuzz.h"

struct in {
  const uint8_t *p;
  size_t n;
};

static unsigned next(struct in *in, unsigned range)
{
  unsigned v = 0;

  if (in->n > 0) {
    v = *in->p++;
    in->n--;
  }
  return range ? v % range : v;
}

/* A sequence's text, e.g. "3,2*1,0", entries below `range`. */
static void seq_text(struct in *in, unsigned range, char *buf, size_t size)
{
  unsigned len = 1 + next(in, 3);
  size_t used = 0;

  buf[0] = '\0';
  for (unsigned i = 0; i < len && used < size; i++) {
    unsigned b = next(in, 0);
    used += (size_t)snprintf(buf + used, size - used, "%s%s%u", i ? "," : "",
                             b & 0x80 ? "2*" : "", (b & 0x7f) % range);
  }
}

static int add_port(struct acs_sdf_graph *g, struct in *in, int32_t actor, int dir,
                    int32_t *port, struct acs_diag *d)
{
  static unsigned serial;
  struct acs_sdf_seq rate;
  char text[64], name[32];
  int err;

  seq_text(in, 5, text, sizeof(text));
  if ((err = acs_sdf_seq_parse(g, text, &rate, d)) < 0)
    return err;
  snprintf(name, sizeof(name), "p%u", serial++);
  *port = acs_sdf_add_port(g, actor, name, dir, &rate, 1);
  return *port < 0 ? *port : ACS_OK;
}

static int build_model(struct acs_sdf_graph *g, struct in *in, struct acs_diag *d)
{
  unsigned na = 1 + next(in, 5), nc, nf;
  char text[64], name[32];
  int err = ACS_OK;

  g->iterations = 1 + next(in, 4);
  for (unsigned a = 0; a < na && err == ACS_OK; a++) {
    snprintf(name, sizeof(name), "a%u", a);
    if (acs_sdf_add_actor(g, name, "k", 1) < 0)
      return ACS_ENOMEM;
    seq_text(in, 16, text, sizeof(text));
    err = acs_sdf_seq_parse(g, text, &g->actors[a].exec, d);
  }
  nc = next(in, 8);
  for (unsigned c = 0; c < nc && err == ACS_OK; c++) {
    int32_t src = (int32_t)next(in, na), dst = (int32_t)next(in, na), sp, dp;
    if ((err = add_port(g, in, src, ACS_SDF_OUT, &sp, d)) < 0 ||
        (err = add_port(g, in, dst, ACS_SDF_IN, &dp, d)) < 0)
      break;
    snprintf(name, sizeof(name), "c%u", c);
    if (acs_sdf_add_channel(g, name, sp, dp, next(in, 8), 1) < 0)
      return ACS_ENOMEM;
    g->ports[dp].absorb = next(in, 3);
  }
  nf = next(in, 3);
  for (unsigned f = 0; f < nf && err == ACS_OK; f++) {
    int32_t actor = (int32_t)next(in, na), port;
    err = add_port(g, in, actor, next(in, 2) ? ACS_SDF_OUT : ACS_SDF_IN, &port, d);
  }
  return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct in in = {data, size};
  struct acs_sdf_graph g;
  struct acs_graph dag;
  struct acs_diag d;
  int err;

  /* Tighter limits: this builder costs much per op, and its limit checks
   * are the same code at any value (fuzz.h). */
  acs_fuzz_init_limits(ACS_FUZZ_SMALL_OPS, ACS_FUZZ_SMALL_EDGES);
  acs_diag_init(&d);
  if (acs_sdf_init(&g, "fuzz", "fuzz.xml") < 0)
    return 0;
  err = build_model(&g, &in, &d);
  if (err == ACS_OK) {
    err = acs_sdf_finalize(&g, &d);
    acs_fuzz_check_refusal(err, &d);
  }
  if (err == ACS_OK) {
    err = acs_sdf_build_dag(&g, &dag, &d);
    acs_fuzz_check_refusal(err, &d);
    if (err == ACS_OK) {
      if (dag.nops != g.total_firings || !dag.finalized)
        acs_fuzz_fail("the firing DAG does not have one op per firing", NULL);
      acs_graph_destroy(&dag);
    }
  }
  acs_sdf_destroy(&g);
  return 0;
}
