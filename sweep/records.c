/*
 * records.c - each workload's best and worst run, and their schedules held
 * until the sweep ends (records.h).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/records.h"
#include "sweep/wire.h"

/* Schedule bytes held before they are written at once: a few of the
 * largest schedules acsim builds (10^6 ops). */
#define RECORDS_HELD_MAX ((size_t)256 << 20)

struct acs__held {
  int refs;                    /* records that point here */
  int written;
  struct acs_run_row row;
  unsigned char *blob;
  size_t len;
};

int acs__records_init(struct acs__records *r, size_t nwls)
{
  memset(r, 0, sizeof(*r));
  if (!(r->w = calloc(nwls ? nwls : 1, sizeof(*r->w))))
    return ACS_ENOMEM;
  r->nw = nwls;
  for (size_t j = 0; j < nwls; j++)
    for (int k = 0; k < ACS__REC_N; k++)
      r->w[j].v[k] = NAN;
  return ACS_OK;
}

static void held_release(struct acs__records *r, struct acs__held *h)
{
  if (!h || --h->refs > 0)
    return;
  r->bytes -= h->len;
  free(h->blob);
  free(h);
}

void acs__records_free(struct acs__records *r)
{
  for (size_t j = 0; r->w && j < r->nw; j++)
    for (int k = 0; k < ACS__REC_N; k++)
      held_release(r, r->w[j].held[k]);
  free(r->w);
  memset(r, 0, sizeof(*r));
}

static double run_value(const struct acs_run_row *row)
{
  return isnan(row->sim_makespan_cycles) ? row->makespan_cycles : row->sim_makespan_cycles;
}

/* The records row sets (a bit per ACS__REC_*). Ties keep the first run, as
 * the report breaks them. */
static unsigned records_set(struct acs__rec *w, const struct acs_run_row *row)
{
  double v = run_value(row);
  unsigned set = 0;
  int res = strcmp(row->memory_model, "resident") == 0;

  if (strcmp(row->status, "ok") != 0 || isnan(v))
    return 0;
  for (int k = 0; k < ACS__REC_N; k++) {
    int best = k == ACS__REC_BEST || k == ACS__REC_BEST_RES;
    if ((k == ACS__REC_BEST_RES || k == ACS__REC_WORST_RES) && !res)
      continue;
    if (isnan(w->v[k]) || (best ? v < w->v[k] : v > w->v[k])) {
      w->v[k] = v;
      set |= 1u << k;
    }
  }
  return set;
}

void acs__records_note(struct acs__records *r, size_t wl, const struct acs_run_row *row)
{
  unsigned set = records_set(&r->w[wl], row);

  for (int k = 0; k < ACS__REC_N; k++)
    if (set & (1u << k)) {
      held_release(r, r->w[wl].held[k]);
      r->w[wl].held[k] = NULL;
    }
}

int acs__records_offer(struct acs__records *r, size_t wl, const struct acs_run_row *row,
                       const void *blob, size_t len)
{
  unsigned set = records_set(&r->w[wl], row);
  struct acs__held *h;

  if (!set)
    return ACS_OK;
  if (!(h = calloc(1, sizeof(*h))) || !(h->blob = malloc(len))) {
    free(h);
    return ACS_ENOMEM;
  }
  memcpy(h->blob, blob, len);
  h->len = len;
  h->row = *row;
  r->bytes += len;
  for (int k = 0; k < ACS__REC_N; k++)
    if (set & (1u << k)) {
      h->refs++;
      held_release(r, r->w[wl].held[k]);
      r->w[wl].held[k] = h;
    }
  return ACS_OK;
}

int acs__records_full(const struct acs__records *r)
{
  return r->bytes > RECORDS_HELD_MAX;
}

/* Writes h's schedule once; a blob that does not decode (out of memory)
 * leaves the run without one, as storing it at once did. */
static int held_write(struct acs__records *r, struct acs__held *h, struct acs_results *res,
                      size_t *nstored)
{
  struct acs_schedule s;
  int err = ACS_OK;

  if (h->written)
    return ACS_OK;
  if (acs_wire_get_schedule(h->blob, h->len, &s) == ACS_OK &&
      (err = acs_results_replace_run(res, &h->row, &s)) == ACS_OK)
    (*nstored)++;
  acs_schedule_destroy(&s);
  h->written = 1;
  r->bytes -= h->len; /* the row stays, for the refs; the bytes go */
  free(h->blob);
  h->blob = NULL;
  h->len = 0;
  return err;
}

int acs__records_flush(struct acs__records *r, struct acs_results *res, size_t *nstored)
{
  int err = ACS_OK;

  for (size_t j = 0; j < r->nw && err == ACS_OK; j++)
    for (int k = 0; k < ACS__REC_N && err == ACS_OK; k++)
      if (r->w[j].held[k])
        err = held_write(r, r->w[j].held[k], res, nstored);
  return err;
}
