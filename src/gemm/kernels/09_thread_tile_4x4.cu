// Rung 9: 4x4 thread tile, a register outer product per thread.
//
// Idea: each thread computes a 4x4 block of C. Per k it reads 4 values of op(A) and 4 of op(B)
// from shared memory into registers and does 16 FMAs with them: 8 reads feed 16 multiply-adds,
// where rung 7's 8x1 column needed 9 reads for 8, so shared-memory traffic per FMA halves. A
// 64x64 block tile with k depth 16 and 256 threads (16 x 16 threads of 4x4) keeps every thread
// busy. The kernel is thread_tile.cuh's, shared with rung 10; this file is its shape.
// Changed from rung 8: the micro-kernel grows from rung 7/8's column of 8 results per thread
// (one B value reused 8 times) to a 4x4 outer product (every A and B value reused 4 times), and
// the block tile's k depth from 8 to 16. Global loads stay 16-byte vectors where the pointers
// and leading dimensions allow, scalar otherwise.
// Source (docs/sources.md): SGEMM v7, DCU GEMM 3.5.4.
// Measurements and the comparison with rung 8: docs/ladder.md.

#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/thread_tile.cuh"

namespace gemmlab::detail {

/// Block tile (BM, BN, BK) = 64x64x16, thread tile (TM, TN) = 4x4.
using ThreadTile4x4 = thread_tile::Shape<tile::GemmShape<64, 64, 16>, 4, 4>;
static_assert(ThreadTile4x4::kThreads == 256, "64x64 block tile of 4x4 thread tiles is 256 threads");

template <class T>
void launch_thread_tile_4x4(const GemmArgs<T>& g, cudaStream_t stream) {
    thread_tile::launch<ThreadTile4x4>(g, stream);
}

template void launch_thread_tile_4x4<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_thread_tile_4x4<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
