// Experiment: does wgmma tf32 round or truncate FP32 operands, from shared memory (SS) and from
// registers (RS)? All-constant operands, so the result does not depend on the layout.
#include <cstdio>
#include <cmath>
#include <cstdint>
__device__ uint64_t desc(const void* p, uint32_t lbo, uint32_t sbo) {
    uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(p));
    return uint64_t((a >> 4) & 0x3FFF) | (uint64_t((lbo >> 4) & 0x3FFF) << 16) | (uint64_t((sbo >> 4) & 0x3FFF) << 32);
}
__global__ void k(float a, float b, int rs, float* out) {
    __shared__ __align__(1024) float sa[512];
    __shared__ __align__(1024) float sb[64];
    for (int i = threadIdx.x; i < 512; i += 128) sa[i] = a;
    for (int i = threadIdx.x; i < 64; i += 128) sb[i] = b;
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    uint64_t da = desc(sa, 128, 256), db = desc(sb, 128, 256);
    uint32_t ra = __float_as_uint(a);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    if (rs) {
        asm volatile("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, %5, 0, 1, 1;\n"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(ra), "l"(db));
    } else {
        asm volatile("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%0,%1,%2,%3}, %4, %5, 0, 1, 1;\n"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    out[threadIdx.x * 4 + 0] = d0; out[threadIdx.x * 4 + 1] = d1;
    out[threadIdx.x * 4 + 2] = d2; out[threadIdx.x * 4 + 3] = d3;
}
int main() {
    const float vals[] = {1.0f + 0x1p-11f + 0x1p-12f, 1.0f + 0x1p-11f, 1.0f + 0x1p-10f + 0x1p-11f, -(1.0f + 0x1p-11f + 0x1p-12f), 1.0f + 0x1p-12f, 1.0f + 0x1p-11f + 0x1p-23f};
    const char* names[] = {"1+2^-11+2^-12", "1+2^-11 (tie)", "1+2^-10+2^-11 (tie, odd)", "-(1+2^-11+2^-12)", "1+2^-12", "1+2^-11+2^-23"};
    float* out; cudaMallocManaged(&out, 512 * sizeof(float));
    for (int rs = 0; rs < 2; ++rs)
        for (int side = 0; side < 2; ++side)
            for (int v = 0; v < 6; ++v) {
                float a = side ? 1.0f : vals[v], b = side ? vals[v] : 1.0f;
                k<<<1, 128>>>(a, b, rs, out);
                cudaError_t e = cudaDeviceSynchronize();
                float lo = out[0], hi = out[0];
                for (int i = 0; i < 512; ++i) { lo = fminf(lo, out[i]); hi = fmaxf(hi, out[i]); }
                printf("%s value in %s(%s) %-26s D/8 - 1 = %+.6e  (2^%.2f)  [spread %g] %s\n", rs ? "RS" : "SS", side ? "B" : "A",
                       side ? "smem" : (rs ? "regs" : "smem"), names[v], lo / 8 - 1, std::log2(std::fabs(lo / 8 - 1)), hi - lo, cudaGetErrorString(e));
            }
    return 0;
}
