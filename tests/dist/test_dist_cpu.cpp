// The distributed layer without a GPU: block-cyclic index math against a brute-force deal, the
// named distributions, SUMMA's panel steps, each rank's argument checks, and the agreement of
// the ranks (several ranks simulated by reducing their fingerprints here, as NCCL would).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dist/validate.hpp"
#include "gemmlab/dist.hpp"

using gemmlab::Layout;
using gemmlab::Op;
using namespace gemmlab::dist;

namespace {

// Deals n indices in blocks of nb over p positions one by one.
struct Deal {
    std::vector<int> owner;
    std::vector<int64_t> local;
    std::vector<int64_t> count;
};
Deal deal(int64_t n, int64_t nb, int p) {
    Deal d;
    d.count.assign(p, 0);
    for (int64_t g = 0; g < n; ++g) {
        const int o = int((g / nb) % p);
        d.owner.push_back(o);
        d.local.push_back(d.count[o]++);
    }
    return d;
}

} // namespace

TEST(DistIndex, MatchesBruteForceDeal) {
    int cases = 0;
    for (int64_t n : {0, 1, 7, 64, 100, 257, 1000})
        for (int64_t nb : {1, 3, 16, 64, 999, 5000})
            for (int p : {1, 2, 3, 4, 8}) {
                const Deal d = deal(n, nb, p);
                for (int i = 0; i < p; ++i)
                    ASSERT_EQ(num_local(n, nb, i, p), d.count[i]) << "n " << n << " nb " << nb << " p " << p << " i " << i;
                for (int64_t g = 0; g < n; ++g) {
                    ASSERT_EQ(owner_of(g, nb, p), d.owner[g]);
                    ASSERT_EQ(to_local(g, nb, p), d.local[g]);
                    ASSERT_EQ(to_global(d.local[g], nb, d.owner[g], p), g);
                }
                ++cases;
            }
    EXPECT_EQ(cases, 7 * 6 * 5);
}

TEST(DistIndex, NamedDistributions) {
    // 1000 x 600 on a 2 x 3 grid as one block per rank: ceil(1000/2) x ceil(600/3).
    const Distribution b = Distribution::block_2d(1000, 600, Grid{2, 3});
    EXPECT_EQ(b.block_rows, 500);
    EXPECT_EQ(b.block_cols, 200);
    int64_t total = 0;
    for (int r = 0; r < 6; ++r) total += local_rows(b, 1000, r) * local_cols(b, 600, r);
    EXPECT_EQ(total, 1000 * 600);
    // Uneven: 10 rows over 4 ranks as row panels: 3, 3, 3, 1.
    const Distribution rp = Distribution::row_panels(10, 5, 4);
    std::vector<int64_t> rows;
    for (int r = 0; r < 4; ++r) rows.push_back(local_rows(rp, 10, r));
    EXPECT_EQ(rows, (std::vector<int64_t>{3, 3, 3, 1}));
    for (int r = 0; r < 4; ++r) EXPECT_EQ(local_cols(rp, 5, r), 5);
    const Distribution cp = Distribution::col_panels(5, 10, 4);
    EXPECT_EQ(cp.grid, (Grid{1, 4}));
    EXPECT_EQ(local_cols(cp, 10, 3), 1);
    // Empty matrices still have blocks of at least 1.
    EXPECT_EQ(Distribution::block_2d(0, 0, Grid{2, 2}).block_rows, 1);
    // Rank order is row-major over the grid.
    EXPECT_EQ((Grid{2, 3}).row_of(4), 1);
    EXPECT_EQ((Grid{2, 3}).col_of(4), 1);
}

