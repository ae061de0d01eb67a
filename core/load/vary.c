/*
 * vary.c - `--vary key=v1,v2,...` for trade studies: parsing, ranges, and the
 * cartesian product of platform variants.
 *
 * An argument is `key=item,item,...` where key is a platform parameter
 * (ACS_PARAM_MAP) and an item is a number, a linear range `a..b+s` (a, a+s,
 * ... up to b; `a..b` steps by 1) or a geometric range `a..b*f` (a, a*f,
 * a*f^2, ... up to b; values of an integer parameter are rounded to the
 * nearest integer and repeats produced by that rounding are dropped). Every
 * value, and each end of a range, is checked like a CSV field of that column
 * (number, integer-ness, minimum, maximum; integers read as integers).
 * Errors are located as "--vary:N:COL", N counting the --vary arguments
 * from 1 and COL the 1-based byte column in that argument.
 *
 * Variants are named after their base row and the varied keys, in the order
 * the --vary arguments were given: `default[cmx_kib=512,barriers=8]`. The
 * name is what identifies a variant in results (resume, compare, merge), so
 * value text is canonical: integers in plain decimal, other values in the
 * shortest %g form that reads back to the same double.
 */
#include "config.h"

#include "core/load/load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VARY_FILE "--vary"

/* text[0, len) into buf as snprintf("%.*s") would put it: cut at size - 1
 * bytes or at a NUL. Without printf: a 10,000-value range formats and
 * copies each value several times. */
static void copy_text(char *buf, size_t size, const char *text, size_t len)
{
  if (size == 0)
    return;
  len = strnlen(text, len < size - 1 ? len : size - 1);
  memcpy(buf, text, len);
  buf[len] = '\0';
}

void acs_vary_format_value(double x, char *buf, size_t size)
{
  if (x == floor(x) && fabs(x) < 1e15) {
    /* What "%.0f" prints: the digits, and a '-' for any negative value
     * (-0 included). */
    char digits[24], *p = digits + sizeof(digits);
    uint64_t u = (uint64_t)fabs(x);
    do
      *--p = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (signbit(x))
      *--p = '-';
    copy_text(buf, size, p, (size_t)(digits + sizeof(digits) - p));
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, x);
    if (strtod(buf, NULL) == x)
      return;
  }
}

const char *acs_vary_key(const struct acs_vary *v, char *buf, size_t size)
{
  if (v->param == ACS_VARY_UNITS && size > 0) {
    /* "units.CLASS", as snprintf would cut it. */
    copy_text(buf, size, "units.", 6);
    if (size > 7)
      copy_text(buf + 6, size - 6, v->unit_class, sizeof(v->unit_class));
    return buf;
  }
  if (v->param == ACS_VARY_UNITS)
    return buf;
  return acs_param_table[v->param].name;
}

/* Sets the varied key of v to x on p (x was checked by add_checked). */
static int apply_value(const struct acs_vary *v, struct acs_platform *p, double x,
                       struct acs_diag *d)
{
  if (v->param == ACS_VARY_UNITS)
    return acs_platform_units_set(p, v->unit_class, (int64_t)x, d, VARY_FILE, 0, 0);
  p->v[v->param] = x;
  return ACS_OK;
}

void acs_vary_free(struct acs_vary *v)
{
  if (!v)
    return;
  free(v->values);
  memset(v, 0, sizeof(*v));
  v->param = -1;
}

/*
 * The values of one --vary as they are parsed: their capacity, and an
 * index of them (open addressing on the value's bits, slots holding
 * position + 1), so the repeat check is O(1) a value: 10,000 values
 * compared pairwise took 5 * 10^7 comparisons.
 */
struct vbuild {
  size_t cap;
  size_t mask;             /* slots - 1, a power of two */
  size_t *slot;            /* 0 empty, else 1 + index into v->values */
};

static size_t value_hash(double x)
{
  uint64_t bits;

  x += 0.0;                /* -0.0 and 0.0 are one value */
  memcpy(&bits, &x, sizeof(bits));
  bits ^= bits >> 33;
  bits *= 0xff51afd7ed558ccdull;
  return (size_t)(bits ^ (bits >> 33));
}

