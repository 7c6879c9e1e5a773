#pragma once
// The integer arithmetic of rung 31 (31_int8_emulation.cu), as plain functions that its kernels
// (ozaki/kernels.cuh) and the CPU test (tests/test_ozaki.cpp) share: the moduli, how many of them
// a call needs and how many bits that leaves its scaled operands, the operands' residues, and
// the Chinese-remainder reconstruction, in doubles where they can promise its rounding and in
// exact 160-bit integers elsewhere. docs/precision.md ("Rung 31") derives every rule used here.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "gemm/element.hpp" // GEMMLAB_HOST_DEVICE

// Unrolled on the device (static limb indices keep a Wide in registers), plain on the host.
#if defined(__CUDA_ARCH__)
#define GEMMLAB_OZAKI_UNROLL _Pragma("unroll")
#else
#define GEMMLAB_OZAKI_UNROLL
#endif

namespace gemmlab::detail::ozaki {

/// The most moduli a call uses, and the moduli themselves: pairwise coprime, at most 256, the
/// largest first (each adds log2(m) bits to the product P). Residues fit int8 (see residue).
inline constexpr int kMaxModuli = 20;
GEMMLAB_HOST_DEVICE constexpr uint32_t modulus(int l) {
    constexpr uint32_t m[kMaxModuli] = {256, 255, 253, 251, 247, 241, 239, 233, 229, 227,
                                        223, 217, 211, 199, 197, 193, 191, 181, 179, 173};
    return m[l];
}

constexpr uint32_t gcd(uint32_t a, uint32_t b) { return b == 0 ? a : gcd(b, a % b); }
constexpr bool moduli_pairwise_coprime() {
    for (int a = 0; a < kMaxModuli; ++a)
        for (int b = a + 1; b < kMaxModuli; ++b)
            if (gcd(modulus(a), modulus(b)) != 1) return false;
    return true;
}
static_assert(moduli_pairwise_coprime(), "the CRT needs pairwise coprime moduli");

/// One exact INT8 GEMM sums at most this many products: |residue| <= 128, so each product is at
/// most 2^14 and kMaxChunkK * 2^14 < 2^31 keeps the int32 sum exact. A multiple of 128 (one k
/// tile of rung 30), so every chunk starts 16-byte aligned.
inline constexpr int64_t kMaxChunkK = (int64_t(1) << 17) - 128;
static_assert(kMaxChunkK * 128 * 128 < (int64_t(1) << 31), "a chunk's int32 sum must be exact");

/// The scaled operands' integers stay within 2^kMaxBits: int64, and a double converts them
/// exactly (a double's 53 bits, scaled by a power of two, then rounded to an integer).
inline constexpr int kMaxBits = 62;
/// The magnitude operands (the lower bound of sum |A||B|, see kernels.cuh) keep this many bits:
/// floor(|a'| / 2^(bits - 7)) <= 127 fits int8.
inline constexpr int kMagnitudeBits = 7;

/// The values of k the magnitude GEMM sums: blocks of kMagnitudeBlock, every stride-th of them,
/// at most kMagnitudeBlocks, side by side in a plane `k` wide. Any subset of the nonnegative
/// products still gives a lower bound of sum |A||B|, and for inputs of one magnitude the check
/// passes with a margin of about the sample's length times 2^(bits - p) (p: the type's
/// significand bits), so 4096 values spread over k cost a fraction of a full GEMM and keep the
/// promise (docs/precision.md). Float samples a quarter as many: its elements that the check
/// sends native are recomputed in double, more accurate than the emulation, so a weaker bound
/// costs only time on wide-range inputs (and lowers their errors); double's native pass is only
/// as accurate as DGEMM, and a 2048-value sample raised its wide-range errors (docs/precision.md).
inline constexpr int64_t kMagnitudeBlock = 512, kMagnitudeBlocks = 8;
constexpr int64_t magnitude_blocks(bool is_double) {
    return is_double ? kMagnitudeBlocks : kMagnitudeBlocks / 4;
}
static_assert(kMagnitudeBlocks * kMagnitudeBlock * 127 * 127 < (int64_t(1) << 31),
              "the magnitude GEMM's int32 sums must be exact");
struct MagnitudeSample {
    int64_t stride; ///< block b of k (values [512 b, 512 b + 512)) is sampled when b % stride == 0
    int64_t k;      ///< the sampled values side by side: the plane's width (a multiple of 16)
    GEMMLAB_HOST_DEVICE bool holds_block(int64_t block) const { return block % stride == 0; }
    /// Where value p of a sampled block lies in the plane.
    GEMMLAB_HOST_DEVICE int64_t position(int64_t p) const {
        return p / kMagnitudeBlock / stride * kMagnitudeBlock + p % kMagnitudeBlock;
    }
};
/// The sample of kp values of k (kp a multiple of 16): all of them up to 4096 (double) or 1024
/// (float).
inline MagnitudeSample magnitude_sample(int64_t kp, bool is_double) {
    const int64_t blocks = (kp + kMagnitudeBlock - 1) / kMagnitudeBlock;
    const int64_t stride = (blocks + magnitude_blocks(is_double) - 1) / magnitude_blocks(is_double);
    const int64_t last = (blocks - 1) / stride * stride; // the last sampled block
    const int64_t tail = kp - last * kMagnitudeBlock;   // its length, the last block's maybe short
    return {stride, last / stride * kMagnitudeBlock + (tail < kMagnitudeBlock ? tail : kMagnitudeBlock)};
}

/// ldexp(d, e) by one multiplication where 2^e is a normal double: the product rounds once, as
/// ldexp does, also into the subnormals; ldexp itself (a longer routine) elsewhere.
/// 2^e for e in [-1022, 1023], from its bits.
GEMMLAB_HOST_DEVICE inline double pow2_normal(int e) {
    const uint64_t bits = uint64_t(e + 1023) << 52;
    double p;
    memcpy(&p, &bits, sizeof p);
    return p;
}
GEMMLAB_HOST_DEVICE inline double times_pow2(double d, int e) {
    if (e < -1022 || e > 1023) return ::ldexp(d, e);
    return d * pow2_normal(e);
}

// ------------------------------------------------------------------ how many moduli

/// log2 of P, the product of the first `count` moduli.
inline double log2_product(int count) {
    double s = 0;
    for (int l = 0; l < count; ++l) s += std::log2(double(modulus(l)));
    return s;
}

/// The largest b with 2 k 2^(2b) < P(count): |a'|, |b'| <= 2^b gives |C'| <= k 2^(2b) < P / 2,
/// so the symmetric residue class mod P is C' itself. Capped at kMaxBits; may be below 8 (too
/// few moduli for this k).
inline int bits_for(int count, int64_t k) {
    // A margin of 1e-6 bits covers log2's rounding (about 1e-14 here): when in doubt, one bit less.
    const double room = log2_product(count) - 1.0 - std::log2(double(k)) - 1e-6;
    const int b = int(std::floor(room / 2));
    return b < kMaxBits ? b : kMaxBits;
}

/// What one call runs: how many moduli (INT8 GEMMs per k chunk) and the bits of its scaled
/// operands.
struct Plan {
    int moduli;
    int bits;
};

/// The bits a type's scaled operands aim for: its own significand (53 double, 24 float), so
/// that a row's largest element is kept whole and typical results match the native ones.
constexpr int target_bits(bool is_double) { return is_double ? 53 : 24; }

/// The plan for inner dimension k: `requested` moduli (1..kMaxModuli), or with 0 the fewest
/// that give target_bits. Either way at least enough for 8 bits (the magnitude digits need
/// b >= kMagnitudeBits), and at most kMaxModuli.
inline Plan plan_for(bool is_double, int64_t k, int requested) {
    int count = 1;
    if (requested > 0) count = requested < kMaxModuli ? requested : kMaxModuli;
    else
        while (count < kMaxModuli && bits_for(count, k) < target_bits(is_double)) ++count;
    while (count < kMaxModuli && bits_for(count, k) < 8) ++count;
    return {count, bits_for(count, k)};
}

// ------------------------------------------------------------------ scaling

/// The scale of a row whose largest |x| is `largest`: 2^e with e = bits - 1 - ilogb(largest),
/// so the row's largest |x 2^e| lies in [2^(bits-1), 2^bits). Held as two factors f1 f2 = 2^e,
/// each a normal double for any e here (|e| < 1200), so that x f1 f2 is x 2^e exactly unless
/// the result lies below 2^-1022, where it rounds to the integer 0 anyway.
struct RowFactors {
    int exponent;
    double f1, f2;
};
GEMMLAB_HOST_DEVICE inline RowFactors row_factors(double largest, int bits) {
    const int e = largest == 0 ? 0 : bits - 1 - ::ilogb(largest);
    return {e, ::ldexp(1.0, e / 2), ::ldexp(1.0, e - e / 2)};
}

/// One element x of a row with factors f: a' = rint(x 2^e), whether that rounded anything,
/// |x 2^e| (the row's norm sums it), and the magnitude digit floor(|x 2^e| 2^(7 - bits)) in
/// [0, 127] (`magnitude_scale` = 2^(7 - bits)).
struct SplitValue {
    int64_t integer;
    bool inexact;
    double scaled_abs;
    uint32_t magnitude;
};
GEMMLAB_HOST_DEVICE inline SplitValue split_value(double x, const RowFactors& f,
                                                  double magnitude_scale) {
    const double s = x * f.f1 * f.f2;
    const double rounded = ::rint(s);
    return {int64_t(rounded), rounded != s || (rounded == 0 && x != 0), ::fabs(s),
            uint32_t(::floor(::fabs(s) * magnitude_scale))};
}

/// split_value for a float x under a narrow plan (bits <= 30), in 32-bit arithmetic: the split
/// of float operands spent most of its instructions on doubles and 64-bit integers
/// (docs/ladder.md, "Rung 31"). A float row's exponent e lies in [-120, 178] for bits in
/// [8, 30], so f1 = 2^(e/2) and f2 = 2^(e - e/2) are normal floats and x f1 f2 is x 2^e exactly,
/// unless it lies below 2^-126: there the integer is 0 and the element counts as rounded either
/// way. |x 2^e| <= 2^30 then converts to int32 exactly. So integer, flag and digit are
/// split_value's; scaled_abs differs from it only below 2^-126 (docs/precision.md, "Scaling to
/// integers"). `Ozaki.FloatSplitIsTheDoubleSplit` checks it.
struct SplitValueNarrow {
    int32_t integer;
    bool inexact;
    float scaled_abs;
    uint32_t magnitude;
};
GEMMLAB_HOST_DEVICE inline SplitValueNarrow split_value_narrow(float x, float f1, float f2,
                                                               float magnitude_scale) {
    const float s = x * f1 * f2;
    const float rounded = ::rintf(s);
    return {int32_t(rounded), rounded != s || (rounded == 0 && x != 0), ::fabsf(s),
            uint32_t(::floorf(::fabsf(s) * magnitude_scale))};
}

// ------------------------------------------------------------------ residues

/// A modulus known only at run time (the INT8 GEMM's epilogue: one launch for every modulus, the
/// batch index naming it) with what reduce24 and scaled_residue_of need to divide by it with
/// multiply-highs.
struct RuntimeModulus {
    uint32_t m;
    uint32_t magic; ///< ceil(2^32 / m), below 2^31
};
GEMMLAB_HOST_DEVICE constexpr RuntimeModulus runtime_modulus(uint32_t m) {
    return {m, uint32_t(((uint64_t(1) << 32) + m - 1) / m)};
}

/// x mod m for x < 2^24 and m <= 256: floor(x / m) is the high word of x ceil(2^32 / m), whose
/// excess x (ceil(2^32 / m) - 2^32 / m) / 2^32 < 2^-8 <= 1/m never carries past an integer.
GEMMLAB_HOST_DEVICE inline uint32_t reduce24(uint32_t x, const RuntimeModulus& d) {
#if defined(__CUDA_ARCH__)
    const uint32_t q = __umulhi(x, d.magic);
#else
    const uint32_t q = uint32_t((uint64_t(x) * d.magic) >> 32);
#endif
    return x - q * d.m;
}

/// The split's residue of v mod M: r = ((v + 128) mod M) - 128, in [-128, M - 129] (int8 for
/// every modulus; not the symmetric one, but any representative that fits int8 gives the same
/// sums mod M, and |r| <= 128 keeps kMaxChunkK's bound). For M = 256 it is v's low byte. For
/// the others u = v + 2^62 >= 0 (2^30 when Narrow: |v| <= 2^30, bits <= 30) plus the constant
/// (128 - 2^62) mod M is congruent to v + 128, and so is sum_i u_i (2^(8i) mod M) + that
/// constant over u's bytes u_i. Narrow, the four bytes of one word: one dp4a (< 2^18), then
/// reduce24 (three instructions a value and modulus, where dividing u itself took four). Wide,
/// eight bytes (< 2^20), whose sums the split kernel forms with u8 tensor-core products
/// (kernels.cuh), so only reduce24 and the byte packing remain per modulus. This is the same
/// arithmetic, one value at a time.
template <uint32_t M, bool Narrow>
struct ByteWeights {
    static constexpr uint32_t weight(int i) {
        uint32_t w = 1;
        for (int j = 0; j < i; ++j) w = w * 256 % M;
        return w;
    }
    /// 2^(8i) mod M for bytes 0-3 (low) and 4-7 (high), packed one per byte.
    static constexpr uint32_t low = weight(0) | weight(1) << 8 | weight(2) << 16 | weight(3) << 24;
    static constexpr uint32_t high = weight(4) | weight(5) << 8 | weight(6) << 16 | weight(7) << 24;
    /// (128 - the offset of u) mod M.
    static constexpr uint32_t offset =
        (128 + M - uint32_t((uint64_t(1) << (Narrow ? 30 : 62)) % M)) % M;
    /// u's two words.
    GEMMLAB_HOST_DEVICE static uint32_t low_word(int64_t v) {
        return Narrow ? uint32_t(v + (int64_t(1) << 30)) : uint32_t(uint64_t(v) + (uint64_t(1) << 62));
    }
    GEMMLAB_HOST_DEVICE static uint32_t high_word(int64_t v) {
        return Narrow ? 0u : uint32_t((uint64_t(v) + (uint64_t(1) << 62)) >> 32);
    }
};

/// sum_i u_i w_i + c for the bytes u_i of u and w_i of w: one dp4a on the device.
GEMMLAB_HOST_DEVICE inline uint32_t byte_dot(uint32_t u, uint32_t w, uint32_t c) {
#if defined(__CUDA_ARCH__)
    return __dp4a(u, w, c);
#else
    for (int i = 0; i < 4; ++i) c += (u >> (8 * i) & 0xFF) * (w >> (8 * i) & 0xFF);
    return c;
#endif
}

/// The narrow residue plus 128, (v + 128) mod M in [0, M), from u = v + 2^30 < 2^31: one word's
/// byte sum (< 2^18) and one reduction. M < 256.
template <uint32_t M>
GEMMLAB_HOST_DEVICE inline uint32_t narrow_biased_residue(uint32_t u) {
    using W = ByteWeights<M, true>;
    return reduce24(byte_dot(u, W::low, W::offset), runtime_modulus(M));
}

template <uint32_t M, bool Narrow = false>
GEMMLAB_HOST_DEVICE inline int32_t residue(int64_t v) {
    if constexpr (M == 256) {
        return int32_t(int8_t(uint8_t(uint64_t(v) & 0xFF)));
    } else if constexpr (Narrow) {
        return int32_t(narrow_biased_residue<M>(ByteWeights<M, true>::low_word(v))) - 128;
    } else {
        using W = ByteWeights<M, false>; // both words' byte sums (< 2^20)
        const uint32_t low = byte_dot(W::low_word(v), W::low, W::offset);
        const uint32_t sum = byte_dot(W::high_word(v), W::high, low);
        return int32_t(reduce24(sum, runtime_modulus(M))) - 128;
    }
}

/// Whether a plan's scaled integers fit residue's narrow form.
constexpr bool narrow_bits(int bits) { return bits <= 30; }

/// residue<modulus(l)>(v) for a run-time l (the CPU test; the kernels unroll over l).
template <bool Narrow = false, int L = 0>
inline int32_t residue_at(int l, int64_t v) {
    if constexpr (L < kMaxModuli) {
        if (l == L) return residue<modulus(L), Narrow>(v);
        return residue_at<Narrow, L + 1>(l, v);
    }
    return 0;
}

/// (y w) mod m in [0, m) for an int32 w (one INT8 GEMM's sum) and y < m, in five multiplies:
/// q = floor(w ceil(2^32 / m) / 2^32) (a signed multiply-high) is floor(w / m) or one off, as
/// the excess |w| (ceil(2^32 / m) - 2^32 / m) / (m 2^32) is below 1/2: up for w >= 0, down for
/// w < 0. So r = w - q m lies in [-m, 2m), (r + m) y in [0, 3 m y) below 2^18, and reduce24 ends
/// it. (The former form made w unsigned and halved it into 16-bit parts first: nine
/// instructions for the five here, in the epilogue that holds the tensor cores idle.)
GEMMLAB_HOST_DEVICE inline uint32_t scaled_residue_of(int32_t w, uint32_t y,
                                                      const RuntimeModulus& d) {
#if defined(__CUDA_ARCH__)
    const int32_t q = __mulhi(w, int32_t(d.magic));
#else
    const int32_t q = int32_t((int64_t(w) * int64_t(d.magic)) >> 32);
#endif
    // r fits int32; q m may not (w near -2^31), so the difference is taken mod 2^32.
    const int32_t r = int32_t(uint32_t(w) - uint32_t(q) * d.m);
    return reduce24(uint32_t(r * int32_t(y) + int32_t(d.m * y)), d);
}

/// Where the INT8 GEMM's epilogue leaves the residues of C (a plane of one byte per element
/// for each modulus): in the order a thread holds its accumulators. A 32-bit word holds the four
/// results of one thread for one group of 8 columns (rows r, r + 8 by columns c, c + 1, byte
/// 2 (row half) + column), and the 32 words of a 16 x 8 block, one per lane, lie together,
/// blocks column-major. A warp so stores 128 contiguous bytes per instruction, and the
/// reconstruction reads one word per plane for four elements.
struct ResidueLayout {
    int64_t blocks_m; ///< ceil(m / 16)
    int64_t blocks_n; ///< ceil(n / 8)
    GEMMLAB_HOST_DEVICE static ResidueLayout of(int64_t m, int64_t n) {
        return {(m + 15) / 16, (n + 7) / 8};
    }
    GEMMLAB_HOST_DEVICE int64_t plane_bytes() const { return blocks_m * blocks_n * 128; }
    /// The word of element (i, j), and its byte in the word.
    GEMMLAB_HOST_DEVICE int64_t word(int64_t i, int64_t j) const {
        return (i / 16 + (j / 8) * blocks_m) * 32 + (i % 8) * 4 + (j % 8) / 2;
    }
    GEMMLAB_HOST_DEVICE static int byte(int64_t i, int64_t j) {
        return int((i % 16) / 8) * 2 + int(j % 2);
    }
};


// ------------------------------------------------------------------ 160-bit integers

/// An unsigned integer of L 32-bit limbs, least significant first. kLimbs = 5, 160 bits, hold
/// sum_l M_l q_l < count * P <= 20 * 2^155.4; fewer moduli need fewer (crt_limbs).
inline constexpr int kLimbs = 5;
template <int L>
struct WideOf {
    uint32_t limb[L];
};
using Wide = WideOf<kLimbs>;

template <int L = kLimbs>
GEMMLAB_HOST_DEVICE constexpr WideOf<L> wide_zero() {
    WideOf<L> r{};
    for (int w = 0; w < L; ++w) r.limb[w] = 0;
    return r;
}

/// x's low L limbs (the rest must be zero for the value to be kept).
template <int L>
GEMMLAB_HOST_DEVICE constexpr WideOf<L> low_limbs(const Wide& x) {
    WideOf<L> r = wide_zero<L>();
    for (int w = 0; w < L; ++w) r.limb[w] = x.limb[w];
    return r;
}

/// x * s for a small s (s * limb < 2^64 always).
template <int L>
GEMMLAB_HOST_DEVICE constexpr WideOf<L> mul_small(const WideOf<L>& x, uint32_t s) {
    WideOf<L> r = wide_zero<L>();
    uint64_t carry = 0;
    GEMMLAB_OZAKI_UNROLL
    for (int w = 0; w < L; ++w) {
        const uint64_t t = uint64_t(x.limb[w]) * s + carry;
        r.limb[w] = uint32_t(t);
        carry = t >> 32;
    }
    return r;
}

template <int L>
GEMMLAB_HOST_DEVICE constexpr bool less(const WideOf<L>& a, const WideOf<L>& b) {
    bool decided = false, result = false;
    GEMMLAB_OZAKI_UNROLL
    for (int w = L - 1; w >= 0; --w)
        if (!decided && a.limb[w] != b.limb[w]) decided = true, result = a.limb[w] < b.limb[w];
    return result;
}

/// a - b for a >= b.
template <int L>
GEMMLAB_HOST_DEVICE constexpr WideOf<L> sub(const WideOf<L>& a, const WideOf<L>& b) {
    WideOf<L> r = wide_zero<L>();
    int64_t borrow = 0;
    GEMMLAB_OZAKI_UNROLL
    for (int w = 0; w < L; ++w) {
        const int64_t t = int64_t(a.limb[w]) - int64_t(b.limb[w]) - borrow;
        r.limb[w] = uint32_t(t);
        borrow = t < 0 ? 1 : 0;
    }
    return r;
}

/// x / s and x mod s for a small s (constant evaluation of the CRT weights).
constexpr Wide div_small(const Wide& x, uint32_t s, uint32_t* rem) {
    Wide q = wide_zero();
    uint64_t r = 0;
    for (int w = kLimbs - 1; w >= 0; --w) {
        const uint64_t t = (r << 32) | x.limb[w];
        q.limb[w] = uint32_t(t / s);
        r = t % s;
    }
    *rem = uint32_t(r);
    return q;
}

GEMMLAB_HOST_DEVICE inline int leading_zeros(uint32_t x) {
#if defined(__CUDA_ARCH__)
    return __clz(x);
#else
    return x == 0 ? 32 : __builtin_clz(x);
#endif
}

/// x as d * 2^exponent, d correctly rounded to a double (the limbs below the top 64 bits go
/// into a sticky bit, so the 64-to-53-bit conversion rounds as the exact value would).
struct Scaled {
    double d;
    int exponent;
};
template <int L>
GEMMLAB_HOST_DEVICE inline Scaled to_double(const WideOf<L>& x) {
    // The top nonzero limb and the two below it (zero below limb 0), taken in a walk down the
    // limbs so that no limb is indexed at run time (a kernel would put x in local memory).
    int top = 0, taken = 0;
    uint32_t hi = 0, mid = 0, lo = 0, sticky = 0;
    GEMMLAB_OZAKI_UNROLL
    for (int w = L - 1; w >= 0; --w) {
        const uint32_t v = x.limb[w];
        if (taken == 0 && v != 0) top = w;
        if (taken > 0 || v != 0) {
            if (taken == 0) hi = v;
            else if (taken == 1) mid = v;
            else if (taken == 2) lo = v;
            else sticky |= v;
            ++taken;
        }
    }
    const int s = hi == 0 ? 0 : leading_zeros(hi);
    // (hi, mid, lo) << s, its top 64 bits kept; what falls off joins the sticky bit.
    const uint64_t top64 =
        s == 0 ? (uint64_t(hi) << 32 | mid)
               : (uint64_t(hi) << (32 + s)) | (uint64_t(mid) << s) | (lo >> (32 - s));
    sticky |= s == 0 ? lo : (lo << s);
    const uint64_t v = top64 | (sticky != 0 ? 1u : 0u);
    // x = (top64 + fraction) 2^(32 (top - 1) - s)
    return {double(v), 32 * (top - 1) - s};
}

// ------------------------------------------------------------------ the CRT

/// The constants of the CRT over the first `count` moduli: P, the weights M_l = P / m_l with
/// y_l = M_l^-1 mod m_l, and P as a double (the quotient estimate).
struct CrtConstants {
    int count;
    Wide product;
    Wide weight[kMaxModuli];
    uint32_t inverse[kMaxModuli];
    double product_double;
    double product_inverse; ///< 1 / P, rounded: the quotient estimate multiplies by it
    /// P = product_double + product_tail, the tail rounded (|P - both| <= 2^-102 P).
    double product_tail;
};

/// 1/m_l = part[0][l] + part[1][l] + part[2][l] + (below 2^-143) for every modulus: the first a
/// multiple of 2^-48, the second of 2^-89 (|.| <= 2^-49), the third rounded (|.| <= 2^-90).
/// Their sums over q_l are exact in doubles, the third's nearly so (crt_value_fast). The same for
/// every count: the kernels read them from constant memory, one uniform load each (as
/// immediates each needed two uniform moves).
struct CrtFractions {
    double part[3][kMaxModuli];
};

/// y with (a * y) mod m == 1, by trial (m <= 256).
constexpr uint32_t inverse_mod(uint32_t a, uint32_t m) {
    for (uint32_t y = 1; y < m; ++y)
        if ((uint64_t(a % m) * y) % m == 1) return y;
    return 0;
}

/// The nearest integer to a / b for b > 0 (constant evaluation).
constexpr int64_t rounded_quotient(int64_t a, int64_t b) {
    return a >= 0 ? (2 * a + b) / (2 * b) : -((-2 * a + b) / (2 * b));
}

/// x as a double by Horner's rule over its limbs (a few roundings: constant evaluation only).
constexpr double horner_double(const Wide& x) {
    double d = 0;
    for (int w = kLimbs - 1; w >= 0; --w) d = d * 4294967296.0 + x.limb[w];
    return d;
}

/// The integer held by a double d in [0, 2^160) as a Wide (exact: each limb is d's bits).
constexpr Wide wide_of_double(double d) {
    Wide x = wide_zero();
    for (int w = kLimbs - 1; w >= 0; --w) {
        double scale = 1;
        for (int i = 0; i < w; ++i) scale *= 4294967296.0;
        const uint64_t part = uint64_t(d / scale); // below 2^32: the higher limbs are gone
        x.limb[w] = uint32_t(part);
        d -= double(part) * scale;
    }
    return x;
}

constexpr CrtConstants make_crt_constants(int count) {
    CrtConstants c{};
    c.count = count;
    c.product = wide_zero();
    c.product.limb[0] = 1;
    for (int l = 0; l < count; ++l) c.product = mul_small(c.product, modulus(l));
    c.product_double = horner_double(c.product);
    c.product_inverse = c.count == 0 ? 0.0 : 1.0 / c.product_double;
    const Wide head = wide_of_double(c.product_double);
    c.product_tail = less(head, c.product) ? horner_double(sub(c.product, head))
                                           : -horner_double(sub(head, c.product));
    for (int l = 0; l < count; ++l) {
        uint32_t rem = 0;
        c.weight[l] = div_small(c.product, modulus(l), &rem);
        uint32_t weight_mod = 0;
        div_small(c.weight[l], modulus(l), &weight_mod);
        c.inverse[l] = inverse_mod(weight_mod, modulus(l));
    }
    return c;
}
static_assert((uint64_t(make_crt_constants(kMaxModuli).product.limb[kLimbs - 1]) + 1) *
                      kMaxModuli <=
                  (uint64_t(1) << 32),
              "sum_l M_l q_l < 20 P must fit the 160-bit integers");

/// Every CrtConstants, by count (0 unused): the kernels read it from constant memory.
struct CrtTable {
    CrtConstants of[kMaxModuli + 1];
};
constexpr CrtTable make_crt_table() {
    CrtTable t{};
    for (int c = 0; c <= kMaxModuli; ++c) t.of[c] = make_crt_constants(c);
    return t;
}

constexpr CrtFractions make_crt_fractions() {
    CrtFractions f{};
    for (int l = 0; l < kMaxModuli; ++l) {
        // 1/m = H0 2^-48 + N0 / (m 2^48), |N0| <= m/2; N0 / (m 2^48) = H1 2^-89 + N1 / (m 2^89).
        const int64_t m = modulus(l), h0 = rounded_quotient(int64_t(1) << 48, m);
        const int64_t n0 = (int64_t(1) << 48) - h0 * m;
        const int64_t h1 = rounded_quotient(n0 * (int64_t(1) << 41), m);
        const int64_t n1 = n0 * (int64_t(1) << 41) - h1 * m;
        f.part[0][l] = double(h0) * 0x1p-48;
        f.part[1][l] = double(h1) * 0x1p-89;
        f.part[2][l] = double(n1) / (double(m) * 0x1p89);
    }
    return f;
}
/// The host's copy (the CPU tests); the kernels' is kCrtFractions (kernels.cuh).
inline constexpr CrtFractions kCrtFractionsHost = make_crt_fractions();

/// The 32-bit limbs that hold (count + 1) P: every integer crt_value meets for `count` moduli
/// (X < count P, and t P for an estimate t <= count), and at least the three to_double reads.
/// Three up to 9 moduli (float's 7-9), five for 16.
constexpr int crt_limbs(int count) {
    const Wide x = mul_small(make_crt_constants(count).product, uint32_t(count + 1));
    int limbs = kLimbs;
    while (limbs > 3 && x.limb[limbs - 1] == 0) --limbs;
    return limbs;
}

static_assert(crt_limbs(8) == 3 && crt_limbs(9) == 3 && crt_limbs(15) == 4 && crt_limbs(16) == 5,
              "float's counts reduce in 96 bits, double's 16 in 160");

/// C' from its residues: q_l = (y_l C') mod m_l in [0, m_l) for the first c.count moduli.
/// X = sum_l M_l q_l is C' mod P (plus a multiple of P below count P), reduced to [0, P) and then
/// to the symmetric range (-P/2, P/2]. Returns C' as d * 2^exponent (d rounded to nearest).
/// L: the limbs it computes in, at least crt_limbs(c.count) (the kernel's count is a constant,
/// so it takes exactly that many: fewer moduli, fewer instructions).
template <int L = kLimbs>
GEMMLAB_HOST_DEVICE inline Scaled crt_value(const uint32_t (&q)[kMaxModuli],
                                            const CrtConstants& c) {
    uint64_t acc[L] = {}; // each column sums count products below 2^40
    GEMMLAB_OZAKI_UNROLL
    for (int l = 0; l < kMaxModuli; ++l)
        if (l < c.count) {
            GEMMLAB_OZAKI_UNROLL
            for (int w = 0; w < L; ++w) acc[w] += uint64_t(q[l]) * c.weight[l].limb[w];
        }
    WideOf<L> x = wide_zero<L>();
    uint64_t carry = 0;
    GEMMLAB_OZAKI_UNROLL
    for (int w = 0; w < L; ++w) {
        const uint64_t t = acc[w] + carry;
        x.limb[w] = uint32_t(t);
        carry = t >> 32;
    }
    // t = floor(X / P) from doubles (X < count P): exact, or one off near a multiple of P.
    const WideOf<L> product = low_limbs<L>(c.product);
    const Scaled xs = to_double(x);
    const double ratio = times_pow2(xs.d, xs.exponent) * c.product_inverse;
    const uint32_t t = ratio <= 0 ? 0u : uint32_t(ratio);
    WideOf<L> tp = mul_small(product, t);
    if (less(x, tp)) tp = sub(tp, product);
    WideOf<L> r = sub(x, tp);
    if (!less(r, product)) r = sub(r, product);
    // Symmetric range: r > P / 2 stands for r - P.
    const WideOf<L> neg = sub(product, r);
    const bool negative = less(neg, r);
    WideOf<L> magnitude = wide_zero<L>();
    GEMMLAB_OZAKI_UNROLL
    for (int w = 0; w < L; ++w) magnitude.limb[w] = negative ? neg.limb[w] : r.limb[w];
    Scaled v = to_double(magnitude);
    if (negative) v.d = -v.d;
    return v;
}

/// crt_value in crt_limbs(c.count) limbs for a count known only at run time (the CPU tests:
/// the arithmetic each reconstruction kernel runs).
template <int Count = 1>
inline Scaled crt_value_sized(const uint32_t (&q)[kMaxModuli], const CrtConstants& c) {
    if constexpr (Count < kMaxModuli)
        if (c.count != Count) return crt_value_sized<Count + 1>(q, c);
    return crt_value<crt_limbs(Count)>(q, c);
}

// ------------------------------------------------------------------ the CRT in doubles

/// A residue as a double: on the GPU from the bits of 2^52 + x less 2^52, a double add, where
/// a conversion instruction runs at a quarter of that rate on sm_90.
GEMMLAB_HOST_DEVICE inline double residue_double(uint32_t x) {
#if defined(__CUDA_ARCH__)
    return __hiloint2double(0x43300000, int(x)) - 0x1p52;
#else
    return double(x);
#endif
}

/// a + b and a b rounded once, never fused by the compiler into a neighbour (the error-free
/// sums below need each rounding where it is written).
GEMMLAB_HOST_DEVICE inline double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}
GEMMLAB_HOST_DEVICE inline double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

