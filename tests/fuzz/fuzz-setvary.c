/*
 * fuzz-setvary.c - the values of `--set`, `--vary` and the parameter
 * lists after a .sare path, as the command line gives them: one argument a
 * line, its kind first.
 *
 *   set KEY=VALUE        acs_platform_set_kv on the platform so far
 *   vary KEY=ITEMS       acs_vary_parse (the argument's index counts from 1)
 *   units LIST           acs_platform_units_parse
 *   sare PATH:K=ITEMS..  acs_sare_spec_expand
 *
 * Then the cartesian product of the --vary arguments over the platform
 * (acs_vary_expand; past 1,024 variants over a sample of each list, see
 * FUZZ_VARIANTS): every variant must validate.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

#define MAX_VARY 4

struct state {
  struct acs_platform p;
  struct acs_vary v[MAX_VARY];
  size_t nv;
  int nargs;
};

static void one_line(struct state *st, char *line)
{
  struct acs_diag d;
  int err = ACS_OK;

  acs_diag_init(&d);
  if (strncmp(line, "set ", 4) == 0) {
    err = acs_platform_set_kv(&st->p, line + 4, &d);
  } else if (strncmp(line, "vary ", 5) == 0 && st->nv < MAX_VARY) {
    err = acs_vary_parse(line + 5, ++st->nargs, &st->v[st->nv], &d);
    st->nv += err == ACS_OK;
  } else if (strncmp(line, "units ", 6) == 0) {
    err = acs_platform_units_parse(&st->p, line + 6, &d, "--set", 0, 1);
  } else if (strncmp(line, "sare ", 5) == 0) {
    char **specs = NULL;
    size_t n = 0;
    err = acs_sare_spec_expand(line + 5, &specs, &n, &d);
    if (err == ACS_OK)
      acs_suite_free(specs, n);
    if (err == ACS_EINVAL)
      err = ACS_OK;   /* not a .sare path: nothing to expand, no input error */
  }
  acs_fuzz_check_refusal(err, &d);
}

/*
 * At most this many variants are expanded while fuzzing. A product of up to
 * ACS_VARY_MAX_VARIANTS (100,000) platforms is the same loop at any count,
 * but it took most of the harness's time: once the fuzzer learns to write
 * ranges of thousands of values, every input expanded and validated tens of
 * thousands of variants (the harness ran at under 300 inputs a second).
 * Such a product is expanded over a sample of each list instead (see
 * sample_values), after every value was parsed and checked by
 * acs_vary_parse as before; a product past ACS_VARY_MAX_VARIANTS is passed
 * whole, so its refusal is still tested.
 */
#define FUZZ_VARIANTS 1024

/* The first k - 1 values of v and its last one (the range's ends), in a
 * copy of v that owns its values; 0 when out of memory. */
static int sample_values(const struct acs_vary *v, size_t k, struct acs_vary *out)
{
  *out = *v;
  out->n = k;
  out->values = malloc(k * sizeof(*out->values));
  if (!out->values)
    return 0;
  memcpy(out->values, v->values, (k - 1) * sizeof(*out->values));
  out->values[k - 1] = v->values[v->n - 1];
  return 1;
}

static void expand(struct state *st)
{
  struct acs_platform *out = NULL;
  struct acs_vary sub[MAX_VARY];
  const struct acs_vary *v = st->v;
  size_t n = 0, keep[MAX_VARY], product = 1, made = 0;
  struct acs_diag d;
  int err;

  for (size_t i = 0; i < st->nv; i++) {
    keep[i] = st->v[i].n;
    if (acs_mul_size(product, keep[i], &product) || product > ACS_VARY_MAX_VARIANTS)
      product = ACS_VARY_MAX_VARIANTS + 1;   /* refused whole, whatever follows */
  }
  if (product > FUZZ_VARIANTS && product <= ACS_VARY_MAX_VARIANTS) {
    /* Halve the longest sample until the product fits. */
    while (product > FUZZ_VARIANTS) {
      size_t m = 0;
      for (size_t i = 1; i < st->nv; i++)
        m = keep[i] > keep[m] ? i : m;
      product = product / keep[m] * ((keep[m] + 1) / 2);
      keep[m] = (keep[m] + 1) / 2;
    }
    for (made = 0; made < st->nv; made++)
      if (!sample_values(&st->v[made], keep[made], &sub[made]))
        goto out;
    v = sub;
  }
  acs_diag_init(&d);
  err = acs_vary_expand(&st->p, 1, v, st->nv, &out, &n, &d);
  acs_fuzz_check_refusal(err, &d);
  for (size_t i = 0; err == ACS_OK && i < n; i++)
    if (acs_platform_validate(&out[i], &d) != ACS_OK)
      acs_fuzz_fail("a variant of --vary does not validate", &d);
  free(out);
out:
  for (size_t i = 0; i < made; i++)
    free(sub[i].values);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct state st;
  char *text = malloc(size + 1), *line, *save = NULL;

  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  memset(&st, 0, sizeof(st));
  acs_platform_init(&st.p);
  for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
    one_line(&st, line);
  expand(&st);
  for (size_t i = 0; i < st.nv; i++)
    acs_vary_free(&st.v[i]);
  free(text);
  return 0;
}
