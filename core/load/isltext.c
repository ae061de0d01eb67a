/*
 * isltext.c - syntax check of the isl notation subset of .sare files, with
 * the offset of the first error (isltext_int.h says why isl alone cannot).
 *
 * A tokenizer and a recursive-descent parser over the text; nothing is
 * built, only checked and a few names collected (and a table of matching
 * parentheses when a '(' needs one). O(text length).
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/load/isltext_int.h"

enum tok_type { T_END, T_IDENT, T_NUM, T_PUNCT, T_BAD };

struct parser {
  const char *s;
  int len, pos;
  /* current token */
  int type, off, tlen;
  /* what names mean */
  const char *const *known;
  int32_t nknown;
  struct acs__isltext *info;
  const struct acs__isltext_tuple *scope;  /* indices usable in expressions */
  /* the error */
  int err_off;
  char *msg;
  size_t size;
  /* paren_opens_cond's table, made on its first call: for the '(' token at
   * offset o, close[o] is the offset just past its matching ')', or len
   * when it has none; NULL when not made (or out of memory). */
  int *close;
};

static int fail(struct parser *p, int off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct parser *p, int off, const char *fmt, ...)
{
  va_list ap;

  p->err_off = off;
  va_start(ap, fmt);
  vsnprintf(p->msg, p->size, fmt, ap);
  va_end(ap);
  return -1;
}

/* Two-character operators first, so "->" is not "-" then ">". */
static const char *const puncts[] = {"->", "<=", ">=", "==", "!=", "&&", "||", "[", "]",
                                     "{",  "}",  "(",  ")",  ",",  ":",  "+",  "-", "*",
                                     "/",  "<",  ">",  "=",  "&",  "|",  "%",  "!", NULL};

int acs__isltext_skip_blank(const char *s, int off, int end)
{
  while (off < end) {
    if (s[off] == '#')
      while (off < end && s[off] != '\n')
        off++;
    else if (isspace((unsigned char)s[off]))
      off++;
    else
      break;
  }
  return off;
}

static void next(struct parser *p)
{
  p->pos = acs__isltext_skip_blank(p->s, p->pos, p->len);
  p->off = p->pos;
  if (p->pos >= p->len) {
    p->type = T_END;
    p->tlen = 0;
    return;
  }
  unsigned char c = (unsigned char)p->s[p->pos];
  if (isalpha(c) || c == '_') {
    while (p->pos < p->len && (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_' ||
                               p->s[p->pos] == '\''))
      p->pos++;
    p->type = T_IDENT;
  } else if (isdigit(c)) {
    while (p->pos < p->len && isdigit((unsigned char)p->s[p->pos]))
      p->pos++;
    p->type = T_NUM;
  } else {
    p->type = T_BAD;
    for (const char *const *q = puncts; *q; q++) {
      size_t n = strlen(*q);
      if ((size_t)(p->len - p->pos) >= n && memcmp(p->s + p->pos, *q, n) == 0) {
        p->pos += (int)n;
        p->type = T_PUNCT;
        break;
      }
    }
    if (p->type == T_BAD)
      p->pos++;
  }
  p->tlen = p->pos - p->off;
}

static int is(const struct parser *p, const char *text)
{
  return (p->type == T_PUNCT || p->type == T_IDENT) && (size_t)p->tlen == strlen(text) &&
         memcmp(p->s + p->off, text, (size_t)p->tlen) == 0;
}

/* The current token as text, for messages. */
static const char *tok_text(const struct parser *p, char *buf, size_t size)
{
  if (p->type == T_END)
    return "the end of the text";
  snprintf(buf, size, "'%.*s'", p->tlen > 40 ? 40 : p->tlen, p->s + p->off);
  return buf;
}

static int expect(struct parser *p, const char *text, const char *what)
{
  char buf[64];

  if (!is(p, text))
    return fail(p, p->off, "expected %s, got %s", what, tok_text(p, buf, sizeof(buf)));
  next(p);
  return 0;
}

static int take_name(struct parser *p, char *out)
{
  if (p->tlen >= ACS_SARE_NAME_MAX)
    return fail(p, p->off, "name longer than %d characters", ACS_SARE_NAME_MAX - 1);
  memcpy(out, p->s + p->off, (size_t)p->tlen);
  out[p->tlen] = '\0';
  return 0;
}

static const char *const keywords[] = {"and", "or", "not", "exists", "floor", "ceil", "floord",
                                       "ceild", "mod", "min", "max", "infty", "infinity",
                                       "rat", "true", "false", "implies", "NaN", NULL};

