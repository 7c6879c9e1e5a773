// Calls the installed library: validation needs no GPU, so this runs anywhere.
#include <cstdio>

#include <gemmlab/gemmlab.hpp>

int main() {
    float a = 1, b = 1, c = 0;
    const auto bad = gemmlab::validate_gemm<float>(gemmlab::Layout::RowMajor, gemmlab::Op::N,
                                                   gemmlab::Op::N, 2, 2, 5, 1.f, &a, 3, &b, 2, 0.f,
                                                   &c, 2);
    std::printf("%s: %s\n", gemmlab::to_string(bad).data(), gemmlab::last_error());

    // The half-precision entry points: BF16 A and B with a float C, and FP16 throughout.
    const __nv_bfloat16 ha = __float2bfloat16_rn(1.f), hb = __float2bfloat16_rn(2.f);
    const auto bf16_ok = gemmlab::validate_gemm(gemmlab::Layout::ColMajor, gemmlab::Op::N,
                                                gemmlab::Op::T, 1, 1, 1, 1.f, &ha, 1, &hb, 1, 0.f,
                                                &c, 1);
    const __half fa = __float2half_rn(1.f);
    __half fc = __float2half_rn(0.f);
    gemmlab::GemmOptions options;
    options.kernel = "naive"; // a float/double rung: the half call must be refused
    const auto f16_bad = gemmlab::validate_gemm(gemmlab::Layout::RowMajor, gemmlab::Op::N,
                                                gemmlab::Op::N, 1, 1, 1, 1.f, &fa, 1, &fa, 1, 0.f,
                                                &fc, 1, options);
    std::printf("bf16: %s, f16 on naive: %s: %s\n", gemmlab::to_string(bf16_ok).data(),
                gemmlab::to_string(f16_bad).data(), gemmlab::last_error());

    const bool ok = bad == gemmlab::Status::InvalidLeadingDimension && !gemmlab::gpu_kernels().empty() &&
                    bf16_ok == gemmlab::Status::Success &&
                    f16_bad == gemmlab::Status::UnsupportedType;
    std::puts(ok ? "consumer OK" : "consumer FAILED");
    return ok ? 0 : 1;
}
