// The one table of rungs. Adding a rung = one file in kernels/ + one row here.

#include <charconv>
#include <vector>

#include "gemm/kernels/launchers.hpp"
#include "gemm/registry.hpp"

namespace gemmlab {
namespace detail {
namespace {

/// What a row says about a rung beyond its types, named so that a row reads as words: which
/// instructions it needs (KernelInfo::needs_sm90a) and whether it covers a strided batch in one
/// launch (KernelInfo::native_batch).
enum class Needs { Build, Sm90a };
enum class Batch { PerProduct, Native };

constexpr KernelInfo gpu_rung(int number, std::string_view name, std::string_view technique,
                              std::string_view sources, TypeSet types, Precision precision,
                              Engine engine, Needs needs, int min_cc, Batch batch) {
    return KernelInfo{.number = number,
                      .name = name,
                      .technique = technique,
                      .sources = sources,
                      .types = types,
                      .precision = precision,
                      .engine = engine,
                      .device = Device::Gpu,
                      .needs_sm90a = needs == Needs::Sm90a,
                      .min_compute_capability = min_cc,
                      .native_batch = batch == Batch::Native};
}

// A CUDA-core rung in float and double.
#define GEMMLAB_RUNG_B(number, name, technique, sources, batch)                                    \
    Rung {                                                                                         \
        gpu_rung(number, #name, technique, sources, types_of(true, true), Precision::Default,      \
                 Engine::CudaCores, Needs::Build, 0, batch),                                       \
            &launch_typed<&launch_##name<float>, &launch_##name<double>>                           \
    }
#define GEMMLAB_RUNG(number, name, technique, sources)                                             \
    GEMMLAB_RUNG_B(number, name, technique, sources, Batch::PerProduct)

// A tensor-core rung with the math `precision` in the types it lists (F32 / F64 launchers or
// nullptr); min_cc: the lowest compute capability (10 * major + minor) whose instructions it
// uses (0: any the build targets).
#define GEMMLAB_TC_RUNG_ON(number, name, technique, sources, precision, f32, f64, needs, min_cc,   \
                           batch)                                                                  \
    Rung {                                                                                         \
        gpu_rung(number, #name, technique, sources, (typed_types<f32, f64>()), precision,          \
                 Engine::TensorCores, needs, min_cc, batch),                                       \
            &launch_typed<f32, f64>                                                                \
    }
#define GEMMLAB_TC_RUNG(number, name, technique, sources, precision, f32, f64)                    \
    GEMMLAB_TC_RUNG_ON(number, name, technique, sources, precision, f32, f64, Needs::Build, 0,     \
                       Batch::Native)

// A half-precision rung on `engine`: BF16 and FP16 inputs, C in the input type or float, FP32
// accumulation; launch_<name><TIn, TOut> instantiated for the four pairs in its own file.
#define GEMMLAB_HALF_RUNG_ON(number, name, technique, sources, engine, needs, batch)              \
    Rung {                                                                                         \
        gpu_rung(number, #name, technique, sources, kHalfTypes, Precision::Default, engine, needs, \
                 0, batch),                                                                        \
            &launch_half<&launch_##name<__nv_bfloat16, __nv_bfloat16>,                             \
                         &launch_##name<__nv_bfloat16, float>, &launch_##name<__half, __half>,     \
                         &launch_##name<__half, float>>                                            \
    }

// A half-precision tensor-core rung.
#define GEMMLAB_HALF_RUNG(number, name, technique, sources, needs, batch)                          \
    GEMMLAB_HALF_RUNG_ON(number, name, technique, sources, Engine::TensorCores, needs, batch)

constexpr TypeSet kAllTypes = type_set({DataType::F32, DataType::F64, DataType::BF16, DataType::F16});

const Rung kRungs[] = {
    Rung{gpu_rung(0, "cublas",
                    "cuBLAS SGEMM/DGEMM: true FP32/FP64 math, or TF32 when the call's precision "
                    "allows it (CUBLAS_COMPUTE_32F_FAST_TF32); BF16/FP16 by cublasGemmEx with "
                    "FP32 compute: the yardstick",
                    "-", kAllTypes, Precision::Default, Engine::Library, Needs::Build, 0,
                    Batch::Native),
         &launch_cublas},
    GEMMLAB_RUNG(1, naive, "one thread per C element, warp laid across C's columns (uncoalesced)",
                 "SGEMM v1"),
    GEMMLAB_RUNG(2, coalesced, "one thread per C element, warp laid along C's columns (coalesced)",
                 "SGEMM v1"),
    // rungs 3-8 (kernels/03_*.cu ... 08_*.cu)
    GEMMLAB_RUNG(3, register_tile_global,
                 "each thread computes a 4x4 block of C, operands read straight from global memory "
                 "into registers, K loop unrolled by 8",
                 "DCU GEMM 3.5.3-3.5.4"),
    GEMMLAB_RUNG(4, register_prefetch_global,
                 "as 3, plus a second register set: the next K step's operands are loaded before "
                 "the current one is multiplied",
                 "DCU GEMM 3.5.5"),
    GEMMLAB_RUNG(5, smem_tile,
                 "32x32 shared-memory tiles of A and B, one C element per thread, out-of-range tile "
                 "elements zero-filled",
                 "SGEMM v2-v3, shared-memory talk, DCU GEMM 3.5.6"),
    GEMMLAB_RUNG(6, smem_conflict_free,
                 "shared-memory layout (A transposed, rows padded by 1) so that a warp's reads hit "
                 "distinct banks or broadcast",
                 "SGEMM v4, shared-memory talk"),
    GEMMLAB_RUNG(7, thread_tile_1d,
                 "each thread computes a column of TM=8 results, a B value cached in a register and "
                 "reused (BM=BN=64, BK=8)",
                 "SGEMM v5, 1-D thread tile"),
    GEMMLAB_RUNG(8, vectorized,
                 "as 7, plus 128-bit global loads (float4 / double2) into shared memory where "
                 "alignment allows",
                 "SGEMM v6"),
    // rungs 9-14 (kernels/09_*.cu ... 14_*.cu)
    GEMMLAB_RUNG(9, thread_tile_4x4,
                 "64x64x16 block tile, each thread a 4x4 register outer product (MAC_4x4)",
                 "SGEMM v7, DCU GEMM 3.5.4"),
    GEMMLAB_RUNG(10, thread_tile_8x8,
                 "128x128x8 block tile, each thread 8x8, 16-byte vector shared-memory reads",
                 "SGEMM v8"),
    GEMMLAB_RUNG(11, smem_interleaved_reads,
                 "as 10, each thread's 8x8 tile split into strided 16-byte runs (rows 4t and 4t+64) "
                 "so a warp's shared-memory reads are contiguous: no bank conflicts",
                 "DCU GEMM 3.5.7-3.5.8"),
    GEMMLAB_RUNG(12, double_buffer,
                 "as 11, next K tile prefetched from global into registers during the FMAs, two "
                 "shared-memory buffers, one barrier per K tile",
                 "DCU GEMM 3.5.5"),
    GEMMLAB_RUNG_B(13, warp_tile,
                 "as 12, block tile cut into warp tiles (f32 128x256x16: 2x4 warps of 64x64), lanes "
                 "tile their warp's tile; block/warp/thread shapes as template types",
                 "public warptiling designs", Batch::Native),
    GEMMLAB_RUNG_B(14, async_pipeline,
                 "as 13, global->shared copies by cp.async (zero-filling at edges) into a 3-stage "
                 "shared-memory pipeline",
                 "sm_80+", Batch::Native),
    // rungs 15-17 (kernels/15_*.cu ... 17_*.cu): warp-level tensor cores (mma.sync)
    GEMMLAB_TC_RUNG_ON(15, dmma,
                       "FP64 tensor cores: mma.sync m16n8k16 f64 (DMMA) on warp tiles, multi-stage "
                       "cp.async pipeline into padded, bank-conflict-free shared tiles",
                       "sm_90 DMMA", Precision::Default, nullptr, &launch_dmma<double>, Needs::Build,
                       90, Batch::Native),
    GEMMLAB_TC_RUNG(16, tf32,
                    "TF32 tensor cores: inputs rounded to TF32 (cvt.rna), mma.sync m16n8k8, FP32 "
                    "accumulation; rung 15's pipeline. Lower precision (u = 2^-11)",
                    "sm_80+ TF32", Precision::Tf32, &launch_tf32<float>, nullptr),
    GEMMLAB_TC_RUNG(17, tf32x3,
                    "FP32-accurate tensor cores: each operand split into TF32 big + small parts, "
                    "big*big + big*small + small*big accumulated in FP32 (3xTF32)",
                    "error-compensated 3xTF32", Precision::Default, &launch_tf32x3<float>, nullptr),
    // rungs 18- (kernels/18_*.cu ...): half precision, BF16/FP16 inputs, FP32 accumulation
    GEMMLAB_HALF_RUNG_ON(18, half_simt,
                         "BF16/FP16 on the CUDA cores: 64x64x16 shared tiles converted to float, "
                         "4x4 FP32 FMA outputs per thread, one rounding to C's type; any "
                         "alignment: the correct fallback",
                         "SGEMM v7 on half inputs", Engine::CudaCores, Needs::Build,
                         Batch::Native),
    GEMMLAB_HALF_RUNG(19, mma_sync_f16,
                      "mma.sync m16n8k16 bf16/f16 with ldmatrix (.trans for the other layout) from "
                      "an XOR-swizzled cp.async ring: the Ampere-style baseline",
                      "sm_80+ HMMA", Needs::Build, Batch::Native),
    // rungs 20-24: Hopper's warpgroup MMA, one feature per rung file (22_warp_specialized.cuh)
    GEMMLAB_HALF_RUNG(20, wgmma,
                      "wgmma m64n128k16 reading 128-byte-swizzled shared tiles through "
                      "descriptors, async fence/commit/wait; tiles copied by cp.async",
                      "sm_90a wgmma", Needs::Sm90a, Batch::PerProduct),
    GEMMLAB_HALF_RUNG(21, tma,
                      "as 20, tiles loaded by TMA (host-built tensor maps, zero-filled edges), "
                      "stages handed over on full/empty mbarriers",
                      "sm_90 TMA", Needs::Sm90a, Batch::PerProduct),
    GEMMLAB_HALF_RUNG(22, warp_specialized,
                      "as 21, a producer warpgroup issues TMA, two consumer warpgroups issue "
                      "wgmma (setmaxnreg 40/232), 128x256 tiles; a strided batch's tiles in one "
                      "grid (3-D tensor maps)",
                      "sm_90a setmaxnreg", Needs::Sm90a, Batch::Native),
    GEMMLAB_HALF_RUNG(23, cluster_multicast,
                      "as 22, 2-block clusters along n: each block loads half of the shared A "
                      "tile and multicasts it to both",
                      "sm_90 clusters", Needs::Sm90a, Batch::Native),
    GEMMLAB_HALF_RUNG(24, persistent,
                      "as 22, one block per SM looping over tiles in grouped order, C stored "
                      "through shared memory by TMA while the next tile loads",
                      "persistent kernels", Needs::Sm90a, Batch::Native),
    // rungs 25-26: float on warpgroup MMA (hopper/tf32_pack.cuh: a pack step where needed, then rung
    // 24's kernel)
    GEMMLAB_TC_RUNG_ON(25, wgmma_tf32,
                       "TF32 on wgmma m64n256k8: operands rounded by TMA as they land, an "
                       "MN-major A through registers, an MN-major B packed K-major first; rung "
                       "24's persistent TMA pipeline. Lower precision (u = 2^-11)",
                       "sm_90a wgmma tf32", Precision::Tf32, &launch_wgmma_tf32<float>, nullptr,
                       Needs::Sm90a, 0, Batch::PerProduct),
    GEMMLAB_TC_RUNG_ON(26, wgmma_tf32x3,
                       "FP32-accurate 3xTF32 on wgmma: big and small parts packed, three "
                       "m64n128k8 per k step, flagged tiles recomputed with FP32 FMAs",
                       "3xTF32 on sm_90a", Precision::Default, &launch_wgmma_tf32x3<float>,
                       nullptr, Needs::Sm90a, 0, Batch::PerProduct),
    // rung 27: tiny products, many to a block
    Rung{gpu_rung(27, "small",
                    "many small products: one warp per 32x32 tile of C from warp-private shared "
                    "slices (float and double: 4x8 FMA outputs per lane; BF16/FP16: mma.sync, "
                    "the next slice in flight by cp.async), tiles of different batches in one "
                    "block, no block barrier; every type",
                    "batched tiny GEMM", kAllTypes, Precision::Default, Engine::ByType,
                    Needs::Build, 0, Batch::Native),
         &launch_every_type<&launch_small<float>, &launch_small<double>,
                            &launch_small_half<__nv_bfloat16, __nv_bfloat16>,
                            &launch_small_half<__nv_bfloat16, float>,
                            &launch_small_half<__half, __half>, &launch_small_half<__half, float>>},
    // rung 28: one skinny side, streamed from memory
    Rung{gpu_rung(28, "decode",
                    "one skinny side (m or n up to 64: decode tokens against a weight): each "
                    "block streams its rows of the wide operand once in 16-byte evict-first "
                    "loads, the skinny one cached; BF16/FP16 on mma.sync with the wide side "
                    "as the 16-row operand, float and double on FMAs; k split in slices "
                    "summed in order when rows are few",
                    "memory-bound GEMV/decode", kAllTypes, Precision::Default, Engine::ByType,
                    Needs::Build, 0, Batch::Native),
         &launch_every_type<&launch_decode<float>, &launch_decode<double>,
                            &launch_decode_half<__nv_bfloat16, __nv_bfloat16>,
                            &launch_decode_half<__nv_bfloat16, float>,
                            &launch_decode_half<__half, __half>, &launch_decode_half<__half, float>>},
    // rung 31: float and double emulated on INT8 tensor cores (rung 30's kernel)
    // (its modulus count is the call's GemmOptions::emulation_moduli)
    Rung{gpu_rung(31, "int8_emulation",
                  "Ozaki scheme II: rows and columns scaled by powers of two to integers, their "
                  "residues mod up to 20 coprime moduli <= 256 multiplied by one exact INT8 "
                  "wgmma GEMM each, the product rebuilt by the CRT; inputs the scaling cannot "
                  "serve (Inf/NaN, wide exponent spreads) go to FMAs",
                  "Ozaki scheme II (2025)", types_of(true, true), Precision::Default,
                  Engine::TensorCores, Needs::Sm90a, 0, Batch::PerProduct),
         &launch_int8_emulation_call},
};

#undef GEMMLAB_HALF_RUNG
#undef GEMMLAB_HALF_RUNG_ON
#undef GEMMLAB_TC_RUNG
#undef GEMMLAB_TC_RUNG_ON
#undef GEMMLAB_RUNG
#undef GEMMLAB_RUNG_B

} // namespace

std::span<const Rung> rung_table() noexcept { return kRungs; }

} // namespace detail

namespace {

constexpr TypeSet kCpuTypes = detail::types_of(true, true);
constexpr KernelInfo kCpuKernels[] = {
    {0, "cpu_naive", "triple loop, every operand reloaded for every multiply-add", "DCU GEMM 3.5.2",
     kCpuTypes, Precision::Default, Engine::Cpu, Device::Cpu},
    {1, "cpu_block_1x4", "1x4 register block: one A value reused across 4 columns of B", "DCU GEMM 3.5.2",
     kCpuTypes, Precision::Default, Engine::Cpu, Device::Cpu},
    {2, "cpu_block_4x4", "4x4 block: 4 A + 4 B values in registers, C updated in memory",
     "DCU GEMM 3.5.2", kCpuTypes, Precision::Default, Engine::Cpu, Device::Cpu},
    {3, "cpu_block_4x4_k4", "16 sums in registers across k (unrolled by 4), C written once", "DCU GEMM 3.5.2",
     kCpuTypes, Precision::Default, Engine::Cpu, Device::Cpu},
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
