// `gemmlab tune` and auto's tune cache on a GPU (skipped without one): a short tune writes a
// cache this device loads without a warning; a cache naming a candidate makes auto run that
// candidate (and its k slices), within the error bound; a stale cache leaves auto on its model,
// also within the bound. auto reads the cache once per device, so each test names its file in
// GEMMLAB_TUNE_CACHE and asks for a reload first.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "common/device_info.hpp"
#include "gemm/auto_select.hpp"
#include "gemm/device_caps.hpp"
#include "gemm/kernels/launchers.hpp"
#include "gemm/tune_cache.hpp"
#include "gemmlab/bench_core.hpp"
#include "gemmlab/tune.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace gemmlab;
using cli::Case;
using cli::DType;
using cli::DeviceProblem;
using cli::Broadcast;
using cli::ReferenceSource;

using test::TempDir;

test::CliOutput run_cli(const std::string& args) { return test::run_cli_at(GEMMLAB_CLI_PATH, args); }

/// Points auto at `path` for the rest of the process, read afresh at the next call.
void use_cache(const fs::path& path) {
    ASSERT_EQ(setenv("GEMMLAB_TUNE_CACHE", path.c_str(), 1), 0);
    detail::reload_tune_tables();
}

TEST(TuneGpu, AShortTuneWritesACacheThatLoadsWithoutWarning) {
    REQUIRE_GPU();
    TempDir dir;
    const fs::path path = dir.path() / "tune.json";
    const auto out = run_cli("tune --dtype f64,bf16 --budget 5 --cache " + path.string());
    ASSERT_EQ(out.code, 0) << out.text;
    EXPECT_NE(out.text.find("wrote " + path.string()), std::string::npos) << out.text;
    ASSERT_TRUE(fs::exists(path));
    const detail::TuneKey key = detail::device_tune_key(0);
    const detail::LoadedTable t = detail::load_tune_table({path, true}, key);
    EXPECT_EQ(t.warning, "");
    ASSERT_TRUE(t.table) << out.text;
    EXPECT_GT(t.used, 0);
    EXPECT_EQ(t.ignored, 0);

    // Run again on another type: the f64 and bf16 slots stay in the file.
    const auto again = run_cli("tune --dtype f32 --precision default --budget 2 --cache " + path.string());
    ASSERT_EQ(again.code, 0) << again.text;
    const detail::LoadedTable both = detail::load_tune_table({path, true}, key);
    EXPECT_EQ(both.warning, "");
    EXPECT_GT(both.used, t.used) << again.text;
}

/// Writes a cache for this device with one entry: `candidate` (in `splits` slices) for the type
/// key and class of `p`.
void write_cache(const fs::path& path, const detail::Problem& p, const char* candidate, int splits,
                 const detail::TuneKey& key) {
    detail::TuneFile f;
    f.key = key;
    detail::TuneEntry e;
    e.type = to_string(detail::tune_type_of(p.type, p.c_type, p.precision));
    e.shape = detail::representative(detail::shape_class_of(p.m, p.n, p.k));
    e.candidate = candidate;
    e.splits = splits;
    e.ns = 1;
    f.entries = {e};
    detail::write_file_atomically(path, detail::tune_file_json(f));
}

/// auto on `cs` with a cache naming `candidate`: takes it, with the slices the call allows, and
/// meets the bound (against `reference`), with no warning printed.
void expect_auto_runs(const Case& cs, const char* candidate, int splits, int expect_splits,
                      ReferenceSource reference = ReferenceSource::Cpu) {
    TempDir dir;
    const fs::path path = dir.path() / "tune.json";
    DeviceProblem problem(cs, 4242, reference);
    const detail::Problem p = problem.normalized();
    write_cache(path, p, candidate, splits, detail::device_tune_key(0));
    use_cache(path);
    testing::internal::CaptureStderr();
    const detail::AutoChoice c = detail::current_auto_choice(p);
    const cli::RunResult r = problem.run_and_check("auto");
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err, "") << cs.describe();
    EXPECT_TRUE(c.tuned) << cs.describe();
    EXPECT_EQ(c.candidate, candidate) << cs.describe();
    EXPECT_EQ(c.splits, expect_splits) << cs.describe();
    ASSERT_TRUE(r.launched) << cs.describe() << ": " << r.error;
    EXPECT_TRUE(r.check.pass) << cs.describe() << ": " << reference::describe(r.check);
    EXPECT_EQ(r.check.unwritten, 0) << cs.describe();
}

