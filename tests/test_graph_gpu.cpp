// CUDA graphs (issue 10): every entry point can be recorded by stream capture and replayed.
// One gemm call is captured on a non-default stream (cudaStreamCaptureModeGlobal, the strictest
// mode: a call that synchronizes, allocates with cudaMalloc or touches the legacy stream fails
// the capture), instantiated and replayed. A replay must compute what the call computes, on
// whatever the buffers hold when it runs: after new random inputs are written into the same
// device buffers, the next replay gives the new product; with beta != 0, replaying again
// accumulates onto the C the last replay left. Each replay is checked element by element against
// the double-double GPU reference within the error bound of the precision the kernel computes in
// (the check bench and verify use), C poisoned with NaN first when beta == 0.
//
// Every entry point: float, double, BF16 -> BF16, BF16 -> float, FP16 -> FP16, FP16 -> float,
// float with Precision::Tf32; `auto` and every rung that has the type, cuBLAS (rung 0) and the
// Hopper rungs included (skipped where check_device_support says the GPU cannot run them); and
// the calls that launch no GEMM: k == 0 or alpha == 0 (C = beta C) and m == 0 (nothing).
//
// Each call runs once eagerly before its capture (module loading, one-time kernel attributes,
// cuBLAS handle creation, the workspace pool's creation), as cuBLAS asks of a captured call.
// Under ctest every test is its own process, so that warm-up is the process's first gemm call.
//
// Calls with a workspace. Rungs 25-26 (wgmma_tf32, wgmma_tf32x3) take theirs from the per-device
// stream-ordered pool (src/gemm/workspace.hpp), which capture records as memory alloc/free nodes:
// named, they must show those nodes in the graph (the workspace path was captured, not their
// fallback); `auto` picks them for float on an H100 at these shapes by today's model
// (auto_select.cu), and its node counts are printed. TO ADD HERE: every new call that needs a
// workspace (split-K: the last variant below). Add its rung or path to entries() with a variant
// whose shape makes auto pick it, and expect its memory nodes as for rungs 25-26. It must not
// cudaMalloc inside the capture nor keep state a replay would see stale (a counter the host
// resets between calls).

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "common/device_buffer.hpp"
#include "common/device_info.hpp"
#include "common/fill.hpp"
#include "gemm/element.hpp"
#include "gemm/problem.hpp"
#include "gemm/reference/check.hpp"
#include "gemm/reference/gpu_reference.hpp"
#include "gemmlab/bench_core.hpp"
#include "gemmlab/gemmlab.hpp"
#include "test_support.hpp"

namespace {

using namespace gemmlab;
using cli::DType;

/// One entry point: the types of the overload, the kernel, the call's precision.
struct Entry {
    DType dtype;
    std::string kernel;
    Precision precision;
};

// gtest prints a parameter in failure messages and --gtest_list_tests: the entry, readably.
void PrintTo(const Entry& e, std::ostream* os) {
    *os << cli::to_string(e.dtype) << " " << e.kernel << " precision " << to_string(e.precision);
}

std::vector<Entry> entries() {
    std::vector<Entry> out;
    for (DType dt : cli::kAllDTypes) {
        out.push_back({dt, "auto", Precision::Default});
        for (const auto& k : gpu_kernels())
            if (k.supports(cli::input_type(dt))) out.push_back({dt, std::string(k.name), Precision::Default});
    }
    // Float's TF32 mode changes what auto may run (TF32 tensor cores) and cuBLAS's compute type.
    out.push_back({DType::F32, "auto", Precision::Tf32});
    out.push_back({DType::F32, "cublas", Precision::Tf32});
    return out;
}

/// An operand as stored: its leading dimension and element count.
struct Stored {
    int64_t ld, elements;
};

Stored stored(Layout layout, int64_t op_rows, int64_t op_cols, bool trans) {
    const int64_t rows = trans ? op_cols : op_rows, cols = trans ? op_rows : op_cols;
    const bool row_major = layout == Layout::RowMajor;
    const int64_t ld = std::max<int64_t>(1, row_major ? cols : rows);
    return {ld, std::max<int64_t>(1, ld * (row_major ? rows : cols))};
}

/// A captured graph and its executable instance.
struct Graph {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    Graph() = default;
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;
    ~Graph() {
        if (exec) cudaGraphExecDestroy(exec);
        if (graph) cudaGraphDestroy(graph);
    }
};

/// The nodes of a captured graph, by kind, and the (mangled) names of its kernels launched
/// through the runtime.
struct NodeCounts {
    size_t total = 0, kernels = 0, mem_alloc = 0, mem_free = 0;
    std::vector<std::string> kernel_names;

