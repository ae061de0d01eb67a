/*
 * test-onnx.c - the ONNX reader: the shipped networks against published
 * figures, every model of Debian's libonnx-testdata (the ONNX project's own
 * test suite) against the outputs its reference run produced, bad and
 * truncated files, and the op DAG the networks become, scheduled and
 * verified.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/load/load.h"
#include "core/load/onnx.pb-c.h"
#include "core/model/layer.h"
#include "core/model/problem.h"
#include "core/sched/sched.h"
#include "tests/testutil.h"

#define TESTDATA "/usr/share/libonnx-testdata/data"

/* ---- helpers ---- */

static uint8_t *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  struct stat st;
  if (!f)
    return NULL;
  if (fstat(fileno(f), &st) != 0) {
    fclose(f);
    return NULL;
  }
  uint8_t *buf = malloc((size_t)st.st_size + 1);
  cr_assert_not_null(buf);
  *len = fread(buf, 1, (size_t)st.st_size, f);
  fclose(f);
  return buf;
}

static void load_net(const char *rel, struct acs_lgraph *lg)
{
  struct acs_diag d;
  size_t len;
  uint8_t *buf = slurp(tu_path(rel), &len);
  char msg[2048];
  cr_assert_not_null(buf, "cannot read %s", rel);
  acs_diag_init(&d);
  int rc = acs_onnx_read_buffer(buf, len, "net", rel, lg, &d);
  acs_diag_format(&d, msg, sizeof(msg));
  cr_assert_eq(rc, ACS_OK, "%s: %s", rel, msg);
  free(buf);
}

/* Schedules g with `name` on platform p and checks the schedule. */
static void schedule_verified(const struct acs_graph *g, const struct acs_platform *p,
                              const char *name)
{
  const struct acs_sched_ops *ops = acs_sched_find(name);
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_sched_ctx ctx;
  struct acs_diag d;
  cr_assert_not_null(ops);
  void *opts = calloc(1, ops->opts_size + 1);
  cr_assert_not_null(opts);
  cr_assert_eq(acs_sched_opts_defaults(ops, opts), ACS_OK);
  memset(&ctx, 0, sizeof(ctx));
  acs_diag_init(&d);
  cr_assert_eq(acs_problem_init(&pb, g, p, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_schedule_init_problem(&s, &pb), ACS_OK);
  int rc = ops->schedule(&pb, opts, &ctx, &s, &d);
  cr_assert_eq(rc, ACS_OK, "%s on %s: %s (%s)", name, g->name, acs_strerror(rc), d.msg);
  tu_assert_verified(&s);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  free(opts);
}

static void platform_with(struct acs_platform *p, const char *const *sets)
{
  struct acs_diag d;
  acs_platform_init(p);
  acs_diag_init(&d);
  for (size_t i = 0; sets && sets[i]; i++)
    cr_assert_eq(acs_platform_set_kv(p, sets[i], &d), ACS_OK, "%s", d.msg);
}

/* ---- libonnx-testdata ---- */

/* Outcome counts, by reason for the refused. */
struct tally {
  int models, imported, refused, scheduled, bound;
  int reason[8];
};
static const char *const reason_name[8] = {
  "unsupported op", "input that is not a constant (a shape, scales or pads fed at run "
  "time)", "non-tensor types (sequences, maps, optionals)", "unknown or empty "
  "dimensions", "unsupported attribute or attribute value", "training or legacy forms",
  "protobuf decoding failed", "other",
};

static int classify_refusal(const char *msg)
{
  if (strstr(msg, "unsupported op") || strstr(msg, "ops of domain"))
    return 0;
  if (strstr(msg, "must be a constant"))
    return 1;
  if (strstr(msg, "not a tensor") || strstr(msg, "non-tensor"))
    return 2;
  if (strstr(msg, "unknown dimension") || strstr(msg, "below 1") ||
      strstr(msg, "empty") || strstr(msg, "is not supported (") || strstr(msg, "= 0 "))
    return 3;
  if (strstr(msg, "attribute"))
    return 4;
  if (strstr(msg, "training") || strstr(msg, "legacy") || strstr(msg, "spatial"))
    return 5;
  if (strstr(msg, "protobuf"))
    return 6;
  return 7;
}

/* The expected output shapes are the dims of test_data_set_0/output_<k>.pb,
 * written by ONNX's reference run of the model. */
static void check_outputs(const char *dir, const uint8_t *model, size_t mlen,
                          const struct acs_lgraph *lg)
{
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, mlen, model);
  cr_assert_not_null(m);
  for (size_t k = 0; k < m->graph->n_output; k++) {
    char path[4096];
    size_t len;
    snprintf(path, sizeof(path), "%s/test_data_set_0/output_%zu.pb", dir, k);
    uint8_t *buf = slurp(path, &len);
    cr_assert_not_null(buf, "%s: missing", path);
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, buf);
    cr_assert_not_null(tp, "%s: not a TensorProto", path);
    int32_t t = acs_lgraph_find_tensor(lg, m->graph->output[k]->name);
    cr_assert_geq(t, 0, "%s: output %zu ('%s') is not in the layer graph", dir, k,
                  m->graph->output[k]->name);
    const struct acs_ltensor *T = &lg->t[t];
    char want[256] = "", got[256];
    for (size_t i = 0; i < tp->n_dims; i++)
      snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%lld", i ? "x" : "",
               (long long)tp->dims[i]);
    acs_ltensor_shape_text(T, got, sizeof(got));
    if (tp->n_dims == 0)
      snprintf(want, sizeof(want), "scalar");
    cr_assert_str_eq(got, want, "%s: output %zu ('%s') is %s, the reference %s", dir, k,
                     T->name, got, want);
    onnx__tensor_proto__free_unpacked(tp, NULL);
    free(buf);
  }
  onnx__model_proto__free_unpacked(m, NULL);
}