static int is_keyword(const struct parser *p)
{
  for (const char *const *k = keywords; *k; k++)
    if (p->type == T_IDENT && (size_t)p->tlen == strlen(*k) &&
        strncasecmp(p->s + p->off, *k, (size_t)p->tlen) == 0)
      return 1;
  return 0;
}

static int unsupported(struct parser *p)
{
  return fail(p, p->off,
              "'%.*s' is not supported in .sare files: domains and index functions are "
              "affine, without integer division, floor, mod or exists",
              p->tlen, p->s + p->off);
}

/* Whether the current identifier names a parameter or an index in scope. */
static int name_known(const struct parser *p)
{
  const struct acs__isltext *in = p->info;

  if (p->scope)
    for (int32_t k = 0; k < p->scope->n; k++)
      if ((size_t)p->tlen == strlen(p->scope->dim[k]) &&
          memcmp(p->s + p->off, p->scope->dim[k], (size_t)p->tlen) == 0)
        return 1;
  if (in->has_params) {
    for (int32_t k = 0; k < in->nparams; k++)
      if ((size_t)p->tlen == strlen(in->param[k]) &&
          memcmp(p->s + p->off, in->param[k], (size_t)p->tlen) == 0)
        return 1;
    return 0;
  }
  for (int32_t k = 0; k < p->nknown; k++)
    if ((size_t)p->tlen == strlen(p->known[k]) &&
        memcmp(p->s + p->off, p->known[k], (size_t)p->tlen) == 0)
      return 1;
  return 0;
}

/* ---- expressions; *var says whether the value involves a name ---- */

static int expr(struct parser *p, int *var);

static int factor(struct parser *p, int *var)
{
  char buf[64];

  *var = 0;
  if (is(p, "-")) {
    next(p);
    return factor(p, var);
  }
  if (p->type == T_NUM) {
    next(p);
    return 0;
  }
  if (p->type == T_IDENT) {
    if (is_keyword(p))
      return unsupported(p);
    if (!name_known(p))
      return fail(p, p->off, "unknown name '%.*s': not a parameter of the system%s%s%s",
                  p->tlen, p->s + p->off, p->scope ? " nor an index of " : "",
                  p->scope ? p->scope->name : "", p->scope ? "[...]" : "");
    *var = 1;
    next(p);
    return 0;
  }
  if (is(p, "(")) {
    next(p);
    if (expr(p, var) < 0)
      return -1;
    return expect(p, ")", "')'");
  }
  if (is(p, "/") || is(p, "%"))
    return unsupported(p);
  return fail(p, p->off, "expected a number, a name or '(', got %s", tok_text(p, buf, sizeof(buf)));
}

/* A product; a name times a name is not affine. Implicit products follow
 * a number ("2i", "3(N - 1)"), as in isl. */
static int term(struct parser *p, int *var)
{
  int fvar, was_num = p->type == T_NUM;

  if (factor(p, var) < 0)
    return -1;
  for (;;) {
    int star_off = p->off;
    if (is(p, "*")) {
      next(p);
    } else if (!(was_num && (p->type == T_IDENT || is(p, "(")) && !is_keyword(p))) {
      if (is(p, "/") || is(p, "%"))
        return unsupported(p);
      return 0;
    }
    was_num = p->type == T_NUM;
    if (factor(p, &fvar) < 0)
      return -1;
    if (*var && fvar)
      return fail(p, star_off, "a product of two names is not affine");
    *var |= fvar;
  }
}

static int expr(struct parser *p, int *var)
{
  int tvar;

  if (term(p, var) < 0)
    return -1;
  while (is(p, "+") || is(p, "-")) {
    next(p);
    if (term(p, &tvar) < 0)
      return -1;
    *var |= tvar;
  }
  return 0;
}

/* ---- conditions ---- */

static int is_cmp(const struct parser *p)
{
  return is(p, "<") || is(p, "<=") || is(p, ">") || is(p, ">=") || is(p, "=") || is(p, "==");
}

/* "0 <= i, j < N": lists of expressions joined by at least one comparison. */
static int chain(struct parser *p)
{
  char buf[64];
  int var, ncmp = 0;

  for (;;) {
    if (expr(p, &var) < 0)
      return -1;
    while (is(p, ",")) {
      next(p);
      if (expr(p, &var) < 0)
        return -1;
    }
    if (is(p, "!="))
      return fail(p, p->off, "'!=' is not supported: a domain is a union of polyhedra; "
                             "write the two sides with 'or'");
    if (!is_cmp(p))
      break;
    next(p);
    ncmp++;
  }
  if (ncmp == 0)
    return fail(p, p->off, "expected a comparison (<, <=, =, >=, >), got %s",
                tok_text(p, buf, sizeof(buf)));
  return 0;
}

