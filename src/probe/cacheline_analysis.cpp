#include "probe/cacheline_analysis.hpp"

#include <algorithm>
#include <cmath>

namespace gemmlab::probe {

L1TagAnalysis analyze_l1_tags(const std::vector<double>& gaps, const std::vector<double>& blocks,
                              const std::vector<std::vector<double>>& lat) {
    L1TagAnalysis a;
    if (gaps.empty() || blocks.empty() || lat.size() != blocks.size()) return a;
    a.hit = a.miss = lat[0][0];
    for (const auto& row : lat)
        for (double v : row) {
            a.hit = std::min(a.hit, v);
            a.miss = std::max(a.miss, v);
        }
    const size_t ng = gaps.size();
    a.plateau.assign(ng, a.hit);
    a.second_read_misses.assign(ng, 0.0);
    a.half_miss_blocks.assign(ng, blocks.front());
    const double span = a.miss - a.hit;
    for (size_t g = 0; g < ng; ++g) {
        for (const auto& row : lat) a.plateau[g] = std::max(a.plateau[g], row[g]);
        if (span > 0)
            a.second_read_misses[g] = std::clamp((2 * a.plateau[g] - a.miss - a.hit) / span, 0.0, 1.0);
        const double half = a.hit + 0.5 * (a.plateau[g] - a.hit);
        for (size_t j = 0; j < blocks.size(); ++j) {
            if (lat[j][g] < half) continue;
            if (j == 0) break; // already past at the first N: that N is the best bound
            const double y0 = lat[j - 1][g], y1 = lat[j][g];
            const double t = y1 > y0 ? (half - y0) / (y1 - y0) : 1.0;
            a.half_miss_blocks[g] = std::exp2(std::log2(blocks[j - 1]) + t * (std::log2(blocks[j]) - std::log2(blocks[j - 1])));
            break;
        }
    }
    a.valid = a.miss > 2 * a.hit && a.hit > 0;
    if (!a.valid) return a;
    for (size_t g = 0; g < ng; ++g)
        if (a.second_read_misses[g] > 0.5) {
            a.sector = gaps[g];
            break;
        }
    for (size_t g = 1; g < ng; ++g)
        if (a.half_miss_blocks[g] <= 0.75 * a.half_miss_blocks[0]) {
            a.line = gaps[g];
            break;
        }
    return a;
}

} // namespace gemmlab::probe