/*
 * When a model was refused because a parameter input (a Reshape's shape,
 * Pad's pads, Resize's scales...) is fed at run time, the test binds that
 * graph input to the value the test feeds (test_data_set_0/input_<k>.pb)
 * as an initializer, and imports again: the shape rules of those ops get
 * checked against the reference too. Returns the packed model, or NULL.
 */
static uint8_t *bind_input(const char *dir, const uint8_t *model, size_t mlen, const char *msg,
                           size_t *out_len)
{
  const char *end = strstr(msg, "' must be a constant");
  if (!end)
    return NULL;
  const char *start = end;
  while (start > msg && start[-1] != '\'')
    start--;
  char name[256];
  snprintf(name, sizeof(name), "%.*s", (int)(end - start), start);
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, mlen, model);
  cr_assert_not_null(m);
  Onnx__GraphProto *g = m->graph;
  size_t k;
  for (k = 0; k < g->n_input && strcmp(g->input[k]->name, name) != 0; k++)
    ;
  uint8_t *packed = NULL;
  char path[4096];
  size_t len;
  snprintf(path, sizeof(path), "%s/test_data_set_0/input_%zu.pb", dir, k);
  uint8_t *buf = k < g->n_input ? slurp(path, &len) : NULL;
  Onnx__TensorProto *tp = buf ? onnx__tensor_proto__unpack(NULL, len, buf) : NULL;
  if (tp) {
    Onnx__TensorProto **old = g->initializer;
    Onnx__TensorProto **inits = calloc(g->n_initializer + 1, sizeof(*inits));
    cr_assert_not_null(inits);
    if (g->n_initializer)
      memcpy(inits, old, g->n_initializer * sizeof(*inits));
    char *old_name = tp->name;
    tp->name = name;
    inits[g->n_initializer++] = tp;
    g->initializer = inits;
    *out_len = onnx__model_proto__get_packed_size(m);
    packed = malloc(*out_len + 1);
    cr_assert_not_null(packed);
    onnx__model_proto__pack(m, packed);
    g->initializer = old;
    g->n_initializer--;
    free(inits);
    tp->name = old_name;
    onnx__tensor_proto__free_unpacked(tp, NULL);
  }
  free(buf);
  onnx__model_proto__free_unpacked(m, NULL);
  return packed;
}

