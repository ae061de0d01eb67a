/*
 * sare_int.h - internals of the model of affine recurrence equations,
 * shared with the .sare reader and the affine scheduler: the isl operation
 * budget, isl to integers.
 */
#ifndef ACS_MODEL_SARE_INT_H
#define ACS_MODEL_SARE_INT_H

#include "core/model/sare.h"

/*
 * The isl work of one phase (reading a system, enumerating its instances)
 * is bounded by the isl_ops limit through isl's own operation counter:
 * acs__sare_isl_budget starts the count, acs__sare_isl_unbounded lifts the
 * bound again (the schedulers' isl work has time limits of its own), and
 * acs__sare_isl_over tells whether a failure was the budget running out.
 */
void acs__sare_isl_budget(struct isl_ctx *ctx);
void acs__sare_isl_unbounded(struct isl_ctx *ctx);
int acs__sare_isl_over(struct isl_ctx *ctx);

/*
 * isl to integers (sare.c, for the reader and the scheduler). val_i64 takes
 * v and fails (-1) unless it is an integer that fits. poly_from_bset reads
 * the constraints of a basic set over nx indices and np parameters (no
 * integer divisions: ACS_EINVAL) into p; ACS_ERANGE when a coefficient
 * exceeds 2^31 in magnitude.
 */
int acs__sare_val_i64(struct isl_val *v, int64_t *out);
int acs__sare_poly_from_bset(struct isl_basic_set *bset, int32_t nx, int32_t np,
                             struct acs_sare_poly *p);
/* The pieces of a set (its basic sets) and its convex hull. */
int acs__sare_union_from_set(struct isl_set *set, int32_t nx, int32_t np,
                             struct acs_sare_union *u);
int acs__sare_hull_from_set(struct isl_set *set, int32_t nx, int32_t np,
                            struct acs_sare_poly *p);

#endif
