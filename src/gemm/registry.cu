// The one table of rungs. Adding a rung = one file in kernels/ + one row here.

#include <charconv>
#include <vector>

#include "gemm/kernels/launchers.hpp"
#include "gemm/registry.hpp"

namespace gemmlab {
namespace detail {
namespace {

#define GEMMLAB_RUNG(number, name, technique, seeds)                                               \
    Rung {                                                                                         \
        KernelInfo{number, #name, technique, seeds, true, true, Device::Gpu},                      \
            &launch_##name<float>, &launch_##name<double>                                          \
    }

const Rung kRungs[] = {
    GEMMLAB_RUNG(0, cublas, "cuBLAS SGEMM/DGEMM with true FP32/FP64 math (no TF32): the yardstick",
                 "-"),
    GEMMLAB_RUNG(1, naive, "one thread per C element, warp laid across C's columns (uncoalesced)",
                 "001 v1"),
    GEMMLAB_RUNG(2, coalesced, "one thread per C element, warp laid along C's columns (coalesced)",
                 "001 v1"),
    // rungs 3-8 (kernels/03_*.cu ... 08_*.cu)
    GEMMLAB_RUNG(3, register_tile_global,
                 "each thread computes a 4x4 block of C, operands read straight from global memory "
                 "into registers, K loop unrolled by 8",
                 "000 §3.5.3-3.5.4"),
    GEMMLAB_RUNG(4, register_prefetch_global,
                 "as 3, plus a second register set: the next K step's operands are loaded before "
                 "the current one is multiplied",
                 "000 §3.5.5"),
    GEMMLAB_RUNG(5, smem_tile,
                 "32x32 shared-memory tiles of A and B, one C element per thread, out-of-range tile "
                 "elements zero-filled",
                 "001 v2-v3, 004, 000 §3.5.6"),
    GEMMLAB_RUNG(6, smem_conflict_free,
                 "shared-memory layout (A transposed, rows padded by 1) so that a warp's reads hit "
                 "distinct banks or broadcast",
                 "001 v4, 004"),
    GEMMLAB_RUNG(7, thread_tile_1d,
                 "each thread computes a column of TM=8 results, a B value cached in a register and "
                 "reused (BM=BN=64, BK=8)",
                 "001 v5, 003"),
    GEMMLAB_RUNG(8, vectorized,
                 "as 7, plus 128-bit global loads (float4 / double2) into shared memory where "
                 "alignment allows",
                 "001 v6"),
    // rungs 9-14 (kernels/09_*.cu ... 14_*.cu)
    GEMMLAB_RUNG(9, thread_tile_4x4,
                 "64x64x16 block tile, each thread a 4x4 register outer product (MAC_4x4)",
                 "001 v7, 000 §3.5.4"),
    GEMMLAB_RUNG(10, thread_tile_8x8,
                 "128x128x8 block tile, each thread 8x8, 16-byte vector shared-memory reads",
                 "001 v8"),
    GEMMLAB_RUNG(11, smem_interleaved_reads,
                 "as 10, each thread's 8x8 tile split into strided 16-byte runs (rows 4t and 4t+64) "
                 "so a warp's shared-memory reads are contiguous: no bank conflicts",
                 "000 §3.5.7-3.5.8"),
    GEMMLAB_RUNG(12, double_buffer,
                 "as 11, next K tile prefetched from global into registers during the FMAs, two "
                 "shared-memory buffers, one barrier per K tile",
                 "000 §3.5.5"),
    GEMMLAB_RUNG(13, warp_tile,
                 "as 12, block tile cut into warp tiles (f32 128x256x16: 2x4 warps of 64x64), lanes "
                 "tile their warp's tile; block/warp/thread shapes as template types",
                 "public warptiling designs"),
    GEMMLAB_RUNG(14, async_pipeline,
                 "as 13, global->shared copies by cp.async (zero-filling at edges) into a 3-stage "
                 "shared-memory pipeline",
                 "sm_80+"),
};

#undef GEMMLAB_RUNG

} // namespace

std::span<const Rung> rung_table() noexcept { return kRungs; }

} // namespace detail

namespace {

constexpr KernelInfo kCpuKernels[] = {
    {0, "cpu_naive", "triple loop, every operand reloaded for every multiply-add", "000 §3.5.2",
     true, true, Device::Cpu},
    {1, "cpu_block_1x4", "1x4 register block: one A value reused across 4 columns of B", "000 §3.5.2",
     true, true, Device::Cpu},
    {2, "cpu_block_4x4", "4x4 block: 4 A + 4 B values in registers, C updated in memory",
     "000 §3.5.2", true, true, Device::Cpu},
    {3, "cpu_block_4x4_k4", "16 sums in registers across k (unrolled by 4), C written once", "000 §3.5.2", true,
     true, Device::Cpu},
};

std::vector<KernelInfo> make_gpu_infos() {
    std::vector<KernelInfo> out;
    for (const auto& r : detail::rung_table()) out.push_back(r.info);
    return out;
}

} // namespace

std::span<const KernelInfo> gpu_kernels() noexcept {
    static const std::vector<KernelInfo> infos = make_gpu_infos(); // thread-safe static init
    return infos;
}

std::span<const KernelInfo> cpu_kernels() noexcept { return kCpuKernels; }

std::optional<KernelInfo> find_gpu_kernel(std::string_view key) noexcept {
    int number = -1;
    const auto [ptr, ec] = std::from_chars(key.data(), key.data() + key.size(), number);
    const bool is_number = ec == std::errc() && ptr == key.data() + key.size();
    for (const auto& info : gpu_kernels())
        if (is_number ? info.number == number : info.name == key) return info;
    return std::nullopt;
}

} // namespace gemmlab
