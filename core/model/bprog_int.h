/*
 * bprog_int.h - internal to the model: the verifier's barrier-program checks.
 */
#ifndef ACS_MODEL_BPROG_INT_H
#define ACS_MODEL_BPROG_INT_H

#include "core/model/bprog.h"

/* The verifier's barrier-program checks (verify.c calls it), bprog_check.c. */
int acs__bprog_verify(const struct acs_schedule *s, struct acs_diag *d);
/* Its bound on the uses live at once (bprog_width.c), after the order checks. */
int acs__bprog_check_width(const struct acs_schedule *s, const struct acs_bprog *bp,
                           struct acs_diag *d);

#endif
