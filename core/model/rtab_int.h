/*
 * rtab_int.h - internal to the model: copying and releasing a result table
 * (schedule.c).
 */
#ifndef ACS_MODEL_RTAB_INT_H
#define ACS_MODEL_RTAB_INT_H

#include "core/model/rtab.h"

/* Adds to s a copy of src (another schedule's table): columns, rows, text
 * and attributes. */
int acs__rtab_copy(struct acs_schedule *s, const struct acs_rtab *src);
/* Frees what the table holds outside the arena (schedule.c). */
void acs__rtab_free(struct acs_rtab *t);

#endif