    bool has_kernel(std::string_view part) const {
        return std::any_of(kernel_names.begin(), kernel_names.end(),
                           [&](const std::string& name) { return name.find(part) != std::string::npos; });
    }
};

NodeCounts count_nodes(cudaGraph_t graph) {
    NodeCounts c;
    GEMMLAB_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &c.total));
    std::vector<cudaGraphNode_t> nodes(c.total);
    if (c.total) GEMMLAB_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &c.total));
    for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type{};
        GEMMLAB_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
        c.kernels += type == cudaGraphNodeTypeKernel;
        cudaKernelNodeParams params{};
        const char* name = nullptr;
        // A kernel launched through the driver API (rung 27) has no runtime handle: no name.
        if (type == cudaGraphNodeTypeKernel &&
            cudaGraphKernelNodeGetParams(node, &params) == cudaSuccess &&
            cudaFuncGetName(&name, params.func) == cudaSuccess && name)
            c.kernel_names.emplace_back(name);
        cudaGetLastError(); // either failure is not sticky; keep it out of later checks
        c.mem_alloc += type == cudaGraphNodeTypeMemAlloc;
        c.mem_free += type == cudaGraphNodeTypeMemFree;
    }
    return c;
}

/// Captures `call` (which returns the gemm Status) on `stream` into `g`, then instantiates it
/// unless the capture recorded nothing and `expect_work` is false. Fails the test (returning
/// false) when the call or the capture fails. `counts` receives the graph's nodes by kind.
template <class F>
bool capture(Graph& g, cudaStream_t stream, F&& call, const std::string& what, bool expect_work = true,
             NodeCounts* counts = nullptr) {
    GEMMLAB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    const Status status = call();
    const std::string message = last_error();
    const cudaError_t end = cudaStreamEndCapture(stream, &g.graph);
    if (end != cudaSuccess) cudaGetLastError(); // not sticky; keep it out of later calls
    EXPECT_EQ(status, Status::Success) << what << ": the call failed while capturing: " << message;
    EXPECT_EQ(end, cudaSuccess) << what << ": cudaStreamEndCapture: " << cudaGetErrorName(end) << " ("
                                << cudaGetErrorString(end)
                                << "): the call made a CUDA call that capture does not allow";
    if (status != Status::Success || end != cudaSuccess) return false;
    const NodeCounts c = count_nodes(g.graph);
    if (counts) *counts = c;
    const size_t nodes = c.total;
    if (!expect_work) {
        EXPECT_EQ(nodes, 0u) << what << ": a call with nothing to do recorded work";
        return nodes == 0;
    }
    EXPECT_GE(nodes, 1u) << what << ": the call recorded no work";
    if (nodes == 0) return false;
    GEMMLAB_CUDA_CHECK(cudaGraphInstantiate(&g.exec, g.graph, 0));
    return true;
}

/// The bytes of a device buffer, on the host (to compare before and after).
template <class T>
std::vector<unsigned char> bytes_of(const DeviceBuffer<T>& b) {
    std::vector<unsigned char> out(b.bytes());
    GEMMLAB_CUDA_CHECK(cudaMemcpy(out.data(), b.get(), b.bytes(), cudaMemcpyDeviceToHost));
    return out;
}

/// A problem of one layout, ops, shape and scalars.
struct Variant {
    const char* name;
    Layout layout;
    Op op_a, op_b;
    int64_t m, n, k;
    double alpha, beta;
};

