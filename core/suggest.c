/*
 * suggest.c - "did you mean" (see suggest.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/suggest.h"

#define MAXLEN 64

/* One character as the comparison sees it: case and '-'/'_' folded, since
 * `naive-list` and `naive_list` are the same typo. */
static int fold(int c)
{
  c = tolower((unsigned char)c);
  return c == '-' ? '_' : c;
}

static size_t min3(size_t a, size_t b, size_t c)
{
  size_t m = a < b ? a : b;

  return m < c ? m : c;
}

/* Optimal string alignment distance (Damerau-Levenshtein without
 * re-editing a transposed pair) of two folded strings, rows of the table
 * kept three at a time. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb)
{
  size_t rows[3][MAXLEN + 1];

  for (size_t j = 0; j <= lb; j++)
    rows[0][j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *prev2 = rows[(i + 1) % 3];
    cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] != b[j - 1];
      cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          prev2[j - 2] + 1 < cur[j])
        cur[j] = prev2[j - 2] + 1;
    }
  }
  return rows[la % 3][lb];
}

/* s folded into out (MAXLEN bytes); its length, or MAXLEN when longer. */
static size_t fold_str(const char *s, char *out)
{
  size_t n = 0;

  for (; s[n] && n < MAXLEN; n++)
    out[n] = (char)fold(s[n]);
  return n;
}

/* Whether the folded word (lw bytes) begins the folded candidate. */
static int is_prefix(const char *word, size_t lw, const char *cand, size_t lc)
{
  return lw <= lc && memcmp(word, cand, lw) == 0;
}

/*
 * Each candidate is folded once. The distance is at least the difference
 * of the lengths, so a candidate whose length differs from the word's by
 * more than the limit cannot be the suggestion: its table is skipped.
 * Skipping it changes nothing, since a candidate within the limit, when
 * there is one, is nearer than every skipped one; only the prefix test
 * sees it.
 */
const char *acs_suggest(const char *word, const char *const *cands, size_t n)
{
  size_t lw = strlen(word), limit, best_d = (size_t)-1, nprefix = 0;
  const char *best = NULL, *prefix = NULL;
  char fw[MAXLEN], fc[MAXLEN];

  if (lw == 0 || lw >= MAXLEN)
    return NULL;
  fold_str(word, fw);
  limit = lw <= 4 ? 1 : lw <= 8 ? 2 : 3;
  for (size_t i = 0; i < n; i++) {
    size_t lc, dist;
    if (!cands[i] || (lc = fold_str(cands[i], fc)) >= MAXLEN)
      continue;
    if ((lc > lw ? lc - lw : lw - lc) <= limit) {
      dist = distance(fw, lw, fc, lc);
      if (dist < best_d) {
        best_d = dist;
        best = cands[i];
      }
    }
    if (lw >= 3 && is_prefix(fw, lw, fc, lc)) {
      nprefix++;
      prefix = cands[i];
    }
  }
  if (best && best_d <= limit)
    return best;
  return nprefix == 1 ? prefix : NULL;
}

const char *acs_suggest_clause(const char *word, const char *const *cands, size_t n, char *buf,
                               size_t size)
{
  const char *s = acs_suggest(word, cands, n);

  if (size == 0)
    return buf;
  if (s)
    snprintf(buf, size, "; did you mean %s?", s);
  else
    buf[0] = '\0';
  return buf;
}
