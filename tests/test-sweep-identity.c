/*
 * test-sweep-identity.c - the content digest that identifies a workload
 * (core/load/digest.c), checked against the FIPS 180-2 examples and against
 * sha256sum, and its use in run keys, merge and compare.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep/wire.h"
#include "core/load/load.h"
#include "core/load/load_int.h"
#include "core/sched/sched.h"
#include "report/report.h"
#include "tests/testutil.h"

#include "tests/sweep_util.h"

TestSuite(identity, .init = tu_scratch_init);

/* ---- workload content digests (run identity) ---- */

static void sha256_text(const void *p, size_t n, char hex[ACS_DIGEST_HEX + 1])
{
  unsigned char md[ACS_SHA256_BYTES];
  struct acs_sha256 s;

  acs_sha256_init(&s);
  acs_sha256_update(&s, p, n);
  acs_sha256_final(&s, md);
  acs_sha256_hex(md, hex);
}

/* The examples of FIPS 180-2, appendix B. */
Test(identity, sha256_matches_the_standard_examples)
{
  static const char *const abc448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  char hex[ACS_DIGEST_HEX + 1], a[1000];
  unsigned char md[ACS_SHA256_BYTES];
  struct acs_sha256 s;

  sha256_text("abc", 3, hex);
  cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  sha256_text(abc448, strlen(abc448), hex);
  cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  sha256_text("", 0, hex);
  cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  /* One million 'a', fed 1000 at a time. */
  memset(a, 'a', sizeof(a));
  acs_sha256_init(&s);
  for (int i = 0; i < 1000; i++)
    acs_sha256_update(&s, a, sizeof(a));
  acs_sha256_final(&s, md);
  acs_sha256_hex(md, hex);
  cr_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Every length around the block and padding boundaries (55, 56, 63, 64,
 * 119, 120 ...), fed whole and in chunks of every size from 1 to 67, gives
 * one digest: the buffering cannot depend on how the bytes arrive. */
Test(identity, sha256_is_the_same_however_the_bytes_arrive)
{
  unsigned char msg[200], md[ACS_SHA256_BYTES];
  char whole[ACS_DIGEST_HEX + 1], pieces[ACS_DIGEST_HEX + 1];

  for (size_t i = 0; i < sizeof(msg); i++)
    msg[i] = (unsigned char)(i * 37 + 11);
  for (size_t n = 0; n <= sizeof(msg); n++) {
    sha256_text(msg, n, whole);
    for (size_t chunk = 1; chunk <= 67; chunk++) {
      struct acs_sha256 s;
      acs_sha256_init(&s);
      for (size_t off = 0; off < n; off += chunk)
        acs_sha256_update(&s, msg + off, n - off < chunk ? n - off : chunk);
      acs_sha256_final(&s, md);
      acs_sha256_hex(md, pieces);
      cr_assert_str_eq(pieces, whole, "length %zu in chunks of %zu", n, chunk);
    }
  }
}

/* The output of `cmd` (one line, newline stripped). */
static void run_line(const char *cmd, char *buf, size_t size)
{
  FILE *p = popen(cmd, "r");

  cr_assert_not_null(p, "%s", cmd);
  cr_assert_not_null(fgets(buf, (int)size, p), "no output from %s", cmd);
  buf[strcspn(buf, "\n")] = '\0';
  pclose(p);
}

static void copy_file(const char *from, const char *to)
{
  char buf[4096];
  size_t n;
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");

  cr_assert(in && out, "copy %s to %s", from, to);
  while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
    cr_assert_eq(fwrite(buf, 1, n, out), n);
  fclose(in);
  fclose(out);
}

static struct acs_workload *load_ok(const char *path)
{
  struct acs_workload *w;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load(path, &w, &d), ACS_OK, "%s", d.msg);
  return w;
}

/*
 * A workload's digest is sha256sum of its file (a second, independent
 * implementation), for every format; the same file by another path or
 * under another name has the same one, an edited copy another. The record
 * of files read names the path given.
 */
