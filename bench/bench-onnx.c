/*
 * bench-onnx.c - figures of the ONNX reader and the layer-graph builder
 * (not tests).
 *
 * usage: bench-onnx [SRCDIR]
 *
 *  1. For each network with both forms, side by side: reading the ONNX
 *     model (decode, shape inference, folding) against reading its
 *     SCALE-Sim table, and building the op DAG from each at 2 MiB and at
 *     128 KiB of CMX; best of 20 runs, microseconds. The reference is the
 *     SCALE-Sim path, which has no inference and chains rows.
 *  2. The other shipped networks (no SCALE-Sim form), the same figures.
 *  3. Every model of libonnx-testdata read once: models per second.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/model/layer.h"

#define REPS 20

struct fig {
  double load_us, build_us, build_small_us;
  int32_t ops, ops_small;
};

static double best_of(double a, double b)
{
  return a < b ? a : b;
}

static int measure(const char *path, struct fig *f)
{
  struct acs_platform big, small;
  struct acs_diag d;
  acs_platform_init(&big);
  acs_platform_init(&small);
  acs_diag_init(&d);
  if (acs_platform_set_kv(&small, "cmx_kib=128", &d) != 0)
    return -1;
  f->load_us = f->build_us = f->build_small_us = 1e30;
  for (int r = 0; r < REPS; r++) {
    struct acs_workload *w;
    struct acs_graph g;
    double t0 = acs_now_seconds();
    acs_diag_init(&d);
    if (acs_workload_load(path, &w, &d) != 0) {
      fprintf(stderr, "%s: %s\n", path, d.msg);
      return -1;
    }
    double t1 = acs_now_seconds();
    if (acs_workload_build(w, &big, &g, &d) != 0)
      return -1;
    double t2 = acs_now_seconds();
    f->ops = g.nops;
    acs_graph_destroy(&g);
    double t3 = acs_now_seconds();
    if (acs_workload_build(w, &small, &g, &d) != 0)
      return -1;
    double t4 = acs_now_seconds();
    f->ops_small = g.nops;
    acs_graph_destroy(&g);
    acs_workload_free(w);
    f->load_us = best_of(f->load_us, (t1 - t0) * 1e6);
    f->build_us = best_of(f->build_us, (t2 - t1) * 1e6);
    f->build_small_us = best_of(f->build_small_us, (t4 - t3) * 1e6);
  }
  return 0;
}

static void print_fig(const char *what, const struct fig *f)
{
  printf("  %-30s read %9.1f us   build 2 MiB %9.1f us (%6d ops)   build 128 KiB %9.1f us "
         "(%6d ops)\n", what, f->load_us, f->build_us, (int)f->ops, f->build_small_us,
         (int)f->ops_small);
}

static void testdata(void)
{
  static const char *const cats[] = { "node", "pytorch-converted", "pytorch-operator",
                                      "simple" };
  const char *base = "/usr/share/libonnx-testdata/data";
  int models = 0, ok = 0;
  double t0 = acs_now_seconds();
  for (size_t c = 0; c < sizeof(cats) / sizeof(*cats); c++) {
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s/%s", base, cats[c]);
    DIR *dp = opendir(dir);
    struct dirent *e;
    if (!dp)
      continue;
    while ((e = readdir(dp)) != NULL) {
      char path[2048];
      struct acs_workload *w;
      struct acs_diag d;
      if (e->d_name[0] == '.')
        continue;
      snprintf(path, sizeof(path), "%s/%s/model.onnx", dir, e->d_name);
      acs_diag_init(&d);
      int rc = acs_workload_load(path, &w, &d);
      models++;
      if (rc == 0) {
        ok++;
        acs_workload_free(w);
      }
    }
    closedir(dp);
  }
  double dt = acs_now_seconds() - t0;
  if (models == 0) {
    printf("3. libonnx-testdata is not installed (%s)\n", base);
    return;
  }
  printf("3. libonnx-testdata: %d models read in %.3f s (%.0f models/s), %d imported\n",
         models, dt, models / dt, ok);
}

int main(int argc, char **argv)
{
  const char *src = argc > 1 ? argv[1] : ACS_SRCDIR;
  static const char *const both[] = { "alexnet", "mobilenet_v1", "resnet18", "resnet50" };
  static const char *const onnx_only[] = { "mobilenet_v2", "squeezenet1_1", "tiny_yolov2",
                                           "unet" };
  char path[1024];
  struct fig f;

  printf("1. ONNX model against the SCALE-Sim table of the same network (best of %d)\n", REPS);
  for (size_t i = 0; i < sizeof(both) / sizeof(*both); i++) {
    snprintf(path, sizeof(path), "%s/workloads/onnx/%s.onnx", src, both[i]);
    if (measure(path, &f) != 0)
      return 1;
    snprintf(path, sizeof(path), "%s.onnx", both[i]);
    print_fig(path, &f);
    snprintf(path, sizeof(path), "%s/workloads/dnn/%s.csv", src, both[i]);
    if (measure(path, &f) != 0)
      return 1;
    snprintf(path, sizeof(path), "%s.csv (SCALE-Sim, reference)", both[i]);
    print_fig(path, &f);
  }
  printf("2. the other shipped networks\n");
  for (size_t i = 0; i < sizeof(onnx_only) / sizeof(*onnx_only); i++) {
    snprintf(path, sizeof(path), "%s/workloads/onnx/%s.onnx", src, onnx_only[i]);
    if (measure(path, &f) != 0)
      return 1;
    snprintf(path, sizeof(path), "%s.onnx", onnx_only[i]);
    print_fig(path, &f);
  }
  testdata();
  return 0;
}
