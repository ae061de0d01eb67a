/*
 * cmd_workload.c - `acsim workload FILE`: what a workload is made of.
 *
 * For a layer graph (ONNX) or a SCALE-Sim table: one line per layer (name,
 * op, input and output shapes, MACs, weight bytes), the totals (MACs,
 * parameters) and the naive working set, the largest inputs + outputs of a
 * single layer at the platform's element size; then, per platform row, the
 * op DAG the schedulers get. For other formats, the op DAG only.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/model/layer.h"

static void print_help(void)
{
  printf("usage: acsim workload WORKLOAD [-p PLATFORM.csv] [--set k=v]... [--max K=N]... [-q]\n"
         "\n"
         "Describes a workload: for an ONNX model or a SCALE-Sim table, its layer\n"
         "table (name, op, input and output shapes, MACs, weight bytes), the totals\n"
         "(MACs, parameters) and the naive working set (the largest inputs + outputs\n"
         "of one layer); then, for each platform row, the op graph the schedulers\n"
         "see (ops, edges, tiled layers). Bytes are at the platform's bytes_per_elem.\n"
         "\n"
         "  -p PLATFORM.csv   platform rows (default platforms/default.csv)\n"
         "  --set k=v         override a platform parameter on every row\n"
         "  --max K=N         raise a limit on what an input may cost (ops, edges,\n"
         "                    bytes, isl_ops; docs/fuzzing.md), for the whole command\n"
         "  -q, --quiet       no warnings about inconsistent layer tables\n");
}

/* "1.23 G" style, for the eye; exact figures are printed beside it. */
static const char *si(int64_t v, char *buf, size_t size)
{
  static const char *const unit[] = { "", " k", " M", " G", " T", " P" };
  double x = (double)v;
  int u = 0;
  while (x >= 1000 && u < 5) {
    x /= 1000;
    u++;
  }
  snprintf(buf, size, u ? "%.2f%s" : "%.0f%s", x, unit[u]);
  return buf;
}

static void shapes_of(const struct acs_lgraph *lg, const struct acs_lnode *n, int data,
                      char *buf, size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  int cnt = data ? n->nin : n->nout;
  for (int k = 0; k < cnt && len + 1 < size; k++) {
    int32_t t = data ? n->in[k] : n->out[k];
    char sb[128];
    if (t < 0 || (data && n->role[k] != ACS_LR_DATA))
      continue;
    acs_ltensor_shape_text(&lg->t[t], sb, sizeof(sb));
    len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "", sb);
  }
  if (!buf[0])
    snprintf(buf, size, "-");
}

static int print_layer_graph(const struct acs_lgraph *lg, const struct acs_platform *p)
{
  int64_t bpe = (int64_t)acs_platform_get(p, ACS_P_BYTES_PER_ELEM);
  struct acs_lgraph_totals tot;
  char a[64], b[64], ins[256], out[256], op[128];
  int rc = acs_lgraph_totals(lg, bpe, &tot);
  if (rc != 0)
    return rc;
  printf("%-28s %-30s %-24s %-18s %14s %12s\n", "node", "op", "inputs", "output", "MACs/ops",
         "weight_B");
  for (int32_t i = 0; i < lg->nnodes; i++) {
    int32_t v = lg->topo[i];
    const struct acs_lnode *n = &lg->n[v];
    struct acs_lbox box;
    int64_t work, wb;
    acs_ltensor_box(&lg->t[n->out[0]], &box);
    if ((rc = acs_lnode_work(lg, v, &box, &work)) != 0)
      return rc;
    if (acs_mul_i64(acs_lnode_weight_elems(lg, v), bpe, &wb) != 0)
      return ACS_ERANGE;
    acs_lnode_op_text(n, op, sizeof(op));
    shapes_of(lg, n, 1, ins, sizeof(ins));
    shapes_of(lg, n, 0, out, sizeof(out));
    printf("%-28s %-30s %-24s %-18s %14lld%s %11lld\n", n->name, op, ins, out,
           (long long)work, acs_lop_is_mac(n->op) ? " " : "*", (long long)wb);
  }
  printf("(* operations other than multiply-accumulates; views cost nothing)\n");
  printf("total: %s MACs (%lld), %s other operations (%lld), %s parameters (%lld)\n",
         si(tot.macs, a, sizeof(a)), (long long)tot.macs, si(tot.ops, b, sizeof(b)),
         (long long)tot.ops, si(tot.params, ins, sizeof(ins)), (long long)tot.params);
  return ACS_OK;
}