static void one_model(const char *dir, struct tally *t, FILE *log)
{
  char path[4096], msg[2048];
  size_t len;
  struct acs_lgraph lg;
  struct acs_diag d;
  snprintf(path, sizeof(path), "%s/model.onnx", dir);
  uint8_t *buf = slurp(path, &len);
  if (!buf)
    return;
  t->models++;
  acs_diag_init(&d);
  int rc = acs_onnx_read_buffer(buf, len, "m", path, &lg, &d), bound = 0;
  for (int tries = 0; rc != 0 && tries < 4; tries++) {
    size_t blen;
    uint8_t *b2 = bind_input(dir, buf, len, d.msg, &blen);
    if (!b2)
      break;
    free(buf);
    buf = b2;
    len = blen;
    bound = 1;
    acs_diag_init(&d);
    rc = acs_onnx_read_buffer(buf, len, "m", path, &lg, &d);
  }
  t->bound += bound && rc == 0;
  if (rc != 0) {
    /* Refused: one located message naming the file. */
    acs_diag_format(&d, msg, sizeof(msg));
    cr_assert(rc == ACS_EPARSE || rc == ACS_EFORMAT || rc == ACS_ERANGE || rc == ACS_ECYCLE,
              "%s: rc %d (%s)", path, rc, msg);
    cr_assert_str_eq(d.file, path);
    cr_assert(d.msg[0] != '\0', "%s: refused without a message", path);
    int r = classify_refusal(d.msg);
    t->refused++;
    t->reason[r]++;
    fprintf(log, "refused %s: %s\n", path, d.msg);
    free(buf);
    return;
  }
  t->imported++;
  fprintf(log, "imported %s%s\n", path, bound ? " (parameters bound)" : "");
  check_outputs(dir, buf, len, &lg);
  /* Every imported model becomes an op DAG that schedules and verifies. */
  struct acs_graph g;
  struct acs_platform p;
  platform_with(&p, NULL);
  acs_diag_init(&d);
  rc = acs_lgraph_build(&lg, &p, &g, &d);
  cr_assert_eq(rc, ACS_OK, "%s: build: %s", path, d.msg);
  schedule_verified(&g, &p, "list");
  t->scheduled++;
  acs_graph_destroy(&g);
  acs_lgraph_destroy(&lg);
  free(buf);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
  return strcmp((*a)->d_name, (*b)->d_name);
}

Test(onnx_testdata, every_model_imports_with_the_reference_shapes_or_is_refused,
     .timeout = 600)
{
  struct stat st;
  struct tally t;
  memset(&t, 0, sizeof(t));
  if (stat(TESTDATA, &st) != 0)
    cr_skip_test("libonnx-testdata is not installed (" TESTDATA "): apt-get install "
                 "libonnx-testdata");
  static const char *const cats[] = { "node", "pytorch-converted", "pytorch-operator",
                                      "simple", "real" };
  char logpath[512];
  snprintf(logpath, sizeof(logpath), "%s/tests/onnx-testdata.txt", ACS_BUILDDIR);
  FILE *log = fopen(logpath, "w");
  cr_assert_not_null(log, "cannot write %s", logpath);
  for (size_t c = 0; c < sizeof(cats) / sizeof(*cats); c++) {
    char base[1024];
    struct dirent **ents;
    snprintf(base, sizeof(base), "%s/%s", TESTDATA, cats[c]);
    int n = scandir(base, &ents, NULL, by_name);
    for (int i = 0; i < n; i++) {
      char dir[2048];
      snprintf(dir, sizeof(dir), "%s/%s", base, ents[i]->d_name);
      if (ents[i]->d_name[0] != '.')
        one_model(dir, &t, log);
      free(ents[i]);
    }
    if (n >= 0)
      free(ents);
  }
  fprintf(log, "\n%d models: %d imported with the reference shapes (%d of them after "
          "binding run-time parameters to the test's inputs; %d scheduled and verified), "
          "%d refused:\n", t.models, t.imported, t.bound, t.scheduled, t.refused);
  for (int r = 0; r < 8; r++)
    fprintf(log, "  %4d %s\n", t.reason[r], reason_name[r]);
  fclose(log);
  cr_log_info("%d models: %d imported with the reference shapes, %d refused (details in %s)",
              t.models, t.imported, t.refused, logpath);
  /* The package holds about a thousand models; a much smaller count means
   * the walk went wrong. */
  cr_assert_gt(t.models, 900);
  cr_assert_eq(t.imported + t.refused, t.models);
  cr_assert_geq(t.imported, 500); /* 536 with libonnx-testdata 1.12.0-2 */
}