Test(identity, workload_digest_is_sha256sum_of_its_file)
{
  static const char *const files[] = {"workloads/dnn/alexnet.csv",
                                      "workloads/graphs/isp_pipeline.csv",
                                      "tests/data/psplib/j301_1.sm"};
  char cmd[2048], want[128], other[600];
  struct acs_workload *w, *v;

  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    w = load_ok(tu_path(files[i]));
    snprintf(cmd, sizeof(cmd), "sha256sum '%s' | cut -c1-64", tu_path(files[i]));
    run_line(cmd, want, sizeof(want));
    cr_assert_str_eq(w->digest, want, "%s", files[i]);
    cr_assert_eq(w->nfiles, 1);
    cr_assert_str_eq(w->files[0].path, tu_path(files[i]));
    cr_assert_str_eq(w->files[0].sha256, want);
    acs_workload_free(w);
  }
  /* Another path to the same file, and a copy under another name. */
  w = load_ok(tu_path("workloads/graphs/isp_pipeline.csv"));
  v = load_ok(tu_path("workloads/graphs/../graphs/isp_pipeline.csv"));
  cr_assert_str_eq(v->digest, w->digest);
  acs_workload_free(v);
  snprintf(other, sizeof(other), "%s", tu_at("renamed.csv"));
  copy_file(tu_path("workloads/graphs/isp_pipeline.csv"), other);
  v = load_ok(other);
  cr_assert_str_eq(v->digest, w->digest);
  cr_assert_str_neq(v->name, w->name);
  acs_workload_free(v);
  /* A comment line changes the bytes: another workload. */
  {
    FILE *f = fopen(other, "ab");
    cr_assert_not_null(f);
    fputs("# edited\n", f);
    fclose(f);
  }
  v = load_ok(other);
  cr_assert_str_neq(v->digest, w->digest);
  acs_workload_free(v);
  acs_workload_free(w);
}

/* A workload read from several files (as a graph with a resource model
 * will be): the digest of the files' digests, one hex line each, in the
 * order read, which is what `sha256sum A B | cut -c1-64 | sha256sum`
 * prints; swapping the files' roles changes it. */
Test(identity, digest_of_several_files_is_over_their_digests_in_order)
{
  char a[2048], b[2048], cmd[4200], want[128], ab[ACS_DIGEST_HEX + 1];
  struct acs_workload *w;
  struct acs_diag d;

  snprintf(a, sizeof(a), "%s", tu_path("workloads/graphs/isp_pipeline.csv"));
  snprintf(b, sizeof(b), "%s", tu_path("workloads/graphs/resnet_block_chain.csv"));
  acs_diag_init(&d);
  w = load_ok(a);
  cr_assert_eq(acs__workload_note_file(w, b, &d), ACS_OK, "%s", d.msg);
  acs__workload_seal_digest(w);
  cr_assert_eq(w->nfiles, 2);
  snprintf(cmd, sizeof(cmd), "sha256sum '%s' '%s' | cut -c1-64 | sha256sum | cut -c1-64", a, b);
  run_line(cmd, want, sizeof(want));
  cr_assert_str_eq(w->digest, want);
  snprintf(ab, sizeof(ab), "%s", w->digest);
  acs_workload_free(w);

  w = load_ok(b);
  cr_assert_eq(acs__workload_note_file(w, a, &d), ACS_OK, "%s", d.msg);
  acs__workload_seal_digest(w);
  cr_assert_str_neq(w->digest, ab, "the order of the files is part of the digest");
  /* A file that cannot be read is a located error. */
  cr_assert_eq(acs__workload_note_file(w, tu_at("absent.csv"), &d), ACS_EIO);
  cr_assert(strstr(d.msg, "cannot open") != NULL, "%s", d.msg);
  acs_workload_free(w);
}

/* By digest, the workload's name does not count and its content does; a
 * row without a digest falls back to its name, and a digest key never
 * equals a name key. */
Test(identity, run_key_counts_the_workload_by_content)
{
  static const char *const d1 = "1111111111111111111111111111111111111111111111111111111111111111";
  static const char *const d2 = "2222222222222222222222222222222222222222222222222222222222222222";
  const int f = ACS_KEY_NAME | ACS_KEY_PARAMS | ACS_KEY_DIGEST;
  char a[ACS_RUN_KEY_MAX], b[ACS_RUN_KEY_MAX];
  struct acs_platform p;

  acs_platform_init(&p);
  acs_run_key(&p, "net", "graph", d1, "list", "", f, a);
  acs_run_key(&p, "other", "graph", d1, "list", "", f, b);
  cr_assert_str_eq(a, b, "the same content under another name is the same run");
  acs_run_key(&p, "net", "graph", d2, "list", "", f, b);
  cr_assert_str_neq(a, b, "another content under the same name is another run");
  acs_run_key(&p, "net", "dnn", d1, "list", "", f, b);
  cr_assert_str_neq(a, b, "the kind still counts");
  acs_run_key(&p, "net", "graph", "", "list", "", f, a);
  acs_run_key(&p, "net", "graph", NULL, "list", "", f, b);
  cr_assert_str_eq(a, b);
  acs_run_key(&p, "net", "graph", d1, "list", "", ACS_KEY_NAME | ACS_KEY_PARAMS, b);
  cr_assert_str_eq(a, b, "without ACS_KEY_DIGEST the name counts");
  /* A workload named like a digest is not that digest. */
  acs_run_key(&p, d1, "graph", NULL, "list", "", f, a);
  acs_run_key(&p, "net", "graph", d1, "list", "", f, b);
  cr_assert_str_neq(a, b);
}