/* Index of x among the values so far, or -1. */
static ptrdiff_t find_value(const struct acs_vary *v, const struct vbuild *b, double x)
{
  for (size_t i = b->slot ? value_hash(x) & b->mask : 0; b->slot && b->slot[i];
       i = (i + 1) & b->mask)
    if (v->values[b->slot[i] - 1] == x)
      return (ptrdiff_t)b->slot[i] - 1;
  return -1;
}

/* Rebuilds the index with room for twice the values plus one. */
static int index_grow(const struct acs_vary *v, struct vbuild *b)
{
  size_t n = 64, *slot;

  while (n < 2 * (v->n + 1))
    n *= 2;
  if (!(slot = calloc(n, sizeof(*slot))))
    return ACS_ENOMEM;
  free(b->slot);
  b->slot = slot;
  b->mask = n - 1;
  for (size_t k = 0; k < v->n; k++) {
    size_t i = value_hash(v->values[k]) & b->mask;
    while (b->slot[i])
      i = (i + 1) & b->mask;
    b->slot[i] = k + 1;
  }
  return ACS_OK;
}

static int push_value(struct acs_vary *v, struct vbuild *b, double x)
{
  int err = acs_grow((void **)&v->values, sizeof(*v->values), &b->cap, v->n + 1);
  size_t i;

  if (err < 0)
    return err;
  v->values[v->n++] = x;
  if (!b->slot || 2 * v->n > b->mask + 1)
    return index_grow(v, b);   /* indexes x with the others */
  for (i = value_hash(x) & b->mask; b->slot[i]; i = (i + 1) & b->mask)
    ;
  b->slot[i] = v->n;
  return ACS_OK;
}

/* Parses the number text[0, len) (a copy is made so that "128..4096" is not
 * read as "128." followed by garbage). */
static int parse_number(const char *text, size_t len, double *out)
{
  char buf[128];

  if (len == 0 || len >= sizeof(buf))
    return -1;
  memcpy(buf, text, len);
  buf[len] = '\0';
  /* An out-of-range number is still a number here; its value is checked
   * against the parameter's bounds by check_text. */
  return acs_parse_double(buf, out) == ACS_EPARSE ? -1 : 0;
}

/*
 * Checks text[0, len) exactly as a CSV field of the parameter's column
 * (integers read as integers, so "99999999999999999999" is out of range,
 * never rounded to 1e+20) and stores its value in *x. O(len).
 */
static int check_text(const struct acs_vary *v, const char *text, size_t len, int index,
                      int col, double *x, struct acs_diag *d)
{
  struct acs_platform scratch;
  char buf[128], kbuf[ACS_UNIT_CLASS_MAX + 8];
  int64_t n = 0;
  int err;

  copy_text(buf, sizeof(buf), text, len);
  /* The setters below touch the unit list or the parameter's value only:
   * those start as acs_platform_init leaves them (a whole init per value
   * was a tenth of a 10,000-value range). */
  memset(scratch.units, 0, sizeof(scratch.units));
  if (v->param >= 0 && v->param < ACS_PARAM_COUNT)
    scratch.v[v->param] = acs_param_table[v->param].def;
  if (v->param == ACS_VARY_UNITS) {
    /* A unit count: checked as a `units.CLASS` column would be. */
    if ((err = acs_platform_set_key(&scratch, acs_vary_key(v, kbuf, sizeof(kbuf)), buf, d,
                                    VARY_FILE, index, col)) < 0)
      return err;
    acs_platform_units_get(&scratch, v->unit_class, &n);
    *x = (double)n;
    return ACS_OK;
  }
  if ((err = acs_platform_set(&scratch, v->param, buf, d, VARY_FILE, index, col)) < 0)
    return err;
  *x = scratch.v[v->param];
  return ACS_OK;
}

/*
 * Checks one value as a field of the parameter's column would be checked,
 * and appends it unless it repeats a value of this argument. `first` is the
 * index of the first value of the current item: a repeat inside a geometric
 * range of an integer parameter (rounding) is dropped, any other repeat is an
 * error.
 */