static void print_row(const struct acs_workload *w, const struct acs_platform *p,
                      const struct acs_graph *g)
{
  int64_t bpe = (int64_t)acs_platform_get(p, ACS_P_BYTES_PER_ELEM);
  const struct acs_lgraph *lg = acs_workload_lgraph(w);
  int kinds[ACS_OP__COUNT] = { 0 };
  for (int32_t i = 0; i < g->nops; i++)
    kinds[g->ops[i].kind]++;
  printf("platform %s (bytes_per_elem %lld, CMX %lld B): op graph %d ops (%d dpu, %d shave, "
         "%d dma, %d sync), %d edges\n", p->name, (long long)bpe,
         (long long)acs_platform_cmx_bytes(p), (int)g->nops, kinds[ACS_OP_DPU],
         kinds[ACS_OP_SHAVE], kinds[ACS_OP_DMA], kinds[ACS_OP_SYNC], (int)g->nedges);
  if (!lg)
    return;
  struct acs_lgraph_totals tot;
  if (acs_lgraph_totals(lg, bpe, &tot) != 0)
    return;
  printf("  weights %lld B; naive working set %lld B", (long long)tot.weight_bytes,
         (long long)tot.naive_ws);
  if (tot.naive_node >= 0)
    printf(" (node %s: its inputs and outputs)", lg->n[tot.naive_node].name);
  printf("\n");
}

static int describe(const char *path, const struct acs_cli_platforms *plats, int quiet)
{
  struct acs_workload *w = NULL;
  struct acs_diag d;
  acs_diag_init(&d);
  d.warn = quiet ? NULL : acs_cli_warn;
  int rc = acs_workload_load(path, &w, &d);
  if (rc != 0) {
    acs_cli_error(&d);
    return rc == ACS_ENOMEM ? ACS_EXIT_FAIL : ACS_EXIT_USAGE;
  }
  const struct acs_lgraph *lg = acs_workload_lgraph(w);
  printf("%s (%s): kind %s", w->name, path, acs_wl_kind_name(w->kind));
  if (lg) {
    printf(", %d nodes, %d tensors", (int)lg->nnodes, (int)lg->ntensors);
    if (w->nlayers > 0)
      printf(" from %zu SCALE-Sim rows", w->nlayers);
    printf(", layout NCHW\n");
    rc = print_layer_graph(lg, &plats->rows[0]);
  } else {
    printf("\n");
  }
  for (size_t i = 0; i < plats->n && rc == 0; i++) {
    struct acs_graph g;
    acs_diag_init(&d);
    rc = acs_workload_build(w, &plats->rows[i], &g, &d);
    if (rc != 0) {
      acs_cli_error(&d);
      break;
    }
    print_row(w, &plats->rows[i], &g);
    acs_graph_destroy(&g);
  }
  acs_workload_free(w);
  return rc == 0 ? ACS_EXIT_OK : rc == ACS_ENOMEM ? ACS_EXIT_FAIL : ACS_EXIT_USAGE;
}

int acs_cmd_workload(int argc, char **argv)
{
  static const struct acs_cli_spec spec = {.common = "pSqhL", .print_help = print_help};
  struct acs_cli_args a = {0};
  struct acs_cli_platforms plats;
  int err, rc = ACS_EXIT_USAGE;
  char buf[4096];

  if ((err = acs_cli_parse("workload", argc, argv, &spec, &a, NULL)) != ACS_OK) {
    rc = err > 0 ? ACS_EXIT_OK : ACS_EXIT_USAGE;
    goto out;
  }
  if (optind != argc - 1) {
    rc = acs_cli_usage("workload", optind < argc ? "one workload file, please"
                                                 : "which workload? (WORKLOAD is required)");
    goto out;
  }
  if (acs_cli_load_platforms(a.platform, a.sets.v, a.sets.n, &plats) < 0)
    goto out;
  rc = describe(acs_cli_resolve(argv[optind], buf, sizeof(buf)), &plats, a.quiet);
  free(plats.rows);
out:
  acs_strv_free(&a.sets);
  return rc;
}
