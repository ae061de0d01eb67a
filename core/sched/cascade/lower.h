/*
 * lower.h - what the walk calls while it lowers a plan into the schedule
 * (lower.c), internal to core/sched/cascade.
 *
 * The walk times ops from its group's start and places buffers in its
 * group's arena; the lowering adds the group's start time, puts CMX
 * offsets in the group's arena, joins groups with a sync op, keeps the
 * pieces of tensors other groups read (CMX-resident stripes and stores to
 * DDR) and extends a range's free time to the end of every op that reads
 * it through a data edge.
 */
#ifndef ACS_SCHED_CASCADE_LOWER_H
#define ACS_SCHED_CASCADE_LOWER_H

#include "core/sched/cascade/cascade.h"

/* A list of schedule op ids. */
struct acs_cas_ids {
  int32_t *v;
  size_t n, cap;
};
/* Appends (duplicates allowed: O(1)); unique sorts and drops them,
 * O(n log n), once before the ids become edges. */
int acs_cas_ids_add(struct acs_cas_ids *l, int32_t id);
void acs_cas_ids_unique(struct acs_cas_ids *l);

/* An op of `kind` with nothing set: no unit, no CMX range, no barrier,
 * not simulated. */
void acs_cas_sop_init(struct acs_sop *o, int kind);

/* Appends o (times from the group's start, offsets in its arena); an op
 * without predecessors in its group follows the previous group's sync. */
int acs_cas_lower_op(struct acs_cas_lower *lw, const struct acs_cas_env *env, struct acs_sop *o,
                     int has_pred, int32_t *gid);
/* What the next op appended is (ACS_CAS_OP_*), for the checker. */
void acs_cas_lower_tag(struct acs_cas_lower *lw, int what, int32_t part, int32_t tensor,
                       const struct acs_lbox *box);
/* Adds an edge; a data edge keeps src's CMX range until dst ends. */
int acs_cas_lower_edge(struct acs_cas_lower *lw, int32_t src, int32_t dst, int kind);
/* Data predecessors of reading `box` of a tensor: the CMX-resident pieces it
 * meets and the op holding the tensor's range, or the stores to DDR it
 * meets. */
int acs_cas_lower_ext_preds(struct acs_cas_lower *lw, int32_t tensor, const struct acs_lbox *box,
                            struct acs_cas_ids *ids);
int acs_cas_lower_ddr_preds(struct acs_cas_lower *lw, int32_t tensor, const struct acs_lbox *box,
                            struct acs_cas_ids *ids);
/* The op that holds the current group's CMX-resident output. */
int acs_cas_lower_out_alloc(struct acs_cas_lower *lw, struct acs_cas_ids *ids);
int acs_cas_lower_out_piece(struct acs_cas_lower *lw, int32_t tensor, const struct acs_lbox *box,
                            int32_t gid);
int acs_cas_lower_ddr_piece(struct acs_cas_lower *lw, int32_t tensor, const struct acs_lbox *box,
                            int32_t gid);
/* Names o "<base>.<what><step>.<i>" (in lw's buffer, valid until the next call). */
void acs_cas_lower_name(struct acs_cas_lower *lw, struct acs_sop *o, const char *base,
                        const char *what, int64_t step, int64_t i);
/* The arena base of the group being walked. */
int64_t acs_cas_lower_arena(const struct acs_cas_lower *lw);
/* Ends the group: its sync op after the given ops (those without successors
 * in the group), at the group's start plus `cycles`. */
int acs_cas_lower_group_end(struct acs_cas_lower *lw, int64_t cycles, const int32_t *sinks,
                            size_t nsinks);

#endif
