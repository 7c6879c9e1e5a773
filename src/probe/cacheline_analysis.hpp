#pragma once
// Analysis of the cacheline probe's L1 tag experiment (method 2 of cacheline.cu), kept apart
// from the GPU code so that it is tested on the CPU with recorded measurements.
//
// The experiment: one thread chases N blocks, two dependent reads per block g bytes apart, once
// to warm L1 and once timed; lat[j][gi] is the mean cycles per read at N = blocks[j], g = gaps[gi].
// Two granules show in it, and they are different on a sectored L1:
// - the sector (what a miss fills): once N is so large that every block's first read misses,
//   the second read still hits if it lies in the sector the first one just filled, so the
//   curve levels off halfway between hit and miss; from g = sector on it misses too, and the
//   curve levels off at the miss latency.
// - the line (what one tag covers): blocks are evicted a line at a time, so the N at which a
//   gap's curve is halfway to its own plateau measures how many blocks L1 holds. It stays put
//   while both reads share a line (one tag per block, however many sectors), and halves at
//   g = line (two tags per block).
// Comparing each gap with its own plateau is what keeps the sector effect (a lower plateau)
// from passing for a capacity change.

#include <vector>

namespace gemmlab::probe {

struct L1TagAnalysis {
    double hit = 0, miss = 0; ///< fastest and slowest cycles per read of the whole sweep
    /// Per gap: cycles per read once every block misses (the curve's highest value).
    std::vector<double> plateau;
    /// Per gap: the fraction of second reads that miss although the first read of their block
    /// just missed, (2 plateau - miss - hit) / (miss - hit): 0 = same sector, 1 = separate fill.
    std::vector<double> second_read_misses;
    /// Per gap: the N at which cycles per read reach halfway from hit to the gap's plateau,
    /// interpolated in log N (the first N swept when it is already past).
    std::vector<double> half_miss_blocks;
    /// Smallest gap whose second read misses on its own (second_read_misses > 0.5), or 0.
    double sector = 0;
    /// Smallest gap at which L1 holds at most 3/4 of the blocks it holds at the smallest gap
    /// (half_miss_blocks), or 0 when none does.
    double line = 0;
    /// Misses are clearly slower than hits (miss > 2 hit): without that nothing was measured,
    /// and sector and line stay 0.
    bool valid = false;
};

/// Analyses lat[j][gi] (cycles per read at blocks[j] blocks, gaps[gi] bytes apart); blocks and
/// gaps ascending.
L1TagAnalysis analyze_l1_tags(const std::vector<double>& gaps, const std::vector<double>& blocks,
                              const std::vector<std::vector<double>>& lat);

} // namespace gemmlab::probe
