#pragma once
// The bank model the smem-bank probe states its expectations with, for both platforms.
//
// Shared memory (NVIDIA) and LDS (AMD GCN/CDNA) both have 32 banks of 4 bytes: word w lives in
// bank w mod 32, and a bank serves one word per pass; lanes that read the same word share it
// (broadcast). What differs is how many lanes one pass serves: a whole 32-lane warp on NVIDIA,
// half of a 64-lane wavefront on GCN, whose LDS checks lanes 0-31 and 32-63 for conflicts
// separately and serves one half after the other (AMD's OpenCL programming guide for GCN, "Local
// Memory (LDS) Optimization"). So the model takes the warp's width as a parameter: a stride that
// conflicts g ways on NVIDIA conflicts g ways within each half on AMD, and a wavefront's load
// takes 2 x g passes. The model covers 4-byte loads only (wider loads are split differently).

#include <array>
#include <stdexcept>

namespace gemmlab::probe {

/// Banks of 4-byte words, and how many lanes of a warp one pass over them serves.
struct SharedBanks {
    int banks = 32;
    int lanes_per_pass = 32;
};

/// Both platforms: 32 banks, 32 lanes per pass (a whole warp on NVIDIA, half a wavefront on AMD).
inline constexpr SharedBanks kSharedBanks{};

/// What one warp-wide 4-byte load costs in the model.
struct BankCost {
    int ways = 0;   ///< the most distinct words one bank serves within one pass (1: no conflict)
    int passes = 0; ///< bank passes of the whole warp: the ways of each group of lanes, summed
};

/// Cost of a load where lane l of a `warp_size`-lane warp reads the 4-byte word l * stride_words
/// (plus any offset common to all lanes, which moves every lane's bank alike). The tile column
/// read of smem-bank (lane l reads tile[l][c] of rows `pitch` words long) is stride = pitch.
/// Throws std::invalid_argument unless warp_size is a positive multiple of lanes_per_pass and
/// 0 < banks <= 64, stride_words >= 0.
constexpr BankCost strided_load_cost(int stride_words, int warp_size, SharedBanks b = kSharedBanks) {
    if (b.banks <= 0 || b.banks > 64 || b.lanes_per_pass <= 0 || warp_size <= 0 ||
        warp_size % b.lanes_per_pass != 0 || stride_words < 0)
        throw std::invalid_argument("strided_load_cost: needs 0 < banks <= 64, a warp_size that is a "
                                    "positive multiple of lanes_per_pass, and stride_words >= 0");
    BankCost cost;
    for (int first = 0; first < warp_size; first += b.lanes_per_pass) {
        std::array<int, 64> words_in_bank{}; // distinct words each bank serves in this pass
        for (int l = first; l < first + b.lanes_per_pass; ++l) {
            const long long word = (long long)l * stride_words;
            bool shared = false; // an earlier lane of this pass reads the same word: broadcast
            for (int k = first; k < l && !shared; ++k) shared = (long long)k * stride_words == word;
            if (!shared) ++words_in_bank[size_t(word % b.banks)];
        }
        int ways = 0;
        for (int w : words_in_bank) ways = w > ways ? w : ways;
        cost.ways = ways > cost.ways ? ways : cost.ways;
        cost.passes += ways;
    }
    return cost;
}

} // namespace gemmlab::probe
