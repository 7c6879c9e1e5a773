// gemmlab_tile_sweep: times every tile configuration of the block-tiled rungs (13-17, 19) on a few
// shapes beside cuBLAS, in one run, so that the configurations `auto` chooses among and the
// rates its model uses (src/gemm/auto_select.cu) come from a command anyone can rerun:
//   build/device/gemmlab_tile_sweep [--sizes 4096,8192] [--shapes MxNxK,...] [--reps N]
//                                   [--only NAME_PART]   (e.g. --only "dmma 128x64", for ncu)
//                                   [--batch N]          (a strided batch of N products)
//                                   [--op nn,nt,tn,tt]   (row-major op pairs; default nn)
//                                   [--cublas-tf32 1]    (cuBLAS's float row in TF32 mode)
// Each configuration runs on fresh random inputs (uniform in [-1, 1]), row-major NN like the
// bench's default (or the --op pairs), timed with CUDA events (warm-up, median); its result is
// compared with cuBLAS's (max |C - C_cublas| / max |C_cublas|, printed) as a sanity check only: the
// element-wise error bound is `gemmlab verify`'s and `gemmlab bench`'s job.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/fill.hpp"
#include "common/timing.hpp"
#include "gemm/device_caps.hpp"
#include "gemm/element.hpp"
#include "gemm/kernels/hopper/configs.hpp"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/mma_configs.hpp"
#include "gemm/kernels/tile_configs.hpp"