// n and k multiples of 8 with 16-byte-aligned buffers: the Hopper rungs take their TMA path
// (any other alignment falls back to rung 19's kernel, tested elsewhere).
const Variant kVariants[] = {
    {"row-major nt 200x136x264, beta 0.75", Layout::RowMajor, Op::N, Op::T, 200, 136, 264, 1.25, 0.75},
    {"col-major tn 136x200x72, beta 0 (C poisoned)", Layout::ColMajor, Op::T, Op::N, 136, 200, 72, -1.0, 0.0},
    // More output tiles than SMs, so the persistent rungs loop over tiles within one launch.
    {"row-major nn 2200x2200x72, beta 0.5", Layout::RowMajor, Op::N, Op::N, 2200, 2200, 72, 1.0, 0.5},
    // Few output tiles and a long k: auto cuts k into slices on an sm_90a GPU (split-K), whose
    // partial sums live in a workspace from the pool: memory nodes of the graph.
    {"row-major nn 192x256x8192, beta 0.5 (auto: split-K)", Layout::RowMajor, Op::N, Op::N, 192, 256, 8192, 1.0, 0.5},
};

/// Captures one call of `e` on `v`, replays it three times (its inputs; new inputs written into
/// the same buffers; again, accumulating when beta != 0) and checks each replay.
template <class TIn, class TOut>
void check_graph(const Entry& e, const Variant& v, uint64_t seed) {
    constexpr bool kHalf = detail::is_half_v<TIn>;
    using S = std::conditional_t<kHalf, float, TIn>;
    const std::string what = "kernel " + e.kernel + ", " + cli::to_string(e.dtype) +
                             (e.precision == Precision::Tf32 ? " precision tf32" : "") + ", " + v.name;
    const int64_t m = v.m, n = v.n, k = v.k;
    const bool ta = v.op_a == Op::T, tb = v.op_b == Op::T;
    const Stored sa = stored(v.layout, m, k, ta), sb = stored(v.layout, k, n, tb),
                 sc = stored(v.layout, m, n, false);
    DeviceBuffer<TIn> A(size_t(sa.elements)), B(size_t(sb.elements));
    DeviceBuffer<TOut> C(size_t(sc.elements)), C_before(size_t(sc.elements));
    const size_t mn = size_t(m * n);
    DeviceBuffer<double> ref(mn), mag(mn);
    std::vector<double> host_ref(mn), host_mag(mn);
    std::vector<TOut> host_c(C.size());
    Stream stream;
    const cudaStream_t s = stream.get();

    GemmOptions o;
    o.kernel = e.kernel;
    o.stream = s;
    o.precision = e.precision;
    const S alpha = S(v.alpha), beta = S(v.beta);
    const auto call = [&] {
        if constexpr (kHalf)
            return gemm(v.layout, v.op_a, v.op_b, m, n, k, alpha, A.get(), sa.ld, B.get(), sb.ld,
                        beta, C.get(), sc.ld, o);
        else
            return gemm<TIn>(v.layout, v.op_a, v.op_b, m, n, k, alpha, A.get(), sa.ld, B.get(),
                             sb.ld, beta, C.get(), sc.ld, o);
    };
    const auto fill_all = [&](uint64_t sd) {
        fill_random(A.get(), A.size(), sd * 3 + 0, FillKind::Uniform, s);
        fill_random(B.get(), B.size(), sd * 3 + 1, FillKind::Uniform, s);
        fill_random(C.get(), C.size(), sd * 3 + 2, FillKind::Uniform, s);
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
    };

    fill_all(seed);
    ASSERT_EQ(call(), Status::Success) << what << " (warm-up, not captured): " << last_error();
    GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
    fill_all(seed); // the warm-up wrote C

    // Capturing records work without running it: C is what fill_all left.
    const auto c_filled = bytes_of(C);
    Graph g;
    NodeCounts nodes;
    if (!capture(g, s, call, what, true, &nodes)) return;
    EXPECT_TRUE(bytes_of(C) == c_filled) << what << ": the capture ran work instead of recording it";
    // A workspace is allocated and freed inside the graph, in pairs.
    EXPECT_EQ(nodes.mem_alloc, nodes.mem_free) << what;
    // Rungs 25-26 take their mma.sync counterparts where TMA cannot run: not on these variants.
    // (Rung 25 needs a workspace only for what it packs, which here may be nothing.)
    if (e.kernel == "wgmma_tf32" || e.kernel == "wgmma_tf32x3")
        EXPECT_TRUE(nodes.has_kernel("warp_specialized_kernel")) << what << ": the fallback ran";
    if (e.kernel == "wgmma_tf32x3")
        EXPECT_GE(nodes.mem_alloc, 1u) << what << ": no workspace for the pack step in the graph";
    if (e.kernel == "int8_emulation")
        EXPECT_GE(nodes.mem_alloc, 1u) << what << ": no workspace for the residue planes in the graph";
    if (e.kernel == "auto")
        std::printf("%s: graph of %zu nodes (%zu kernels, %zu workspace allocations)\n", what.c_str(),
                    nodes.total, nodes.kernels, nodes.mem_alloc);

    // The normalized problem (as the API builds it) for the reference, which reads C_before.
    const auto normalized = [&] {
        using Args = std::conditional_t<kHalf, detail::HalfArgs<TIn, TOut>, detail::GemmArgs<TIn>>;
        if (v.layout == Layout::RowMajor)
            return Args{n, m, k, alpha, B.get(), sb.ld, tb, A.get(), sa.ld, ta, beta, C.get(), sc.ld};
        return Args{m, n, k, alpha, A.get(), sa.ld, ta, B.get(), sb.ld, tb, beta, C.get(), sc.ld};
    };
    const auto replay_and_check = [&](const char* stage) {
        if (v.beta == 0) poison_nan(C.get(), C.size(), s); // every element must be written
        else GEMMLAB_CUDA_CHECK(cudaMemcpyAsync(C_before.get(), C.get(), C.bytes(),
                                                cudaMemcpyDeviceToDevice, s));
        GEMMLAB_CUDA_CHECK(cudaGraphLaunch(g.exec, s));
        if constexpr (kHalf)
            reference::gpu_reference_half<TIn, TOut>(normalized(), C_before.get(), sc.ld, ref.get(),
                                                     mag.get(), s);
        else
            reference::gpu_reference<TIn>(normalized(), C_before.get(), sc.ld, ref.get(), mag.get(), s);
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
        ref.copy_to_host(host_ref.data(), mn);
        mag.copy_to_host(host_mag.data(), mn);
        C.copy_to_host(host_c.data(), host_c.size());
        reference::CheckResult r;
        if constexpr (kHalf)
            r = reference::check_half<TIn, TOut>(v.layout, m, n, k, host_c.data(), sc.ld,
                                                 host_ref.data(), host_mag.data());
        else
            r = reference::check<TIn>(v.layout, m, n, k, host_c.data(), sc.ld, host_ref.data(),
                                      host_mag.data(), cli::check_precision(e.kernel, e.dtype, e.precision));
        EXPECT_TRUE(r.pass) << what << ", " << stage << ": " << reference::describe(r);
        EXPECT_EQ(r.unwritten, 0) << what << ", " << stage;
    };

    replay_and_check("first replay (the inputs present at capture)");
    fill_all(seed + 1000); // new A, B and C in the same buffers
    replay_and_check("replay after new inputs were written into the same buffers");
    replay_and_check(v.beta == 0 ? "replayed again (beta 0: the same product)"
                                 : "replayed again (beta != 0: C accumulates onto the last replay's)");
}

