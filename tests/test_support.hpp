#pragma once
// Helpers several test files share: skipping where there is no GPU, a scratch folder, running
// the CLI, and the synthetic H100 that auto's model is pinned on. Header-only; each test binary
// includes what it uses.

#include <array>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <system_error>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/device_info.hpp"
#include "gemm/device_caps.hpp"

/// Skips the calling test where no CUDA device is visible (this machine without a GPU, CI).
#define REQUIRE_GPU()                                                                              \
    do {                                                                                           \
        if (gemmlab::visible_device_count() == 0) GTEST_SKIP() << "no CUDA device";                \
    } while (0)

namespace gemmlab::test {

/// A fresh folder under the system's temporary directory, removed with the object.
class TempDir {
public:
    TempDir() {
        std::random_device rd;
        path_ = std::filesystem::temp_directory_path() /
                ("gemmlab-test-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

/// What a command printed (stdout and stderr together) and its exit code.
struct CliOutput {
    int code;
    std::string text;
};

/// Runs the gemmlab CLI at `cli_path` with `args` (a shell command line) and collects its output.
inline CliOutput run_cli_at(const char* cli_path, const std::string& args) {
    const std::string cmd = std::string(cli_path) + " " + args + " 2>&1";
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return {-1, "popen failed"};
    std::string text;
    std::array<char, 4096> buf{};
    while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) text.append(buf.data(), n);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

/// An H100 SXM as the CUDA runtime describes it: 132 SMs, 1980 MHz peak SM clock, 228 KB of
/// shared memory per SM (227 KB per block opted in, 1 KB reserved per block), HBM3 at 3352 GB/s.
inline detail::DeviceCaps h100_caps() {
    detail::DeviceCaps c;
    c.cc_major = 9;
    c.cc_minor = 0;
    c.sm_count = 132;
    c.sm_clock_mhz = 1980;
    c.smem_per_sm = 228 * 1024;
    c.smem_per_block_optin = 227 * 1024;
    c.smem_reserved_per_block = 1024;
    c.dram_gbps = 3352;
    c.memory_bytes = size_t(80) << 30;
    c.sm90a = true;
    // Clusters of 2, 4 and 8 one-block-per-SM blocks at once (measured on an H200).
    c.clusters_of[0] = 66, c.clusters_of[1] = 30, c.clusters_of[2] = 15;
    return c;
}

} // namespace gemmlab::test