TEST(DistSumma, PanelStepsNeverCrossABlock) {
    for (int64_t k : {1, 100, 1000, 4097})
        for (int64_t ka : {1, 7, 64, 1000})
            for (int64_t kb : {1, 5, 64, 333})
                for (int64_t pk : {1, 16, 256, 100000}) {
                    int64_t covered = 0;
                    for (int64_t k0 = 0; k0 < k;) {
                        const int64_t k1 = detail::panel_end(k0, k, ka, kb, pk);
                        ASSERT_GT(k1, k0);
                        ASSERT_LE(k1 - k0, pk);
                        ASSERT_EQ(k0 / ka, (k1 - 1) / ka) << "crosses a block of A's columns";
                        ASSERT_EQ(k0 / kb, (k1 - 1) / kb) << "crosses a block of B's rows";
                        covered += k1 - k0;
                        k0 = k1;
                    }
                    ASSERT_EQ(covered, k);
                }
    EXPECT_EQ(detail::default_panel_k(32768, Grid{2, 2}), 8192);
    EXPECT_EQ(detail::default_panel_k(32768, Grid{1, 2}), 8192);
    EXPECT_EQ(detail::default_panel_k(100, Grid{1, 2}), 256);
    EXPECT_EQ(detail::default_panel_k(1 << 20, Grid{2, 4}), 16384);
    EXPECT_EQ(detail::default_panel_k(1 << 20, Grid{1, 1}), 1 << 20) << "one GPU: one product";
}

TEST(DistGatheredPanels, OnlyOneDimensionalGridsWithOneBlockOfKPerRank) {
    // Row-major: a P x 1 grid, B's rows one block per rank (the last may hold fewer).
    EXPECT_TRUE(detail::gathers_whole_k(Layout::RowMajor, Grid{4, 1}, 409, 17, 103));
    EXPECT_TRUE(detail::gathers_whole_k(Layout::RowMajor, Grid{2, 1}, 409, 1, 409)) << "all of k on rank 0";
    EXPECT_FALSE(detail::gathers_whole_k(Layout::RowMajor, Grid{4, 1}, 409, 409, 102)) << "a second block wraps around";
    EXPECT_FALSE(detail::gathers_whole_k(Layout::RowMajor, Grid{1, 4}, 409, 103, 409)) << "row-major 1 x P: SUMMA";
    EXPECT_FALSE(detail::gathers_whole_k(Layout::RowMajor, Grid{2, 2}, 409, 205, 205));
    // Column-major: the transpose, a 1 x P grid with A's columns one block per rank.
    EXPECT_TRUE(detail::gathers_whole_k(Layout::ColMajor, Grid{1, 4}, 409, 103, 1));
    EXPECT_FALSE(detail::gathers_whole_k(Layout::ColMajor, Grid{4, 1}, 409, 409, 103)) << "col-major P x 1: SUMMA";
    EXPECT_FALSE(detail::gathers_whole_k(Layout::ColMajor, Grid{1, 4}, 409, 24, 409)) << "block-cyclic k";
    // One rank or no k: nothing to gather.
    EXPECT_FALSE(detail::gathers_whole_k(Layout::RowMajor, Grid{1, 1}, 409, 409, 409));
    EXPECT_FALSE(detail::gathers_whole_k(Layout::RowMajor, Grid{2, 1}, 0, 1, 1));

    EXPECT_EQ(detail::default_panel_n(32768, 4), 2048) << "4 P chunks";
    EXPECT_EQ(detail::default_panel_n(32768, 2), 4096);
    EXPECT_EQ(detail::default_panel_n(5000, 2), 640) << "a multiple of 128";
    EXPECT_EQ(detail::default_panel_n(257, 2), 256) << "at least 256";
    EXPECT_EQ(detail::default_panel_n(100, 2), 100) << "at most n";
    EXPECT_EQ(detail::default_panel_n(0, 2), 1);

    using Chunks = std::vector<std::pair<int64_t, int64_t>>;
    const Chunks wide = detail::panel_chunks(32768, 2048);
    EXPECT_EQ(wide.front().second, 512) << "a narrow first chunk";
    EXPECT_EQ(wide.back(), std::make_pair(int64_t(512 + 15 * 2048), int64_t(1536))) << "the last what is left";
    EXPECT_EQ(wide.size(), 17u);
    EXPECT_EQ(detail::panel_chunks(257, 96), (Chunks{{0, 96}, {96, 96}, {192, 65}})) << "first at most panel_n";
    EXPECT_EQ(detail::panel_chunks(1000, 256), (Chunks{{0, 128}, {128, 256}, {384, 256}, {640, 256}, {896, 104}}));
    EXPECT_EQ(detail::panel_chunks(100, 100), (Chunks{{0, 100}}));
    for (int64_t cols : {1, 7, 300, 4097})
        for (int64_t pn : {1, 33, 128, 1000}) {
            if (pn > cols) continue;
            int64_t next = 0;
            for (auto [c0, w] : detail::panel_chunks(cols, pn)) {
                ASSERT_EQ(c0, next);
                ASSERT_GE(w, 1);
                ASSERT_LE(w, pn);
                next = c0 + w;
            }
            ASSERT_EQ(next, cols) << "the chunks cover the columns once";
        }
}

