/*
 * rtab_int.h - internal to the model: releasing a result table (schedule.c).
 */
#ifndef ACS_MODEL_RTAB_INT_H
#define ACS_MODEL_RTAB_INT_H

#include "core/model/rtab.h"

/* Frees what the table holds outside the arena (schedule.c). */
void acs__rtab_free(struct acs_rtab *t);

#endif