/// One 16-bit candidate of auto's, tuned onto a shape with k in `splits` slices.
struct TunedRun {
    cli::Shape shape;
    const char* candidate;
    int splits;
};

/// Each run column-major under every op pair, beta 0 and not, C in BF16, FP16 and float (from
/// BF16), through auto on a cache naming it, each result checked against the GPU reference.
template <size_t N>
void expect_tuned_runs_meet_the_bound(const TunedRun (&runs)[N]) {
    const std::pair<Op, Op> ops[] = {{Op::N, Op::N}, {Op::N, Op::T}, {Op::T, Op::N}, {Op::T, Op::T}};
    for (const TunedRun& run : runs)
        for (DType dt : {DType::BF16, DType::F16, DType::BF16_F32})
            for (auto [op_a, op_b] : ops)
                for (double beta : {0.0, 0.5}) {
                    const Case cs{dt, Layout::ColMajor, op_a, op_b, run.shape, -1.5, beta, 0, FillKind::Uniform};
                    SCOPED_TRACE(std::string(run.candidate) + " " + cs.describe());
                    expect_auto_runs(cs, run.candidate, run.splits, run.splits, ReferenceSource::Gpu);
                }
}

TEST(TuneGpu, AutoRunsTheCandidateTheCacheNames) {
    REQUIRE_GPU();
    // Not what the model picks on an H100 for these shapes (3xTF32 on wgmma; DMMA).
    expect_auto_runs({DType::F32, Layout::RowMajor, Op::N, Op::T, {300, 200, 500}, -1.25, 0.75, 0,
                      FillKind::Uniform},
                     "warp_tile 128x64x8", 1, 1);
    expect_auto_runs({DType::F64, Layout::ColMajor, Op::T, Op::N, {129, 257, 100}, 1.0, 0.0, 0,
                      FillKind::Uniform},
                     "warp_tile 64x64x8", 1, 1);
}

// A split-K entry on the Hopper rungs (a plain one elsewhere): 16 slices tuned at the class's
// k = 4096 become 8 for a call of k = 2112 (kMinSplitK = 256 per slice); rows of 16-byte
// multiples, so that the TMA kernel really splits.
TEST(TuneGpu, ATunedSplitIsCutToTheCallsK) {
    REQUIRE_GPU();
    const bool hopper = detail::current_device_caps().sm90a;
    Case cs{DType::BF16, Layout::RowMajor, Op::N, Op::N, {192, 256, 2112}, 1.0, 0.5, 0, FillKind::Uniform};
    if (hopper) expect_auto_runs(cs, "persistent 128x256x64 ws", 16, 8);
    else expect_auto_runs(cs, "mma_sync_f16 128x128x32 s4", 1, 1);
}

// Rung 24's 192-row tiles (three consumer warpgroups; 192 x 192 stages C 64 columns at a time,
// 192 x 128 128 at a time) at every edge: m and n short of a tile, every op pair (K-major and
// MN-major operands), a 16-bit C with beta == 0 (the TMA store), beta != 0 and an FP32 C (from
// registers); whole, in two k slices, and 192 x 192 with the tail split, whose 7 x 19 = 133
// tiles on 132 SMs cut the last tile's 33 k tiles in four pieces. The model picks these tiles
// only on some products, so a cache names them here.
TEST(TuneGpu, TallTilesMeetTheBoundAtEveryEdge) {
    REQUIRE_GPU();
    if (!detail::current_device_caps().sm90a) GTEST_SKIP() << "rung 24 needs sm_90a";
    const TunedRun runs[] = {{{1000, 700, 300}, "persistent 192x192x64 ws", 1},
                {{1000, 700, 600}, "persistent 192x192x64 ws", 2},
                {{1300, 3600, 2083}, "persistent 192x192x64 ws tail-split", 1},
                {{1000, 700, 300}, "persistent 192x128x64 ws", 1},
                {{1000, 700, 600}, "persistent 192x128x64 ws", 2}};
    expect_tuned_runs_meet_the_bound(runs);
}