namespace {

struct Call {
    int64_t m = 300, n = 200, k = 100;
    Grid grid{1, 2};
    Layout layout = Layout::RowMajor;
    Op op_a = Op::N, op_b = Op::N;
    GemmOptions options;
    float dummy = 0;

    Status check(int nranks, int rank, detail::Fingerprint& fp, Distribution* override_c = nullptr,
                 const void* a_ptr = reinterpret_cast<const void*>(0x1000)) const {
        const Distribution dc = override_c ? *override_c : Distribution::block_2d(m, n, grid);
        const Distribution da{grid, dc.block_rows, 64};
        const Distribution db{grid, 32, dc.block_cols};
        auto ld_of = [&](const Distribution& d, int64_t r, int64_t c) {
            return std::max<int64_t>(1, layout == Layout::RowMajor ? local_cols(d, c, rank) : local_rows(d, r, rank));
        };
        const void* p = reinterpret_cast<const void*>(0x1000);
        Matrix<const void> A{m, k, da, a_ptr, ld_of(da, m, k)};
        Matrix<const void> B{k, n, db, p, ld_of(db, k, n)};
        Matrix<void> C{m, n, dc, const_cast<void*>(p), ld_of(dc, m, n)};
        return detail::check_gemm_local(nranks, rank, 1, 1, layout, op_a, op_b, A, B, C, options, fp);
    }
};

// What every rank concludes from the fingerprints of all ranks (NCCL's MAX all-reduce, here).
std::vector<Status> agree(const std::vector<detail::Fingerprint>& fps) {
    const int n = fps[0].wire_count();
    std::vector<int64_t> reduced(n, INT64_MIN), wire(n);
    for (const auto& fp : fps) {
        EXPECT_EQ(fp.wire_count(), n);
        fp.to_wire(wire.data());
        for (int i = 0; i < n; ++i) reduced[i] = std::max(reduced[i], wire[i]);
    }
    std::vector<Status> out;
    for (const auto& fp : fps) out.push_back(detail::decide(fp, reduced.data()));
    return out;
}

} // namespace

TEST(DistAgreement, SameCallSucceedsEverywhere) {
    Call c;
    std::vector<detail::Fingerprint> fps(2);
    for (int r = 0; r < 2; ++r) ASSERT_EQ(c.check(2, r, fps[r]), Status::Success) << last_error();
    for (Status s : agree(fps)) EXPECT_EQ(s, Status::Success);
}

TEST(DistAgreement, ShapeMismatchOnEveryRank) {
    Call c0, c1;
    c1.k = 101; // rank 1 believes in another k
    std::vector<detail::Fingerprint> fps(2);
    ASSERT_EQ(c0.check(2, 0, fps[0]), Status::Success);
    ASSERT_EQ(c1.check(2, 1, fps[1]), Status::Success);
    for (Status s : agree(fps)) EXPECT_EQ(s, Status::ShapeMismatch);
    EXPECT_NE(std::string(last_error()).find("k (A's columns)"), std::string::npos) << last_error();
    EXPECT_NE(std::string(last_error()).find("smallest 100, largest 101"), std::string::npos) << last_error();
}