static int add_checked(struct acs_vary *v, struct vbuild *b, double x, size_t first,
                       int drop_repeats, int index, int col, struct acs_diag *d)
{
  char text[64], kbuf[ACS_UNIT_CLASS_MAX + 8];
  ptrdiff_t i;
  int err;

  acs_vary_format_value(x, text, sizeof(text));
  if ((err = check_text(v, text, strlen(text), index, col, &x, d)) < 0)
    return err;
  if ((i = find_value(v, b, x)) >= 0) {
    if (drop_repeats && (size_t)i >= first)
      return ACS_OK;
    return acs_diag_set(d, ACS_EINVAL, VARY_FILE, index, col, "%s: value %s appears twice",
                        acs_vary_key(v, kbuf, sizeof(kbuf)), text);
  }
  /* The whole argument, every item together, holds at most so many. */
  if (v->n >= ACS_VARY_MAX_VALUES)
    return acs_diag_set(d, ACS_ERANGE, VARY_FILE, index, col, "%s: more than %d values",
                        acs_vary_key(v, kbuf, sizeof(kbuf)), ACS_VARY_MAX_VALUES);
  return push_value(v, b, x);
}

/* Too many values in one range item. */
static int too_many(const struct acs_vary *v, const char *item, size_t len, int index, int col,
                    struct acs_diag *d)
{
  char kbuf[ACS_UNIT_CLASS_MAX + 8];

  return acs_diag_set(d, ACS_ERANGE, VARY_FILE, index, col,
                      "%s: range '%.*s' has more than %d values",
                      acs_vary_key(v, kbuf, sizeof(kbuf)), (int)len, item, ACS_VARY_MAX_VALUES);
}

/*
 * The values of an integer parameter's linear range a..b+step, in int64_t:
 * a and b are within the parameter's bounds (at most 2^26), and a step is
 * added only while it stays at most b, so nothing overflows. O(values),
 * at most ACS_VARY_MAX_VALUES.
 */
static int integer_steps(struct acs_vary *v, struct vbuild *bld, int64_t a, int64_t b, int64_t step,
                         const char *item, size_t len, int index, int col, struct acs_diag *d)
{
  size_t first = v->n, k = 0;
  int err;

  for (int64_t x = a;; x += step) {
    if (k++ >= ACS_VARY_MAX_VALUES)
      return too_many(v, item, len, index, col, d);
    if ((err = add_checked(v, bld, (double)x, first, 0, index, col, d)) < 0)
      return err;
    if (step > b - x)
      return ACS_OK;
  }
}

/*
 * A range item "a..b", "a..b+s" or "a..b*f" starting at item[0] (column col).
 * a and b are checked as values of the parameter first (at their columns).
 * Values are computed as a + k*s and a*f^k (not by accumulating a sum) so a
 * long linear range does not drift; an integer parameter's linear range is
 * counted in integers. O(values), at most ACS_VARY_MAX_VALUES.
 */