namespace {

using namespace gemmlab;
using namespace gemmlab::detail;

/// The launcher and arguments of element type T: GemmArgs for float and double, HalfArgs with
/// C in the input type for BF16 (alpha and beta in float).
template <class T>
struct Typed {
    using Args = GemmArgs<T>;
    using Launch = Launcher<T>;
    using Scalar = T;
};
template <>
struct Typed<__nv_bfloat16> {
    using Args = HalfArgs<__nv_bfloat16, __nv_bfloat16>;
    using Launch = HalfLauncher<__nv_bfloat16, __nv_bfloat16>;
    using Scalar = float;
};

template <class T>
struct Config {
    const char* name;
    typename Typed<T>::Launch launch;
};

template <class T>
constexpr DataType data_type() {
    if constexpr (std::is_same_v<T, float>) return DataType::F32;
    else if constexpr (std::is_same_v<T, double>) return DataType::F64;
    else return DataType::BF16;
}

const Config<double> kDouble[] = {
    {"dmma 128x128x16 w64x32 s3 k16", &mma::launch_dmma_cfg<mma::Cfg128x128w64x32s3<16>, 16>},
    {"dmma 128x128x16 w64x32 s3 k8", &mma::launch_dmma_cfg<mma::Cfg128x128w64x32s3<16>, 8>},
    {"dmma 128x64x16 w64x32 s4 k16", &mma::launch_dmma_cfg<mma::Cfg128x64w64x32s4<16>, 16>},
    {"dmma 128x64x16 w64x32 s4 k8", &mma::launch_dmma_cfg<mma::Cfg128x64w64x32s4<16>, 8>},
    {"dmma 128x64x16 w64x32 s4 g16 k16", &mma::launch_dmma_cfg<mma::Cfg128x64w64x32s4g16<16>, 16>},
    {"dmma 128x64x16 w64x32 s3 g16 k16", &mma::launch_dmma_cfg<mma::Cfg128x64w64x32s3g16<16>, 16>},
    {"dmma 128x64x16 w64x32 s4 g16 k8 rotating", &mma::launch_dmma_rotating_cfg<mma::Cfg128x64w64x32s4g16<16>>},
    {"dmma 128x64x16 w64x32 s3 g16 k8 rotating", &mma::launch_dmma_rotating_cfg<mma::Cfg128x64w64x32s3g16<16>>},
    {"dmma 128x128x16 w64x32 s4 g16 k8 rotating", &mma::launch_dmma_rotating_cfg<mma::Cfg128x128w64x32s4g16<16>>},
    {"dmma 64x64x16 w32x32 s4 k16", &mma::launch_dmma_cfg<mma::Cfg64x64w32x32s4<16>, 16>},
    {"dmma 128x64x32 w64x32 s3 k16", &mma::launch_dmma_cfg<mma::Cfg128x64w64x32s3<32>, 16>},
    {"dmma 64x128x16 w32x64 s4 k16", &mma::launch_dmma_cfg<mma::Cfg64x128w32x64s4<16>, 16>},
    {"dmma 64x64x16 w32x32 s4 b3 k16", &mma::launch_dmma_cfg<mma::Cfg64x64w32x32s4b3<16>, 16>},
    {"dmma 32x64x16 w16x32 s4 k16", &mma::launch_dmma_cfg<mma::Cfg32x64w16x32s4<16>, 16>},
    {"dmma 32x32x32 w16x16 s5 k16", &mma::launch_dmma_cfg<mma::Cfg32x32w16x16s5<32>, 16>},
    {"dmma 128x64x16 w32x32 s4 k8 rotating", &mma::launch_dmma_rotating_cfg<mma::Cfg128x64w32x32s4<16>>},
    {"dmma 64x64x16 w32x16 s4 k8 rotating", &mma::launch_dmma_rotating_cfg<mma::Cfg64x64w32x16s4<16>>},
    {"dmma 32x64x32 w16x32 s3 k16", &mma::launch_dmma_cfg<mma::Cfg32x64w16x32s3<32>, 16>},
    {"dmma 128x64x32 w32x32 s3 k16 rotating", &mma::launch_dmma_rotating_cfg<mma::Cfg128x64w32x32s3<32>, 16>},
    {"dmma 32x64x32 w16x16 s3 k16 rotating", &mma::launch_dmma_rotating_cfg<mma::Cfg32x64w16x16s3<32>, 16>},
    {"warp_tile 128x64x8", &launch_warp_tile_cfg<Cfg128x64x8, double>},
};

const Config<float> kFloat[] = {
    {"tf32x3 128x128x32 w64x32 s3", &mma::launch_tf32x3_cfg<mma::Cfg128x128w64x32s3<32>>},
    {"tf32x3 64x64x32 w32x32 s4", &mma::launch_tf32x3_cfg<mma::Cfg64x64w32x32s4<32>>},
    {"tf32x3 64x32x32 w32x16 s4", &mma::launch_tf32x3_cfg<mma::Cfg64x32w32x16s4<32>>},
    {"tf32 128x256x32 w64x64 s3", &mma::launch_tf32_cfg<mma::Cfg128x256w64x64s3<32>>},
    {"tf32 128x128x32 w64x32 s3", &mma::launch_tf32_cfg<mma::Cfg128x128w64x32s3<32>>},
    {"tf32 64x64x32 w32x32 s4", &mma::launch_tf32_cfg<mma::Cfg64x64w32x32s4<32>>},
    {"tf32 64x32x32 w32x16 s4", &mma::launch_tf32_cfg<mma::Cfg64x32w32x16s4<32>>},
    {"tf32 32x32x32 w16x16 s5", &mma::launch_tf32_cfg<mma::Cfg32x32w16x16s5<32>>},
    {"tf32x3 32x32x32 w16x16 s5", &mma::launch_tf32x3_cfg<mma::Cfg32x32w16x16s5<32>>},
    {"warp_tile 128x256x16", &launch_warp_tile_cfg<Cfg128x256x16, float>},
    {"warp_tile 128x128x8", &launch_warp_tile_cfg<Cfg128x128x8, float>},
    {"warp_tile 128x64x8", &launch_warp_tile_cfg<Cfg128x64x8, float>},
    {"async_pipeline 64x64x8 s4", &launch_async_pipeline_cfg<WithStages<Cfg64x64x8, 4>, float>},
    {"warp_tile 64x64x8", &launch_warp_tile_cfg<Cfg64x64x8, float>},
};

/// Rung 24 on block config Cfg, one k slice, as auto launches its persistent tiles (128 x 64 in
/// pairs where persistent_slim_pairs says so).
template <class Cfg>
void launch_persistent_cfg(const HalfArgs<__nv_bfloat16, __nv_bfloat16>& g, cudaStream_t stream) {
    launch_persistent_tiles<Cfg>(g, stream, 1);
}

// Rung 19's configurations (bf16 in and out): the natively batched half-precision candidates;
// then rung 24's tiles for medium products and batches (sm_90a), persistent (64 x 64 also on
// ping-pong consumers) and one block per tile (the cluster-split schedule, which splits k only
// where the tiles leave SMs idle).
const Config<__nv_bfloat16> kBf16[] = {
    {"mma_sync_f16 128x128x32 s4", &mma::launch_mma_sync_f16_cfg<mma::Cfg128x128w64x32s4b2<32>>},
    {"mma_sync_f16 128x256x32 s3", &mma::launch_mma_sync_f16_cfg<mma::Cfg128x256w64x64s3<32>>},
    {"mma_sync_f16 64x64x32 s4", &mma::launch_mma_sync_f16_cfg<mma::Cfg64x64w32x32s4<32>>},
    {"persistent 128x128 s6", &launch_persistent_cfg<hopper::PersistentNarrowConfig>},
    {"persistent 128x64 s8", &launch_persistent_cfg<hopper::PersistentSlimConfig>},
    {"persistent 64x128 s8", &launch_persistent_cfg<hopper::PersistentFlatConfig>},
    {"persistent 64x64 s13", &launch_persistent_cfg<hopper::PersistentSmallConfig>},
    {"persistent 64x64 s12 pingpong", &launch_persistent_pingpong<__nv_bfloat16, __nv_bfloat16>},
    {"cluster_split 128x128 s6", &launch_persistent_cluster_split<hopper::PersistentNarrowConfig>},
    {"cluster_split 128x64 s8", &launch_persistent_cluster_split<hopper::PersistentSlimConfig>},
    {"cluster_split 64x128 s8", &launch_persistent_cluster_split<hopper::PersistentFlatConfig>},
};

struct Shape {
    int64_t m, n, k;
};

std::vector<Shape> parse(const char* sizes, const char* shapes) {
    std::vector<Shape> out;
    if (shapes) {
        std::string s = shapes;
        for (size_t pos = 0; pos < s.size();) {
            long long m = 0, n = 0, k = 0;
            std::sscanf(s.c_str() + pos, "%lldx%lldx%lld", &m, &n, &k);
            out.push_back({m, n, k});
            const size_t comma = s.find(',', pos);
            pos = comma == std::string::npos ? s.size() : comma + 1;
        }
        return out;
    }
    std::string s = sizes ? sizes : "4096,8192";
    for (size_t pos = 0; pos < s.size();) {
        const long long v = std::atoll(s.c_str() + pos);
        out.push_back({v, v, v});
        const size_t comma = s.find(',', pos);
        pos = comma == std::string::npos ? s.size() : comma + 1;
    }
    return out;
}

template <class T, size_t N>
void sweep(const Config<T> (&configs)[N], const Shape& s, int64_t batch, int reps, uint64_t seed,
           const std::string& only, bool trans_a, bool trans_b, Precision precision = Precision::Default) {
    // Rung 24's tiles need sm_90a (wgmma, TMA); elsewhere their rows are left out, and the
    // cluster split takes one product only.
    const auto runs_here = [&](const char* name) {
        const std::string n = name;
        const bool cluster_split = n.rfind("cluster_split", 0) == 0;
        if (cluster_split && batch > 1) return false;
        return current_device_caps().sm90a || (n.rfind("persistent", 0) != 0 && !cluster_split);
    };
    bool any = false;
    for (const auto& c : configs) any |= std::string(c.name).find(only) != std::string::npos && runs_here(c.name);
    if (!any) return;
    const int64_t sa = s.m * s.k, sb = s.k * s.n, sc = s.m * s.n; // packed batch strides
    DeviceBuffer<T> A(size_t(sa * batch)), B(size_t(sb * batch)), C(size_t(sc * batch)), R(size_t(sc * batch));
    Stream stream;
    fill_random(A.get(), A.size(), seed, FillKind::Uniform, stream.get());
    fill_random(B.get(), B.size(), seed + 1, FillKind::Uniform, stream.get());
    // Row-major op(A) op(B) as the bench runs it: column-major C^T = op(B)^T op(A)^T, i.e.
    // (n, m, k) with B first; a row-major operand is its transpose in column-major, so op T
    // there is op T here, with the leading dimension of the stored rows.
    using Scalar = typename Typed<T>::Scalar;
    typename Typed<T>::Args g{s.n, s.m, s.k, Scalar(1), B.get(), trans_b ? s.k : s.n, trans_b,
                              A.get(), trans_a ? s.m : s.k, trans_a, Scalar(0), C.get(), s.n};
    g.batch = {batch, {sb, sa, sc}}; // operands swapped as above
    auto gr = g;
    gr.C = R.get();
    const DataType type = data_type<T>();
    const char* const type_name = to_string(type);
    Problem pr{type, type, precision, gr.m, gr.n, gr.k,
               1.0, gr.A, gr.lda, gr.trans_a, gr.B, gr.ldb, gr.trans_b, 0.0, gr.C, gr.ldc, gr.batch};
    TimingPolicy policy;
    policy.min_samples = reps;
    policy.min_total_ms = 100;
    const double flop = 2.0 * double(s.m) * double(s.n) * double(s.k) * double(batch);
    launch_cublas(pr, stream.get());
    const TimingStats cub = time_device_work([&](cudaStream_t st) { launch_cublas(pr, st); }, stream.get(), policy);
    std::vector<T> ref(R.size()), got(C.size());
    GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    R.copy_to_host(ref.data(), ref.size());
    double ref_max = 0;
    for (T v : ref) ref_max = std::fmax(ref_max, std::fabs(to_double(v)));
    const char op[3] = {trans_a ? 't' : 'n', trans_b ? 't' : 'n', 0};
    std::printf("%-32s %-4s %s %6lld %6lld %6lld x%-5lld %9.4f ms %9.1f GFLOP/s %6.1f%%\n", "cublas", type_name, op,
                (long long)s.m, (long long)s.n, (long long)s.k, (long long)batch, cub.median_ms,
                flop / (cub.median_ms * 1e6), 100.0);
    for (const auto& c : configs) {
        if (std::string(c.name).find(only) == std::string::npos || !runs_here(c.name)) continue;
        poison_nan(C.get(), C.size(), stream.get());
        c.launch(g, stream.get());
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        C.copy_to_host(got.data(), got.size());
        double diff = 0;
        for (size_t i = 0; i < got.size(); ++i) diff = std::fmax(diff, std::fabs(to_double(got[i]) - to_double(ref[i])));
        if (!(diff == diff)) diff = INFINITY; // NaN: unwritten elements
        const TimingStats t = time_device_work([&](cudaStream_t st) { c.launch(g, st); }, stream.get(), policy);
        std::printf("%-32s %-4s %s %6lld %6lld %6lld x%-5lld %9.4f ms %9.1f GFLOP/s %6.1f%%  diff/max %.2e\n",
                    c.name, type_name, op, (long long)s.m, (long long)s.n, (long long)s.k, (long long)batch,
                    t.median_ms, flop / (t.median_ms * 1e6), 100.0 * cub.median_ms / t.median_ms,
                    diff / ref_max);
    }
}

} // namespace

