#pragma once
// The warp-level tensor-core GEMM shared by rungs 15 (dmma), 16 (tf32) and 17 (tf32x3). The
// three differ only in their arithmetic, a small "math" type passed as a template parameter
// (the rung files define them); everything else is here:
//
//   gmem -> smem   cp.async into a Stages-deep ring of shared tiles (AsyncTileLoader), each
//                  operand kept in its global layout so every op combination moves in 16-byte
//                  copies (an operand that cannot, copied first for the rotating mainloop:
//                  repitch.cuh); edge tiles zero-filled by the copy. Stages are handed over by
//                  block barriers, or in the rotating mainloop (rung 15) by mbarriers.
//   smem -> regs   per k step of the MMA shape (m16n8kK), each warp loads the A fragments of
//                  its WM / 16 row tiles and the B fragments of its WN / 8 column tiles in the
//                  mma.sync register layout (ptx.cuh), one element per load.
//   mma            Math::mma_row: one A row tile against all of the warp's B tiles.
//   epilogue       C = alpha * acc + beta * C from the accumulator fragments, guarded.
//
// Shared layouts and why they are conflict-free (fragment reads, g = lane / 4, t = lane % 4;
// lane (g, t) reads row g or g + 8 of the operand, k index t + 4i):
// - a k-contiguous operand (A with op T, B with op N) is stored mn-major, (BMN, BK + 4): lane
//   (g, t) reads word g * (BK + 4) + t (x2 for f64). With BK + 4 = 4 * odd, the 8 rows g land
//   on 8 different groups of 4 banks and t picks the bank inside the group: one wavefront per
//   32-bit read; for f64, whose 16-lane halves are one wavefront each, 4 groups of 4 double
//   slots, again conflict-free.
// - an mn-contiguous operand (A with op N, B with op T) is stored k-major, (BK, BMN + P) with
//   P = 32 bytes of padding (8 floats, 4 doubles): lane (g, t) reads word t * LD + g. With
//   LD = 8 * odd floats the 4 values of t start 8 banks apart and g runs along them (f32), and
//   with LD = 4 * odd doubles each 16-lane half (t = 0..3, g = 0..3) covers 16 distinct double
//   slots (f64). Unpadded, the 4 t rows would hit the same banks: 4-way conflicts.
// The ncu bank-conflict counters that confirm this are in docs/ladder.md.

#include <cstdint>
#include <utility>

#include "gemm/kernels/common.cuh"
#include "gemm/kernels/cp_async_tile.cuh"
#include "gemm/kernels/ptx.cuh"
#include "gemm/kernels/repitch.cuh"
#include "gemm/kernels/tile_common.cuh"
#include "gemm/kernels/mma_configs.hpp"
#include "gemm/kernels/tile_configs.hpp"
#include "gemm/workspace.hpp"

namespace gemmlab::detail::mma {

/// Whether Math asks for the rotating-fragment mainloop (Math::kRotateFragments; rung 15).
template <class Math>
inline constexpr bool kRotatesFragments = requires { requires Math::kRotateFragments; };

__host__ __device__ constexpr int gcd_of(int a, int b) { return b == 0 ? a : gcd_of(b, a % b); }

/// The shared tile of one operand for element type T: mn-major (BMN, BK + 4) when the operand
/// is k-contiguous, k-major (BK, BMN + 32 bytes) otherwise (see the header for why).
/// EdgeBlockPath: the loader's own path for edge blocks (cp_async_tile.cuh).
template <class T, int BMN, int BK, int Threads, bool KContig, bool Vec, bool EdgeBlockPath>
struct OperandTile {
    static constexpr int kPad = KContig ? 4 : 32 / int(sizeof(T));
    using Loader = tile::AsyncTileLoader<T, BMN, BK, Threads, KContig, Vec, /*MnMajor=*/KContig, kPad,
                                         EdgeBlockPath>;
    static constexpr int LD = Loader::LD;
    static constexpr int kElems = Loader::kTileElems;

