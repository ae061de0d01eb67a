/*
 * fuzz-platform.c - the platform CSV reader, each row's validation and the
 * values derived from it (CMX bytes, DDR and DMA rates, transfer cycles).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "tests/fuzz/fuzz.h"

/* What every row of a loaded file must satisfy. */
static void check_row(const struct acs_platform *p)
{
  struct acs_diag d;
  double rate;

  acs_diag_init(&d);
  if (acs_platform_validate(p, &d) != ACS_OK)
    acs_fuzz_fail("a loaded platform row does not validate", &d);
  if (acs_platform_cmx_bytes(p) < 1024)
    acs_fuzz_fail("a loaded platform has less than 1 KiB of CMX", NULL);
  rate = acs_platform_ddr_bytes_per_cycle(p);
  if (!(rate > 0) || !isfinite(rate) || !(acs_platform_dma_bytes_per_cycle(p) > 0) ||
      !(acs_platform_local_bytes_per_cycle(p) > 0))
    acs_fuzz_fail("a loaded platform has a rate that is not positive and finite", NULL);
  /* -1 (too slow to count) or a cycle count; never a wrap-around. */
  if (acs_platform_ddr_cycles(p, ACS_QTY_MAX) < -1 || acs_platform_cmx_cycles(p, 1) < -1)
    acs_fuzz_fail("transfer cycles overflowed", NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct acs_platform *rows = NULL;
  struct acs_diag d;
  size_t n = 0;
  int err;

  acs_diag_init(&d);
  err = acs_platform_load(acs_fuzz_file("in.csv", data, size), &rows, &n, &d);
  acs_fuzz_check_refusal(err, &d);
  for (size_t i = 0; err == ACS_OK && i < n; i++)
    check_row(&rows[i]);
  free(rows);
  return 0;
}