/* ---- the shipped networks against published figures ---- */

/*
 * Published figures (multiply-accumulates of conv and fully connected
 * layers, learnable parameters) and the rounding they are published with.
 * Papers: MobileNet v1 (Howard et al. 2017, Table 8: 569 M mult-adds, 4.2 M
 * parameters), MobileNet v2 (Sandler et al. 2018, Table 4: 300 M, 3.4 M),
 * ResNet (He et al. 2016, Table 1: 1.8 and 3.8 GFLOPs as multiply-adds;
 * torchvision's ResNet-50 strides the 3x3 conv, 4.1 G), darknet's
 * yolov2-tiny-voc.cfg (6.97 BFLOPs = 2 x MACs at 416). Exact counts:
 * torchvision's model documentation (num_params) and Keras' MobileNet
 * summary (4,231,976 trainable parameters), which include a
 * BatchNormalization's scale and bias but not its running statistics, as
 * acs_lgraph_totals does.
 */
Test(onnx_nets, macs_and_parameters_match_published_figures)
{
  static const struct {
    const char *file;
    double macs, macs_unit;     /* published, and the unit it is rounded to */
    double params, params_unit;
    int64_t exact_params;       /* a framework's exact count, 0 = none */
  } nets[] = {
    { "workloads/onnx/mobilenet_v1.onnx", 569e6, 1e6, 4.2e6, 0.1e6, 4231976 },
    { "workloads/onnx/mobilenet_v2.onnx", 300e6, 10e6, 3.5e6, 0.1e6, 3504872 },
    { "workloads/onnx/resnet18.onnx", 1.8e9, 0.1e9, 11.7e6, 0.1e6, 11689512 },
    { "workloads/onnx/resnet50.onnx", 4.1e9, 0.1e9, 25.6e6, 0.1e6, 25557032 },
    { "workloads/onnx/squeezenet1_1.onnx", 0.35e9, 0.01e9, 1.24e6, 0.01e6, 1235496 },
    { "workloads/onnx/alexnet.onnx", 0.71e9, 0.01e9, 61.1e6, 0.1e6, 61100840 },
    { "workloads/onnx/tiny_yolov2.onnx", 6.97e9 / 2, 0.01e9 / 2, 0, 0, 0 },
  };
  for (size_t i = 0; i < sizeof(nets) / sizeof(*nets); i++) {
    struct acs_lgraph lg;
    struct acs_lgraph_totals tot;
    load_net(nets[i].file, &lg);
    cr_assert_eq(acs_lgraph_totals(&lg, 1, &tot), ACS_OK);
    double macs = (double)tot.macs, params = (double)tot.params;
    cr_assert(macs >= nets[i].macs - nets[i].macs_unit / 2 &&
              macs < nets[i].macs + nets[i].macs_unit / 2,
              "%s: %lld MACs, published %g", nets[i].file, (long long)tot.macs, nets[i].macs);
    if (nets[i].params > 0)
      cr_assert(params >= nets[i].params - nets[i].params_unit / 2 &&
                params < nets[i].params + nets[i].params_unit / 2,
                "%s: %lld parameters, published %g", nets[i].file, (long long)tot.params,
                nets[i].params);
    if (nets[i].exact_params)
      cr_assert_eq(tot.params, nets[i].exact_params, "%s: %lld parameters", nets[i].file,
                   (long long)tot.params);
    acs_lgraph_destroy(&lg);
  }
}

/* Seed 002: "for Mobilenetv1 when run naively it requires in excess of
 * 1.2MB of memory": the first pointwise layer reads 112x112x32 and writes
 * 112x112x64 int8 elements, 401408 + 802816 = 1204224 bytes. */