    static_assert(KContig ? LD % 8 == 4 : (LD * int(sizeof(T))) % 64 == 32,
                  "row padding must keep fragment reads conflict-free (see the header)");

    /// Offset of element (mn, kk) of the tile.
    __device__ __forceinline__ static int at(int mn, int kk) { return KContig ? mn * LD + kk : kk * LD + mn; }
};

/// The kernel's compile-time plan: tiles, shared memory, the math.
template <class Cfg, class Math, bool TransA, bool TransB, bool Vec>
struct MmaKernel {
    using T = typename Math::Element;
    // The edge blocks' path everywhere but in the grouped rotating tiles, whose copies were
    // tuned against their SASS (docs/ladder.md) and which run the large shapes, where edge
    // blocks are few. The ungrouped rotating tiles (8-warp 128x64 and 64x64) run medium ones in
    // a single wave, where an edge block sets the kernel's time: with the path, 1000^3 ran in
    // 48-49 us rather than 56-57 on 128x64 (docs/ladder.md, "Rung 15 on medium squares").
    static constexpr bool kEdgeBlockPath = !kRotatesFragments<Math> || Cfg::kGroupM == 1;
    using TileA =
        OperandTile<T, Cfg::BM, Cfg::BK, Cfg::kThreads, /*KContig=*/TransA, Vec, kEdgeBlockPath>;
    using TileB =
        OperandTile<T, Cfg::BN, Cfg::BK, Cfg::kThreads, /*KContig=*/!TransB, Vec, kEdgeBlockPath>;
    static constexpr int kK = Math::kK;             // k depth of one mma.sync
    static constexpr int kFragA = ptx::Mma16x8Fragments<kK>::kA;
    static constexpr int kFragB = ptx::Mma16x8Fragments<kK>::kB;
    static constexpr int kStageElems = TileA::kElems + TileB::kElems;
    static constexpr int kRingBytes = Cfg::kStages * kStageElems * int(sizeof(T));
    // The rotating mainloop's full and empty mbarriers (8 bytes each) follow the stages.
    static constexpr int kSmemBytes = kRingBytes + (kRotatesFragments<Math> ? 16 * Cfg::kStages : 0);

    static_assert(Cfg::BK % kK == 0, "the k tile must be whole MMA k steps");
    static_assert((TileA::kElems * sizeof(T)) % 16 == 0, "B tiles must start 16-byte aligned");
    static_assert(kSmemBytes <= 227 * 1024, "the pipeline must fit in 227 KB of shared memory");
    static_assert(kSmemBytes <= kMmaTileSmemBytes<Cfg, T, kRotatesFragments<Math>>,
                  "the family's exported figure (what auto reads) must cover every variant");
};

/// One warp's fragment loads from one shared stage, in the mma.sync layout of ptx.cuh: A row
/// tile i holds rows m0 + 16 i + g (+ 8), B column tile j column n0 + 8 j + g, k indices
/// k0 + t + 4 e.
template <class K>
struct WarpFragments {
    using T = typename K::T;
    int m0, n0; // the warp tile's first row and column inside the block tile
    int g, t;

    __device__ __forceinline__ WarpFragments(int m0_, int n0_, int lane)
        : m0(m0_), n0(n0_), g(lane / 4), t(lane % 4) {}

    __device__ __forceinline__ void load_a(T (&a)[K::kFragA], const T* tile_a, int i, int k0) const {
#pragma unroll
        for (int e = 0; e < K::kFragA; ++e)
            a[e] = tile_a[K::TileA::at(m0 + 16 * i + g + 8 * (e % 2), k0 + t + 4 * (e / 2))];
    }