// Rung 24's 64 x 128 tiles (one consumer warpgroup issuing m64n128k16), as auto runs them on C
// of whole tiles with n of two or more: whole with a ragged k, in two k slices, and under the
// cluster split (16 tiles, four pieces each); every op pair, beta 0 (C stored by TMA from one of
// two stagings) and not, C in BF16, FP16 and float; each result checked against the GPU
// reference. (A tuned pick serves single products only, so a batch cannot be forced here.)
TEST(TuneGpu, FlatTilesMeetTheBound) {
    REQUIRE_GPU();
    if (!detail::current_device_caps().sm90a) GTEST_SKIP() << "rung 24 needs sm_90a";
    const TunedRun runs[] = {{{1024, 256, 300}, "persistent 64x128x64 ws", 1},
                {{256, 256, 2083}, "persistent 64x128x64 ws", 2},
                {{512, 256, 4096}, "persistent 64x128x64 ws cluster-split", 1}};
    expect_tuned_runs_meet_the_bound(runs);
}

// Rung 24's 128 x 64 tiles run in 2-block clusters sharing A where persistent_slim_pairs says so:
// prefills of 65 tokens or more against a weight whose tile rows, two column tiles each, fill
// three quarters of the SMs. Token counts that cut the second column tile short or need a
// third, weight rows that are not a multiple of 128, ragged k, three op pairs, beta 0 (a 16-bit
// C leaves by TMA) and not, C in float; each result checked against the GPU reference.
TEST(TuneGpu, PairedSlimTilesMeetTheBound) {
    REQUIRE_GPU();
    const DeviceInfo dev = query_device(0);
    if (!(dev.cc_major == 9 && dev.cc_minor == 0 && built_with_sm90a()))
        GTEST_SKIP() << "rung 24 needs sm_90a";
    const int64_t rows = 128 * (3 * detail::current_device_caps().sm_count / 8 + 1) - 37;
    const cli::Shape shapes[] = {{100, rows, 1000}, {65, rows, 520}, {129, rows, 2083}};
    for (const cli::Shape& shape : shapes)
        for (DType dt : {DType::BF16, DType::F16, DType::BF16_F32})
            for (auto [op_a, op_b] : {std::pair{Op::N, Op::T}, {Op::T, Op::N}, {Op::N, Op::N}})
                for (double beta : {0.0, 0.5}) {
                    const Case cs{dt, Layout::RowMajor, op_a, op_b, shape, 1.5, beta, 0, FillKind::Uniform};
                    SCOPED_TRACE(cs.describe());
                    const detail::Problem p = DeviceProblem(cs, 1, ReferenceSource::None).normalized();
                    ASSERT_TRUE(detail::persistent_slim_pairs(p.m, p.n, 1, 1));
                    expect_auto_runs(cs, "persistent 128x64x64 ws", 1, 1, ReferenceSource::Gpu);
                }
}

