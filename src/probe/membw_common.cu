// Definitions of the helpers in membw_common.cuh: fills, the copy and read kernels and their
// ceilings.

#include <random>

#include "common/device_buffer.hpp"
#include "probe/membw_common.cuh"
#include "probe/probes.hpp"

namespace gemmlab::probe::membw {
namespace {

constexpr int kFillGrid = 4096;
constexpr int kBlock = 256;

__global__ void fill_uniform_kernel(float* x, size_t n, uint32_t seed, float offset, float width) {
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        x[i] = uniform_value(i, seed, offset, width);
}

__global__ void fill_hash_kernel(uint32_t* x, size_t n, uint32_t seed, uint32_t mask) {
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        x[i] = hash_index(i, seed) & mask;
}

// Four independent 16-byte loads are issued before their stores, so each thread keeps 64 bytes
// in flight: with 2048 threads per SM that covers DRAM latency at full bandwidth.
__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
        out[i] = a;
        out[i + stride] = b;
        out[i + 2 * stride] = c;
        out[i + 3 * stride] = d;
    }
    for (; i < n4; i += stride) out[i] = in[i];
}

// One pass over in[0, n4), four independent 16-byte loads in flight per thread; the sum is stored
// only if it equals -1, which sums of positive inputs never do, so no load can be deleted.
__global__ void read_kernel(const float4* __restrict__ in, size_t n4, float* sink) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    float acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    auto sum4 = [](float4 v) { return (v.x + v.y) + (v.z + v.w); };
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
        acc0 += sum4(a);
        acc1 += sum4(b);
        acc2 += sum4(c);
        acc3 += sum4(d);
    }
    for (; i < n4; i += stride) acc0 += sum4(in[i]);
    const float acc = (acc0 + acc1) + (acc2 + acc3);
    if (acc == -1.0f) *sink = acc;
}

} // namespace

void fill_uniform(float* x, size_t n, uint32_t seed, float offset, float width, cudaStream_t stream) {
    if (n == 0) return;
    fill_uniform_kernel<<<kFillGrid, kBlock, 0, stream>>>(x, n, seed, offset, width);
    GEMMLAB_CHECK_LAUNCH();
}

void fill_hash_u32(uint32_t* x, size_t n, uint32_t seed, uint32_t mask, cudaStream_t stream) {
    if (n == 0) return;
    fill_hash_kernel<<<kFillGrid, kBlock, 0, stream>>>(x, n, seed, mask);
    GEMMLAB_CHECK_LAUNCH();
}

uint32_t fresh_seed() {
    std::random_device rd;
    return rd();
}

void launch_copy(const float4* in, float4* out, size_t n4, int grid, cudaStream_t stream) {
    copy_kernel<<<grid, kBlock, 0, stream>>>(in, out, n4);
    GEMMLAB_CHECK_LAUNCH();
}

void launch_read(const float4* in, size_t n4, float* sink, int grid, cudaStream_t stream) {
    read_kernel<<<grid, kBlock, 0, stream>>>(in, n4, sink);
    GEMMLAB_CHECK_LAUNCH();
}

CopyCeiling measure_copy(const Context& ctx, size_t bytes, cudaStream_t stream) {
    const size_t n4 = bytes / sizeof(float4);
    DeviceBuffer<float4> in(n4), out(n4);
    fill_uniform(reinterpret_cast<float*>(in.get()), n4 * 4, fresh_seed(), 0.5f, 1.0f, stream);
    const int grid = stream_grid(ctx);
    const double ms = median_ms([&](cudaStream_t s) { launch_copy(in.get(), out.get(), n4, grid, s); }, stream);
    CopyCeiling c;
    c.bytes = n4 * sizeof(float4);
    c.ms = ms;
    c.gbps = 2.0 * double(c.bytes) / (ms * 1e6);
    return c;
}

ReadCeiling measure_read(const Context& ctx, size_t bytes, cudaStream_t stream) {
    const size_t n4 = bytes / sizeof(float4);
    DeviceBuffer<float4> in(n4);
    DeviceBuffer<float> sink(1);
    fill_uniform(reinterpret_cast<float*>(in.get()), n4 * 4, fresh_seed(), 0.5f, 1.0f, stream);
    const int grid = stream_grid(ctx);
    const double ms =
        median_ms([&](cudaStream_t s) { launch_read(in.get(), n4, sink.get(), grid, s); }, stream);
    ReadCeiling c;
    c.bytes = n4 * sizeof(float4);
    c.ms = ms;
    c.gbps = double(c.bytes) / (ms * 1e6);
    return c;
}

} // namespace gemmlab::probe::membw
