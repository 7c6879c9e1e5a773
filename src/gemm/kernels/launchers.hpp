#pragma once
// Launchers of every rung; each is defined (and instantiated for the types it supports) in the
// rung's own file in this folder. The registry (src/gemm/registry.cu) is the one table that
// lists them.

#include "gemm/problem.hpp"

namespace gemmlab::detail {

void launch_cublas(const Problem&, cudaStream_t); // 00 (follows Problem::precision)
template <class T> void launch_naive(const GemmArgs<T>&, cudaStream_t);                   // 01
template <class T> void launch_coalesced(const GemmArgs<T>&, cudaStream_t);               // 02
template <class T> void launch_register_tile_global(const GemmArgs<T>&, cudaStream_t);    // 03
template <class T> void launch_register_prefetch_global(const GemmArgs<T>&, cudaStream_t);// 04
template <class T> void launch_smem_tile(const GemmArgs<T>&, cudaStream_t);               // 05
template <class T> void launch_smem_conflict_free(const GemmArgs<T>&, cudaStream_t);      // 06
template <class T> void launch_thread_tile_1d(const GemmArgs<T>&, cudaStream_t);          // 07
template <class T> void launch_vectorized(const GemmArgs<T>&, cudaStream_t);              // 08
template <class T> void launch_thread_tile_4x4(const GemmArgs<T>&, cudaStream_t);         // 09
template <class T> void launch_thread_tile_8x8(const GemmArgs<T>&, cudaStream_t);         // 10
template <class T> void launch_smem_interleaved_reads(const GemmArgs<T>&, cudaStream_t);  // 11
template <class T> void launch_double_buffer(const GemmArgs<T>&, cudaStream_t);           // 12
template <class T> void launch_warp_tile(const GemmArgs<T>&, cudaStream_t);               // 13
template <class T> void launch_async_pipeline(const GemmArgs<T>&, cudaStream_t);          // 14

template <class T> void launch_dmma(const GemmArgs<T>&, cudaStream_t);                    // 15
template <class T> void launch_tf32(const GemmArgs<T>&, cudaStream_t);                    // 16
template <class T> void launch_tf32x3(const GemmArgs<T>&, cudaStream_t);                  // 17

/// Half precision (TIn = __nv_bfloat16 or __half in, TOut = TIn or float out, FP32 accumulation).
template <class TIn, class TOut> void launch_mma_sync_f16(const HalfArgs<TIn, TOut>&, cudaStream_t); // 19

/// `auto`: picks a rung and tile configuration by shape and Problem::precision
/// (src/gemm/auto_select.cu).
void launch_auto(const Problem&, cudaStream_t);

} // namespace gemmlab::detail