static const char *const D1 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char *const D2 = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/* Merge by content: two networks both named net merge; the same content
 * twice is refused; a file without digests makes names count, so the two
 * networks then collide (the strict reading of an older file). */
Test(identity, merge_tells_workloads_apart_by_content)
{
  const int a[] = {128, 512};
  char n1[512], n2[512], n1b[512], old[512];
  const char *in[2] = {n1, n2};
  struct acs_merge_stats st;
  struct acs_results_data data;
  struct acs_diag d;

  acs_diag_init(&d);
  snprintf(n1, sizeof(n1), "%s", tu_at("n1.h5"));
  snprintf(n2, sizeof(n2), "%s", tu_at("n2.h5"));
  snprintf(n1b, sizeof(n1b), "%s", tu_at("n1b.h5"));
  snprintf(old, sizeof(old), "%s", tu_at("old.h5"));
  write_study_of(n1, a, 2, "list", 1000, D1);
  write_study_of(n2, a, 2, "list", 1000, D2);
  cr_assert_eq(acs_merge(in, 2, tu_at("all.h5"), "merge", &st, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(st.runs, 4);
  results_file_read_ok(tu_at("all.h5"), &data);
  cr_assert_eq(data.nruns, 4);
  cr_assert_eq(acs_results_digested(&data), 1);
  acs_results_data_free(&data);

  write_study_of(n1b, a + 1, 1, "list", 1000, D1);
  in[1] = n1b;
  cr_assert_eq(acs_merge(in, 2, tu_at("dup.h5"), "merge", &st, &d), ACS_EINVAL);
  cr_assert(strstr(d.msg, "run 1 (list on default[cmx_kib=512], workload net) duplicates run 2 "
                          "of") && strstr(d.msg, "n1.h5"), "%s", d.msg);

  write_study(old, a, 1, "sequential", 1000);
  in[0] = old;
  cr_assert_eq(acs_merge(in, 1, tu_at("all.h5"), "merge", &st, &d), ACS_EINVAL,
               "with an older file in the merge, the two nets share a name");
  cr_assert(strstr(d.msg, "duplicates run"), "%s", d.msg);
}

/* Compare by content: a workload edited between base and head is missing
 * and new, not compared, and counted as changed; with a file lacking
 * digests the names match them again (and say so). */
Test(identity, compare_matches_by_content_when_both_files_have_digests)
{
  const int a[] = {128, 512};
  struct acs_compare_opts o = {NULL, 0.01, ACS_KEY_NAME};
  struct acs_results_data b, h;
  struct acs_compare_result r;
  struct acs_diag d;
  char *text = NULL;
  size_t len = 0;
  FILE *f;

  acs_diag_init(&d);
  write_study_of(tu_at("base.h5"), a, 2, "list", 1000, D1);
  write_study_of(tu_at("head.h5"), a, 2, "list", 1100, D2);
  results_file_read_ok(tu_at("base.h5"), &b);
  results_file_read_ok(tu_at("head.h5"), &h);
  cr_assert_eq(acs_compare_data(&b, &h, &o, &r, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(r.by_digest, 1);
  cr_assert_eq(r.matched, 0);
  cr_assert_eq(r.count[ACS_CMP_MISSING], 2);
  cr_assert_eq(r.count[ACS_CMP_NEW], 2);
  cr_assert_eq(r.changed_workloads, 1);
  cr_assert_str_eq(r.changed_example, "net");
  f = open_memstream(&text, &len);
  cr_assert_not_null(f);
  acs_compare_write(f, &r, ACS_CMP_TEXT, "base.h5", "head.h5", 0);
  fclose(f);
  cr_assert(strstr(text, "matched by platform name, workload content, scheduler"), "%s", text);
  cr_assert(strstr(text, "1 workload (e.g. net) changed content under the same name"), "%s",
            text);
  free(text);
  acs_compare_free(&r);
  acs_results_data_free(&h);

  /* The head without digests: by name, the runs match (a 10% regression). */
  write_study(tu_at("head.h5"), a, 2, "list", 1100);
  results_file_read_ok(tu_at("head.h5"), &h);
  cr_assert_eq(acs_compare_data(&b, &h, &o, &r, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(r.by_digest, 0);
  cr_assert_eq(r.matched, 2);
  cr_assert_eq(r.count[ACS_CMP_REGRESSION], 2);
  cr_assert_eq(r.changed_workloads, 0);
  acs_compare_free(&r);
  acs_results_data_free(&h);
  acs_results_data_free(&b);
}
