// Experiment: what TF32 GEMMs do with the low 13 bits of FP32 inputs.
#include <cstdio>
#include <cmath>
#include <vector>
#include <string>
#include <cuda_runtime.h>
#include "gemmlab/gemm.hpp"
using namespace gemmlab;
int main() {
    const int m = 256, n = 256, k = 64;
    float *A, *B, *C;
    cudaMalloc(&A, m * k * 4); cudaMalloc(&B, n * k * 4); cudaMalloc(&C, m * n * 4);
    const float vals[] = {1.0f + 0x1p-11f + 0x1p-12f, 1.0f + 0x1p-11f, 1.0f + 0x1p-10f + 0x1p-11f, -(1.0f + 0x1p-11f + 0x1p-12f), 1.0f + 0x1p-12f};
    const char* names[] = {"1+2^-11+2^-12", "1+2^-11 (tie)", "1+2^-10+2^-11 (tie, odd)", "-(1+2^-11+2^-12)", "1+2^-12"};
    for (int v = 0; v < 5; ++v) {
        std::vector<float> ha(m * k, vals[v]), hb(n * k, 1.0f);
        cudaMemcpy(A, ha.data(), m * k * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(B, hb.data(), n * k * 4, cudaMemcpyHostToDevice);
        for (std::string kern : {"cublas", "tf32", "wgmma_tf32"}) {
            for (int ops = 0; ops < 4; ++ops) {
                Op oa = ops & 2 ? Op::T : Op::N, ob = ops & 1 ? Op::T : Op::N;
                GemmOptions o; o.kernel = kern; o.precision = Precision::Tf32;
                // row-major: op(A) m x k; A stored m x k (N, lda=k) or k x m (T, lda=m)
                int64_t lda = oa == Op::N ? k : m, ldb = ob == Op::N ? n : k;
                cudaMemset(C, 0xFF, m * n * 4);
                Status s = gemm<float>(Layout::RowMajor, oa, ob, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, C, n, o);
                float c0 = NAN, c1 = NAN;
                cudaDeviceSynchronize();
                cudaMemcpy(&c0, C, 4, cudaMemcpyDeviceToHost);
                cudaMemcpy(&c1, C + m * n - 1, 4, cudaMemcpyDeviceToHost);
                printf("%-26s %-11s op %c%c  C[0]/k - 1 = %+.6e (2^%.2f)  last %+.6e  status %d\n", names[v], kern.c_str(),
                       oa == Op::N ? 'n' : 't', ob == Op::N ? 'n' : 't', c0 / k - 1, std::log2(std::fabs(c0 / k - 1)), c1 / k - 1, int(s));
            }
        }
    }
    return 0;
}
