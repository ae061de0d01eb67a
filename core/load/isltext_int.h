/*
 * isltext_int.h - a syntax check of the isl notation that .sare files use, with
 * the column of the first error (internal to core/load).
 *
 * isl parses sets and maps well but, with errors set to "continue" (so
 * that it never prints or aborts), says only "syntax error", without a
 * position. So the reader checks the text first with this small
 * recursive-descent parser of the subset .sare files accept, which reports
 * the offset of the first bad token and collects what the reader needs
 * (parameter list, tuple names, index names); isl then parses the text
 * for real.
 *
 * The subset: [ "[" params "]" "->" ] "{" body "}" where body is a set
 * "Name[i, j] : cond", a context ": cond" (no tuple), or a map
 * "Name[i, j] -> Other[expr, ...] : cond". cond is comparisons chained
 * over comma lists ("0 <= i, j < N") joined by and/or/not and
 * parentheses; expressions are affine: integers, names, + - *, parentheses,
 * implicit products ("2i", "3N"). Divisions, floor, mod, exists and
 * unnamed tuples are refused with a message saying so.
 */
#ifndef ACS_LOAD_ISLTEXT_INT_H
#define ACS_LOAD_ISLTEXT_INT_H

#include "core/model/sare.h"

enum acs__isltext_kind { ACS__ISLTEXT_CONTEXT, ACS__ISLTEXT_SET, ACS__ISLTEXT_MAP };

struct acs__isltext_tuple {
  char name[ACS_SARE_NAME_MAX];
  int off;                             /* byte offset of the name */
  int32_t n;                           /* entries */
  char dim[ACS_SARE_MAX_DIMS][ACS_SARE_NAME_MAX];  /* index names (input tuples) */
  int dim_off[ACS_SARE_MAX_DIMS];
};

struct acs__isltext {
  int has_params;                      /* the text starts with "[...] ->" */
  int32_t nparams;
  char param[ACS_SARE_MAX_PARAMS][ACS_SARE_NAME_MAX];
  int param_off[ACS_SARE_MAX_PARAMS];
  struct acs__isltext_tuple in, out;   /* out: maps only */
  int end;                             /* offset just past the closing brace */
};

/*
 * Checks text[0..len) as `kind`. known_params lists the system's
 * parameters (NULL when parsing the context that declares them): any other
 * name that is neither an index of the input tuple nor in the text's own
 * parameter list is an error. The text may be followed by other words; the
 * check stops at the brace that closes the body (info->end).
 * Returns 0, or -1 with *err_off and msg filled.
 */
int acs__isltext_check(const char *text, int kind, const char *const *known_params,
                       int32_t nknown, struct acs__isltext *info, int *err_off, char *msg,
                       size_t size);

/* The offset of the first character of s[off..end) that is neither a blank
 * nor inside a '#' comment (to the end of its line), or end. The .sare
 * statements and the isl text inside them skip the same way. */
int acs__isltext_skip_blank(const char *s, int off, int end);

#endif