static int parse_range(struct acs_vary *v, struct vbuild *bld, const char *item, size_t len,
                       const char *dots, int index, int col, struct acs_diag *d)
{
  char kbuf[ACS_UNIT_CLASS_MAX + 8];
  const char *name = acs_vary_key(v, kbuf, sizeof(kbuf));
  const char *rhs = dots + 2, *op, *item_end = item + len;
  double a, b, step = 1.0;
  int geometric = 0, err;
  int integer = v->param == ACS_VARY_UNITS || acs_param_table[v->param].integer;
  size_t first = v->n;
  char *end;
  int ccol = col + (int)(rhs - item), scol = 0;

  if (parse_number(item, (size_t)(dots - item), &a) < 0)
    return acs_diag_set(d, ACS_EPARSE, VARY_FILE, index, col,
                        "%s: range start '%.*s' is not a number", name, (int)(dots - item), item);
  /* b ends where a '+' or '*' step begins; strtod stops there (and handles
   * an exponent sign such as 1e+6 itself). */
  {
    char buf[128];
    size_t rlen = (size_t)(item_end - rhs);
    if (rlen == 0 || rlen >= sizeof(buf))
      return acs_diag_set(d, ACS_EPARSE, VARY_FILE, index, ccol,
                          "%s: range '%.*s' has no end (write a..b, a..b+step or a..b*factor)",
                          name, (int)len, item);
    memcpy(buf, rhs, rlen);
    buf[rlen] = '\0';
    b = strtod(buf, &end);
    if (end == buf || isnan(b) || (*end && *end != '+' && *end != '*'))
      return acs_diag_set(d, ACS_EPARSE, VARY_FILE, index, ccol,
                          "%s: range end '%s' is not a number (write a..b, a..b+step or a..b*factor)",
                          name, buf);
    op = rhs + (end - buf);
  }
  /* Both ends must be values of the parameter: bounds, integer-ness. */
  if ((err = check_text(v, item, (size_t)(dots - item), index, col, &a, d)) < 0 ||
      (err = check_text(v, rhs, (size_t)(op - rhs), index, ccol, &b, d)) < 0)
    return err;
  if (op < item_end) {
    scol = col + (int)(op - item) + 1;
    geometric = *op == '*';
    if (parse_number(op + 1, (size_t)(item_end - op - 1), &step) < 0)
      return acs_diag_set(d, ACS_EPARSE, VARY_FILE, index, scol, "%s: %s '%.*s' is not a number",
                          name, geometric ? "factor" : "step", (int)(item_end - op - 1), op + 1);
    if (geometric && !(step > 1.0))
      return acs_diag_set(d, ACS_ERANGE, VARY_FILE, index, scol,
                          "%s: factor %g must be greater than 1", name, step);
    if (!geometric && !(step > 0.0))
      return acs_diag_set(d, ACS_ERANGE, VARY_FILE, index, scol,
                          "%s: step %g must be positive", name, step);
  }
  if (a > b)
    return acs_diag_set(d, ACS_ERANGE, VARY_FILE, index, col,
                        "%s: range start %g is above its end %g", name, a, b);
  if (geometric && !(a > 0.0))
    return acs_diag_set(d, ACS_ERANGE, VARY_FILE, index, col,
                        "%s: a geometric range needs a positive start, not %g", name, a);
  if (integer && !geometric) {
    if (step != floor(step))
      return acs_diag_set(d, ACS_EPARSE, VARY_FILE, index, scol,
                          "%s: step %g is not an integer", name, step);
    /* A step beyond b - a gives the one value a, whatever its size. */
    return integer_steps(v, bld, (int64_t)a, (int64_t)b,
                         step > b - a ? (int64_t)(b - a) + 1 : (int64_t)step, item, len, index,
                         col, d);
  }
  for (size_t k = 0;; k++) {
    /* A relative slack of 1e-9 keeps b itself when rounding errors put the
     * last computed value a hair above it (0.1..0.3+0.1). */
    double x = geometric ? a * pow(step, (double)k) : a + (double)k * step;
    if (x > b + fabs(b) * 1e-9 + (geometric ? 0.0 : step * 1e-9))
      break;
    if (x > b || (!geometric && fabs(x - b) <= step * 1e-9))
      x = b;
    if (k >= ACS_VARY_MAX_VALUES)
      return too_many(v, item, len, index, col, d);
    if (geometric && integer)
      x = floor(x + 0.5);
    if ((err = add_checked(v, bld, x, first, geometric && integer, index, col, d)) < 0)
      return err;
  }
  return ACS_OK;
}