int main(int argc, char** argv) {
    const char* sizes = nullptr;
    const char* shapes = nullptr;
    int reps = 10;
    int64_t batch = 1;
    std::string only; // run only the configurations whose name contains this
    std::string ops = "nn"; // row-major op(A) op(B) pairs, comma-separated
    Precision float_precision = Precision::Default; // cuBLAS's float row: SGEMM, or TF32 with 1
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--sizes") sizes = argv[i + 1];
        else if (a == "--shapes") shapes = argv[i + 1];
        else if (a == "--reps") reps = std::atoi(argv[i + 1]);
        else if (a == "--only") only = argv[i + 1];
        else if (a == "--batch") batch = std::atoll(argv[i + 1]);
        else if (a == "--op") ops = argv[i + 1];
        else if (a == "--cublas-tf32" && (std::string(argv[i + 1]) == "0" || std::string(argv[i + 1]) == "1"))
            float_precision = std::string(argv[i + 1]) == "1" ? Precision::Tf32 : Precision::Default;
        else {
            std::fprintf(stderr, "usage: %s [--sizes 4096,8192] [--shapes MxNxK,...] [--reps N] [--only NAME_PART] [--batch N] [--op nn,nt,tn,tt] [--cublas-tf32 1]\n", argv[0]);
            return 2;
        }
    }
    if (batch < 1 || reps < 1) {
        std::fprintf(stderr, "%s: --batch and --reps take a count >= 1\n", argv[0]);
        return 2;
    }
    // --op: pairs of n and t, comma-separated (a typo must not quietly run NN).
    for (size_t pos = 0;; pos += 3) {
        const auto is_op = [](char c) { return c == 'n' || c == 't'; };
        if (pos + 1 >= ops.size() || !is_op(ops[pos]) || !is_op(ops[pos + 1]) ||
            (pos + 2 < ops.size() && ops[pos + 2] != ',')) {
            std::fprintf(stderr, "%s: --op takes pairs of n and t, e.g. nn,nt,tn,tt (got '%s')\n", argv[0],
                         ops.c_str());
            return 2;
        }
        if (pos + 2 >= ops.size()) break;
    }
    try {
        uint64_t seed = 1;
        for (const Shape& s : parse(sizes, shapes))
            for (size_t pos = 0; pos + 1 < ops.size(); pos += 3) {
                const bool ta = ops[pos] == 't', tb = ops[pos + 1] == 't';
                sweep(kDouble, s, batch, reps, seed += 2, only, ta, tb);
                sweep(kFloat, s, batch, reps, seed += 2, only, ta, tb, float_precision);
                sweep(kBf16, s, batch, reps, seed += 2, only, ta, tb);
            }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gemmlab_tile_sweep: %s\n", e.what());
        return 4;
    }
    return 0;
}
