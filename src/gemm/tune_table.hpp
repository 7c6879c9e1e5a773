#pragma once
// The index of auto's tuned choices: which call falls in which slot. `gemmlab tune` measures one
// representative shape per slot and the tune cache (gemm/tune_cache.hpp) fills a TuneTable that
// auto reads on every call, so a lookup is array indexing: no string, no allocation.
//
// A slot is (type key, shape class):
// - the type key is what decides auto's candidates: A/B and C types and, for float, the call's
//   precision (TF32 candidates compete only under Precision::Tf32);
// - the shape class buckets the normalized (column-major) m, n and k on a log scale: m and n to
//   the nearest power of two from 64 to 4096 (7 buckets), k to the nearest power of four from
//   64 to 16384 (5 buckets), each bucket ending halfway between two powers in log scale (m, n:
//   64 <= 90 < 128 <= 181 < 256 <= 362 < 512 <= 724 < 1024 <= 1448 < 2048 <= 2896 < 4096;
//   k: 64 <= 127 < 256 <= 511 < 1024 <= 2047 < 4096 <= 8191 < 16384). The first and last
//   buckets take everything beyond. The power itself is the class's representative, the
//   shape `gemmlab tune` times. 7 x 7 x 5 = 245 classes per type key.
// Batches are not classes: a call of more than one batch keeps the model.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gemmlab/gemm.hpp"
#include "gemmlab/kernels.hpp"