/// Runs `f.template operator()<TIn, TOut>()` for the overload of `dt`.
template <class F>
void with_types(DType dt, F&& f) {
    switch (dt) {
    case DType::F32: return f.template operator()<float, float>();
    case DType::F64: return f.template operator()<double, double>();
    case DType::BF16: return f.template operator()<__nv_bfloat16, __nv_bfloat16>();
    case DType::BF16_F32: return f.template operator()<__nv_bfloat16, float>();
    case DType::F16: return f.template operator()<__half, __half>();
    case DType::F16_F32: return f.template operator()<__half, float>();
    }
}

class GraphCapture : public ::testing::TestWithParam<Entry> {};

TEST_P(GraphCapture, ReplaysWithNewInputsAndAccumulates) {
    REQUIRE_GPU();
    const Entry& e = GetParam();
    if (!cli::kernel_supports(e.kernel, e.dtype)) {
        const auto info = find_gpu_kernel(e.kernel);
        if (info) check_device_support(*info);
        GTEST_SKIP() << e.kernel << " cannot run on this GPU: " << last_error();
    }
    uint64_t seed = 31;
    for (const Variant& v : kVariants)
        with_types(e.dtype, [&]<class TIn, class TOut>() { check_graph<TIn, TOut>(e, v, seed++); });
}

INSTANTIATE_TEST_SUITE_P(, GraphCapture, ::testing::ValuesIn(entries()), [](const auto& info) {
    std::string name = std::string(cli::to_string(info.param.dtype)) + "_" + info.param.kernel +
                       (info.param.precision == Precision::Tf32 ? "_tf32" : "");
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
});

