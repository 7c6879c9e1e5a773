// auto's choice without a GPU: auto_choice is the function launch_auto runs, fed a synthetic
// DeviceCaps. Pins the model's picks on a 132-SM 1980 MHz Hopper part (the machine its rates
// were measured on, where moving to per-SM-per-cycle rates and device inputs changed no pick),
// the device inputs that remove candidates elsewhere (shared memory, compute capability, sm_90a),
// and the precision rules, which nothing may relax.

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include <gtest/gtest.h>

#include "gemm/auto_select.hpp"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/mma_configs.hpp"
#include "test_support.hpp"

namespace {

using gemmlab::DataType;
using gemmlab::Precision;
using namespace gemmlab::detail;

DeviceCaps h100() { return gemmlab::test::h100_caps(); }

/// A GPU of compute capability 8.9 with 100 KB of shared memory per SM (99 KB per block).
DeviceCaps ada() {
    DeviceCaps c;
    c.cc_major = 8;
    c.cc_minor = 9;
    c.sm_count = 142;
    c.sm_clock_mhz = 2490;
    c.smem_per_sm = 100 * 1024;
    c.smem_per_block_optin = 99 * 1024;
    c.smem_reserved_per_block = 1024;
    c.dram_gbps = 864;
    return c;
}

/// The normalized problem of a call: auto reads types, precision, shape and batch, and for TF32
/// on wgmma whether op(B) is K-major and the operands 16-byte aligned (here: K-major, null).
Problem problem(DataType in, int64_t m, int64_t n, int64_t k, Precision precision = Precision::Default,
                std::optional<DataType> out = {}, int64_t batches = 1) {
    Problem p{};
    p.type = in;
    p.c_type = out.value_or(in);
    p.precision = precision;
    p.m = m, p.n = n, p.k = k;
    p.alpha = 1;
    p.batch.count = batches;
    return p;
}

/// problem() of a tune type key: its input and output types and its precision.
Problem problem_of(TuneType t, int64_t m, int64_t n, int64_t k) {
    return problem(input_type(t), m, n, k, precision_of(t), output_type(t));
}

struct Pinned {
    DataType type;
    Precision precision;
    int64_t m, n, k, batches;
    const char* candidate;
    int splits;
    bool trans_b = false; // of the normalized (column-major) call: op(B) not K-major
    bool trans_a = false; // and op(A) K-major (a row-major prefill's weight: op(B) = T)
};

TEST(AutoModel, PicksOnA132SmHopperPart) {
    const Pinned pinned[] = {
        {DataType::F32, Precision::Default, 4096, 4096, 4096, 1, "wgmma_tf32x3 128x128x32 s3 persistent", 1},
        {DataType::F32, Precision::Default, 2048, 2048, 2048, 1, "wgmma_tf32x3 128x128x32 s3 persistent", 1},
        {DataType::F32, Precision::Default, 1024, 1024, 1024, 1, "wgmma_tf32x3 128x128x32 s3 persistent", 2},
        {DataType::F32, Precision::Default, 512, 512, 16384, 1, "wgmma_tf32x3 128x128x32 s3 persistent", 8},
        {DataType::F32, Precision::Default, 64, 64, 20, 1, "async_pipeline 64x64x8 s4", 1},
        {DataType::F32, Precision::Default, 100, 7, 3, 1, "async_pipeline 64x64x8 s4", 1},
        // Short k: the CUDA cores' 64x64 tiles start up faster than 3xTF32's (fill_k).
        {DataType::F32, Precision::Default, 64, 64, 128, 512, "async_pipeline 64x64x8 s4", 1},
        {DataType::F32, Precision::Default, 128, 128, 64, 1024, "warp_tile 128x128x8", 1},
        {DataType::F32, Precision::Tf32, 4096, 4096, 4096, 1, "wgmma_tf32 128x256x32 s4 persistent", 1},
        // 128 x 256 tiles are 72 here, 192 x 128 ones 144 (30.4 us against 34.0 for cuBLAS's
        // TF32, H200: docs/auto.md).
        {DataType::F32, Precision::Tf32, 1536, 1536, 1536, 1, "wgmma_tf32 192x128x32 s5 persistent", 1},
        // Small squares in TF32 mode: rung 16's 32x32 tiles to 256^3 and 64x32 tiles at 512^3,
        // where rung 25's kernel starts up slower (its fill_k) or reads an MN-major op(A)
        // through registers; rung 25's 128 x 64 tiles where both operands are K-major (512^3
        // row-major nt: 8.7 us against 10.1 for rung 16's 64x32, H200: docs/auto.md).
        {DataType::F32, Precision::Tf32, 128, 128, 128, 1, "tf32 32x32x32 w16x16 s5", 1},
        {DataType::F32, Precision::Tf32, 512, 512, 512, 1, "tf32 64x32x32 w32x16 s4", 1},
        {DataType::F32, Precision::Tf32, 512, 512, 512, 1, "wgmma_tf32 128x64x32 s8 persistent", 1, false, true},
        // Both operands MN-major: rung 25 would pack one and run the other through its register
        // path; rung 16's tiles read both as they are (docs/auto.md).
        {DataType::F32, Precision::Tf32, 512, 512, 512, 1, "tf32 64x32x32 w32x16 s4", 1, true},
        // Few tiles, long k: split-K on every path; rung 25's 128 x 64 tiles in 16 slices
        // (12.5 us against cuBLAS's 17.4), and rung 16's where op(B) would need the pack step
        // (both operands MN-major: 21.4 us, rung 25 packing slower; docs/auto.md).
        {DataType::F32, Precision::Tf32, 256, 256, 8192, 1, "wgmma_tf32 128x64x32 s8 persistent", 16},
        {DataType::F32, Precision::Tf32, 256, 256, 8192, 1, "tf32 64x64x32 w32x32 s4", 16, true},
        // Small: no pack step; 32x32 tiles, four times 64x64's count, whole (split-K's sum costs
        // more than the second block per SM buys: kSplitKNs); from 640^3 on, 64x32.
        {DataType::F32, Precision::Default, 512, 512, 512, 1, "tf32x3 32x32x32 w16x16 s5", 1},
        {DataType::F32, Precision::Default, 128, 128, 128, 1, "tf32x3 32x32x32 w16x16 s5", 1},
        {DataType::F32, Precision::Default, 640, 640, 640, 1, "tf32x3 64x32x32 w32x16 s4", 1},
        // (4096^3 itself goes to rung 31: LargeDoubleProductsGoToTheInt8Emulation.)
        {DataType::F64, Precision::Default, 4096, 4096, 2048, 1, "dmma 128x128x16 w64x32 s4 g16 k8 rotating", 1},
        // 128 tiles of 128x64, one per SM, as eight warps: one 4-warp block per SM would not
        // keep the pipe busy (kDmmaSaturatingWarps).
        {DataType::F64, Precision::Default, 1024, 1024, 1024, 1, "dmma 128x64x32 w32x32 s3 k16 rotating", 1},
        // Few tiles, long k: 128x128's 64 (or 16) tiles cut into 128 blocks, one 8-warp block per SM.
        {DataType::F64, Precision::Default, 1024, 1024, 8192, 1, "dmma 128x128x16 w64x32 s4 g16 k8 rotating", 2},
        {DataType::F64, Precision::Default, 512, 512, 16384, 1, "dmma 128x128x16 w64x32 s4 g16 k8 rotating", 8},
        // 32x32 tiles: 512^3 as two blocks per SM rather than one of 32x64 (16-row warps need
        // more of them: kDmmaShortWarpSaturatingWarps), 256^3 on 64 SMs rather than 32; from
        // 640^3 on, 64x64's eight-warp blocks fill the SMs.
        {DataType::F64, Precision::Default, 512, 512, 512, 1, "dmma 32x32x32 w16x16 s5 k16", 1},
        {DataType::F64, Precision::Default, 256, 256, 256, 1, "dmma 32x32x32 w16x16 s5 k16", 1},
        {DataType::F64, Precision::Default, 640, 640, 640, 1, "dmma 64x64x16 w32x16 s4 k8 rotating", 1},
        {DataType::F64, Precision::Default, 64, 64, 64, 1024, "dmma 64x64x16 w32x16 s4 k8 rotating", 1},
        {DataType::BF16, Precision::Default, 4096, 4096, 4096, 1, "persistent 128x256x64 ws", 1},
        // 64 tiles of 128x128 would leave half the SMs idle: rung 24's kernel on 128 tiles of
        // 64x128, one m64n128 warpgroup each (8.5 us against 9.4 for 128x64's tail-split form
        // and 11.0 for its pairs, H200); 1000^3, whose tiles are not whole, keeps 128x64 (11.3
        // us against 12.2).
        {DataType::BF16, Precision::Default, 1024, 1024, 1024, 1, "persistent 64x128x64 ws", 1},
        {DataType::BF16, Precision::Default, 1000, 1000, 1000, 1, "persistent 128x64x64 ws", 1},
        // 32 tiles of 64x128 in 4 slices: 128 units (21.4 us against 22.0-22.2 for 16 tiles of
        // 128x128 in 8, H200).
        {DataType::BF16, Precision::Default, 512, 512, 16384, 1, "persistent 64x128x64 ws", 4},
        // Attention's Q K^T and P V as strided batches: rung 24's kernel over every product's
        // tiles, 128x128 where n = 64 would leave 128x256 three quarters empty.
        {DataType::BF16, Precision::Default, 1024, 1024, 64, 64, "persistent 128x256x64 ws", 1},
        {DataType::BF16, Precision::Default, 2048, 128, 2048, 32, "persistent 128x128x64 ws", 1},
        // Attention's P V with 64 outputs a row (C 512 x 64 column-major, k = 64): 128x64
        // tiles, their C staged for a TMA store like 128x128's (25.2 us against 128x128's 24.7
        // on an H200; 41 before the staging).
        {DataType::BF16, Precision::Default, 512, 64, 64, 512, "persistent 128x64x64 ws", 1},
        // And products 64 rows tall (C 64 x 512, k = 128, batch 256): 64x128 tiles, where a
        // 128-row tile runs half empty (18.8 us against 22.4 for 128x256, H200).
        {DataType::BF16, Precision::Default, 64, 512, 128, 256, "persistent 64x128x64 ws", 1},
        // Batches of 64 x 64 products: one 64x64 tile each, on two consumer warpgroups in
        // ping-pong (at 64^3 x 1024 10.8 us against 11.6 for one warpgroup's 13 stages, rung
        // 19's 13.6 and 128x128's 14.3, H200). A 128^3 keeps one warpgroup (the ping-pong
        // tiles take batches only; 0.98x cuBLAS against rung 21's 0.65x, H200).
        {DataType::BF16, Precision::Default, 64, 64, 128, 512, "persistent 64x64x64 ws pingpong", 1},
        {DataType::BF16, Precision::Default, 64, 64, 64, 1024, "persistent 64x64x64 ws pingpong", 1},
        {DataType::BF16, Precision::Default, 128, 128, 128, 1, "persistent 64x64x64 ws", 1},
        // The tail split where the last wave is a few tiles of a long k: a prefill of 512
        // tokens against a 10240 x 8192 weight (160 tiles: one wave, 28 tiles in 4 pieces); not
        // where the saved tail is short (1536^3: its 12 tiles past a wave of 128x128 ones have
        // 24 k tiles) nor at 4096^3 and 8192^3 (116 and 68 tiles left: under 2 pieces each).
        {DataType::BF16, Precision::Default, 10240, 512, 8192, 1, "persistent 128x256x64 ws tail-split", 1},
        // 192x192 tiles where 128x256 ones fall just past a whole wave: 3000^3 is 256 tiles (two
        // waves) against 288 (three), 91.3 us against 128x256's tail split's 116.0; a prefill of
        // 2048 tokens against a 4608-wide weight 264 against 288, 91.9 us against 118.9 (H200).
        {DataType::BF16, Precision::Default, 3000, 3000, 3000, 1, "persistent 192x192x64 ws", 1},
        {DataType::BF16, Precision::Default, 4608, 2048, 3584, 1, "persistent 192x192x64 ws", 1},
        // A prefill of 64 and 128 tokens against a 2048- and a 3584-wide weight: 64x64 tiles,
        // 64 and 112 of them, each whole (8.7 us against the 128x64 cluster split's 9.1, and
        // 13.9 against 15.0, H200).
        {DataType::BF16, Precision::Default, 2048, 64, 2048, 1, "persistent 64x64x64 ws", 1},
        {DataType::BF16, Precision::Default, 3584, 128, 3584, 1, "persistent 64x64x64 ws", 1},
        // 1536^3 is a lone wave of 72 tiles of 128x256: 96 of 192x128 fill more SMs (17.6-18.3
        // us against 20.3-21.7, H200).
        {DataType::BF16, Precision::Default, 1536, 1536, 1536, 1, "persistent 192x128x64 ws", 1},
        {DataType::BF16, Precision::Default, 8192, 8192, 8192, 1, "persistent 128x256x64 ws", 1},
        // A prefill against a row-major weight (op(A) K-major): the transposed tiles, whose 96
        // or 144 weight rows come nearer one wave. 128 tokens x 4608 rows: 96 tiles of 64 x 96
        // (14.5-14.6 us against 19.7-20.0 for 72 of 128 x 64); 512 tokens: 128 of 128 x 144
        // (30.3-31.3 against 33.5-33.6 for 96 of 192 x 128); 512 tokens x 3072 rows: 128 of
        // 128 x 96 (16.1 against 16.8-17.0 for 96 of 128 x 128; H200, docs/ladder.md). An
        // MN-major op(A) keeps the untransposed tiles.
        {DataType::BF16, Precision::Default, 4608, 128, 3584, 1, "persistent 96x64x64 ws transposed", 1, false, true},
        {DataType::BF16, Precision::Default, 4608, 512, 3584, 1, "persistent 144x128x64 ws transposed", 1, false, true},
        {DataType::BF16, Precision::Default, 3072, 512, 2048, 1, "persistent 96x128x64 ws transposed", 1, false, true},
        {DataType::BF16, Precision::Default, 4608, 128, 3584, 1, "persistent 128x64x64 ws", 1},
    };
    for (const Pinned& x : pinned) {
        Problem p = problem(x.type, x.m, x.n, x.k, x.precision, x.type, x.batches);
        p.trans_b = x.trans_b;
        p.trans_a = x.trans_a;
        const AutoChoice c = auto_choice(p, h100(), nullptr);
        const std::string what = std::string(gemmlab::to_string(x.type)) + " " +
                                 gemmlab::to_string(x.precision) + " " + std::to_string(x.m) + "x" +
                                 std::to_string(x.n) + "x" + std::to_string(x.k) + " batch " +
                                 std::to_string(x.batches) + (x.trans_b ? " op(B) not K-major" : "") +
                                 (x.trans_a ? " op(A) K-major" : "");
        EXPECT_EQ(c.candidate, x.candidate) << what;
        EXPECT_EQ(c.splits, x.splits) << what;
        EXPECT_FALSE(c.tuned) << what;
    }
}

// An operand TMA cannot read (an odd leading dimension) is copied for the 16-bit wgmma rungs
// (kernels/repitch.cuh), and the model counts the copy: its traffic and one launch per copied
// operand. Rung 19 reads any alignment, at about a quarter of its speed there (measured,
// docs/auto.md). From 255^3 up an odd product takes the copy (at 255^3 onto 64x64 tiles, level
// with rung 19: 12.4 against 12.3 us on an H200).
TEST(AutoModel, UnalignedHalfOperandsPayTheirCopy) {
    const auto odd = [](int64_t m, int64_t n, int64_t k, bool odd_a, bool odd_b) {
        Problem p = problem(DataType::BF16, m, n, k);
        // Addresses for their alignment only: the model never reads through them.
        p.A = reinterpret_cast<const void*>(uintptr_t(0x10000));
        p.B = reinterpret_cast<const void*>(uintptr_t(0x20000));
        // Leading dimensions of whole 16-byte units, or one element past them.
        p.lda = (m + 7) / 8 * 8 + (odd_a ? 1 : 0);
        p.ldb = (k + 7) / 8 * 8 + (odd_b ? 1 : 0);
        return p;
    };
    const auto model_us = [](const Problem& p, std::string_view name) {
        for (const AutoOption& o : auto_options(p, h100()))
            if (o.name == name && o.splits == 1) return o.model_ns / 1000.0;
        return -1.0;
    };
    const Problem big = odd(2047, 2047, 2047, true, true);
    for (int64_t size : {511, 1023, 2047})
        EXPECT_TRUE(std::string_view(auto_choice(odd(size, size, size, true, true), h100(), nullptr).candidate)
                        .starts_with("persistent"))
            << size;
    const Problem aligned = odd(2047, 2047, 2047, false, false);
    const double copies = model_us(big, "persistent 128x256x64 ws") -
                          model_us(aligned, "persistent 128x256x64 ws");
    const double one_a = model_us(odd(2047, 2047, 2047, true, false), "persistent 128x256x64 ws") -
                         model_us(aligned, "persistent 128x256x64 ws");
    EXPECT_GT(one_a, 5.0);              // a launch and 2047^2 x 4 bytes
    EXPECT_NEAR(copies, 2 * one_a, 1e-6); // both operands: twice that
    // Rung 19 copies nothing, but reads an unaligned operand element by element.
    EXPECT_NEAR(model_us(big, "mma_sync_f16 128x128x32 s4"),
                4 * model_us(aligned, "mma_sync_f16 128x128x32 s4"), 1e-6);
    EXPECT_EQ(auto_choice(odd(255, 255, 255, true, true), h100(), nullptr).candidate,
              "persistent 64x64x64 ws");
}

// Rung 15's rotating tiles copy a double operand they cannot read in 16-byte units first
// (kernels/repitch.cuh), and the model counts the copy (16 bytes of DRAM traffic an element and
// a launch per copied operand); the other DMMA tiles read it as it is, at the model's rate
// either way. An odd batch stride is unaligned too. 4095 x 4097 x 1023 (the mixed set's odd
// row) stays on a rotating tile with its copies.
TEST(AutoModel, UnalignedDoubleOperandsPayTheirCopyOnRotatingTiles) {
    const auto odd = [](int64_t m, int64_t n, int64_t k, bool odd_a, bool odd_b, int64_t batches = 1) {
        Problem p = problem(DataType::F64, m, n, k, Precision::Default, {}, batches);
        // Addresses for their alignment only: the model never reads through them.
        p.A = reinterpret_cast<const void*>(uintptr_t(0x10000));
        p.B = reinterpret_cast<const void*>(uintptr_t(0x20000));
        // Leading dimensions of whole 16-byte units, or one element past them.
        p.lda = (m + 1) / 2 * 2 + (odd_a ? 1 : 0);
        p.ldb = (k + 1) / 2 * 2 + (odd_b ? 1 : 0);
        return p;
    };
    const auto model_us = [](const Problem& p, std::string_view name) {
        for (const AutoOption& o : auto_options(p, h100()))
            if (o.name == name && o.splits == 1) return o.model_ns / 1000.0;
        return -1.0;
    };
    const char* rotating = "dmma 128x128x16 w64x32 s4 g16 k8 rotating";
    const Problem aligned = odd(2048, 2048, 2048, false, false);
    const double one_a = model_us(odd(2048, 2048, 2048, true, false), rotating) - model_us(aligned, rotating);
    const double one_b = model_us(odd(2048, 2048, 2048, false, true), rotating) - model_us(aligned, rotating);
    const double both = model_us(odd(2048, 2048, 2048, true, true), rotating) - model_us(aligned, rotating);
    // 2048^2 x 16 bytes at the part's DRAM rate, and a launch.
    const double copy_us = 2048.0 * 2048.0 * 16.0 / h100().dram_gbps / 1000.0;
    EXPECT_GT(one_a, copy_us);
    EXPECT_LT(one_a, copy_us + 10.0);
    EXPECT_NEAR(one_b, one_a, 1e-6);
    EXPECT_NEAR(both, 2 * one_a, 1e-6);
    for (const char* plain : {"dmma 32x64x16 w16x32 s4 k16", "dmma 32x32x32 w16x16 s5 k16"})
        EXPECT_NEAR(model_us(odd(2048, 2048, 2048, true, true), plain), model_us(aligned, plain), 1e-6) << plain;
    // A batch's own matrices an odd number of elements apart: copied too.
    Problem batch = odd(256, 256, 256, false, false, 4);
    const double batch_aligned = model_us(batch, rotating);
    batch.batch.strides.a = 256 * 256 + 1;
    EXPECT_GT(model_us(batch, rotating), batch_aligned);
    EXPECT_TRUE(std::string_view(auto_choice(odd(4095, 4097, 1023, true, true), h100(), nullptr).candidate)
                    .ends_with("rotating"));
}

// C that one warp tile holds over a short k goes to rung 27 before the model, for every type and
// precision: k <= 128 in a batch, k <= 16 alone (a tile rung is faster on one product of
// longer k); one row, one column or one k past the rule leaves it to the model.
TEST(AutoModel, TinyProductsGoToRung27) {
    for (DataType t : {DataType::F32, DataType::F64, DataType::BF16, DataType::F16})
        for (Precision pr : {Precision::Default, Precision::Tf32})
            for (int64_t batches : {int64_t(1), int64_t(2), int64_t(100000)}) {
                const std::string what = std::string(gemmlab::to_string(t)) + " " +
                                         gemmlab::to_string(pr) + " batch " + std::to_string(batches);
                const auto choice = [&](int64_t m, int64_t n, int64_t k) {
                    return auto_choice(problem(t, m, n, k, pr, t, batches), h100(), nullptr).candidate;
                };
                for (const auto& [m, n, k] : {std::tuple{1, 1, 1}, {16, 16, 16}, {32, 32, 16}, {7, 32, 9}})
                    EXPECT_EQ(choice(m, n, k), "small") << what << " " << m << "x" << n << "x" << k;
                for (const auto& [m, n, k] : {std::tuple{32, 32, 128}, {7, 32, 40}, {32, 32, 17}})
                    if (batches > 1) EXPECT_EQ(choice(m, n, k), "small") << what << " " << m << "x" << n << "x" << k;
                    else EXPECT_NE(choice(m, n, k), "small") << what << " " << m << "x" << n << "x" << k;
                for (const auto& [m, n, k] : {std::tuple{33, 32, 16}, {32, 33, 16}, {32, 32, 129}})
                    EXPECT_NE(choice(m, n, k), "small") << what << " " << m << "x" << n << "x" << k;
            }
}

// Large double products go to rung 31 (INT8 emulation) where its modelled time is at most a
// DGEMM's and k >= 4096, whole where the workspace fits in an eighth of the device's memory and
// in blocks of C where it does not: 16384^3 (14.5 GB of workspace) whole on a 141 GB part and in
// blocks on an 80 GB one, 32768^3 (58 GB) in blocks; never k < 4096, float, a batch, a device
// without sm_90a, or one whose memory is unknown (no block fits).
TEST(AutoModel, LargeDoubleProductsGoToTheInt8Emulation) {
    const auto choice = [](DataType t, int64_t m, int64_t n, int64_t k, const DeviceCaps& caps,
                           int64_t batches = 1) {
        return auto_choice(problem(t, m, n, k, Precision::Default, t, batches), caps, nullptr).candidate;
    };
    DeviceCaps large = h100();
    large.memory_bytes = size_t(141) << 30;
    EXPECT_EQ(choice(DataType::F64, 8192, 8192, 8192, h100()), "int8_emulation");
    EXPECT_EQ(choice(DataType::F64, 8192, 8192, 16384, h100()), "int8_emulation");
    EXPECT_EQ(choice(DataType::F64, 16384, 16384, 16384, h100()), "int8_emulation");
    EXPECT_EQ(choice(DataType::F64, 16384, 16384, 16384, large), "int8_emulation");
    EXPECT_EQ(choice(DataType::F64, 32768, 32768, 32768, large), "int8_emulation");
    EXPECT_EQ(choice(DataType::F64, 4096, 4096, 4096, h100()), "int8_emulation");
    // Both sides of the line, as measured on an H200 (docs/auto.md): 1.12x, 1.16x and 1.02x
    // cuBLAS there, 0.96x and 0.93x here.
    EXPECT_EQ(choice(DataType::F64, 3072, 3072, 8192, large), "int8_emulation");
    EXPECT_EQ(choice(DataType::F64, 2048, 8192, 8192, large), "int8_emulation");
    EXPECT_NE(choice(DataType::F64, 2048, 2048, 8192, large), "int8_emulation");
    EXPECT_NE(choice(DataType::F64, 3072, 3072, 4096, large), "int8_emulation");
    EXPECT_NE(choice(DataType::F64, 16384, 16384, 2048, large), "int8_emulation");
    EXPECT_NE(choice(DataType::F32, 8192, 8192, 8192, large), "int8_emulation");
    EXPECT_NE(choice(DataType::F64, 8192, 8192, 8192, large, 2), "int8_emulation");
    EXPECT_NE(choice(DataType::F64, 8192, 8192, 8192, ada()), "int8_emulation");
    DeviceCaps unknown_memory = h100();
    unknown_memory.memory_bytes = 0;
    EXPECT_NE(choice(DataType::F64, 8192, 8192, 8192, unknown_memory), "int8_emulation");
}

// Precision::Int8Emulation, the caller's choice: every float and double product on rung 31
// where sm_90a runs, tiny and batched ones too; the half types and a device without sm_90a keep
// the Default path.
TEST(AutoModel, Int8EmulationPrecisionRunsRung31) {
    const auto choice = [](DataType t, int64_t m, int64_t n, int64_t k, const DeviceCaps& caps,
                           int64_t batches = 1) {
        return auto_choice(problem(t, m, n, k, Precision::Int8Emulation, t, batches), caps, nullptr)
            .candidate;
    };
    for (DataType t : {DataType::F32, DataType::F64}) {
        EXPECT_EQ(choice(t, 8, 8, 8, h100()), "int8_emulation");
        EXPECT_EQ(choice(t, 4096, 1, 4096, h100()), "int8_emulation");
        EXPECT_EQ(choice(t, 1024, 1024, 1024, h100(), 8), "int8_emulation");
        EXPECT_NE(choice(t, 1024, 1024, 1024, ada()), "int8_emulation");
    }
    EXPECT_NE(choice(DataType::BF16, 1024, 1024, 1024, h100()), "int8_emulation");
    EXPECT_NE(choice(DataType::F16, 1024, 1024, 1024, h100()), "int8_emulation");
}

// One skinny side against a side 16 times wider, the wide operand 1 MiB or more, goes to rung 28
// before the model: up to 16 columns in BF16/FP16, 4 in float, never in double; a small square
// batch, a narrow wide side or a small wide operand stay with the model. Only where rung 28 reads
// both operands along k in 16-byte runs (the column-major form of a row-major x W^T: op(A) = A^T,
// op(B) = B, aligned): a weight stored along its rows or an odd leading dimension stays too.
// Of those, 9-16 tokens along n in BF16/FP16 (one product) run on rung 24's 64 x 16 tiles where
// sm_90a runs and the tiles number a third of the SMs to one wave, or two waves and more: 44,
// 132 and 264 tiles do, 43, 133 and 263 not.
TEST(AutoModel, SkinnyProductsGoToRung28) {
    struct Row {
        DataType type;
        int64_t m, n, k, batches;
        bool decode;
    };
    const Row rows[] = {
        {DataType::BF16, 1, 4096, 4096, 1, true},     {DataType::BF16, 16, 28672, 8192, 1, true},
        {DataType::F16, 4096, 8, 4096, 1, true},      {DataType::BF16, 17, 4096, 4096, 1, false},
        {DataType::BF16, 1, 4096, 128, 256, true},    {DataType::BF16, 64, 64, 128, 512, false},
        {DataType::BF16, 8, 100, 4096, 1, false},     {DataType::BF16, 1, 256, 256, 1, false},
        {DataType::F32, 4, 28672, 8192, 1, true},     {DataType::F32, 5, 28672, 8192, 1, false},
        {DataType::F64, 1, 28672, 8192, 1, false},
        {DataType::BF16, 4608, 16, 3584, 1, true},    {DataType::F16, 4096, 9, 4096, 1, true},
        {DataType::BF16, 8448, 16, 8192, 1, true},    {DataType::BF16, 8449, 16, 8192, 1, true},
        {DataType::BF16, 2752, 16, 8192, 1, true},    {DataType::BF16, 2816, 12, 8192, 1, true},
        {DataType::BF16, 16832, 16, 4096, 1, true},   {DataType::F16, 16833, 10, 4096, 1, true},
        {DataType::BF16, 2048, 16, 8192, 1, true},    {DataType::BF16, 4096, 12, 128, 64, true},
        {DataType::BF16, 4608, 8, 3584, 1, true},     {DataType::BF16, 200, 16, 4096, 1, false},
        {DataType::F32, 4096, 16, 4096, 1, false},
    };
    const auto name = [](DataType t, int64_t m, int64_t n, int64_t k, int64_t batches) {
        return std::string(gemmlab::to_string(t)) + " " + std::to_string(m) + "x" + std::to_string(n) +
               "x" + std::to_string(k) + " batch " + std::to_string(batches);
    };
    for (const Row& r : rows) {
        Problem p = problem(r.type, r.m, r.n, r.k, Precision::Default, r.type, r.batches);
        p.trans_a = true, p.trans_b = false; // both operands along k
        p.lda = p.ldb = r.k;
        p.batch.strides = {r.k * std::max(r.m, r.n), r.k * std::max(r.m, r.n), r.m * r.n};
        const std::string what = name(r.type, r.m, r.n, r.k, r.batches);
        // 9-16 tokens along n (the weight's rows along m) in a 16-bit type, one product, take
        // rung 24's 64 x 16 tiles on an sm_90a device instead where those number 44-132 or
        // 264 and more (on 132 SMs).
        const int64_t tile_count = (r.m + 63) / 64;
        const bool tiles = (r.type == DataType::BF16 || r.type == DataType::F16) && r.n >= 9 &&
                           r.n <= 16 && r.m >= 16 * r.n && r.batches == 1 && tile_count >= 44 &&
                           (tile_count <= 132 || tile_count >= 264);
        const std::string_view expected = tiles ? "persistent 64x16x64 ws" : "decode";
        if (r.decode) {
            EXPECT_EQ(auto_choice(p, h100(), nullptr).candidate, expected) << what;
            EXPECT_EQ(auto_choice(p, ada(), nullptr).candidate, "decode") << what << " without sm_90a";
        } else {
            EXPECT_NE(auto_choice(p, h100(), nullptr).candidate, "decode") << what;
            EXPECT_NE(auto_choice(p, h100(), nullptr).candidate, "persistent 64x16x64 ws") << what;
        }
        if (!r.decode) continue;
        Problem rows_contiguous = p; // the weight stored along its rows (a row-major x @ W)
        if (r.m < r.n) rows_contiguous.trans_b = true;
        else rows_contiguous.trans_a = false;
        EXPECT_NE(auto_choice(rows_contiguous, h100(), nullptr).candidate, "decode") << what << " rows contiguous";
        Problem odd_ld = p;
        odd_ld.lda = odd_ld.ldb = r.k + 1;
        EXPECT_NE(auto_choice(odd_ld, h100(), nullptr).candidate, "decode") << what << " lda = k + 1";
    }
}

// Half-precision outputs in float take the same candidates as the type itself.
TEST(AutoModel, HalfTypesWithFloatOutputPickAlike) {
    for (DataType in : {DataType::BF16, DataType::F16})
        for (int64_t size : {256, 1024, 4096}) {
            const AutoChoice same = auto_choice(problem(in, size, size, size), h100(), nullptr);
            const AutoChoice wide =
                auto_choice(problem(in, size, size, size, Precision::Default, DataType::F32), h100(), nullptr);
            EXPECT_EQ(same.candidate, wide.candidate) << size;
        }
}

const int64_t kSizes[] = {1, 7, 33, 64, 100, 256, 1000, 4096};
const int64_t kDepths[] = {1, 20, 39, 40, 64, 1000, 16384};

// Default precision never gets TF32; 3xTF32 only from kTf32x3MinK on; whatever the device.
TEST(AutoModel, NeverLowersPrecision) {
    for (const DeviceCaps& caps : {h100(), ada()})
        for (int64_t m : kSizes)
            for (int64_t n : kSizes)
                for (int64_t k : kDepths) {
                    const AutoChoice c = auto_choice(problem(DataType::F32, m, n, k), caps, nullptr);
                    const std::string_view name = c.candidate;
                    EXPECT_FALSE(name.starts_with("tf32 ") || name.starts_with("wgmma_tf32 "))
                        << name << " at " << m << "x" << n << "x" << k;
                    if (k < mma::kTf32x3MinK) {
                        EXPECT_EQ(name.find("tf32x3"), std::string_view::npos) << name << " at k " << k;
                    }
                }
}

// What the device reports removes candidates: no sm_90a code without sm90a, no DMMA below
// compute capability 9.0, no block that needs more shared memory than a block may opt in to
// (99 KB here: the 128x256 and 128x128 TF32 tiles, 162 and 108 KB).
TEST(AutoModel, DeviceInputsRemoveWhatCannotRun) {
    const std::set<std::string_view> too_big = {"tf32 128x256x32 w64x64 s3", "tf32 128x128x32 w64x32 s3"};
    for (int64_t m : kSizes)
        for (int64_t k : kDepths)
            for (TuneType t : kAllTuneTypes) {
                const Problem p = problem(input_type(t), m, m, k, precision_of(t), output_type(t));
                const AutoChoice c = auto_choice(p, ada(), nullptr);
                const std::string_view name = c.candidate;
                EXPECT_FALSE(name.starts_with("wgmma") || name.starts_with("persistent") ||
                             name.starts_with("tma"))
                    << name;
                EXPECT_FALSE(name.starts_with("dmma")) << name;
                EXPECT_EQ(too_big.count(name), 0u) << name << " at " << m << "x" << m << "x" << k;
                for (const AutoOption& o : auto_options(p, ada()))
                    EXPECT_EQ(too_big.count(o.name), 0u) << o.name;
            }
}

// The SM clock and count scale every candidate alike, so on a part that is an H100 at half the
// clock the picks that depend neither on DRAM nor on fixed launch costs (no pack step, no split)
// stay. 1000 x 1000 x 500 cannot split (k < 2 kMinSplitK); 4096^3 has no use for it.
TEST(AutoModel, ClockScalesEveryCandidateAlike) {
    DeviceCaps slow = h100();
    slow.sm_clock_mhz = 990;
    slow.dram_gbps = 0; // no DRAM term: compute alone decides
    DeviceCaps fast = h100();
    fast.dram_gbps = 0;
    for (int64_t size : {64, 256, 1000, 4096})
        for (DataType t : {DataType::F64, DataType::BF16}) {
            const Problem p = problem(t, size, size, size == 1000 ? 500 : size);
            EXPECT_EQ(auto_choice(p, slow, nullptr).candidate, auto_choice(p, fast, nullptr).candidate)
                << size;
        }
}

// GemmOptions::sm_count_target: the caps a limited call plans with, the scope that sets it for
// one call (nested scopes restore what they found), and a pick that changes with the SMs left
// (a 4096^3 BF16 product is many waves on 16 SMs, where no k split pays).
TEST(AutoModel, AnSmCountTargetLimitsTheCapsTheCallPlansWith) {
    const DeviceCaps all = h100();
    const DeviceCaps few = limit_sms(all, 33);
    EXPECT_EQ(few.sm_count, 33);
    EXPECT_EQ(few.clusters_of[0], 16); // 66 * 33 / 132 pairs, at most 33 / 2
    EXPECT_EQ(few.clusters_of[1], 7);  // 30 * 33 / 132 = 7.5
    EXPECT_EQ(few.clusters_of[2], 3);  // 15 * 33 / 132 = 3.75
    EXPECT_EQ(limit_sms(all, 1).clusters_of[0], 0);
    for (int unlimited : {0, 132, 500}) {
        const DeviceCaps same = limit_sms(all, unlimited);
        EXPECT_EQ(same.sm_count, 132) << unlimited;
        EXPECT_EQ(same.clusters_of[2], 15) << unlimited;
    }
    EXPECT_EQ(SmCountTarget::current(), 0);
    {
        const SmCountTarget outer(100);
        EXPECT_EQ(SmCountTarget::current(), 100);
        {
            const SmCountTarget inner(16);
            EXPECT_EQ(SmCountTarget::current(), 16);
        }
        EXPECT_EQ(SmCountTarget::current(), 100);
    }
    EXPECT_EQ(SmCountTarget::current(), 0);

    // 1024 x 1024 x 16384 is a few tiles: on 132 SMs auto cuts them along k (split-K, or over a
    // cluster); on 16 SMs its 32 tiles of 128 x 256 fill them twice, and it cuts nothing.
    const Problem few_tiles = problem(DataType::BF16, 1024, 1024, 16384);
    const AutoChoice on_all = auto_choice(few_tiles, all, nullptr);
    const AutoChoice on_16 = auto_choice(few_tiles, limit_sms(all, 16), nullptr);
    auto cuts_k = [](const AutoChoice& c) {
        return c.splits > 1 || std::string_view(c.candidate).find("split") != std::string_view::npos;
    };
    EXPECT_TRUE(cuts_k(on_all)) << on_all.candidate << " x" << on_all.splits;
    EXPECT_FALSE(cuts_k(on_16)) << on_16.candidate << " x" << on_16.splits;
}

// The options `gemmlab tune` times: exactly what the call's precision and k admit, every split
// of the split-K candidates down to kMinSplitK, and each name found again by its index.
TEST(AutoModel, OptionsFollowThePrecisionRulesAndTheSplitLimit) {
    const auto names = [](TuneType t, int64_t k) {
        std::set<std::string> out;
        for (const AutoOption& o : auto_options(problem_of(t, 1024, 1024, k), h100())) {
            out.insert(std::string(o.name));
            EXPECT_EQ(find_candidate(t, o.name), o.candidate) << o.name;
            if (o.splits > 1) {
                EXPECT_EQ(resolve_tuned_choice(t, o.name, o.splits, k).candidate, o.candidate) << o.name;
                EXPECT_GE(k / o.splits, kMinSplitK) << o.name << " " << o.splits;
            }
        }
        return out;
    };
    const auto small_k = names(TuneType::F32, 20);
    for (const auto& n : small_k) EXPECT_TRUE(n.starts_with("warp_tile") || n.starts_with("async")) << n;
    const auto f32 = names(TuneType::F32, 4096);
    EXPECT_TRUE(f32.count("wgmma_tf32x3 128x128x32 s3 persistent"));
    EXPECT_FALSE(f32.count("tf32 128x256x32 w64x64 s3"));
    EXPECT_TRUE(names(TuneType::F32Tf32, 20).count("wgmma_tf32 128x256x32 s4 persistent"));
    std::set<int> splits;
    for (const AutoOption& o : auto_options(problem_of(TuneType::BF16, 512, 512, 4096), h100()))
        if (o.name == std::string_view("persistent 128x256x64 ws")) splits.insert(o.splits);
    EXPECT_EQ(splits, (std::set<int>{1, 2, 4, 8, 16}));
    splits.clear();
    for (const AutoOption& o : auto_options(problem_of(TuneType::BF16, 512, 512, 1000), h100()))
        if (o.name == std::string_view("persistent 128x256x64 ws")) splits.insert(o.splits);
    EXPECT_EQ(splits, (std::set<int>{1, 2})); // 1000 / 4 < 256
    EXPECT_EQ(find_candidate(TuneType::F64, "persistent 128x256x64 ws"), -1);
    EXPECT_EQ(find_candidate(TuneType::F32, "no such candidate"), -1);
}

} // namespace

