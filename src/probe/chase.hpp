#pragma once
// Random single-cycle permutations for pointer-chase probes (Vega10 microbenchmarks 2.6): node i's successor is
// next[i], and following next from any node visits every node once before coming back. A random
// order defeats prefetching and keeps every step a dependent load; a single cycle guarantees the
// chase covers the whole footprint instead of looping in a short sub-cycle.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gemmlab::probe {

/// A uniformly random cyclic permutation of n nodes (Sattolo's algorithm), deterministic for a
/// given seed. n == 1 gives next = {0}; n == 0 gives an empty vector. Throws std::length_error
/// when n does not fit in 32-bit indices.
std::vector<uint32_t> random_cycle(size_t n, uint64_t seed);

/// Length of the cycle through node 0 (0 for an empty array); equals next.size() exactly when
/// `next` is a single cycle through every node. Returns 0 when an index is out of range.
size_t cycle_length(std::span<const uint32_t> next);

/// True when `next` is a permutation forming one cycle through every node.
bool is_single_cycle(std::span<const uint32_t> next);

} // namespace gemmlab::probe
