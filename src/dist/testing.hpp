#pragma once
// Test and bench support of the distributed layer: operands filled on each rank from a hash of
// the global index (so any rank, and the CPU, knows any entry without communication), and the
// check of sampled entries against a CPU reference with DESIGN.md's bound.

#include <cstdint>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "gemmlab/dist.hpp"

namespace gemmlab::dist::testing {

/// What the hash gives: small integers in [-2, 2] (products and sums exact in every type's
/// accumulator), or uniform values in [-1, 1) with 24 bits (rounded to the element type).
enum class Values { SmallIntegers, Uniform };

/// The value of global entry (i, j) of matrix `which` (0: A, 1: B, 2: C), before rounding to T.
__host__ __device__ inline float hashed_value(uint64_t seed, int which, int64_t i, int64_t j, Values v) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ull ^ (uint64_t(which) << 58) ^ (uint64_t(i) * 0xBF58476D1CE4E5B9ull) ^
                 (uint64_t(j) * 0x94D049BB133111EBull);
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    if (v == Values::SmallIntegers) return float(int64_t(x % 5) - 2);
    return float(x >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

template <class T>
__host__ __device__ inline T from_float(float f) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(f);
    else if constexpr (std::is_same_v<T, __half>) return __float2half_rn(f);
    else return T(f);
}
template <class T>
__host__ __device__ inline double to_double(T v) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) return double(__bfloat162float(v));
    else if constexpr (std::is_same_v<T, __half>) return double(__half2float(v));
    else return double(v);
}

/// Fills this rank's local block of `m` (global rows x cols under m.dist, stored in `layout`)
/// with hashed_value(seed, which, global i, global j) rounded to T.
template <class T>
cudaError_t fill_local(const Matrix<T>& m, Layout layout, int rank, uint64_t seed, int which, Values v,
                       cudaStream_t stream);

/// The host's copy of entry (i, j) as the GPU stores it.
template <class T>
double host_entry(uint64_t seed, int which, int64_t i, int64_t j, Values v) {
    return to_double(from_float<T>(hashed_value(seed, which, i, j, v)));
}

/// Result of a sampled check.
struct SampleCheck {
    int64_t checked = 0;
    int64_t failed = 0;
    double worst_ratio = 0; // max |got - ref| / bound
    std::string worst;      // "(row, col) got G want W bound B"
};

/// Unit roundoff of a type's own arithmetic (float for the half types' accumulation).
template <class T>
constexpr double unit_roundoff() {
    if constexpr (std::is_same_v<T, double>) return 0x1p-53;
    else return 0x1p-24;
}
/// Unit roundoff of storing to T (0 for float and double: their rounding is in gamma).
template <class T>
constexpr double output_roundoff() {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) return 0x1p-8;
    else if constexpr (std::is_same_v<T, __half>) return 0x1p-11;
    else return 0;
}

/// Checks `samples` entries of this rank's block of C (copied to the host in `c_host`, local
/// rows x local cols in `layout` with ld) against sum_p A(i, p) B(p, j) computed on the CPU in
/// long double, with |got - ref| <= c k u (|alpha| sum |A||B| + |beta| |C0|) + u_out |ref|,
/// c = 4. C0 is hashed matrix 2 (the tests fill C with it before the call).
template <class TA, class TC>
SampleCheck check_samples(const TC* c_host, int64_t ld, Layout layout, const Distribution& dc, int rank,
                          int64_t m, int64_t n, int64_t k, double alpha, double beta, uint64_t seed, Values v,
                          int samples);

} // namespace gemmlab::dist::testing
