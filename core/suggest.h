/*
 * suggest.h - "did you mean": the known name closest to a misspelled one.
 *
 * Used by the messages for an unknown scheduler, scheduler option or
 * platform parameter, so that a typo costs one reading of the message
 * rather than a trip to the manual.
 */
#ifndef ACS_SUGGEST_H
#define ACS_SUGGEST_H

#include <stddef.h>

/*
 * The candidate a user most likely meant by `word`, or NULL when none is
 * close. Close means an edit distance (insertions, deletions,
 * substitutions and transpositions of adjacent characters, ignoring case
 * and treating '-' and '_' alike) of at most 1 for words of up to 4
 * characters, 2 up to 8 and 3 beyond; or, failing that, `word` being the
 * start (3 characters or more) of exactly one candidate. Ties go to the
 * earlier candidate, so the answer is deterministic. NULL entries of
 * `cands` are skipped. O(n |word| |candidate|) for words and candidates
 * of up to 63 characters; longer ones are never suggested.
 */
const char *acs_suggest(const char *word, const char *const *cands, size_t n);

/* Writes "; did you mean X?" into buf when acs_suggest finds X, else "";
 * returns buf, for appending to a message. */
const char *acs_suggest_clause(const char *word, const char *const *cands, size_t n, char *buf,
                               size_t size);

#endif
