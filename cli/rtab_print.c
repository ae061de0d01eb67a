/*
 * rtab_print.c - a family result table as aligned text, for `acsim run`.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* One cell as text. Doubles in the shortest form that reads back. */
static void cell_text(int type, union acs_rtab_val v, char *buf, size_t size)
{
  if (type == ACS_RTAB_I64)
    snprintf(buf, size, "%" PRId64, v.i);
  else if (type == ACS_RTAB_F64)
    isnan(v.f) ? snprintf(buf, size, "-") : snprintf(buf, size, "%.10g", v.f);
  else
    snprintf(buf, size, "%s", v.s);
}

/* "name (units)" for a column header. */
static void head_text(const struct acs_rtab_col *c, char *buf, size_t size)
{
  if (c->units && c->units[0])
    snprintf(buf, size, "%s (%s)", c->name, c->units);
  else
    snprintf(buf, size, "%s", c->name);
}

/* Widths: the widest header or cell of each column, capped so one long
 * text does not push the rest off the screen. O(rows x columns). */
static void widths(const struct acs_rtab *t, int *w)
{
  char buf[512];

  for (int32_t c = 0; c < t->ncols; c++) {
    head_text(&t->cols[c], buf, sizeof(buf));
    w[c] = (int)strlen(buf);
    for (int64_t r = 0; r < t->nrows; r++) {
      cell_text(t->cols[c].type, acs_rtab_get(t, r, c), buf, sizeof(buf));
      w[c] = (int)strlen(buf) > w[c] ? (int)strlen(buf) : w[c];
    }
    w[c] = w[c] > 60 ? 60 : w[c];
  }
}

void acs_cli_print_rtab(FILE *f, const struct acs_rtab *t, const char *indent)
{
  int w[ACS_RTAB_MAX_COLS];
  char buf[512];

  fprintf(f, "%s%s:", indent, t->name);
  for (int32_t k = 0; k < t->nattrs; k++) {
    cell_text(t->attrs[k].type, t->attrs[k].v, buf, sizeof(buf));
    fprintf(f, "%s %s=%s", k ? "," : "", t->attrs[k].name, buf);
  }
  fputc('\n', f);
  if (t->nrows == 0)
    return;
  widths(t, w);
  fprintf(f, "%s  ", indent);
  for (int32_t c = 0; c < t->ncols; c++) {
    head_text(&t->cols[c], buf, sizeof(buf));
    fprintf(f, "%s%-*.*s", c ? "  " : "", w[c], w[c], buf);
  }
  fputc('\n', f);
  for (int64_t r = 0; r < t->nrows; r++) {
    fprintf(f, "%s  ", indent);
    for (int32_t c = 0; c < t->ncols; c++) {
      cell_text(t->cols[c].type, acs_rtab_get(t, r, c), buf, sizeof(buf));
      if (t->cols[c].type == ACS_RTAB_STR)
        fprintf(f, "%s%-*.*s", c ? "  " : "", w[c], w[c], buf);
      else
        fprintf(f, "%s%*.*s", c ? "  " : "", w[c], w[c], buf);
    }
    fputc('\n', f);
  }
}