// ------------------------------------------- calls that launch no GEMM: C = beta C, or nothing

/// k == 0, and alpha == 0 with k > 0: the call scales C by beta (its own small kernel). Each
/// replay must scale what C holds then: exactly, as beta = 0.5 is (to nearest in C's type).
template <class TIn, class TOut>
void check_scale_graph(DType dt) {
    constexpr bool kHalf = detail::is_half_v<TIn>;
    using S = std::conditional_t<kHalf, float, TIn>;
    const int64_t m = 37, n = 29;
    for (const auto& [k, alpha] : {std::pair<int64_t, double>{0, 1.0}, {8, 0.0}}) {
        const std::string what = std::string(cli::to_string(dt)) + " auto, k = " + std::to_string(k) +
                                 ", alpha = " + std::to_string(alpha) + ", beta = 0.5";
        DeviceBuffer<TIn> A(size_t(m * std::max<int64_t>(k, 1))), B(size_t(n * std::max<int64_t>(k, 1)));
        DeviceBuffer<TOut> C(size_t(m * n));
        fill_random(A.get(), A.size(), 1, FillKind::Uniform);
        fill_random(B.get(), B.size(), 2, FillKind::Uniform);
        Stream stream;
        const cudaStream_t s = stream.get();
        GemmOptions o;
        o.stream = s;
        const auto call = [&] {
            const int64_t ld_ab = std::max<int64_t>(k, 1);
            if constexpr (kHalf)
                return gemm(Layout::ColMajor, Op::T, Op::N, m, n, k, float(alpha), A.get(), ld_ab,
                            B.get(), ld_ab, 0.5f, C.get(), m, o);
            else
                return gemm<TIn>(Layout::ColMajor, Op::T, Op::N, m, n, k, S(alpha), A.get(), ld_ab,
                                 B.get(), ld_ab, S(0.5), C.get(), m, o);
        };
        fill_random(C.get(), C.size(), 3, FillKind::Uniform, s);
        ASSERT_EQ(call(), Status::Success) << what << " (warm-up): " << last_error();
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
        Graph g;
        if (!capture(g, s, call, what)) return;
        std::vector<TOut> before(C.size()), after(C.size());
        for (int replay = 0; replay < 3; ++replay) {
            if (replay == 1) fill_random(C.get(), C.size(), 4, FillKind::Uniform, s); // new C
            GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
            C.copy_to_host(before.data(), before.size());
            GEMMLAB_CUDA_CHECK(cudaGraphLaunch(g.exec, s));
            GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
            C.copy_to_host(after.data(), after.size());
            int64_t wrong = 0;
            for (size_t i = 0; i < after.size(); ++i) {
                // Half C: scaled in float and rounded to nearest, as the library does; float and
                // double C: halving is exact.
                double want = 0.5 * detail::to_double(before[i]);
                if constexpr (!std::is_same_v<TOut, float> && !std::is_same_v<TOut, double>)
                    want = detail::to_double(detail::from_float<TOut>(0.5f * detail::to_float(before[i])));
                wrong += detail::to_double(after[i]) != want;
            }
            EXPECT_EQ(wrong, 0) << what << ", replay " << replay + 1 << ": elements not 0.5 x C";
        }
    }
}

TEST(GraphCaptureScaleOnly, KZeroAndAlphaZeroReplayTheirScaling) {
    REQUIRE_GPU();
    for (DType dt : cli::kAllDTypes)
        with_types(dt, [&]<class TIn, class TOut>() { check_scale_graph<TIn, TOut>(dt); });
}

// m == 0: the call returns before any CUDA call, so it records nothing and leaves the capture
// valid.
TEST(GraphCaptureScaleOnly, AnEmptyOutputRecordsNothing) {
    REQUIRE_GPU();
    DeviceBuffer<float> A(16), B(16), C(16);
    Stream stream;
    GemmOptions o;
    o.stream = stream.get();
    Graph g;
    capture(
        g, stream.get(),
        [&] {
            return gemm<float>(Layout::RowMajor, Op::N, Op::N, 0, 4, 4, 1.f, A.get(), 4, B.get(), 4,
                               0.f, C.get(), 4, o);
        },
        "m = 0", false);
}

} // namespace