static int parse_item(struct acs_vary *v, struct vbuild *bld, const char *item, size_t len, int index,
                      int col, struct acs_diag *d)
{
  char kbuf[ACS_UNIT_CLASS_MAX + 8];
  const char *name = acs_vary_key(v, kbuf, sizeof(kbuf));
  const char *dots = NULL;
  double x;
  int err;

  for (size_t i = 0; i + 1 < len; i++)
    if (item[i] == '.' && item[i + 1] == '.') {
      dots = item + i;
      break;
    }
  if (dots)
    return parse_range(v, bld, item, len, dots, index, col, d);
  if (parse_number(item, len, &x) < 0)
    return acs_diag_set(d, ACS_EPARSE, VARY_FILE, index, col, "%s: '%.*s' is not a number",
                        name, (int)len, item);
  /* The item's own text, so an integer is read as one. */
  if ((err = check_text(v, item, len, index, col, &x, d)) < 0)
    return err;
  return add_checked(v, bld, x, v->n, 0, index, col, d);
}

/* The key before '='; sets v->param. Columns count from 1. */
static int parse_key(const char *arg, struct acs_vary *v, int index, const char **values,
                     struct acs_diag *d)
{
  const char *eq = strchr(arg, '=');
  char key[128];
  size_t klen;

  if (!eq || eq == arg)
    return acs_diag_set(d, ACS_EPARSE, VARY_FILE, index, 1,
                        "'%s': expected key=v1,v2,... (or a range a..b+step, a..b*factor)", arg);
  klen = (size_t)(eq - arg);
  if (klen >= sizeof(key))
    return acs_diag_set(d, ACS_EPARSE, VARY_FILE, index, 1, "key too long");
  memcpy(key, arg, klen);
  key[klen] = '\0';
  if (strcmp(key, "name") == 0)
    return acs_diag_set(d, ACS_EINVAL, VARY_FILE, index, 1,
                        "'name' cannot be varied; variants are named after their base row");
  if (acs_platform_units_key(key)) {
    const char *cls = acs_platform_units_key(key);
    struct acs_platform scratch;
    int err;
    /* The class name is checked by setting a count on a scratch platform. */
    acs_platform_init(&scratch);
    if ((err = acs_platform_units_set(&scratch, cls, 1, d, VARY_FILE, index, 1)) < 0)
      return err;
    v->param = ACS_VARY_UNITS;
    snprintf(v->unit_class, sizeof(v->unit_class), "%s", cls);
  } else if ((v->param = acs_param_find(key)) < 0) {
    char known[1024], hint[128];
    acs_names_join(known, sizeof(known), &acs_param_table[0].name, ACS_PARAM_COUNT,
                   sizeof(acs_param_table[0]));
    return acs_diag_set(d, ACS_EPARSE, VARY_FILE, index, 1, "unknown parameter '%s'%s (known: %s)",
                        key, acs_param_suggest(key, hint, sizeof(hint)), known);
  }
  *values = eq + 1;
  return ACS_OK;
}

int acs_vary_parse(const char *arg, int index, struct acs_vary *v, struct acs_diag *d)
{
  struct vbuild bld = {0, 0, NULL};
  const char *values, *p;
  int err;

  memset(v, 0, sizeof(*v));
  v->param = -1;
  if ((err = parse_key(arg, v, index, &values, d)) < 0)
    return err;
  p = values;
  for (;;) {
    const char *comma = strchr(p, ',');
    const char *start = p, *stop = comma ? comma : p + strlen(p);
    while (start < stop && (*start == ' ' || *start == '\t'))
      start++;
    while (stop > start && (stop[-1] == ' ' || stop[-1] == '\t'))
      stop--;
    if (start == stop) {
      char kbuf[ACS_UNIT_CLASS_MAX + 8];
      err = acs_diag_set(d, ACS_EPARSE, VARY_FILE, index, (int)(start - arg) + 1,
                         "%s: empty value%s", acs_vary_key(v, kbuf, sizeof(kbuf)),
                         *values ? "" : " list (write key=v1,v2,...)");
      goto out_with_values;
    }
    if ((err = parse_item(v, &bld, start, (size_t)(stop - start), index, (int)(start - arg) + 1,
                          d)) < 0)
      goto out_with_values;
    if (!comma)
      break;
    p = comma + 1;
  }
  free(bld.slot);
  return ACS_OK;

out_with_values:
  free(bld.slot);
  acs_vary_free(v);
  return err;
}