/*
 * The matching ')' of every '(' of the text, in one pass over its tokens
 * (the parser only ever stands on these tokens: it moves by next() from
 * offset 0). Scanning from each '(' to its ')' instead made nested
 * parentheses quadratic: 8,000 of them took 25 s.
 */
static void find_closes(struct parser *p)
{
  struct parser q = *p;
  int *open = malloc(((size_t)p->len + 1) * sizeof(*open)), depth = 0;

  p->close = malloc(((size_t)p->len + 1) * sizeof(*p->close));
  if (!open || !p->close) {
    free(open);
    free(p->close);
    p->close = NULL;
    return;
  }
  q.pos = 0;
  for (next(&q); q.type != T_END; next(&q)) {
    if (is(&q, "("))
      open[depth++] = q.off;
    else if (is(&q, ")") && depth > 0)
      p->close[open[--depth]] = q.pos;
  }
  while (depth > 0)
    p->close[open[--depth]] = p->len;
  free(open);
}

/* With the current token '(': whether it opens a condition rather than an
 * expression, by what follows the matching ')'. */
static int paren_opens_cond(struct parser *p)
{
  struct parser q = *p;
  int depth = 0, cond;

  if (!p->close)
    find_closes(p);
  if (p->close) {
    q.pos = p->close[p->off];
    next(&q);
  } else {
    /* Out of memory for the table: scan to the matching ')'. */
    do {
      if (is(&q, "("))
        depth++;
      else if (is(&q, ")"))
        depth--;
      next(&q);
    } while (depth > 0 && q.type != T_END);
  }
  cond = !(is_cmp(&q) || is(&q, "+") || is(&q, "-") || is(&q, "*") || is(&q, ",") ||
           is(&q, "!="));
  return cond;
}

static int cond(struct parser *p);

static int atom(struct parser *p)
{
  if (is(p, "not") || is(p, "!")) {
    next(p);
    return atom(p);
  }
  if (is(p, "true") || is(p, "false")) {
    next(p);
    return 0;
  }
  if (is(p, "exists"))
    return unsupported(p);
  if (is(p, "(") && paren_opens_cond(p)) {
    next(p);
    if (cond(p) < 0)
      return -1;
    return expect(p, ")", "')'");
  }
  return chain(p);
}

static int conjunction(struct parser *p)
{
  if (atom(p) < 0)
    return -1;
  while (is(p, "and") || is(p, "&&") || is(p, "&")) {
    next(p);
    if (atom(p) < 0)
      return -1;
  }
  return 0;
}

static int cond(struct parser *p)
{
  if (conjunction(p) < 0)
    return -1;
  while (is(p, "or") || is(p, "||") || is(p, "|")) {
    next(p);
    if (conjunction(p) < 0)
      return -1;
  }
  return 0;
}

/* ---- tuples and the whole text ---- */

static int fresh_name(struct parser *p, const struct acs__isltext_tuple *t)
{
  struct acs__isltext_tuple none = {0};
  const struct acs__isltext_tuple *save = p->scope;
  int known;

  for (int32_t k = 0; k < t->n; k++)
    if ((size_t)p->tlen == strlen(t->dim[k]) && memcmp(p->s + p->off, t->dim[k], (size_t)p->tlen) == 0)
      return fail(p, p->off, "index '%.*s' appears twice", p->tlen, p->s + p->off);
  p->scope = &none;
  known = name_known(p);
  p->scope = save;
  if (known)
    return fail(p, p->off, "index '%.*s' has the name of a parameter", p->tlen, p->s + p->off);
  return 0;
}