// Rung 24's transposed tiles (C^T = op(B)^T op(A)^T, C stored transposed from registers) on
// prefill-like products: tiles ragged on both sides (4571 and 961 weight rows, 65-129 tokens), k
// whole and in two or four slices, ragged (partials in C's orientation), C in BF16, FP16 and
// float, beta 0 over a poisoned C and not, op(A) K-major in both layouts with op(B) either way.
// An MN-major op(A) is not an option for them (auto then runs what the model picks).
TEST(TuneGpu, TransposedTilesMeetTheBound) {
    REQUIRE_GPU();
    const DeviceInfo dev = query_device(0);
    if (!(dev.cc_major == 9 && dev.cc_minor == 0 && built_with_sm90a()))
        GTEST_SKIP() << "rung 24 needs sm_90a";
    const char* tiles[] = {"persistent 96x64x64 ws transposed", "persistent 96x128x64 ws transposed",
                           "persistent 144x128x64 ws transposed"};
    // Row-major: m tokens, n weight rows; column-major takes them the other way round.
    const cli::Shape shapes[] = {{100, 4571, 1000}, {65, 961, 520}, {129, 1000, 2083}};
    struct Orientation {
        Layout layout;
        Op op_a, op_b;
    };
    const Orientation orientations[] = {
        {Layout::RowMajor, Op::N, Op::T}, {Layout::RowMajor, Op::T, Op::T}, {Layout::ColMajor, Op::T, Op::N}};
    for (const cli::Shape& rows : shapes)
        for (const Orientation& o : orientations)
            for (DType dt : {DType::BF16, DType::F16, DType::BF16_F32, DType::F16_F32})
                for (double beta : {0.0, 0.5}) {
                    const cli::Shape shape = o.layout == Layout::RowMajor
                                                 ? rows
                                                 : cli::Shape{rows.n, rows.m, rows.k};
                    const Case cs{dt, o.layout, o.op_a, o.op_b, shape, -1.5, beta, 0, FillKind::Uniform};
                    SCOPED_TRACE(cs.describe());
                    // Four slices where each keeps kMinSplitK of k (2083: 9, 9, 9 and 6 k
                    // tiles), else two.
                    const int slices = shape.k / 4 >= detail::kMinSplitK ? 4 : 2;
                    for (const char* tile : tiles) {
                        expect_auto_runs(cs, tile, 1, 1, ReferenceSource::Gpu);
                        expect_auto_runs(cs, tile, 4, slices, ReferenceSource::Gpu);
                    }
                }
    // op(A) MN-major: the tiles are not among the call's options.
    const Case mn{DType::BF16, Layout::RowMajor, Op::N, Op::N, {100, 4571, 1000}, 1.0, 0.0, 0, FillKind::Uniform};
    const detail::Problem p = DeviceProblem(mn, 1, ReferenceSource::None).normalized();
    ASSERT_FALSE(p.trans_a);
    for (const detail::AutoOption& o : detail::auto_options(p, detail::current_device_caps()))
        EXPECT_EQ(std::string(o.name).find("transposed"), std::string::npos) << o.name;
}

// The tiles for small and medium products: rung 15's (32x32 in 4 warps; 128x64 and 64x64 in 8
// warps on the rotating mainloop with the edge blocks' copy path), rung 16's 64x32 and 32x32
// (TF32 mode) and rung 17's 32x32 (3xTF32), on products ragged against every tile in m, n and k
// (a last k tile part-filled), in all four op pairs and both layouts, beta 0 over a poisoned C
// and not, whole and in two slices where k allows. Even dimensions keep the operands 16-byte
// aligned (float: a multiple of 4), so the 16-byte copies and the rotating mainloop run; an odd
// one takes the element-wise copies, or, on the rotating tiles, a copy of the operand with
// aligned columns (RotatingDmmaTilesCopyWhatTheyCannotRead has more of those).
TEST(TuneGpu, SmallAndMediumTilesMeetTheBound) {
    REQUIRE_GPU();
    const DeviceInfo dev = query_device(0);
    if (dev.cc_major < 9) GTEST_SKIP() << "rung 15's DMMA needs sm_90";
    const struct {
        DType dtype;
        Precision precision;
        std::vector<const char*> tiles;
    } kinds[] = {
        {DType::F64, Precision::Default,
         {"dmma 128x64x32 w32x32 s3 k16 rotating", "dmma 64x64x16 w32x16 s4 k8 rotating", "dmma 32x32x32 w16x16 s5 k16"}},
        {DType::F32, Precision::Tf32, {"tf32 64x32x32 w32x16 s4", "tf32 32x32x32 w16x16 s5"}},
        {DType::F32, Precision::Default, {"tf32x3 32x32x32 w16x16 s5"}}};
    const cli::Shape shapes[] = {{1000, 252, 1000}, {68, 196, 332}, {71, 45, 203}};
    for (const auto& kind : kinds)
        for (const cli::Shape& shape : shapes)
            for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
                for (Op op_a : {Op::N, Op::T})
                    for (Op op_b : {Op::N, Op::T})
                        for (double beta : {0.0, 0.5}) {
                            Case cs{kind.dtype, layout, op_a, op_b, shape, -1.5, beta, 0, FillKind::Uniform};
                            cs.precision = kind.precision;
                            SCOPED_TRACE(cs.describe());
                            // Two slices where each keeps kMinSplitK of k, else the call runs whole.
                            const int slices = shape.k / 2 >= detail::kMinSplitK ? 2 : 1;
                            for (const char* tile : kind.tiles) {
                                expect_auto_runs(cs, tile, 1, 1, ReferenceSource::Gpu);
                                expect_auto_runs(cs, tile, 2, slices, ReferenceSource::Gpu);
                            }
                        }
}

