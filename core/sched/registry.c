/*
 * registry.c - every scheduler variant, in one table.
 *
 * Adding a variant is one line here plus its extern in sched.h. The order is
 * the order `acsim list schedulers` prints and `-s all` runs.
 */
#include "config.h"

#include <string.h>

#include "core/sched/sched.h"

static const struct acs_sched_ops *const variants[] = {
  &acs_sched_sequential,
  &acs_sched_listsched,
  &acs_sched_spill,
  &acs_sched_ilp,
  &acs_sched_strip,
  &acs_sched_gang,
  &acs_sched_tiling,
  &acs_sched_naive,
  &acs_sched_modulo,
  &acs_sched_affine,
  &acs_sched_cascade,
};

const struct acs_sched_ops *const *acs_sched_list(size_t *n)
{
  *n = sizeof(variants) / sizeof(variants[0]);
  return variants;
}

const struct acs_sched_ops *acs_sched_find(const char *name)
{
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
    if (strcmp(variants[i]->name, name) == 0)
      return variants[i];
  return NULL;
}

int acs_sched_accepts(const struct acs_sched_ops *ops, int wl_kind)
{
  if (!ops || wl_kind < 0 || wl_kind >= ACS_WL__COUNT)
    return 0;
  return (ops->kinds & (1u << wl_kind)) != 0;
}