    __device__ __forceinline__ void load_b(T (&b)[K::kFragB], const T* tile_b, int j, int k0) const {
#pragma unroll
        for (int e = 0; e < K::kFragB; ++e) b[e] = tile_b[K::TileB::at(n0 + 8 * j + g, k0 + t + 4 * e)];
    }
};

/// C(r, c) of op(A) op(B) by plain FP32/FP64 FMAs straight from global memory, in k order: the
/// fallback of a math that finds inputs it cannot represent to its accuracy (Math::Guard, see
/// rung 17). Slow, and reached only on such data (values near the type's limits, Inf, NaN),
/// never on ordinary inputs. A plain loop (no call, no reference to the kernel's arguments), so
/// that it costs the fast path no registers or stack.
template <bool TransA, bool TransB, class T>
__device__ __forceinline__ T dot_with_fma(const T* A, int64_t lda, const T* B, int64_t ldb, int64_t k,
                                          int64_t r, int64_t c) {
    T sum = 0;
#pragma unroll 1
    for (int64_t p = 0; p < k; ++p) sum = fma(op_at<TransA>(A, lda, r, p), op_at<TransB>(B, ldb, p, c), sum);
    return sum;
}

template <class Cfg, class Math, bool TransA, bool TransB, bool Vec>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    mma_gemm_kernel(GemmOperands<typename Math::Element> g, bool swapped, BatchStrides batch) {
    using K = MmaKernel<Cfg, Math, TransA, TransB, Vec>;
    using T = typename K::T;
    using Acc = typename Math::Acc;
    constexpr int BK = Cfg::BK, S = Cfg::kStages, MT = Cfg::kTilesM, NT = Cfg::kTilesN;
    // Stage s: an op(A) tile then an op(B) tile, layouts as in the header.
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const T* const smem = reinterpret_cast<const T*>(smem_raw);
    const uint32_t smem_u32 = uint32_t(__cvta_generic_to_shared(smem_raw));

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int warp_m = warp % Cfg::kWarpsM, warp_n = warp / Cfg::kWarpsM;
    const WarpFragments<K> frags(warp_m * Cfg::WM, warp_n * Cfg::WN, lane);
    int64_t row0, col0;
    if constexpr (Cfg::kGroupM > 1)
        tile::grouped_block_tile_origin<Cfg::kGroupM>(swapped, Cfg::BM, Cfg::BN, row0, col0);
    else
        tile::block_tile_origin(swapped, Cfg::BM, Cfg::BN, row0, col0);

    typename K::TileA::Loader load_a(batch_a(g, batch), g.lda, g.m, row0, tid); // this block's batch
    typename K::TileB::Loader load_b(batch_b(g, batch), g.ldb, g.n, col0, tid);
    Acc acc[MT][NT][4] = {}; // (MT, NT) MMA tiles of 4 accumulators each
    typename Math::Guard guard;

    // gmem -> smem: one commit group per k tile, empty past the end, so that "group t is tile t".
    // g.A and g.B (batch 0 of the launch, memory the call reads) source the copies that read
    // nothing.
    // The loaders step to a k tile just before issuing its copies rather than just after the
    // previous tile's: a cp.async holds its address registers until the copy leaves the memory
    // queue, and overwriting them at once stalled the warp (ncu: long-scoreboard stalls on the
    // pointer increment: about 5% of rung 15's stall samples at 4096^3, docs/ladder.md).
    // The rotating mainloop (below) hands its stages over by mbarriers: stage s's full
    // barrier, then its empty barrier, after the stages.
    constexpr bool kRing = kRotatesFragments<Math> && Vec;
    const auto full_bar = [&](int stage) { return smem_u32 + uint32_t(K::kRingBytes + 8 * stage); };
    const auto empty_bar = [&](int stage) { return smem_u32 + uint32_t(K::kRingBytes + 8 * (S + stage)); };
    const auto issue_next = [&](int stage, int64_t issue_left) {
        if (issue_left > 0) {
            if (issue_left < g.k) { // not the first tile, where the loaders start
                load_a.advance();
                load_b.advance();
            }
            const uint32_t base = smem_u32 + uint32_t(stage * K::kStageElems * int(sizeof(T)));
            const int depth = tile::tile_depth<BK>(issue_left);
            load_a.issue(base, depth, g.A);
            load_b.issue(base + uint32_t(K::TileA::kElems * int(sizeof(T))), depth, g.B);
        }
        ptx::cp_async_commit();
        if constexpr (kRing) ptx::cp_async_mbar_arrive(full_bar(stage));
    };

    // The rotating mainloop holds about 40 more registers than the one below; with the
    // element-wise copies of an unaligned operand (more copy addresses per thread) it spills,
    // so those calls take the one below (launch copies such operands first where it can).
    if constexpr (kRing) {
        // Fragments one k step ahead in a rotating set of registers (the slots below): the
        // loads of step s + 1 go between the MMAs of step s, and the wait for tile t + 1's data
        // comes after the first MMAs of tile t's last step.
        constexpr int H = BK / K::kK;  // k steps per tile
        constexpr int kSlots = MT + 1; // A row tiles in registers: one step's MT and a spare
        // Steps until the A slots (a rotation by one per step) and the B sets (two) repeat.
        constexpr int kUnroll = kSlots / gcd_of(H, kSlots) * H;
        static_assert(kUnroll % 2 == 0, "the two B sets must alternate across the unrolled body");
        T a[kSlots][K::kFragA];
        typename Math::BOperands b[2][NT];
        // A row tile i of step s sits in slot (i - s) mod kSlots: the loads for step s + 1 after
        // row tile i's MMAs go to the slot row tile i - 1 of step s was read from, an MMA issued
        // one row (NT MMAs) earlier, so the load never waits for an MMA still reading it.
        constexpr auto slot = [](int step, int i) { return ((i - step) % kSlots + kSlots) % kSlots; };
        static_assert(H >= 2, "a stage's empty arrival follows its tile's second-last step");
        // The stages are handed over by mbarriers, not block barriers: stage s's full barrier
        // completes when every thread's copies into it have landed (each thread's
        // cp.async.mbarrier.arrive), its empty barrier when every thread has loaded its last
        // fragments from it. A warp thus waits only for the data it reads next and, to refill
        // a stage, for the others to have left it, never for the slowest warp to reach a
        // common point; the tensor pipe stays busier than behind a __syncthreads at each tile's
        // last step (docs/ladder.md, "Stages handed over by mbarriers").
        if (tid == 0) {
#pragma unroll
            for (int st = 0; st < S; ++st) {
                ptx::mbar_init(full_bar(st), Cfg::kThreads);
                ptx::mbar_init(empty_bar(st), Cfg::kThreads);
            }
            ptx::fence_barrier_init();
        }
        __syncthreads(); // the barriers are initialized before anyone arrives
        const auto load_b_set = [&](int set, const T* tile_a, int k0) {
            const T* tile_b = tile_a + K::TileA::kElems;
#pragma unroll
            for (int j = 0; j < NT; ++j) {
                T raw[K::kFragB];
                frags.load_b(raw, tile_b, j, k0);
                Math::prepare_b(b[set][j], raw, guard);
            }
        };

        // gmem -> smem: every stage filled up front; a stage is refilled as soon as its tile's
        // fragments are all in registers, before the tile's last step.
#pragma unroll
        for (int s = 0; s < S; ++s) issue_next(s, g.k - int64_t(s) * BK);
        ptx::mbar_wait(full_bar(0), 0); // tile 0 has landed
        load_b_set(0, smem, 0);
#pragma unroll
        for (int i = 0; i < MT; ++i) frags.load_a(a[slot(0, i)], smem, i, 0);

        int stage = 0;        // the stage of the tile being multiplied
        int64_t k_left = g.k; // depth from that tile on
        uint32_t phase = 0;   // the parity of that tile's phase of its stage's barriers
        int refill_stage = 0; // in a tile's last step: the stage it leaves, and its parity
        uint32_t refill_phase = 0;
        // The row of a tile's last step after whose MMAs its stage is refilled: rows after
        // the last fragment loads from it, so the other warps have mostly left it (a later row
        // kept the pipe busier than row 0: docs/ladder.md).
        constexpr int kRefillRow = MT / 2;
        // Step s of the unrolled body; false after the last tile's last step.
        const auto step = [&]<int s>() -> bool {
            constexpr int h = s % H; // the step inside its tile
            constexpr bool tile_end = h == H - 1;
            constexpr int k0_next = tile_end ? 0 : (h + 1) * K::kK;
            const T* next_a = smem + stage * K::kStageElems; // where step s + 1's fragments are
#pragma unroll
            for (int i = 0; i < MT; ++i) {
                Math::mma_row(acc[i], a[slot(s, i)], b[s % 2], guard);
                if (i == 0) {
                    if constexpr (tile_end) { // on to tile t + 1's stage; wait for its data
                        refill_stage = stage;
                        refill_phase = phase;
                        if (stage == S - 1) phase ^= 1;
                        stage = stage == S - 1 ? 0 : stage + 1;
                        if (k_left > BK) ptx::mbar_wait(full_bar(stage), phase);
                        next_a = smem + stage * K::kStageElems;
                    }
                    load_b_set((s + 1) % 2, next_a, k0_next);
                }
                if constexpr (tile_end) {
                    if (i == kRefillRow) { // tile t + S into t's stage, once everyone has left it
                        ptx::mbar_wait(empty_bar(refill_stage), refill_phase);
                        issue_next(refill_stage, k_left - int64_t(S) * BK);
                    }
                }
                frags.load_a(a[slot(s + 1, i)], next_a, i, k0_next);
            }
            // Every fragment of this tile is in registers now (its last step's came in this
            // step): this thread has left its stage.
            if constexpr (h == H - 2) ptx::mbar_arrive(empty_bar(stage));
            if constexpr (tile_end) {
                if (k_left <= BK) return false; // step s + 1's loads read a stale stage: unused
                k_left -= BK;
            }
            return true;
        };
        const auto unrolled = [&]<int... s>(std::integer_sequence<int, s...>) {
            return (step.template operator()<s>() && ...);
        };
        while (unrolled(std::make_integer_sequence<int, kUnroll>{})) {
        }
    } else {
#pragma unroll
        for (int s = 0; s < S - 1; ++s) issue_next(s, g.k - int64_t(s) * BK);

        int read_stage = 0, write_stage = S - 1;
        for (int64_t k_left = g.k;; k_left -= BK) {
            ptx::cp_async_wait<S - 2>(); // this thread's copies of the current tile have landed
            __syncthreads();             // everyone's have, and the stage to refill is retired
            issue_next(write_stage, k_left - int64_t(S - 1) * BK);

            const T* tile_a = smem + read_stage * K::kStageElems;
            const T* tile_b = tile_a + K::TileA::kElems;
            // Math::kUnrollK k steps at a time: fully unrolled, the compiler hoists every step's
            // fragment loads, which the split of rung 17 cannot afford in registers.
#pragma unroll Math::kUnrollK
            for (int k0 = 0; k0 < BK; k0 += K::kK) {
                typename Math::BOperands b[NT]; // the warp's B column tiles, in the math's form
#pragma unroll
                for (int j = 0; j < NT; ++j) {
                    T raw[K::kFragB];
                    frags.load_b(raw, tile_b, j, k0);
                    Math::prepare_b(b[j], raw, guard);
                }
#pragma unroll
                for (int i = 0; i < MT; ++i) {
                    T raw[K::kFragA];
                    frags.load_a(raw, tile_a, i, k0);
                    Math::mma_row(acc[i], raw, b, guard);
                }
            }
            if (k_left <= BK) break;
            read_stage = read_stage == S - 1 ? 0 : read_stage + 1;
            write_stage = write_stage == S - 1 ? 0 : write_stage + 1;
        }
    }
    ptx::cp_async_wait<0>(); // only empty groups can remain; leave none in flight

    // The whole tile falls back when any thread saw an input the math cannot represent
    // accurately (every A and B element of the tile passed through some warp's guard).
    bool fallback = false;
    if constexpr (Math::Guard::kCanFail) fallback = __syncthreads_or(guard.failed());

    // epilogue: c[e] of tile (i, j) is C(m0 + 16 i + g + 8 (e / 2), n0 + 8 j + 2 t + e % 2)
    const T alpha = g.alpha, beta = g.beta;
    T* const C = batch_c(g, batch);
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int e2 = 0; e2 < 2; ++e2) {
            const int64_t r = row0 + frags.m0 + 16 * i + frags.g + 8 * e2;
            if (r >= g.m) continue;
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int e1 = 0; e1 < 2; ++e1) {
                    const int64_t c = col0 + frags.n0 + 8 * j + 2 * frags.t + e1;
                    if (c >= g.n) continue;
                    T v = T(acc[i][j][2 * e2 + e1]);
                    if (fallback)
                        v = dot_with_fma<TransA, TransB>(batch_a(g, batch), g.lda, batch_b(g, batch),
                                                         g.ldb, g.k, r, c);
                    tile::store_one(C + r + c * g.ldc, v, alpha, beta);
                }
        }
}