GEMMLAB_HOST_DEVICE inline uint64_t bits_of(double d) {
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/// C' from its residues in doubles: the reconstruction's fast path, a fraction of crt_value's
/// instructions (docs/ladder.md, "Rung 31"). X / P = sum_l q_l / m_l, so C' / P is that sum's
/// distance to the nearest integer. With 1/m_l in the three parts of CrtFractions the first sum is exact and
/// so is its integer part's removal, the second is exact, the third within 2^-126; C' = P times
/// them is formed with error-free products and sums and rounded once, within 2^-94 |C'| of
/// rounding C' itself once 2^-30 P <= |C'| <= (1/2 - 2^-30) P. Returns true with *out = C' there:
/// with Rounded, only if *out is certainly C' correctly rounded (as crt_value gives it: the
/// value farther than that 2^-94 |C'| from a rounding boundary); without, *out is C' (1 + d),
/// |d| <= 2^-53 (1 + 2^-40) (float's results, rounded to float after). Otherwise false, and the
/// caller runs crt_value. docs/precision.md ("The CRT in doubles") derives each bound.
template <bool Rounded>
GEMMLAB_HOST_DEVICE inline bool crt_value_fast(const uint32_t (&q)[kMaxModuli],
                                               const CrtConstants& c, const CrtFractions& f,
                                               double* out) {
    double s0 = 0, s1 = 0, s2 = 0;
    GEMMLAB_OZAKI_UNROLL
    for (int l = 0; l < kMaxModuli; ++l)
        if (l < c.count) {
            const double x = residue_double(q[l]);
            s0 = ::fma(x, f.part[0][l], s0);
            s1 = ::fma(x, f.part[1][l], s1);
            s2 = ::fma(x, f.part[2][l], s2);
        }
    if (s0 == 0) { // every q_l is 0 (each part[0] is positive): C' = 0
        *out = 0;
        return true;
    }
    const double hi = add_rn(s0, -::rint(s0)); // exact: both are multiples of 2^-48 below 2^5
    // |s1 + s2| < 2^-36: away from 0 and from +-1/2 hi alone places C' / P.
    if (!(::fabs(hi) >= 0x1p-29 && ::fabs(hi) <= 0.5 - 0x1p-29)) return false;
    const double ph = c.product_double, pt = c.product_tail;
    // (hi + s1 + s2)(ph + pt) = a + b + lo, with a and b's rounding errors exact.
    const double a = mul_rn(hi, ph), a_error = ::fma(hi, ph, -a);
    const double b = mul_rn(s1, ph), b_error = ::fma(s1, ph, -b);
    const double lo = ::fma(hi, pt, ::fma(s2, ph, ::fma(s1, pt, add_rn(a_error, b_error))));
    const double sum = add_rn(a, b), b_part = add_rn(sum, -a); // a + b = sum + sum_error
    const double sum_error = add_rn(add_rn(a, -add_rn(sum, -b_part)), add_rn(b, -b_part));
    const double low = add_rn(sum_error, lo);
    const double r = add_rn(sum, low);
    if (!Rounded) {
        *out = r;
        return true;
    }
    const double rest = add_rn(add_rn(sum, -r), low); // C' - r, up to the bounded errors
    // Half the gap to the next double on rest's side (a quarter of r's ulp below a power of two).
    const uint64_t rb = bits_of(r);
    uint64_t half_bits = (rb & 0x7FF0000000000000ull) - (uint64_t(53) << 52);
    if ((rb & 0x000FFFFFFFFFFFFFull) == 0 && (rest < 0) == (r > 0)) half_bits -= uint64_t(1) << 52;
    double half;
    memcpy(&half, &half_bits, sizeof half);
    if (!(::fabs(rest) + ::fabs(r) * 0x1p-94 < half)) return false;
    *out = r;
    return true;
}

/// Whether P < 2^64 (up to eight moduli: float's counts for k up to about 30000).
constexpr bool product_below_2_64(const CrtConstants& c) {
    for (int w = 2; w < kLimbs; ++w)
        if (c.product.limb[w] != 0) return false;
    return true;
}

/// 1/m_l in fixed point, round(2^28 / m_l): crt_value_int64's estimate of X / P. Its
/// kFixedSumTerms terms q_l 2^28 / m_l < 2^28 each, plus the rounding's half, stay below 2^32.
inline constexpr int kFixedFractionBits = 28;
inline constexpr int kFixedSumTerms = 8;
constexpr uint32_t fixed_fraction(uint32_t m) {
    return uint32_t(((uint64_t(1) << kFixedFractionBits) + m / 2) / m);
}
/// How far (in units of 2^-28) the fixed-point sum may lie from 2^28 X / P: each term off by
/// q_l |round(2^28 / m_l) - 2^28 / m_l| <= 255 / 2, 1020 for eight.
inline constexpr uint32_t kFixedSumError = kFixedSumTerms * 255 / 2;
constexpr bool fixed_sum_fits_32_bits() {
    uint64_t s = uint64_t(1) << (kFixedFractionBits - 1);
    for (int l = 0; l < kFixedSumTerms; ++l)
        s += uint64_t(modulus(l) - 1) * fixed_fraction(modulus(l));
    return s < (uint64_t(1) << 32);
}
static_assert(fixed_sum_fits_32_bits(), "the fixed-point sum must fit 32 bits");
static_assert(kFixedSumError == 1020, "the margin docs/precision.md derives");

/// C' for P < 2^64, exactly: X = sum_l q_l M_l is taken mod 2^64 (two integer multiplies per
/// modulus), and K, the integer nearest X / P = sum_l q_l / m_l, from the same sum in 32-bit
/// fixed point (one multiply per modulus, within kFixedSumError units of it). C' = X - K P, so
/// (X - K P) mod 2^64 read as an int64 is C' itself (|C'| < P / 2 <= 2^63), and its conversion
/// rounds once, as crt_value's result does. False where K is in doubt (the fixed-point sum
/// within 2^-18 of a half-integer, so C' near +-P/2); the caller then runs crt_value.
/// docs/precision.md ("The CRT in doubles") has the argument.
GEMMLAB_HOST_DEVICE inline bool crt_value_int64(const uint32_t (&q)[kMaxModuli],
                                                const CrtConstants& c, double* out) {
    if (c.count > kFixedSumTerms) return false;
    uint64_t x = 0;
    uint32_t s = uint32_t(1) << (kFixedFractionBits - 1); // + 1/2: K = floor(s 2^-28)
    GEMMLAB_OZAKI_UNROLL
    for (int l = 0; l < kMaxModuli; ++l)
        if (l < c.count) {
            x += uint64_t(q[l]) * (uint64_t(c.weight[l].limb[1]) << 32 | c.weight[l].limb[0]);
            s += q[l] * fixed_fraction(modulus(l));
        }
    // s's place within its unit [K, K + 1): at least kFixedSumError + 1 from either end, so the
    // exact sum X / P + 1/2 lies in the same unit.
    constexpr uint32_t unit = uint32_t(1) << kFixedFractionBits, margin = kFixedSumError + 1;
    if ((s & (unit - 1)) - margin >= unit - 2 * margin) return false;
    const uint64_t k = s >> kFixedFractionBits;
    const uint64_t p = uint64_t(c.product.limb[1]) << 32 | c.product.limb[0];
    *out = double(int64_t(x - k * p));
    return true;
}

/// The fast forms of crt_rounded_or: true with *out = C' where one answers (false: the caller
/// runs the integer CRT). The reconstruction kernel calls it and the integer CRT apart.
template <bool Rounded>
GEMMLAB_HOST_DEVICE inline bool crt_fast_path(const uint32_t (&q)[kMaxModuli],
                                              const CrtConstants& c, const CrtFractions& f,
                                              double* out) {
    if (!Rounded && product_below_2_64(c)) return crt_value_int64(q, c, out);
    return crt_value_fast<Rounded>(q, c, f, out);
}

/// C' as the reconstruction takes it: for float with P < 2^64 crt_value_int64, otherwise
/// crt_value_fast where it answers, else `exact()`, the integer CRT (a branch that elements of
/// small C', and with Rounded near ties, take; with the int64 form only C' near +-P/2).
template <bool Rounded, class Exact>
GEMMLAB_HOST_DEVICE inline Scaled crt_rounded_or(const uint32_t (&q)[kMaxModuli],
                                                 const CrtConstants& c, const CrtFractions& f,
                                                 Exact exact) {
    double d = 0;
    if (crt_fast_path<Rounded>(q, c, f, &d)) return {d, 0};
    return exact();
}

/// With crt_value_sized's limbs (the CPU tests: what each reconstruction kernel runs).
template <bool Rounded>
inline Scaled crt_rounded_sized(const uint32_t (&q)[kMaxModuli], const CrtConstants& c) {
    return crt_rounded_or<Rounded>(q, c, kCrtFractionsHost, [&] { return crt_value_sized(q, c); });
}

/// C' (as crt_value returns it) scaled back: C' 2^(-e_row - e_col), one rounding (a second
/// one only where the result is subnormal).
GEMMLAB_HOST_DEVICE inline double unscale(const Scaled& c, int row_exponent, int col_exponent) {
    return times_pow2(c.d, c.exponent - row_exponent - col_exponent);
}

/// Float's scale back, alpha folded in: alpha C' 2^(-e_row - e_col) as C' times
/// float_row_alpha(alpha, e_row) float_column_scale(e_col), both formed once per row and column.
/// A float row's largest |x| lies in [2^-149, 2^128), so with bits <= kMaxBits its exponent e
/// lies in [-127, 210]: 2^-e is a normal double, and so are alpha 2^-e_row (alpha a float's
/// value) and the product with 2^-e_col, each exact. C' (< 2^160, `float_c_prime`) times it then
/// rounds once: alpha times unscale's exact result, rounded once, with no range check.
GEMMLAB_HOST_DEVICE inline double float_row_alpha(double alpha, int row_exponent) {
    return alpha * pow2_normal(-row_exponent);
}
GEMMLAB_HOST_DEVICE inline double float_column_scale(int col_exponent) {
    return pow2_normal(-col_exponent);
}
GEMMLAB_HOST_DEVICE inline double float_c_prime(const Scaled& c) {
    return c.exponent == 0 ? c.d : c.d * pow2_normal(c.exponent);
}

// ------------------------------------------------------------------ the precision promise

/// What the split pass learns about one row of op(A) (one column of op(B)).
struct RowScale {
    int exponent; ///< e: the row is scaled by 2^e, its largest |x| 2^e in [2^(bits-1), 2^bits)
    int flags;    ///< kNonfinite, kInexact
    double norm;  ///< sum_p |x_p| 2^e: the scaled row's 1-norm (rounded: see needs_native)
};
inline constexpr int kNonfinite = 1; ///< an Inf or NaN in the row
inline constexpr int kInexact = 2;   ///< some x 2^e of the row is not an integer

/// The allowance for the scaling's error, relative to sum_p |a_p| |b_p|: the library's bound
/// 2 (k + 3) u less 3u for the roundings after the exact integer product (docs/precision.md).
inline double truncation_allowance(bool is_double, int64_t k) {
    const double u = is_double ? 0x1p-53 : 0x1p-24;
    return (2.0 * double(k) + 3.0) * u;
}

/// What float's kept elements may carry in practice, in units of u: the scaling's worst-case
/// error E at most this many u of sum |a||b| as the sample estimates it.
inline constexpr double kPracticalUnits = 32;

/// tau for the automatic count. Double: the bound's allowance. Float: that, or where it is
/// tighter the practical one, kPracticalUnits u times k / sampled (the sampled lower bound
/// scaled up to all of k: an estimate of sum |a||b|, not a bound). A tighter tau only sends
/// more elements native, so the bound holds either way; the practical one keeps float's errors
/// on wide-range inputs at or below SGEMM's (docs/precision.md, "As accurate as the native
/// library", which also says why double keeps the bound's: its FMA pass's cost).
inline double kept_error_allowance(bool is_double, int64_t k, int64_t sampled) {
    if (is_double) return truncation_allowance(true, k);
    const double scale_up = sampled < k ? double(k) / double(sampled) : 1.0;
    return std::min(truncation_allowance(false, k), kPracticalUnits * 0x1p-24 * scale_up);
}

/// needs_native's constants for one call, made once on the host.
struct NativeRule {
    double tau_lower; ///< tau 2^(2 (bits - 7)): times magnitude_sum, tau times the lower bound
    double growth;    ///< 1 + (k + 3) 2^-52
    double quarter_k; ///< k / 4
};
inline NativeRule native_rule(int bits, int64_t k, double tau) {
    // 2^(2 (bits - 7)) scales tau exactly, so tau_lower * sum rounds as tau * (sum 2^...) would.
    return {tau == INFINITY ? INFINITY : times_pow2(tau, 2 * (bits - kMagnitudeBits)),
            1.0 + double(k + 3) * 0x1p-52, 0.25 * double(k)};
}

/// needs_native's terms of one row of op(A) and of one column of op(B). With rho (sigma) 1 where
/// the row (column) rounded anything, else 0, E = rho (|B_j|_1 / 2 + sigma k / 4) + sigma
/// |A_i|_1 / 2: one multiply and one FMA per element once each side is formed (the
/// reconstruction forms them once per row and column it serves). Both carry rule.growth.
struct NativeRowTerms {
    bool nonfinite;
    double rho;       ///< 1 or 0
    double half_norm; ///< |A_i|_1 / 2, times growth
};
struct NativeColumnTerms {
    bool nonfinite;
    double sigma; ///< 1 or 0
    double term;  ///< |B_j|_1 / 2 + sigma k / 4, times growth
};
GEMMLAB_HOST_DEVICE inline NativeRowTerms native_row_terms(const RowScale& a,
                                                           const NativeRule& rule) {
    return {(a.flags & kNonfinite) != 0, (a.flags & kInexact) ? 1.0 : 0.0,
            0.5 * a.norm * rule.growth};
}
GEMMLAB_HOST_DEVICE inline NativeColumnTerms native_column_terms(const RowScale& b,
                                                                 const NativeRule& rule) {
    const bool inexact = (b.flags & kInexact) != 0;
    return {(b.flags & kNonfinite) != 0, inexact ? 1.0 : 0.0,
            (0.5 * b.norm + (inexact ? rule.quarter_k : 0.0)) * rule.growth};
}

/// Whether element (i, j) must come from the native path: a row or column with Inf or NaN, or
/// the scaling's worst-case error E (in scaled units) above tau times a lower bound of the
/// scaled sum_p |a_p| |b_p|. With a' = a 2^e rounded, |a' - a 2^e| <= 1/2, so
/// E = |sum a'b' - sum a 2^e b 2^f| <= 1/2 |B_j|_1 + 1/2 |A_i|_1 + k/4 (each term only when
/// that side rounded anything). magnitude_sum = sum_p floor(|a_p| 2^(e+7-bits)) floor(|b_p| ...)
/// from the magnitude GEMM: times 2^(2 (bits - 7)) it is at most the scaled sum |A||B|. E is
/// taken times growth, 1 + (k + 3) 2^-52: the norms are rounded sums of k nonnegative terms,
/// and forming E and tau's product rounds four more times (docs/precision.md). E = 0 (nothing
/// rounded) is never above it: the emulation is exact. tau = infinity (rule.tau_lower infinite)
/// asks only the Inf/NaN question (a caller's own modulus count: no W then; infinity times 0
/// is NaN, and no comparison with NaN is true).
GEMMLAB_HOST_DEVICE inline bool needs_native(const NativeRowTerms& a, const NativeColumnTerms& b,
                                             int32_t magnitude_sum, const NativeRule& rule) {
    if (a.nonfinite || b.nonfinite) return true;
    return ::fma(a.rho, b.term, b.sigma * a.half_norm) > rule.tau_lower * double(magnitude_sum);
}
GEMMLAB_HOST_DEVICE inline bool needs_native(const RowScale& a, const RowScale& b,
                                             int32_t magnitude_sum, const NativeRule& rule) {
    return needs_native(native_row_terms(a, rule), native_column_terms(b, rule), magnitude_sum,
                        rule);
}

} // namespace gemmlab::detail::ozaki
