#pragma once
// Internal view of the rung table: the public KernelInfo plus the launchers.

#include <span>

#include "gemm/problem.hpp"
#include "gemmlab/kernels.hpp"

namespace gemmlab::detail {

struct Rung {
    KernelInfo info;
    Launcher<float> f32;  ///< nullptr when the rung has no float version
    Launcher<double> f64; ///< nullptr when the rung has no double version

    template <class T>
    Launcher<T> launcher() const {
        if constexpr (sizeof(T) == sizeof(float)) return f32;
        else return f64;
    }
};

/// The one table of GPU rungs, in ladder order.
std::span<const Rung> rung_table() noexcept;

} // namespace gemmlab::detail
