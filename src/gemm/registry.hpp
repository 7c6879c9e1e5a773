#pragma once
// Internal view of the rung table: the public KernelInfo plus the launcher.

#include <span>

#include "gemm/problem.hpp"
#include "gemmlab/kernels.hpp"

namespace gemmlab::detail {

struct Rung {
    KernelInfo info;
    RungLauncher launch; ///< called only for types in info.types (the API checks first)
};

/// The one table of GPU rungs, in ladder order.
std::span<const Rung> rung_table() noexcept;

} // namespace gemmlab::detail