// Rung 15's rotating tiles read their operands in 16-byte copies only; one they cannot read so
// is first copied into workspace with aligned columns (kernels/repitch.cuh). Every way an
// operand can miss 16 bytes: odd leading dimensions (odd sizes, or padded by one), an
// unaligned base, a batch whose odd gap leaves every other product unaligned (with and without a
// shared operand); and the mixed cases where one operand is copied and the other read as it is,
// or C alone is unaligned (C is stored element by element: nothing is copied). Four op pairs,
// both layouts, beta 0 over a poisoned C and not, whole and in two slices.
TEST(TuneGpu, RotatingDmmaTilesCopyWhatTheyCannotRead) {
    REQUIRE_GPU();
    const DeviceInfo dev = query_device(0);
    if (dev.cc_major < 9) GTEST_SKIP() << "rung 15's DMMA needs sm_90";
    const char* tiles[] = {"dmma 128x128x16 w64x32 s4 g16 k8 rotating",
                           "dmma 128x64x16 w64x32 s4/s3 g16 k8 rotating",
                           "dmma 128x64x32 w32x32 s3 k16 rotating", "dmma 64x64x16 w32x16 s4 k8 rotating"};
    std::vector<Case> cases;
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
        for (Op op_a : {Op::N, Op::T})
            for (Op op_b : {Op::N, Op::T})
                for (double beta : {0.0, 0.5}) {
                    const Case base{DType::F64, layout, op_a, op_b, {}, -1.5, beta, 0, FillKind::Uniform};
                    Case odd = base; // every leading dimension odd
                    odd.shape = {517, 259, 1029};
                    cases.push_back(odd);
                    Case mixed = base; // k even, n odd: by the op pair one operand, both or only C
                    mixed.shape = {130, 97, 520};
                    cases.push_back(mixed);
                    Case padded = base; // even sizes, leading dimensions one past them
                    padded.shape = {260, 130, 776};
                    padded.ld_pad = 1;
                    cases.push_back(padded);
                    Case offset = base; // aligned leading dimensions, bases 8 bytes off
                    offset.shape = {260, 130, 388};
                    offset.offset = 1;
                    cases.push_back(offset);
                }
    for (const Case& cs : cases) {
        SCOPED_TRACE(cs.describe());
        const int slices = cs.shape.k / 2 >= detail::kMinSplitK ? 2 : 1;
        for (const char* tile : tiles) {
            expect_auto_runs(cs, tile, 1, 1, ReferenceSource::Gpu);
            expect_auto_runs(cs, tile, 2, slices, ReferenceSource::Gpu);
        }
    }
    // Batches are not tuned: rung 15's own kernel (the 128x128 rotating tile) takes them.
    for (Broadcast broadcast : {Broadcast::None, Broadcast::A, Broadcast::B})
        for (Op op_a : {Op::N, Op::T}) {
            Case cs{DType::F64, Layout::ColMajor, op_a, Op::N, {130, 66, 200, 3}, 1.0, 0.5, 0, FillKind::Uniform};
            cs.broadcast = broadcast;
            cs.batch_gap = 1; // batches 1 and 3 start 8 bytes off 16
            SCOPED_TRACE(cs.describe());
            DeviceProblem problem(cs, 4343, ReferenceSource::Gpu);
            const cli::RunResult r = problem.run_and_check("dmma");
            ASSERT_TRUE(r.launched) << r.error;
            EXPECT_TRUE(r.check.pass) << reference::describe(r.check);
            EXPECT_EQ(r.check.unwritten, 0);
        }
}

