/*
 * cache.h - what schedulers keep between runs of one process.
 *
 * A sweep worker runs the same network on many platforms that differ in a
 * parameter or two; a scheduler whose work on one does not depend on them
 * can keep it for the next (cascade keeps its plans of groups, which do
 * not depend on the CMX size). The caller owns the cache and passes it in
 * acs_sched_ctx.cache; each scheduler gets one slot, found by its ops
 * table, holding an object only it reads and the function that frees it.
 * Keys, bounds and eviction are the scheduler's: the cache only holds.
 */
#ifndef ACS_SCHED_CACHE_H
#define ACS_SCHED_CACHE_H

struct acs_sched_cache;

struct acs_sched_cache *acs_sched_cache_new(void);
/* Frees every slot's object with its destructor. NULL is fine. */
void acs_sched_cache_free(struct acs_sched_cache *c);

/*
 * The slot of `owner` (a scheduler's ops table): a pointer to its object,
 * NULL until the scheduler stores one there; `destroy` frees the object
 * when the cache is freed. NULL when c is NULL or ACS_SCHED_CACHE_SLOTS
 * owners already hold slots. O(slots).
 */
#define ACS_SCHED_CACHE_SLOTS 8
void **acs_sched_cache_slot(struct acs_sched_cache *c, const void *owner,
                            void (*destroy)(void *));

#endif
