/*
 * fuzz-graphml.c - the HatScheT loop reader: a .graphml dependence graph
 * and its resource model beside it (X_RM.xml), then the unrolled DAG. The
 * input holds both files, the graph first, separated by a line "--RM--";
 * without it there is no resource model.
 */
#include "config.h"

#include <unistd.h>

#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const uint8_t *rm;
  size_t n1, n2;
  const char *path;

  acs_fuzz_split(data, size, "\n--RM--\n", &n1, &rm, &n2);
  path = acs_fuzz_file("in.graphml", data, n1);
  if (n1 < size)
    acs_fuzz_file("in_RM.xml", rm, n2);
  else
    unlink(acs_fuzz_file("in_RM.xml", "", 0));
  /* Tighter limits: this builder costs much per op, and its limit checks
   * are the same code at any value (fuzz.h). */
  acs_fuzz_init_limits(ACS_FUZZ_SMALL_OPS, ACS_FUZZ_SMALL_EDGES);
  acs_fuzz_workload(path, 1);
  return 0;
}
