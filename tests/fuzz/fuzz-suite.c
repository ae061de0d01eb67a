/*
 * fuzz-suite.c - the suite reader: one workload path per line, comments,
 * paths relative to the suite's directory. The paths are not loaded (each
 * format has its own harness).
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct acs_diag d;
  char **paths = NULL;
  size_t n = 0;
  int err;

  acs_diag_init(&d);
  err = acs_suite_load(acs_fuzz_file("in.txt", data, size), &paths, &n, &d);
  acs_fuzz_check_refusal(err, &d);
  if (err == ACS_OK) {
    for (size_t i = 0; i < n; i++)
      if (!paths[i] || !paths[i][0])
        acs_fuzz_fail("a suite gave an empty path", NULL);
    acs_suite_free(paths, n);
  }
  return 0;
}