Test(onnx_nets, mobilenet_v1_naive_working_set_is_the_seeds_1_2_mb)
{
  struct acs_lgraph lg;
  struct acs_lgraph_totals tot;
  load_net("workloads/onnx/mobilenet_v1.onnx", &lg);
  cr_assert_eq(acs_lgraph_totals(&lg, 1, &tot), ACS_OK);
  cr_assert_eq(tot.naive_ws, 112 * 112 * 32 + 112 * 112 * 64);
  cr_assert_eq(tot.naive_ws, 1204224);
  cr_assert_str_eq(lg.n[tot.naive_node].name, "block1.pw");
  /* At two bytes per element it doubles. */
  cr_assert_eq(acs_lgraph_totals(&lg, 2, &tot), ACS_OK);
  cr_assert_eq(tot.naive_ws, 2 * 1204224);
  acs_lgraph_destroy(&lg);
}

/* Every shipped network builds at several CMX sizes into an op DAG whose
 * compute ops fit, whose work adds up to the network's, and that list and
 * spill schedule into verified schedules. */
Test(onnx_nets, networks_build_tile_and_schedule_verified, .timeout = 300)
{
  static const char *const files[] = {
    "mobilenet_v1", "mobilenet_v2", "resnet18", "resnet50", "squeezenet1_1",
    "tiny_yolov2", "unet", "alexnet",
  };
  static const char *const cmx[] = { "cmx_kib=2048", "cmx_kib=256", "cmx_kib=64" };
  for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
    char rel[256];
    struct acs_lgraph lg;
    struct acs_lgraph_totals tot;
    snprintf(rel, sizeof(rel), "workloads/onnx/%s.onnx", files[i]);
    load_net(rel, &lg);
    cr_assert_eq(acs_lgraph_totals(&lg, 1, &tot), ACS_OK);
    for (size_t c = 0; c < sizeof(cmx) / sizeof(*cmx); c++) {
      const char *sets[] = { cmx[c], NULL };
      struct acs_platform p;
      struct acs_graph g;
      struct acs_diag d;
      int64_t work = 0;
      platform_with(&p, sets);
      acs_diag_init(&d);
      cr_assert_eq(acs_lgraph_build(&lg, &p, &g, &d), ACS_OK, "%s %s: %s", rel, cmx[c], d.msg);
      for (int32_t o = 0; o < g.nops; o++) {
        if (g.ops[o].kind == ACS_OP_DPU || g.ops[o].kind == ACS_OP_SHAVE) {
          work += g.ops[o].macs;
          cr_assert_leq(acs_graph_demand(&g, o, 2), acs_platform_cmx_bytes(&p), "%s %s: %s",
                        rel, cmx[c], g.ops[o].name);
        }
      }
      cr_assert_eq(work, tot.macs + tot.ops, "%s %s: the tiles' work", rel, cmx[c]);
      if (c < 2) {
        schedule_verified(&g, &p, "list");
        schedule_verified(&g, &p, "spill");
      }
      acs_graph_destroy(&g);
    }
    acs_lgraph_destroy(&lg);
  }
}

/* ---- bad files: one located message each ---- */

static void refused(const char *rel, int want_rc, const char *msg)
{
  struct acs_workload *w = (void *)1;
  struct acs_diag d;
  acs_diag_init(&d);
  int rc = acs_workload_load(tu_path(rel), &w, &d);
  cr_assert_null(w);
  cr_assert_eq(rc, want_rc, "%s: rc %d (%s)", rel, rc, d.msg);
  cr_assert_str_eq(d.file, tu_path(rel));
  cr_assert_eq(d.line, 0);
  cr_assert_str_eq(d.msg, msg);
}

#define TD(f) "tests/data/onnx/" f

Test(onnx_errors, unsupported_op_names_the_node_and_op)
{
  refused(TD("lstm.onnx"), ACS_EPARSE,
          "node 'lstm1' (LSTM): unsupported op (README \"ONNX models\" lists the supported ones)");
  refused(TD("domain.onnx"), ACS_EPARSE,
          "node 'fused' (FusedConv): ops of domain 'com.microsoft' are not supported");
}