// Rung 15's rotating tiles on k shorter than one of their k tiles, one k tile and a few k
// steps past one (16- and 32-deep tiles, m16n8k8 and m16n8k16 steps): the first stage filled
// short, the rest empty, and the mainloop's last step on a stale stage (mma_tile.cuh). Every
// op pair, row- and column-major, beta 0 over a poisoned C and not; whole (k this short is
// never split).
TEST(TuneGpu, RotatingDmmaTilesTakeShortK) {
    REQUIRE_GPU();
    const DeviceInfo dev = query_device(0);
    if (dev.cc_major < 9) GTEST_SKIP() << "rung 15's DMMA needs sm_90";
    const char* tiles[] = {"dmma 128x128x16 w64x32 s4 g16 k8 rotating",
                           "dmma 128x64x16 w64x32 s4/s3 g16 k8 rotating",
                           "dmma 128x64x32 w32x32 s3 k16 rotating", "dmma 64x64x16 w32x16 s4 k8 rotating"};
    for (int k : {1, 9, 16, 31, 33, 47})
        for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
            for (Op op_a : {Op::N, Op::T})
                for (Op op_b : {Op::N, Op::T})
                    for (double beta : {0.0, 0.5}) {
                        // n = 77 and odd k leave some leading dimensions odd: those operands
                        // take the copy to aligned columns first.
                        const Case cs{DType::F64, layout, op_a, op_b, {130, 77, k}, -1.5, beta, 0, FillKind::Uniform};
                        SCOPED_TRACE(cs.describe());
                        for (const char* tile : tiles) expect_auto_runs(cs, tile, 1, 1, ReferenceSource::Gpu);
                    }
}

// Every option auto may take meets the bound, for every type key: each configuration of each
// candidate list (a configuration the model picks only on some GPUs or shapes still runs when a
// cache names it), whole and in every split (the CUDA-core, DMMA, TF32 and 3xTF32 ones through
// split_k.cuh, the wgmma ones inside their kernel). k = 2083 leaves every split a ragged last
// slice; m = 71 makes the partial buffers' padded columns matter; the two cases take different
// op flags, layouts and betas (beta = 0 over a NaN-poisoned C).
TEST(TuneGpu, EveryOptionMeetsTheBound) {
    REQUIRE_GPU();
    const detail::DeviceCaps caps = detail::current_device_caps();
    const struct {
        DType dtype;
        Precision precision;
        detail::TuneType key;
    } types[] = {{DType::F32, Precision::Default, detail::TuneType::F32},
                 {DType::F32, Precision::Tf32, detail::TuneType::F32Tf32},
                 {DType::F64, Precision::Default, detail::TuneType::F64},
                 {DType::BF16, Precision::Default, detail::TuneType::BF16},
                 {DType::BF16_F32, Precision::Default, detail::TuneType::BF16F32},
                 {DType::F16, Precision::Default, detail::TuneType::F16},
                 {DType::F16_F32, Precision::Default, detail::TuneType::F16F32}};
    int tried = 0, split = 0;
    for (const auto& t : types) {
        std::vector<Case> cases = {
            {t.dtype, Layout::RowMajor, Op::N, Op::T, {71, 45, 2083}, -1.25, 0.75, 0, FillKind::Uniform},
            {t.dtype, Layout::ColMajor, Op::T, Op::N, {45, 71, 2083}, 0.5, 0.0, 0, FillKind::Uniform}};
        // Rung 25 reads its second operand K-major only: an MN-major op(B) is packed, or the
        // product runs transposed (C^T = op(B)^T op(A)^T, C stored transposed) where that packs
        // less: op(A) K-major (no pack), or both MN-major and m < n. These take each way, with
        // and without beta, whole and split (partials in C's orientation).
        if (t.precision == Precision::Tf32) {
            cases.push_back({t.dtype, Layout::ColMajor, Op::T, Op::T, {71, 45, 2083}, 1.5, -0.5, 0, FillKind::Uniform});
            cases.push_back({t.dtype, Layout::ColMajor, Op::N, Op::T, {45, 71, 2083}, 1.0, 0.0, 0, FillKind::Uniform});
            cases.push_back({t.dtype, Layout::ColMajor, Op::N, Op::T, {71, 45, 2083}, -0.5, 2.0, 0, FillKind::Uniform});
            cases.push_back({t.dtype, Layout::RowMajor, Op::T, Op::T, {45, 71, 2083}, 0.75, 0.0, 0, FillKind::Uniform});
        }
        for (Case& cs : cases) {
            cs.precision = t.precision;
            DeviceProblem problem(cs, 1, ReferenceSource::None);
            const detail::Problem p = problem.normalized();
            for (const detail::AutoOption& o : detail::auto_options(p, caps)) {
                SCOPED_TRACE(std::string(to_string(t.key)) + ": " + std::string(o.name) + " in " +
                             std::to_string(o.splits) + " slices");
                expect_auto_runs(cs, std::string(o.name).c_str(), o.splits, o.splits);
                ++tried;
                split += o.splits > 1;
            }
        }
    }
    EXPECT_GT(split, 0);
    EXPECT_GT(tried, split);
}

