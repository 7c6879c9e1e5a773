// Calls the installed library: validation needs no GPU, so this runs anywhere.
#include <cstdio>

#include <gemmlab/gemmlab.hpp>

int main() {
    float a = 1, b = 1, c = 0;
    const auto bad = gemmlab::validate_gemm<float>(gemmlab::Layout::RowMajor, gemmlab::Op::N,
                                                   gemmlab::Op::N, 2, 2, 5, 1.f, &a, 3, &b, 2, 0.f,
                                                   &c, 2);
    std::printf("%s: %s\n", gemmlab::to_string(bad).data(), gemmlab::last_error());
    const bool ok = bad == gemmlab::Status::InvalidLeadingDimension && !gemmlab::gpu_kernels().empty();
    std::puts(ok ? "consumer OK" : "consumer FAILED");
    return ok ? 0 : 1;
}