Test(onnx_errors, unknown_dimension_names_the_reader_and_the_symbol)
{
  refused(TD("symbolic.onnx"), ACS_EPARSE,
          "node 'conv' (Conv): input 'x' has an unknown dimension 0 ('N')");
}

Test(onnx_errors, declared_shapes_are_checked_against_inference)
{
  /* 8x8 input, 3x3 kernel, no padding: 6x6, not the 8x8 the file declares. */
  refused(TD("declared.onnx"), ACS_EPARSE,
          "node 'conv' (Conv): output 'y' is 1x4x6x6 but the file declares 1x4x8x8");
}

Test(onnx_errors, inconsistent_shapes_and_attributes_are_located)
{
  refused(TD("channels.onnx"), ACS_EPARSE,
          "node 'conv' (Conv): input has 3 channels but the weights expect 2 x group 1");
  refused(TD("attr_type.onnx"), ACS_EPARSE,
          "node 'conv' (Conv): attribute 'kernel_shape' must be a list of integers");
  refused(TD("runtime_shape.onnx"), ACS_EPARSE,
          "node 'reshape' (Reshape): shape 's' must be a constant (an initializer or a "
          "Constant node)");
}

Test(onnx_errors, graph_structure_errors)
{
  refused(TD("cycle.onnx"), ACS_ECYCLE, "the nodes form a cycle: 'first' <- 'second' <- 'first'");
  refused(TD("undefined.onnx"), ACS_EPARSE,
          "node 'relu' (Relu): reads 'ghost', which no initializer, graph input or node defines");
  refused(TD("no_opset.onnx"), ACS_EPARSE,
          "the model imports no opset of the default ONNX domain");
}

Test(onnx_errors, control_bytes_in_names_are_masked)
{
  refused(TD("control.onnx"), ACS_EPARSE,
          "node 'bad?[31mname?' (Gather): unsupported op (README \"ONNX models\" lists the "
          "supported ones)");
}

Test(onnx_errors, overflowing_sizes_are_refused)
{
  refused(TD("huge.onnx"), ACS_ERANGE,
          "node 'relu' (Relu): input 'x' has more than 576460752303423487 elements");
}

Test(onnx_errors, empty_and_non_onnx_files)
{
  char path[512];
  snprintf(path, sizeof(path), "%s/empty.onnx", tu_tmpdir());
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fclose(f);
  struct acs_workload *w;
  struct acs_diag d;
  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load(path, &w, &d), ACS_EFORMAT);
  cr_assert_str_eq(d.msg, "empty file: not an ONNX model");
  /* A CSV file renamed .onnx is not a protobuf message. */
  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load(tu_path("workloads/dnn/alexnet.csv"), &w, &d), ACS_OK);
  acs_workload_free(w);
  snprintf(path, sizeof(path), "%s/table.onnx", tu_tmpdir());
  f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs("Layer name, IFMAP Height\nConv1, 224\n", f);
  fclose(f);
  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load(path, &w, &d), ACS_EFORMAT);
  cr_assert_str_eq(d.msg, "not an ONNX model, or a truncated or corrupt one (protobuf "
                   "decoding failed)");
  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load("/nonexistent/x.onnx", &w, &d), ACS_EIO);
  cr_assert_str_eq(d.msg, "cannot open: No such file or directory");
}

/*
 * Every prefix of a real model, and seeded random corruptions of it, either
 * import or are refused with a message naming the file: never a crash, a
 * leak or a read out of bounds (run under the sanitizers too).
 */