// A stale cache (another SM clock): auto keeps its model, still within the bound; the warning
// is one line, printed once per process (the first call here prints it unless an earlier test
// in this process already warned).
// `tune --explain`: one row per option of the model, in its order, each measured, the model's pick
// marked once (a shape the model decides: not rung 27's or 28's), and its table printed.
TEST(TuneGpu, ExplainTimesEveryOptionOfTheModel) {
    REQUIRE_GPU();
    Case c;
    c.dtype = DType::BF16;
    c.layout = Layout::RowMajor;
    c.op_b = Op::T;
    c.shape = {256, 512, 1024};
    const cli::Explained e = cli::explain_case(c, 7, /*cold=*/false);
    DeviceProblem problem(c, 7, ReferenceSource::None);
    const detail::Problem p = problem.normalized();
    int device = 0;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    const auto options = detail::auto_options(p, detail::device_caps(device));
    ASSERT_EQ(e.options.size(), options.size());
    int picks = 0;
    for (size_t i = 0; i < options.size(); ++i) {
        EXPECT_EQ(e.options[i].name, options[i].name);
        EXPECT_EQ(e.options[i].splits, options[i].splits);
        EXPECT_GT(e.options[i].measured_us, 0.0) << e.options[i].name;
        EXPECT_GT(e.options[i].model_us, 0.0) << e.options[i].name;
        picks += e.options[i].model_pick;
    }
    EXPECT_EQ(picks, 1);
    EXPECT_GT(e.cublas_us, 0.0);
    EXPECT_GT(e.auto_us, 0.0);
    std::ostringstream os;
    cli::print_explained(os, e);
    EXPECT_NE(os.str().find("<- model"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("<- fastest"), std::string::npos) << os.str();
}

TEST(TuneGpu, AStaleCacheLeavesTheModelWithOneWarning) {
    REQUIRE_GPU();
    TempDir dir;
    const fs::path path = dir.path() / "tune.json";
    const Case cs{DType::F32, Layout::RowMajor, Op::N, Op::N, {300, 200, 500}, 1.0, 0.0, 0, FillKind::Uniform};
    DeviceProblem problem(cs, 99, ReferenceSource::Cpu);
    const detail::Problem p = problem.normalized();
    detail::TuneKey key = detail::device_tune_key(0);
    key.sm_clock_mhz += 1;
    write_cache(path, p, "warp_tile 128x64x8", 1, key);
    const detail::LoadedTable t = detail::load_tune_table({path, true}, detail::device_tune_key(0));
    EXPECT_FALSE(t.table);
    EXPECT_NE(t.warning.find("sm_clock_mhz"), std::string::npos) << t.warning;

    use_cache(path);
    testing::internal::CaptureStderr();
    const detail::AutoChoice c = detail::current_auto_choice(p);
    const cli::RunResult r = problem.run_and_check("auto");
    const cli::RunResult again = problem.run_and_check("auto");
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_FALSE(c.tuned);
    size_t lines = 0;
    for (char ch : err) lines += ch == '\n';
    EXPECT_LE(lines, 1u) << err;
    if (lines == 1) {
        EXPECT_NE(err.find(path.string()), std::string::npos) << err;
    }
    ASSERT_TRUE(r.launched && again.launched) << r.error << again.error;
    EXPECT_TRUE(r.check.pass) << reference::describe(r.check);
    EXPECT_TRUE(again.check.pass) << reference::describe(again.check);
}

} // namespace
