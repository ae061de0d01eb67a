/*
 * sdf_int.h - internal to the SDF model (sdf.c, sdf_names.c): the name index.
 */
#ifndef ACS_MODEL_SDF_INT_H
#define ACS_MODEL_SDF_INT_H

#include "core/model/sdf.h"

/* Internal to the model: records element `id` of `kind`, just appended to
 * its array, in the name index. */
enum acs__sdf_name_kind { ACS__SDF_ACTOR, ACS__SDF_PORT, ACS__SDF_CHANNEL };
int acs__sdf_names_add(struct acs_sdf_graph *g, int kind, int32_t id);
void acs__sdf_names_free(struct acs_sdf_graph *g);

#endif