// Rung 31's cut of C (int8_emulation_blocks): the whole product where it fits the budget;
// otherwise blocks whose workspace fits, their sides multiples of 128 (or the whole side); none
// where not even a 1/64 x 1/64 block fits. Of the cuts that fit, the one that splits least.
TEST(Int8EmulationBlocks, BlocksOfCFitTheBudget) {
    const auto ws = [](int64_t m, int64_t n, int64_t k) { return gemmlab::detail::int8_emulation_workspace_bytes(true, m, n, k); };
    const gemmlab::detail::EmulationBlocks whole = gemmlab::detail::int8_emulation_blocks(true, 8192, 8192, 8192, 0, ws(8192, 8192, 8192));
    EXPECT_EQ(whole.rows, 8192);
    EXPECT_EQ(whole.cols, 8192);
    for (const size_t budget : {size_t(141) << 27, size_t(80) << 27, size_t(4) << 30}) // 1/8 of 141 and 80 GB, 4 GB
        for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{32768, 32768, 32768},
                                      {24576, 24576, 24576}, {16384, 16384, 16384}, {1000, 50000, 8192},
                                      {20001, 3001, 40000}}) {
            const gemmlab::detail::EmulationBlocks b = gemmlab::detail::int8_emulation_blocks(true, m, n, k, 0, budget);
            ASSERT_GT(b.rows, 0) << m << "x" << n << "x" << k;
            EXPECT_LE(ws(b.rows, b.cols, k), budget) << m << "x" << n << "x" << k;
            EXPECT_TRUE(b.rows == m || b.rows % 128 == 0) << b.rows;
            EXPECT_TRUE(b.cols == n || b.cols % 128 == 0) << b.cols;
            EXPECT_LE(b.rows, m);
            EXPECT_LE(b.cols, n);
            // No coarser cut along either side fits.
            if (b.rows < m) EXPECT_TRUE(ws(std::min(m, 2 * b.rows), b.cols, k) > budget || b.cols < n);
            if (ws(m, n, k) <= budget) EXPECT_EQ(b.rows * b.cols, m * n);
        }
    EXPECT_EQ(gemmlab::detail::int8_emulation_blocks(true, 32768, 32768, 32768, 0, 0).rows, 0) << "nothing fits 0 bytes";
    EXPECT_EQ(gemmlab::detail::int8_emulation_blocks(true, 32768, 32768, 32768, 0, 1 << 20).rows, 0);
}
