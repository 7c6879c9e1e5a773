// Rung 10: 8x8 thread tile on a 128x128x8 block tile, read from shared memory as vectors.
//
// Idea: double the thread tile again. Each thread now owns 8x8 elements of C, so per k it
// reads 8 values of op(A) and 8 of op(B) for 64 FMAs (4 FMAs per shared-memory element instead
// of 2), and the 8 consecutive values of each side come out of shared memory as two 16-byte
// loads (LDS.128) instead of eight 4-byte ones. 256 threads (16 x 16) now cover a 128x128
// block tile; the k depth per stage drops to 8 to keep shared memory at 8 KB (float).
// Changed from rung 9: only the shape given to thread_tile.cuh's kernel: block tile 64x64x16 ->
// 128x128x8, thread tile 4x4 -> 8x8. The thread layout is still "thread t owns rows
// 8*(t % 16) .. 8*(t % 16) + 7": a warp's 16-byte reads of A are spread 32 bytes apart, which
// costs shared-memory bank conflicts that rung 11 removes.
// Source (docs/sources.md): SGEMM v8.
// Measurements, and why it trails rung 9 on small squares (fewer, larger tiles): docs/ladder.md.

#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/thread_tile.cuh"

namespace gemmlab::detail {

/// Block tile (BM, BN, BK) = 128x128x8, thread tile (TM, TN) = 8x8.
using ThreadTile8x8 = thread_tile::Shape<tile::GemmShape<128, 128, 8>, 8, 8>;
static_assert(ThreadTile8x8::kThreads == 256, "128x128 block tile of 8x8 thread tiles is 256 threads");

template <class T>
void launch_thread_tile_8x8(const GemmArgs<T>& g, cudaStream_t stream) {
    thread_tile::launch<ThreadTile8x8>(g, stream);
}

template void launch_thread_tile_8x8<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_thread_tile_8x8<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
