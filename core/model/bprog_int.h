/*
 * bprog_int.h - internal to the model: the verifier's barrier-program checks.
 */
#ifndef ACS_MODEL_BPROG_INT_H
#define ACS_MODEL_BPROG_INT_H

#include "core/model/bprog.h"

struct acs_dag;

/* The verifier's barrier-program checks (verify.c calls it), bprog_check.c.
 * keep (may be NULL) gets the program they built when they pass (the
 * caller destroys it); it is zeroed otherwise. */
int acs__bprog_verify(const struct acs_schedule *s, struct acs_bprog *keep,
                      struct acs_diag *d);
/* Its bound on the uses live at once (bprog_width.c), after the order checks;
 * g is the schedule's edges (acs__bprog_edge_dag). */
int acs__bprog_check_width(const struct acs_schedule *s, const struct acs_bprog *bp,
                           const struct acs_dag *g, struct acs_diag *d);
/* The schedule's edges as a DAG (the same as acs_schedule_edge_dag: edge
 * lists in edge order, the topological order by planned start) from what
 * acs_bprog_build has already computed: O(V + E), without sorting again.
 * The checks that reason on the edges share it. */
int acs__bprog_edge_dag(const struct acs_schedule *s, const struct acs_bprog *bp,
                        struct acs_dag *g);

#endif