/* Name[i, j, ...] with fresh index names (declare = 1), or Name[expr, ...]. */
static int tuple(struct parser *p, struct acs__isltext_tuple *t, int declare)
{
  char buf[64];
  int var;

  if (p->type != T_IDENT || is_keyword(p)) {
    if (is(p, "["))
      return fail(p, p->off, "a tuple needs a name: write Name[...] (the variable it belongs to)");
    return fail(p, p->off, "expected a variable name, got %s", tok_text(p, buf, sizeof(buf)));
  }
  t->off = p->off;
  if (take_name(p, t->name) < 0)
    return -1;
  next(p);
  if (expect(p, "[", "'[' after the variable name") < 0)
    return -1;
  t->n = 0;
  if (is(p, "]")) {
    next(p);
    return 0;
  }
  for (;;) {
    if (t->n >= ACS_SARE_MAX_DIMS)
      return fail(p, p->off, "more than %d indices", ACS_SARE_MAX_DIMS);
    if (declare) {
      if (p->type != T_IDENT || is_keyword(p))
        return fail(p, p->off, "an index of %s[...] must be a name, got %s", t->name,
                    tok_text(p, buf, sizeof(buf)));
      if (fresh_name(p, t) < 0 || take_name(p, t->dim[t->n]) < 0)
        return -1;
      t->dim_off[t->n] = p->off;
      next(p);
    } else {
      t->dim_off[t->n] = p->off;
      t->dim[t->n][0] = '\0';
      if (expr(p, &var) < 0)
        return -1;
    }
    t->n++;
    if (is(p, "]")) {
      next(p);
      return 0;
    }
    if (expect(p, ",", "',' or ']'") < 0)
      return -1;
  }
}

static int params(struct parser *p)
{
  struct acs__isltext *in = p->info;

  in->has_params = 1;
  next(p);
  while (!is(p, "]")) {
    if (p->type != T_IDENT || is_keyword(p))
      return fail(p, p->off, "expected a parameter name");
    if (in->nparams >= ACS_SARE_MAX_PARAMS)
      return fail(p, p->off, "more than %d parameters", ACS_SARE_MAX_PARAMS);
    for (int32_t k = 0; k < in->nparams; k++)
      if ((size_t)p->tlen == strlen(in->param[k]) &&
          memcmp(p->s + p->off, in->param[k], (size_t)p->tlen) == 0)
        return fail(p, p->off, "parameter '%.*s' listed twice", p->tlen, p->s + p->off);
    if (p->known) {
      int found = 0;
      for (int32_t k = 0; k < p->nknown && !found; k++)
        found = (size_t)p->tlen == strlen(p->known[k]) &&
                memcmp(p->s + p->off, p->known[k], (size_t)p->tlen) == 0;
      if (!found)
        return fail(p, p->off, "'%.*s' is not a parameter of the system (see its 'params' line)",
                    p->tlen, p->s + p->off);
    }
    in->param_off[in->nparams] = p->off;
    if (take_name(p, in->param[in->nparams++]) < 0)
      return -1;
    next(p);
    if (is(p, ","))
      next(p);
    else if (!is(p, "]"))
      return fail(p, p->off, "expected ',' or ']' in the parameter list");
  }
  next(p);
  return expect(p, "->", "'->' after the parameter list");
}

static int body(struct parser *p, int kind)
{
  struct acs__isltext *in = p->info;

  if (kind == ACS__ISLTEXT_CONTEXT) {
    if (p->type == T_IDENT || is(p, "["))
      return fail(p, p->off, "the context constrains parameters only: write { : N >= 1 }");
  } else {
    if (tuple(p, &in->in, 1) < 0)
      return -1;
    if (kind == ACS__ISLTEXT_MAP) {
      if (expect(p, "->", "'->' and the variable read") < 0)
        return -1;
      p->scope = &in->in;
      if (tuple(p, &in->out, 0) < 0)
        return -1;
    }
  }
  p->scope = kind == ACS__ISLTEXT_CONTEXT ? NULL : &in->in;
  if (is(p, ":")) {
    next(p);
    if (cond(p) < 0)
      return -1;
  }
  return 0;
}

int acs__isltext_check(const char *text, int kind, const char *const *known_params,
                       int32_t nknown, struct acs__isltext *info, int *err_off, char *msg,
                       size_t size)
{
  struct parser p;
  char buf[64];

  memset(info, 0, sizeof(*info));
  memset(&p, 0, sizeof(p));
  p.s = text;
  p.len = (int)strlen(text);
  p.known = known_params;
  p.nknown = nknown;
  p.info = info;
  p.msg = msg;
  p.size = size;
  next(&p);
  if (is(&p, "[") && params(&p) < 0)
    goto out_with_error;
  if (expect(&p, "{", "'{'") < 0 || body(&p, kind) < 0)
    goto out_with_error;
  if (!is(&p, "}")) {
    fail(&p, p.off, "expected %s'}', got %s", kind == ACS__ISLTEXT_MAP ? "':' or " : "':' or ",
         tok_text(&p, buf, sizeof(buf)));
    goto out_with_error;
  }
  info->end = p.pos;
  free(p.close);
  return 0;

out_with_error:
  *err_off = p.err_off;
  free(p.close);
  return -1;
}
