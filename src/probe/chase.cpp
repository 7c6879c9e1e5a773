// Random single-cycle permutations for the pointer chase (see chase.hpp).

#include "probe/chase.hpp"

#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <utility>

namespace gemmlab::probe {

std::vector<uint32_t> random_cycle(size_t n, uint64_t seed) {
    if (n > size_t(std::numeric_limits<uint32_t>::max()))
        throw std::length_error("random_cycle: more nodes than 32-bit indices can name");
    std::vector<uint32_t> next(n);
    std::iota(next.begin(), next.end(), uint32_t{0});
    // Sattolo: like Fisher-Yates, but j < i strictly, so no element stays in place and the
    // permutation i -> next[i] is one cycle of length n (every cyclic permutation equally likely).
    std::mt19937_64 rng(seed);
    for (size_t i = n; i > 1; --i) {
        const size_t j = std::uniform_int_distribution<size_t>(0, i - 2)(rng);
        std::swap(next[i - 1], next[j]);
    }
    return next;
}

size_t cycle_length(std::span<const uint32_t> next) {
    const size_t n = next.size();
    if (n == 0) return 0;
    size_t len = 0;
    uint32_t node = 0;
    do {
        if (next[node] >= n) return 0;
        node = next[node];
        ++len;
    } while (node != 0 && len <= n);
    return len;
}

bool is_single_cycle(std::span<const uint32_t> next) {
    // Starting from node 0 we come back to 0 after exactly n steps only if the cycle through 0
    // holds all n nodes (a permutation of n nodes cannot have a cycle longer than n).
    return !next.empty() && cycle_length(next) == next.size();
}

} // namespace gemmlab::probe
