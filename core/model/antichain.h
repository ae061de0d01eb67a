/*
 * antichain.h - the width (largest antichain) of a finite partial order,
 * through Dilworth's theorem.
 *
 * A strict partial order on n elements is given by bitset rows: bit j of row
 * i is set iff i < j. Dilworth: the largest antichain has as many elements as
 * the fewest chains covering the order, and (Fulkerson) that cover has
 * n - |M| chains for a maximum matching M of the bipartite graph with an edge
 * (i, j') for every i < j. The matching is Hopcroft-Karp's, run directly on
 * the bitset rows, and a largest antichain is read off a minimum vertex cover
 * (Konig): the elements whose left copy is reachable from an unmatched left
 * vertex by an alternating path while their right copy is not.
 *
 * Costs: O(n * W) word operations per Hopcroft-Karp phase for W = ceil(n / 64)
 * words per row, and O(sqrt(n)) phases, so O(n^2.5 / 64) in the worst case;
 * O(n^2 / 8) bytes for the rows (the caller's). 2 * 10^4 elements take 50 MB
 * of rows and well under a second.
 */
#ifndef ACS_MODEL_ANTICHAIN_H
#define ACS_MODEL_ANTICHAIN_H

#include "core/acs.h"

/* Words per row of a bitset over n elements. */
static inline size_t acs_bits_words(int64_t n)
{
  return (size_t)((n + 63) / 64);
}

static inline int acs_bit_get(const uint64_t *row, int64_t j)
{
  return (int)((row[j >> 6] >> (j & 63)) & 1u);
}

static inline void acs_bit_set(uint64_t *row, int64_t j)
{
  row[j >> 6] |= (uint64_t)1 << (j & 63);
}

/*
 * Strict descendants of every node of a DAG as bitset rows (n rows of
 * acs_bits_words(n) words, zeroed by the caller): bit v of row u is set iff a
 * path u -> ... -> v of at least one edge exists. succ_off/succ is the
 * adjacency in CSR form and topo a topological order of all n nodes. Rows are
 * filled in reverse topological order, each the union of its successors'
 * rows and bits: O(n + E * W) word operations.
 */
void acs_dag_descendants(int32_t n, const int32_t *succ_off, const int32_t *succ,
                         const int32_t *topo, uint64_t *rows);

/*
 * The width of the strict partial order given by rows (n rows of `words`
 * words; the relation must be irreflexive and transitive, which the caller
 * guarantees, e.g. rows from acs_dag_descendants). Sets *width and, when
 * `members` is not NULL, writes a largest antichain there (in increasing
 * element order; room for n entries). Returns ACS_OK or ACS_ENOMEM.
 */
int acs_poset_width(int32_t n, const uint64_t *rows, size_t words, int32_t *width,
                    int32_t *members);

#endif