/// The kernel and its shared memory for one op/alignment combination (tile::launch_block_tiled).
template <class Cfg, class Math>
struct Entry {
    template <bool TA, bool TB, bool Vec>
    struct Of {
        static constexpr auto kKernel = &mma_gemm_kernel<Cfg, Math, TA, TB, Vec>;
        static constexpr int kSmemBytes = MmaKernel<Cfg, Math, TA, TB, Vec>::kSmemBytes;
    };
};

/// The kernel on copies of the operands that 16-byte copies cannot read, their columns 128
/// bytes apart (repitch.cuh), so that the rotating mainloop runs. False, having enqueued nothing,
/// where the workspace cannot be had.
template <class Cfg, class Math>
bool launch_repitched(const GemmArgs<typename Math::Element>& g, cudaStream_t stream) {
    using T = typename Math::Element;
    return repitch::launch_on_copies(
        g, stream,
        [&](const repitch::Operand<T>& x) { return !tile::operand_vector_ok(x.data, x.ld, x.stride, g.batch); },
        [](const GemmArgs<T>&) { return true; },
        [&](const GemmArgs<T>& r) { tile::launch_block_tiled<Cfg, Entry<Cfg, Math>::template Of>(r, stream, /*vec=*/true); });
}

/// Launches the tensor-core GEMM with tile configuration Cfg and arithmetic Math (a batch on
/// gridDim.z). C is stored element by element, so only the operands decide the 16-byte copies.
/// The rotating mainloop (rung 15's large and medium tiles) needs those copies: an operand
/// without them is copied to aligned columns first, which costs less than the plain mainloop's
/// 8-byte copies (docs/ladder.md, "Rung 15 on odd leading dimensions"). The other tiles read
/// it as it is.
template <class Cfg, class Math>
void launch(const GemmArgs<typename Math::Element>& g, cudaStream_t stream) {
    const bool vec = tile::operands_vector_ok(g);
    if constexpr (kRotatesFragments<Math>) {
        if (!vec && launch_repitched<Cfg, Math>(g, stream)) return;
    }
    tile::launch_block_tiled<Cfg, Entry<Cfg, Math>::template Of>(g, stream, vec);
}

/// A math that cannot fail: no range to guard.
struct NoGuard {
    static constexpr bool kCanFail = false;
    __device__ __forceinline__ bool failed() const { return false; }
};

} // namespace gemmlab::detail::mma