/* "<base>[k=v,...]" for the combination whose value indices are idx. */
static int variant_name(const struct acs_platform *base, const struct acs_vary *v, size_t nv,
                        const size_t *idx, char *out, size_t size, struct acs_diag *d)
{
  size_t off = (size_t)snprintf(out, size, "%s[", base->name);

  for (size_t i = 0; i < nv && off < size; i++) {
    char val[64], kbuf[ACS_UNIT_CLASS_MAX + 8];
    acs_vary_format_value(v[i].values[idx[i]], val, sizeof(val));
    off += (size_t)snprintf(out + off, size - off, "%s%s=%s", i ? "," : "",
                            acs_vary_key(&v[i], kbuf, sizeof(kbuf)), val);
  }
  if (off < size)
    off += (size_t)snprintf(out + off, size - off, "]");
  if (off >= size)
    return acs_diag_set(d, ACS_ERANGE, VARY_FILE, (int)nv, 1,
                        "variant name of row '%s' would be longer than %zu bytes; vary fewer "
                        "keys or shorten the row's name", base->name, size - 1);
  return ACS_OK;
}

int acs_vary_expand(const struct acs_platform *base, size_t nbase, const struct acs_vary *v,
                    size_t nv, struct acs_platform **out, size_t *nout, struct acs_diag *d)
{
  size_t combos = 1, total, *idx = NULL;
  struct acs_platform *rows;
  int err = ACS_OK;

  *out = NULL;
  *nout = 0;
  for (size_t i = 0; i < nv; i++) {
    for (size_t j = 0; j < i; j++)
      if (v[j].param == v[i].param &&
          (v[i].param != ACS_VARY_UNITS || strcmp(v[i].unit_class, v[j].unit_class) == 0)) {
        char kbuf[ACS_UNIT_CLASS_MAX + 8];
        return acs_diag_set(d, ACS_EINVAL, VARY_FILE, (int)i + 1, 1,
                            "%s is already varied by --vary number %zu",
                            acs_vary_key(&v[i], kbuf, sizeof(kbuf)), j + 1);
      }
    if (v[i].n == 0 || acs_mul_size(combos, v[i].n, &combos) || combos > ACS_VARY_MAX_VARIANTS)
      goto too_many;
  }
  if (acs_mul_size(combos, nbase, &total) || total > ACS_VARY_MAX_VARIANTS)
    goto too_many;
  rows = calloc(total ? total : 1, sizeof(*rows));
  idx = calloc(nv ? nv : 1, sizeof(*idx));
  if (!rows || !idx) {
    free(rows);
    free(idx);
    return ACS_ENOMEM;
  }
  /* Combinations in odometer order: the last --vary changes fastest, so
   * the first one is the outermost loop. O(total * nv). */
  for (size_t b = 0, k = 0; b < nbase; b++) {
    memset(idx, 0, nv * sizeof(*idx));
    for (size_t c = 0; c < combos; c++, k++) {
      struct acs_platform *p = &rows[k];
      *p = base[b];
      if (nv > 0 && (err = variant_name(&base[b], v, nv, idx, p->name, sizeof(p->name), d)) < 0)
        goto out_with_rows;
      for (size_t i = 0; i < nv && err == ACS_OK; i++)
        err = apply_value(&v[i], p, v[i].values[idx[i]], d);
      if (err < 0 || (err = acs_platform_validate(p, d)) < 0) {
        char msg[sizeof(d->msg)];
        snprintf(msg, sizeof(msg), "%s", d->msg);
        err = acs_diag_set(d, err, VARY_FILE, 0, 0, "%s", msg);
        goto out_with_rows;
      }
      for (size_t i = nv; i-- > 0;) {
        if (++idx[i] < v[i].n)
          break;
        idx[i] = 0;
      }
    }
  }
  free(idx);
  *out = rows;
  *nout = total;
  return ACS_OK;

out_with_rows:
  free(idx);
  free(rows);
  return err;

too_many:
  return acs_diag_set(d, ACS_ERANGE, VARY_FILE, 0, 0,
                      "the product of the --vary values has more than %d platform variants",
                      ACS_VARY_MAX_VARIANTS);
}
