#pragma once
// The CPU-side logic of the `tensor` probe (src/probe/tensor.cu), kept apart so that tests can
// check it without a GPU: which value each IEEE rounding mode would give for the accumulation test
// cases (for the k8 shapes and the k16 shapes with 16-bit inputs), which mode a set of measured
// results matches, the problems' exact factors and their bf16/fp16 bit patterns, the fragment
// layouts the probe uses to place values in lanes, and the wgmma shared-memory layout and matrix
// descriptor.
//
// Everything here is plain constexpr / inline C++ with no CUDA types; tensor.cu calls the constexpr
// functions from device code too (the project builds with --expt-relaxed-constexpr).

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gemmlab::probe::tensor {

// ------------------------------------------------------------------------------------------------
// Rounding of C + sum of products, for C = +-1 and products of a few units u = 2^-p, p = 24 (FP32
// accumulators) or 53 (FP64). Offsets are in units of u. Above 1 in magnitude the representable
// values are 2u apart, below it u apart, so every candidate result is C + (small integer) u and
// the arithmetic below is exact in double.

enum class Rounding { NearestEven, NearestAway, TowardZero, Down, Up };

inline constexpr std::array<Rounding, 5> kRoundings = {Rounding::NearestEven, Rounding::NearestAway,
                                                       Rounding::TowardZero, Rounding::Down,
                                                       Rounding::Up};

inline constexpr std::string_view rounding_name(Rounding r) {
    switch (r) {
    case Rounding::NearestEven: return "rounds to nearest (ties to even)";
    case Rounding::NearestAway: return "rounds to nearest (ties away from zero)";
    case Rounding::TowardZero: return "truncates (round toward zero)";
    case Rounding::Down: return "rounds down (toward -infinity)";
    case Rounding::Up: return "rounds up (toward +infinity)";
    }
    return "?";
}

/// The result of rounding C + x u, C = c_sign * 1, to the accumulator's precision with `mode`,
/// as an offset from C in units of u. x is a multiple of 1/4 with |x| < 2^20.
inline double rounded_offset(int c_sign, double x, Rounding mode) {
    // Work on the magnitude: y is how far |C + x u| lies from 1. The grid of representable
    // magnitudes has spacing 2 (units of u) at or above 1 and spacing 1 below it.
    const double y = c_sign * x;
    const double lo = y >= 0 ? 2 * std::floor(y / 2) : std::floor(y); // smaller magnitude
    const double hi = y >= 0 ? 2 * std::ceil(y / 2) : std::ceil(y);   // larger magnitude
    if (lo == hi) return x;
    const bool negative = c_sign < 0;
    double pick = lo;
    switch (mode) {
    case Rounding::TowardZero: pick = lo; break;
    case Rounding::Down: pick = negative ? hi : lo; break;
    case Rounding::Up: pick = negative ? lo : hi; break;
    case Rounding::NearestAway:
    case Rounding::NearestEven: {
        const double dlo = y - lo, dhi = hi - y;
        if (dlo != dhi) {
            pick = dlo < dhi ? lo : hi;
        } else if (mode == Rounding::NearestAway) {
            pick = hi;
        } else {
            // The last significand bit of 1 + 2k u is k's parity; of 1 - j u it is j's.
            auto even = [](double g) {
                const long long index =
                    g >= 0 ? static_cast<long long>(g / 2) : static_cast<long long>(-g);
                return index % 2 == 0;
            };
            pick = even(lo) ? lo : hi;
        }
        break;
    }
    }
    return c_sign * pick;
}

/// One accumulation test: D = C + `products` equal products of `product_u` u each, C = c_sign,
/// placed at k = 0, k_stride, 2 k_stride, ... of the mma's K dimension.
struct AccumulationCase {
    std::string_view label;
    int c_sign;
    int products;
    double product_u;
    int k_stride;
    double exact_u() const { return products * product_u; }
};

/// The first kSameSignCases decide the rounding mode: their predictions differ between every pair
/// of modes. Case 6 subtracts less than half a place below 1, where hardware that drops the
/// smaller addend's bits beyond C's last place gives C while round-toward-zero of the exact
/// value gives 1 - u. Case 7 adds eight products that each lie below C's last place but sum to
/// exactly 2 places: only a sum formed before one final rounding keeps them.
inline constexpr int kSameSignCases = 5;
inline constexpr std::array<AccumulationCase, 7> kAccumulationCases = {{
    {"1 + 1.5u", +1, 1, 1.5, 1},
    {"1 + 0.5u", +1, 1, 0.5, 1},
    {"1 + 1u (a tie)", +1, 1, 1.0, 1},
    {"-1 - 1.5u", -1, 1, -1.5, 1},
    {"-1 - 0.5u", -1, 1, -0.5, 1},
    {"1 - 0.25u", +1, 1, -0.25, 1},
    {"1 + 8 x 0.5u", +1, 8, 0.5, 1},
}};
inline constexpr std::string_view kAccumulationCasesTitle =
    "1) 1 + 1.5u, 2) 1 + 0.5u, 3) 1 + 1u tie, 4) -1 - 1.5u, 5) -1 - 0.5u, 6) 1 - 0.25u, "
    "7) 1 + 8 x 0.5u";

/// The cases for the k16 shapes with 16-bit inputs (bf16/fp16 mma.sync m16n8k16, wgmma
/// m64nNk16): cases 1-6 as above; case 7 adds sixteen products below C's last place (1 + 8u
/// only if all sixteen are summed before one rounding); case 8 puts one 1u product in each half
/// of K (k = 0 and k = 8). Their exact sum, 2u, is one place, so one rounding of the whole sum
/// gives 1 + 2u in every mode, while rounding C + the first half before adding the second turns
/// each 1u tie into 0 (nearest even, toward zero, down) or 2u (nearest away, up): 1 or 1 + 4u.
inline constexpr std::array<AccumulationCase, 8> kAccumulationCasesK16 = {{
    {"1 + 1.5u", +1, 1, 1.5, 1},
    {"1 + 0.5u", +1, 1, 0.5, 1},
    {"1 + 1u (a tie)", +1, 1, 1.0, 1},
    {"-1 - 1.5u", -1, 1, -1.5, 1},
    {"-1 - 0.5u", -1, 1, -0.5, 1},
    {"1 - 0.25u", +1, 1, -0.25, 1},
    {"1 + 16 x 0.5u", +1, 16, 0.5, 1},
    {"1 + 1u (k = 0) + 1u (k = 8)", +1, 2, 1.0, 8},
}};
inline constexpr std::string_view kAccumulationCasesK16Title =
    "1) 1 + 1.5u, 2) 1 + 0.5u, 3) 1 + 1u tie, 4) -1 - 1.5u, 5) -1 - 0.5u, 6) 1 - 0.25u, "
    "7) 1 + 16 x 0.5u, 8) 1 + 1u at k = 0 + 1u at k = 8";

/// C + the products of K positions [0, 8) rounded with `mode`, then + those of [8, 16) rounded
/// again: what case 8 gives if an m16n8k16 is two k8 steps with a rounding between them. As an
/// offset from C in units of u.
inline double two_step_offset(const AccumulationCase& c, Rounding mode) {
    double first = 0, second = 0;
    for (int j = 0; j < c.products; ++j) (j * c.k_stride < 8 ? first : second) += c.product_u;
    const double after_first = rounded_offset(c.c_sign, first, mode);
    return rounded_offset(c.c_sign, after_first + second, mode);
}

/// The modes whose predictions match every measured offset (units of u) of the same-sign cases;
/// `measured_u` holds one offset per case of `cases`, in order (both lists share cases 1-5).
inline std::vector<Rounding>
matching_modes(std::span<const double> measured_u,
               std::span<const AccumulationCase> cases = kAccumulationCases) {
    std::vector<Rounding> out;
    if (measured_u.size() < size_t(kSameSignCases) || cases.size() < size_t(kSameSignCases))
        return out;
    for (Rounding mode : kRoundings) {
        bool all = true;
        for (int i = 0; i < kSameSignCases; ++i) {
            const auto& c = cases[size_t(i)];
            all = all && rounded_offset(c.c_sign, c.exact_u(), mode) == measured_u[size_t(i)];
        }
        if (all) out.push_back(mode);
    }
    return out;
}

/// "1 + 2u", "-1 - 2u", "1": the value C + offset u in words.
inline std::string offset_text(int c_sign, double offset_u) {
    std::string s = c_sign < 0 ? "-1" : "1";
    if (offset_u == 0) return s;
    char buf[48];
    const double m = offset_u < 0 ? -offset_u : offset_u;
    std::snprintf(buf, sizeof buf, " %c %gu", offset_u < 0 ? '-' : '+', m);
    return s + buf;
}

// ------------------------------------------------------------------------------------------------
// The problems the probe runs: D(0, 0) = C + sum over k of a[k] b[k], K <= 16.

struct Problem {
    double c = 0;
    std::array<double, 16> a{}, b{};
};

/// A case as a problem for an accumulator of unit roundoff u = 2^-p: each product is
/// (product_u 2^-(p/2)) * 2^-(p - p/2), two factors that are exact in every input format when
/// p = 24 (bf16, fp16, tf32: 1.5 x 2^-12, 2^-13, 2^-12 and 2^-14, all normal in fp16) or 53.
inline Problem accumulation_problem(const AccumulationCase& c, int p) {
    Problem out;
    out.c = c.c_sign;
    const int h = p / 2;
    for (int j = 0; j < c.products; ++j) {
        const size_t k = size_t(j * c.k_stride);
        out.a[k] = c.product_u * std::ldexp(1.0, -h);
        out.b[k] = std::ldexp(1.0, -(p - h));
    }
    return out;
}

// ------------------------------------------------------------------------------------------------
// 16-bit inputs: bf16 (8 significant bits, float's exponent range) and fp16 (11 bits, normal
// exponents -14 .. 15), as bit patterns. Only zeros and normal numbers are encoded; anything else
// (a value needing more bits, a subnormal, out of range) comes back with exact = false, since the
// probe must never pass a rounded operand without saying so.

struct Bits16 {
    uint16_t bits = 0;
    bool exact = false;
};

inline Bits16 encode16(double x, int mantissa_bits, int bias) {
    const uint16_t sign = std::signbit(x) ? uint16_t(0x8000u) : uint16_t(0);
    if (x == 0) return {sign, true};
    if (!std::isfinite(x)) return {};
    int e = 0;
    const double m = std::frexp(std::fabs(x), &e); // |x| = m 2^e, m in [0.5, 1)
    const int biased = e - 1 + bias;
    if (biased < 1 || biased > 2 * bias) return {};
    const double frac = (2 * m - 1) * std::ldexp(1.0, mantissa_bits);
    if (frac != std::floor(frac)) return {};
    return {uint16_t(sign | uint32_t(biased) << mantissa_bits | uint32_t(frac)), true};
}

inline Bits16 bf16_bits(double x) { return encode16(x, 7, 127); }
inline Bits16 fp16_bits(double x) { return encode16(x, 10, 15); }

/// The value of a bf16 or fp16 bit pattern (normals and zeros, as encode16 makes them).
inline double decode16(uint16_t bits, int mantissa_bits, int bias) {
    const double sign = bits & 0x8000u ? -1.0 : 1.0;
    const int biased = (bits & 0x7FFFu) >> mantissa_bits;
    const uint32_t frac = bits & ((1u << mantissa_bits) - 1);
    if (biased == 0 && frac == 0) return sign * 0.0;
    return sign * (1.0 + std::ldexp(double(frac), -mantissa_bits)) * std::ldexp(1.0, biased - bias);
}
inline double bf16_value(uint16_t bits) { return decode16(bits, 7, 127); }
inline double fp16_value(uint16_t bits) { return decode16(bits, 10, 15); }

// ------------------------------------------------------------------------------------------------
// Fragment layouts: which (row, column) of a matrix register `reg` of lane `lane` holds.

struct Coord {
    int row, col;
};

/// mma.m16n8k8 with .tf32 or .f64 operands (PTX ISA "Matrix Fragments for mma.m16n8k8": the two
/// types share one layout). A is (16, 8) row-major, B (8, 8) column-major, C/D (16, 8).
namespace m16n8k8 {
inline constexpr int kA = 4, kB = 2, kC = 4;
constexpr Coord a(int lane, int reg) {
    return {lane / 4 + 8 * (reg % 2), lane % 4 + 4 * (reg / 2)};
}
constexpr Coord b(int lane, int reg) { return {lane % 4 + 4 * reg, lane / 4}; }
constexpr Coord c(int lane, int reg) {
    return {lane / 4 + 8 * (reg / 2), 2 * (lane % 4) + reg % 2};
}
} // namespace m16n8k8

/// mma.m16n8k16 with .bf16 or .f16 operands and f32 accumulators (PTX ISA "Matrix Fragments for
/// mma.m16n8k16 with floating point type"): each 32-bit register holds two elements, `half` 0 in
/// the low 16 bits. A is (16, 16) row-major, B (16, 8) column-major, C/D (16, 8) as for m16n8k8.
namespace m16n8k16 {
inline constexpr int kA = 4, kB = 2, kC = 4, kElems = 2;
constexpr Coord a(int lane, int reg, int half) {
    return {lane / 4 + 8 * (reg % 2), 2 * (lane % 4) + half + 8 * (reg / 2)};
}
constexpr Coord b(int lane, int reg, int half) {
    return {2 * (lane % 4) + half + 8 * reg, lane / 4};
}
constexpr Coord c(int lane, int reg) { return m16n8k8::c(lane, reg); }
} // namespace m16n8k16

/// wgmma.mma_async.m64nNk16 accumulator D, f32 (PTX ISA "Matrix Fragments for
/// wgmma.mma_async.m64nNk16", register fragment layout for D): warp w of the warpgroup holds rows
/// 16w .. 16w + 15, and each 8-column slab repeats the mma.m16n8 accumulator pattern.
constexpr Coord wgmma_d(int thread, int reg) {
    const int warp = thread / 32, lane = thread % 32;
    return {16 * warp + lane / 4 + 8 * ((reg / 2) % 2), 8 * (reg / 4) + 2 * (lane % 4) + reg % 2};
}

// ------------------------------------------------------------------------------------------------
// wgmma operands in shared memory (PTX ISA "Shared Memory Matrix Layout" and "Matrix Descriptor
// Format"): K-major, no swizzle. A tile of `rows` x 16 bf16 is cut into core matrices of 8 rows
// x 16 bytes (8 bf16), each stored as 128 contiguous bytes. The two core matrices of one 8-row
// group (k 0-7, k 8-15) sit next to each other, and 8-row groups follow each other:
//   leading-dimension byte offset (next core matrix along K)    = 128 B
//   stride-dimension byte offset  (next 8-row group along M/N)  = 256 B
// This layout is only for measuring: without swizzling, eight rows of one core matrix are read
// as one 128-byte line, so it is conflict-free for the tensor core's reads, and there is no
// producer here whose stores it would have to suit.

inline constexpr uint32_t kCoreMatrixBytes = 128;
inline constexpr uint32_t kLeadingByteOffset = 128;
inline constexpr uint32_t kStrideByteOffset = 256;

/// Byte offset of bf16 element (row, k), k < 16, in the layout above.
constexpr uint32_t kmajor_offset(int row, int k) {
    return uint32_t((row / 8) * 2 + k / 8) * kCoreMatrixBytes + uint32_t(row % 8) * 16 +
           uint32_t(k % 8) * 2;
}

/// The 64-bit matrix descriptor: bits 0-13 start address, 16-29 leading-dimension byte offset,
/// 32-45 stride-dimension byte offset, each encoded as (x & 0x3FFFF) >> 4; base offset (49-51)
/// and swizzle mode (62-63) stay 0 for the no-swizzle layout.
constexpr uint64_t descriptor_field(uint32_t bytes) { return uint64_t((bytes & 0x3FFFFu) >> 4); }
constexpr uint64_t wgmma_descriptor(uint32_t smem_address, uint32_t leading_bytes,
                                    uint32_t stride_bytes) {
    return descriptor_field(smem_address) | descriptor_field(leading_bytes) << 16 |
           descriptor_field(stride_bytes) << 32;
}

} // namespace gemmlab::probe::tensor