Test(onnx_errors, truncated_and_corrupt_files_never_crash, .timeout = 300)
{
  static const char *const rel = "workloads/onnx/squeezenet1_1.onnx";
  size_t len, ok = 0, bad = 0;
  uint8_t *buf = slurp(tu_path(rel), &len);
  cr_assert_not_null(buf);
  for (size_t cut = 0; cut < len; cut++) {
    struct acs_lgraph lg;
    struct acs_diag d;
    acs_diag_init(&d);
    int rc = acs_onnx_read_buffer(buf, cut, "t", rel, &lg, &d);
    if (rc == 0) {
      ok++;
      acs_lgraph_destroy(&lg);
    } else {
      bad++;
      cr_assert_str_eq(d.file, rel);
      cr_assert(d.msg[0], "prefix %zu: no message", cut);
    }
  }
  /* No strict prefix is a whole model: the graph ends before the opset. */
  cr_assert_eq(ok, 0, "%zu prefixes imported", ok);
  struct acs_rng rng;
  acs_rng_seed(&rng, 11);
  uint8_t *copy = malloc(len);
  cr_assert_not_null(copy);
  for (int trial = 0; trial < 3000; trial++) {
    struct acs_lgraph lg;
    struct acs_diag d;
    memcpy(copy, buf, len);
    int flips = 1 + (int)acs_rng_below(&rng, 4);
    for (int i = 0; i < flips; i++)
      copy[acs_rng_below(&rng, len)] = (uint8_t)acs_rng_below(&rng, 256);
    acs_diag_init(&d);
    int rc = acs_onnx_read_buffer(copy, len, "t", rel, &lg, &d);
    if (rc == 0)
      acs_lgraph_destroy(&lg);
    else
      cr_assert(d.msg[0], "trial %d: no message", trial);
  }
  free(copy);
  free(buf);
}

/* ---- folding and fusing ---- */

Test(onnx_fuse, batch_norm_folds_and_activations_fuse_into_their_producer)
{
  struct acs_lgraph lg;
  load_net(TD("fuse.onnx"), &lg);
  /* conv -> bn -> relu becomes one node producing relu's output 'r'; the
   * add's relu fuses into the add; the sigmoid reads r, which two nodes
   * read, so it stays. */
  cr_assert_eq(lg.nnodes, 3);
  const struct acs_lnode *c = &lg.n[lg.topo[0]];
  char op[128];
  acs_lnode_op_text(c, op, sizeof(op));
  cr_assert_str_eq(c->name, "conv");
  cr_assert_str_eq(op, "Conv+BatchNormalization+Relu");
  cr_assert_str_eq(lg.t[c->out[0]].name, "r");
  /* The BN's bias became the conv's: W (4x4x3x3) and B (4). */
  cr_assert_eq(c->nin, 3);
  cr_assert_str_eq(lg.t[c->in[2]].name, "bn.bias");
  cr_assert_eq(acs_lnode_weight_elems(&lg, lg.topo[0]), 4 * 4 * 9 + 4);
  cr_assert_eq(c->folded_params, 4); /* the BN's scale */
  int32_t y = acs_lgraph_find_tensor(&lg, "y"), z = acs_lgraph_find_tensor(&lg, "z");
  cr_assert_geq(y, 0);
  cr_assert_geq(z, 0);
  acs_lnode_op_text(&lg.n[lg.t[y].producer], op, sizeof(op));
  cr_assert_str_eq(op, "Add+Relu");
  acs_lnode_op_text(&lg.n[lg.t[z].producer], op, sizeof(op));
  cr_assert_str_eq(op, "Sigmoid");
  /* The intermediate tensors are gone, the network outputs kept. */
  cr_assert_lt(acs_lgraph_find_tensor(&lg, "c"), 0);
  cr_assert_lt(acs_lgraph_find_tensor(&lg, "b"), 0);
  cr_assert_lt(acs_lgraph_find_tensor(&lg, "bn.mean"), 0);
  cr_assert_eq(lg.noutputs, 2);
  /* Parameters as frameworks count them: 144 + 4 bias + 4 scale. */
  struct acs_lgraph_totals tot;
  cr_assert_eq(acs_lgraph_totals(&lg, 1, &tot), ACS_OK);
  cr_assert_eq(tot.params, 152);
  cr_assert_eq(tot.weight_bytes, 148);
  acs_lgraph_destroy(&lg);
}

/* ---- from layers to ops ---- */

static int32_t op_id(const struct acs_graph *g, const char *name)
{
  int32_t id = acs_graph_find_op(g, name);
  cr_assert_geq(id, 0, "no op '%s'", name);
  return id;
}