TEST(DistAgreement, DistributionMismatchOnEveryRank) {
    Call c;
    std::vector<detail::Fingerprint> fps(2);
    Distribution other = Distribution::block_cyclic(50, 40, Grid{1, 2});
    ASSERT_EQ(c.check(2, 0, fps[0]), Status::Success);
    ASSERT_EQ(c.check(2, 1, fps[1], &other), Status::Success) << "consistent on its own: " << last_error();
    for (Status s : agree(fps)) EXPECT_EQ(s, Status::DistributionMismatch);
    EXPECT_NE(std::string(last_error()).find("block rows (this rank: "), std::string::npos) << last_error();
}

TEST(DistAgreement, OptionMismatchAndPeerErrors) {
    Call c0, c1;
    c1.options.schedule = Schedule::Sequential;
    std::vector<detail::Fingerprint> fps(2);
    ASSERT_EQ(c0.check(2, 0, fps[0]), Status::Success);
    ASSERT_EQ(c1.check(2, 1, fps[1]), Status::Success);
    for (Status s : agree(fps)) EXPECT_EQ(s, Status::OptionMismatch);
    c1 = c0;
    c1.options.panel_n = 512;
    ASSERT_EQ(c0.check(2, 0, fps[0]), Status::Success);
    ASSERT_EQ(c1.check(2, 1, fps[1]), Status::Success);
    for (Status s : agree(fps)) EXPECT_EQ(s, Status::OptionMismatch);
    EXPECT_NE(std::string(last_error()).find("panel_n"), std::string::npos) << last_error();

    // A null A on rank 1 only: rank 1 says why, rank 0 learns that a peer failed.
    ASSERT_EQ(c0.check(2, 0, fps[0]), Status::Success);
    ASSERT_EQ(c0.check(2, 1, fps[1], nullptr, nullptr), Status::InvalidArgument);
    EXPECT_NE(std::string(last_error()).find("A.data is null"), std::string::npos) << last_error();
    const auto st = agree(fps);
    EXPECT_EQ(st[0], Status::PeerInvalidArgument);
    EXPECT_EQ(st[1], Status::InvalidArgument);
}