namespace gemmlab::detail {

/// The candidate lists auto chooses from, by the call's types and precision.
enum class TuneType : uint8_t { F32, F32Tf32, F64, BF16, BF16F32, F16, F16F32 };

inline constexpr TuneType kAllTuneTypes[] = {TuneType::F32,  TuneType::F32Tf32, TuneType::F64,
                                             TuneType::BF16, TuneType::BF16F32, TuneType::F16,
                                             TuneType::F16F32};
inline constexpr int kTuneTypeCount = int(std::size(kAllTuneTypes));

/// The spelling in the cache file and in `gemmlab tune`'s table: bench's --dtype names, and
/// "f32-tf32" for float under Precision::Tf32.
constexpr const char* to_string(TuneType t) noexcept {
    switch (t) {
    case TuneType::F32: return "f32";
    case TuneType::F32Tf32: return "f32-tf32";
    case TuneType::F64: return "f64";
    case TuneType::BF16: return "bf16";
    case TuneType::BF16F32: return "bf16-f32";
    case TuneType::F16: return "f16";
    case TuneType::F16F32: return "f16-f32";
    }
    return "?";
}

inline std::optional<TuneType> tune_type_named(std::string_view name) {
    for (TuneType t : kAllTuneTypes)
        if (name == to_string(t)) return t;
    return std::nullopt;
}

/// The key of a call with A and B in `in`, C in `out`, at `precision` (which only float reads).
constexpr TuneType tune_type_of(DataType in, DataType out, Precision precision) noexcept {
    switch (in) {
    case DataType::F32: return precision == Precision::Tf32 ? TuneType::F32Tf32 : TuneType::F32;
    case DataType::F64: return TuneType::F64;
    case DataType::BF16: return out == DataType::F32 ? TuneType::BF16F32 : TuneType::BF16;
    case DataType::F16: return out == DataType::F32 ? TuneType::F16F32 : TuneType::F16;
    }
    return TuneType::F32;
}

constexpr DataType input_type(TuneType t) noexcept {
    switch (t) {
    case TuneType::F32: case TuneType::F32Tf32: return DataType::F32;
    case TuneType::F64: return DataType::F64;
    case TuneType::BF16: case TuneType::BF16F32: return DataType::BF16;
    case TuneType::F16: case TuneType::F16F32: return DataType::F16;
    }
    return DataType::F32;
}

constexpr DataType output_type(TuneType t) noexcept {
    return t == TuneType::BF16F32 || t == TuneType::F16F32 ? DataType::F32 : input_type(t);
}

constexpr Precision precision_of(TuneType t) noexcept {
    return t == TuneType::F32Tf32 ? Precision::Tf32 : Precision::Default;
}

// ------------------------------------------------------------------------------ shape classes

inline constexpr int kMnBuckets = 7;       // 2^6 .. 2^12
inline constexpr int kMnFirstLog2 = 6;
inline constexpr int kKBuckets = 5;        // 4^3 .. 4^7
inline constexpr int kKFirstLog4 = 3;
inline constexpr int kShapeClassCount = kMnBuckets * kMnBuckets * kKBuckets;

/// The bucket of x >= 1 among `count` powers of 2^step_log2 starting at 2^(step_log2 * first):
/// the power nearest to x in log scale, clamped to the first and last. x is below the edge
/// between powers e and e + 1, 2^(step_log2 (e + 1/2)), exactly when x^2 < 2^(step_log2 (2e + 1)).
constexpr int log_bucket(int64_t x, int step_log2, int first, int count) noexcept {
    for (int b = 0; b + 1 < count; ++b) {
        const int edge_bits = step_log2 * (2 * (first + b) + 1); // x^2 below 2^edge_bits
        if (x < (int64_t(1) << 31) && x * x < (int64_t(1) << edge_bits)) return b;
    }
    return count - 1;
}

constexpr int mn_bucket(int64_t x) noexcept { return log_bucket(x, 1, kMnFirstLog2, kMnBuckets); }
constexpr int k_bucket(int64_t k) noexcept { return log_bucket(k, 2, kKFirstLog4, kKBuckets); }

/// The class of a normalized (column-major) m x n x k product: an index in [0, kShapeClassCount).
constexpr int shape_class_of(int64_t m, int64_t n, int64_t k) noexcept {
    return (mn_bucket(m) * kMnBuckets + mn_bucket(n)) * kKBuckets + k_bucket(k);
}

/// A class's representative: the powers its buckets are named after.
struct ClassShape {
    int64_t m, n, k;
};

constexpr ClassShape representative(int shape_class) noexcept {
    const int kb = shape_class % kKBuckets;
    const int nb = (shape_class / kKBuckets) % kMnBuckets;
    const int mb = shape_class / (kKBuckets * kMnBuckets);
    return {int64_t(1) << (kMnFirstLog2 + mb), int64_t(1) << (kMnFirstLog2 + nb),
            int64_t(1) << (2 * (kKFirstLog4 + kb))};
}

/// "m256 n4096 k16384": the class by its representative, as the tune table prints it.
inline std::string class_name(int shape_class) {
    const ClassShape s = representative(shape_class);
    std::string name = "m"; // appended piece by piece: "m" + std::to_string(...) trips GCC 12's -Wrestrict
    name += std::to_string(s.m);
    name += " n";
    name += std::to_string(s.n);
    name += " k";
    name += std::to_string(s.k);
    return name;
}

// ---------------------------------------------------------------------------------- the table

/// One slot's tuned choice: the index of a candidate in auto's list for the slot's type key
/// (auto_select.hpp: find_candidate), -1 for none (the model decides), kTunedEmulation for rung
/// 31 (f64 slots only, and only for calls its accuracy rule admits), and its k slices.
inline constexpr int16_t kTunedEmulation = 0x7fff;
struct TunedChoice {
    int16_t candidate = -1;
    uint8_t splits = 1;
};

/// Every slot, resolved when the cache is loaded (names checked and turned into indices).
struct TuneTable {
    std::array<std::array<TunedChoice, kShapeClassCount>, kTuneTypeCount> slots{};

    const TunedChoice& at(TuneType t, int shape_class) const noexcept {
        return slots[size_t(t)][size_t(shape_class)];
    }
    TunedChoice& at(TuneType t, int shape_class) noexcept {
        return slots[size_t(t)][size_t(shape_class)];
    }
    /// Slots holding a choice.
    int filled() const noexcept {
        int count = 0;
        for (const auto& row : slots)
            for (const TunedChoice& c : row) count += c.candidate >= 0;
        return count;
    }
};

} // namespace gemmlab::detail