static int has_edge(const struct acs_graph *g, const char *a, const char *b)
{
  int32_t s = op_id(g, a), t = op_id(g, b);
  for (int32_t e = 0; e < g->nedges; e++)
    if (g->edges[e].src == s && g->edges[e].dst == t)
      return 1;
  return 0;
}

/* The work of the ops made for node `node` (its workloads: `<node>`,
 * `<node>.<k>` or `<node>.t<p>.<k>`). */
static int64_t node_work(const struct acs_graph *g, const char *node)
{
  size_t n = strlen(node);
  int64_t sum = 0;
  for (int32_t i = 0; i < g->nops; i++) {
    const char *name = g->ops[i].name;
    if ((g->ops[i].kind == ACS_OP_DPU || g->ops[i].kind == ACS_OP_SHAVE) &&
        strncmp(name, node, n) == 0 && (name[n] == '\0' || name[n] == '.'))
      sum += g->ops[i].macs;
  }
  return sum;
}

/*
 * tests/data/onnx/small.onnx, int8: x 1x4x8x8 (256 B) -> c1 (3x3, pad 1, 8
 * filters, relu fused) -> c2 -> add(c2, c1); pool(c1) 2x2 -> up (Resize
 * x2, nearest); cat(add, up) along channels is a view, the network output
 * (1024 B). MACs: c1 8x8 outputs x 8 filters x 4 channels x 9 taps, c2
 * 8x8x8x8x9; pool 128 outputs x 4 taps; Resize and Add one operation an
 * output. At 2 MiB the tensors read inside the network stay in CMX (a
 * buffer per node: c1's, c2's, pool's); add and up, read by no node, write
 * their halves of the output to DDR themselves (512 B each) and `output`
 * joins them; on 1 KiB the nodes are cut into tiles that each fit. Whatever
 * the cut, each
 * node's workloads add up to its work and the schedules verify.
 */
Test(onnx_build, small_graph_work_is_kept_at_every_cmx)
{
  static const char *const cmx1[] = { "cmx_kib=1", NULL }, *const *cases[] = { NULL, cmx1 };
  struct acs_lgraph lg;
  load_net(TD("small.onnx"), &lg);
  for (int c = 0; c < 2; c++) {
    struct acs_platform p;
    struct acs_graph g;
    struct acs_diag d;
    platform_with(&p, cases[c]);
    acs_diag_init(&d);
    cr_assert_eq(acs_lgraph_build(&lg, &p, &g, &d), ACS_OK, "%s", d.msg);
    cr_assert_eq(node_work(&g, "c1"), 8 * 8 * 8 * 4 * 9);
    cr_assert_eq(node_work(&g, "c2"), 8 * 8 * 8 * 8 * 9);
    cr_assert_eq(node_work(&g, "pool"), 128 * 4);
    cr_assert_eq(node_work(&g, "add"), 512);
    cr_assert_eq(node_work(&g, "up"), 512);
    for (int32_t i = 0; i < g.nops; i++) {
      if (strncmp(g.ops[i].name, "up", 2) == 0 && g.ops[i].kind != ACS_OP_DMA &&
          g.ops[i].kind != ACS_OP_SYNC)
        cr_assert_eq(g.ops[i].kind, ACS_OP_SHAVE, "%s", g.ops[i].name);
      if (c == 1)
        cr_assert_leq(acs_graph_demand(&g, i, 2), 1024, "%s", g.ops[i].name);
    }
    if (c == 0) {
      cr_assert_eq(g.ops[op_id(&g, "output")].kind, ACS_OP_SYNC);
      cr_assert_eq(g.ops[op_id(&g, "add.o")].bytes, 512);
      cr_assert_eq(g.ops[op_id(&g, "up.o")].bytes, 512);
      cr_assert(has_edge(&g, "c1.buf", "add.0") && has_edge(&g, "pool.buf", "up.0") &&
                has_edge(&g, "up.o", "output"));
    } else {
      cr_assert_geq(op_id(&g, "c1.t1.0"), 0, "c1 is cut into tiles");
    }
    schedule_verified(&g, &p, "list");
    schedule_verified(&g, &p, "spill");
    acs_graph_destroy(&g);
  }
  acs_lgraph_destroy(&lg);
}