TEST(DistChecks, LocalArguments) {
    detail::Fingerprint fp;
    Call c;
    c.op_a = Op::T;
    EXPECT_EQ(c.check(2, 0, fp), Status::Unsupported);
    Call g;
    EXPECT_EQ(g.check(3, 0, fp), Status::DistributionMismatch) << "a 1 x 2 grid on 3 ranks";
    EXPECT_NE(std::string(last_error()).find("the communicator has 3"), std::string::npos) << last_error();
    Call bad_panel;
    bad_panel.options.panel_k = -1;
    EXPECT_EQ(bad_panel.check(2, 0, fp), Status::InvalidArgument);
    bad_panel.options.panel_k = 0;
    bad_panel.options.panel_n = -8;
    EXPECT_EQ(bad_panel.check(2, 0, fp), Status::InvalidArgument);
    EXPECT_NE(std::string(last_error()).find("panel_n = -8"), std::string::npos) << last_error();

    // Leading dimension below the local block.
    const Distribution d = Distribution::block_2d(100, 80, Grid{2, 1});
    const void* p = reinterpret_cast<const void*>(0x1000);
    Matrix<const void> A{100, 10, Distribution{Grid{2, 1}, 50, 10}, p, 10};
    Matrix<const void> B{10, 80, Distribution{Grid{2, 1}, 10, 80}, p, 80};
    Matrix<void> C{100, 80, d, const_cast<void*>(p), 79};
    EXPECT_EQ(detail::check_gemm_local(2, 0, 1, 1, Layout::RowMajor, Op::N, Op::N, A, B, C, {}, fp),
              Status::InvalidArgument);
    EXPECT_NE(std::string(last_error()).find("C.ld = 79 is below 80"), std::string::npos) << last_error();
    C.ld = 80;
    EXPECT_EQ(detail::check_gemm_local(2, 0, 1, 1, Layout::RowMajor, Op::N, Op::N, A, B, C, {}, fp), Status::Success);
    // Rank 1 of B's 2 x 1 grid stores no rows of B (block rows 10 = k): a null B is fine there.
    Matrix<const void> B_null{10, 80, Distribution{Grid{2, 1}, 10, 80}, nullptr, 80};
    EXPECT_EQ(detail::check_gemm_local(2, 1, 1, 1, Layout::RowMajor, Op::N, Op::N, A, B_null, C, {}, fp),
              Status::Success)
        << last_error();
    EXPECT_EQ(detail::check_gemm_local(2, 0, 1, 1, Layout::RowMajor, Op::N, Op::N, A, B_null, C, {}, fp),
              Status::InvalidArgument);
    // A's rows dealt otherwise than C's: a local distribution error.
    Matrix<const void> A_other{100, 10, Distribution{Grid{2, 1}, 25, 10}, p, 10};
    EXPECT_EQ(detail::check_gemm_local(2, 0, 1, 1, Layout::RowMajor, Op::N, Op::N, A_other, B, C, {}, fp),
              Status::DistributionMismatch);
    EXPECT_NE(std::string(last_error()).find("A's block rows (25) must equal C's (50)"), std::string::npos)
        << last_error();
    // Shapes that do not multiply.
    Matrix<const void> A_bad{100, 11, Distribution{Grid{2, 1}, 50, 10}, p, 11};
    EXPECT_EQ(detail::check_gemm_local(2, 0, 1, 1, Layout::RowMajor, Op::N, Op::N, A_bad, B, C, {}, fp),
              Status::InvalidArgument);
}

TEST(DistChecks, TensorParallelArguments) {
    detail::Fingerprint fp;
    const void* p = reinterpret_cast<const void*>(0x1000);
    TpOptions o;
    using detail::TpKind;
    EXPECT_EQ(detail::check_tp_local(TpKind::AllGatherGemm, 4, 3, 3, Op::T, 8192, 7168, 8192, p, 8192, p, 8192, p,
                                     7168, o, fp),
              Status::Success)
        << last_error();
    EXPECT_EQ(detail::check_tp_local(TpKind::AllGatherGemm, 3, 3, 3, Op::T, 8192, 7168, 8192, p, 8192, p, 8192, p,
                                     7168, o, fp),
              Status::InvalidArgument)
        << "8192 tokens over 3 ranks";
    EXPECT_NE(std::string(last_error()).find("not a multiple"), std::string::npos);
    EXPECT_EQ(detail::check_tp_local(TpKind::GemmReduceScatter, 4, 3, 3, Op::N, 8192, 8192, 7168, p, 7168, p, 8191, p,
                                     8192, o, fp),
              Status::InvalidArgument)
        << "ldw below n for op N";
    EXPECT_EQ(detail::check_tp_local(TpKind::GemmReduceScatter, 4, 3, 3, Op::N, 8192, 8192, 7168, nullptr, 7168, p,
                                     8192, p, 8192, o, fp),
              Status::InvalidArgument);
    // Two ranks with other chunk counts disagree on an option.
    std::vector<detail::Fingerprint> fps(2);
    TpOptions o2;
    o2.chunks = 8;
    ASSERT_EQ(detail::check_tp_local(TpKind::AllGatherGemm, 2, 3, 3, Op::T, 64, 32, 16, p, 16, p, 16, p, 32, o, fps[0]),
              Status::Success);
    ASSERT_EQ(detail::check_tp_local(TpKind::AllGatherGemm, 2, 3, 3, Op::T, 64, 32, 16, p, 16, p, 16, p, 32, o2, fps[1]),
              Status::Success);
    for (Status s : agree(fps)) EXPECT_EQ(s, Status::OptionMismatch);
}
