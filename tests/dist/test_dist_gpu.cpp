// The distributed layer on real GPUs. Each test forks one process per rank (the test process
// itself never touches CUDA, so the children start clean), hands them an NCCL unique id over
// pipes, and waits for them with a deadline (a hung child is killed and the test fails: the
// harness can not hang either). Tests skip with fewer than two GPUs.
//
// - every type, grid, distribution and layout: dist::gemm equals the single-GPU gemmlab product
//   bitwise on small-integer inputs (exact sums: the order of the sum can not matter), and is
//   within DESIGN.md's bound of a CPU reference on uniform inputs;
// - both tensor-parallel patterns, Overlapped and Sequential, equal the single-GPU product bitwise;
// - mismatched shapes / distributions / a bad argument on one rank: the same status on every
//   rank, no data moved, the communicator still usable;
// - a rank that dies, or aborts its communicator, mid-run: the others return an error within
//   their timeout (and the harness measures the time);
// - the single-process form (create_all_local, a thread per GPU);
// - GEMMLAB_DIST_BIG=1: a double product whose operands exceed one GPU's memory, across all GPUs,
//   checked on sampled entries against the CPU.

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include "dist/testing.hpp"
#include "gemmlab/dist.hpp"

namespace dist = gemmlab::dist;
using dist::Distribution;
using dist::Grid;
using gemmlab::Layout;
using gemmlab::Op;
using Values = dist::testing::Values;

namespace {

// ------------------------------------------------------------------------------ harness

/// Visible GPUs, counted in a child process (CUDA must not start in this one).
int gpu_count() {
    static int count = -1;
    if (count >= 0) return count;
    const pid_t pid = fork();
    if (pid == 0) {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
        _exit(std::min(n, 100));
    }
    int st = 0;
    waitpid(pid, &st, 0);
    count = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
    return count;
}

int ranks_for_test() {
    const int n = gpu_count();
    if (const char* v = std::getenv("GEMMLAB_DIST_TEST_RANKS")) return std::min(n, std::atoi(v));
    return std::min(n, 4);
}

#define SKIP_WITHOUT_TWO_GPUS()                                                                    \
    do {                                                                                           \
        if (ranks_for_test() < 2) GTEST_SKIP() << "needs two GPUs (" << gpu_count() << " visible)"; \
    } while (0)

/// A rank's body: gets its communicator, returns its exit code (0 = pass).
using RankBody = std::function<int(int rank, dist::Communicator& comm)>;

struct RunResult {
    std::vector<int> codes;  // exit code per rank; -SIGNAL when killed
    double seconds = 0;
    bool timed_out = false;
};

/// Forks `nranks` processes, rank r on GPU r, a communicator each (timeout `comm_timeout_s`),
/// runs `body` with GPU r current, and waits at most `deadline_s` for all of them.
RunResult run_ranks(int nranks, double comm_timeout_s, double deadline_s, const RankBody& body) {
    std::vector<int> fds(2 * nranks);
    for (int r = 0; r < nranks; ++r)
        if (pipe(&fds[2 * r]) != 0) std::abort();
    std::fflush(stdout);
    std::vector<pid_t> pids;
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < nranks; ++r) {
        const pid_t pid = fork();
        if (pid == 0) {
            // Line-buffered: a rank killed at the deadline still leaves what it printed.
            std::setvbuf(stdout, nullptr, _IOLBF, 0);
            // Communicator::create puts back the caller's device; the body allocates on GPU r.
            if (cudaSetDevice(r) != cudaSuccess) _exit(94);
            dist::UniqueId id{};
            if (r == 0) {
                if (dist::get_unique_id(id) != dist::Status::Success) _exit(90);
                for (int q = 1; q < nranks; ++q)
                    if (write(fds[2 * q + 1], &id, sizeof id) != ssize_t(sizeof id)) _exit(91);
            } else if (read(fds[2 * r], &id, sizeof id) != ssize_t(sizeof id)) {
                _exit(92);
            }
            dist::CommOptions o;
            o.timeout_s = comm_timeout_s;
            dist::Communicator comm;
            const dist::Status s = dist::Communicator::create(comm, id, nranks, r, r, o);
            if (s != dist::Status::Success) {
                std::printf("rank %d: create: %s: %s\n", r, std::string(dist::to_string(s)).c_str(), dist::last_error());
                std::fflush(stdout);
                _exit(93);
            }
            const int code = body(r, comm);
            std::fflush(stdout);
            std::fflush(stderr);
            _exit(code);
        }
        pids.push_back(pid);
    }
    for (int fd : fds) close(fd);
    RunResult res;
    res.codes.assign(nranks, -1000);
    int left = nranks;
    while (left > 0) {
        int st = 0;
        const pid_t p = waitpid(-1, &st, WNOHANG);
        if (p > 0) {
            for (int r = 0; r < nranks; ++r)
                if (pids[r] == p) res.codes[r] = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
            --left;
            continue;
        }
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (t > deadline_s) {
            res.timed_out = true;
            for (int r = 0; r < nranks; ++r)
                if (res.codes[r] == -1000) kill(pids[r], SIGKILL);
            while (waitpid(-1, nullptr, 0) > 0) {
            }
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
}

std::string codes_text(const RunResult& r) {
    std::string s;
    for (size_t i = 0; i < r.codes.size(); ++i) s += (i ? ", " : "") + std::to_string(r.codes[i]);
    return "exit codes [" + s + "] after " + std::to_string(r.seconds) + " s" + (r.timed_out ? " (killed at deadline)" : "");
}

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::printf("%s: %s\n", #call, cudaGetErrorString(e_));                                \
            return 80;                                                                             \
        }                                                                                          \
    } while (0)

template <class T>
const char* tname() {
    if constexpr (std::is_same_v<T, float>) return "f32";
    else if constexpr (std::is_same_v<T, double>) return "f64";
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bf16";
    else return "fp16";
}

/// Device buffer freed at scope end.
struct Dev {
    void* p = nullptr;
    explicit Dev(size_t bytes) {
        if (cudaMalloc(&p, std::max<size_t>(bytes, 16)) != cudaSuccess) p = nullptr;
    }
    ~Dev() { cudaFree(p); }
    template <class T>
    T* as() const { return static_cast<T*>(p); }
};

template <class T>
std::vector<T> to_host(const T* d, size_t n) {
    std::vector<T> h(std::max<size_t>(n, 1));
    cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
}

// ------------------------------------------------------------------------------ dist::gemm

struct GemmSetup {
    int64_t m, n, k;
    Grid grid;
    int kind; // 0 block_2d, 1 block_cyclic, 2 panels along the grid
    Layout layout;
    int64_t panel_k;
    int64_t panel_n = 0;
};

/// dist::gemm on this rank versus the whole product by gemmlab::gemm on this rank's GPU.
/// Small integers: bitwise equal. Uniform: both within the bound of a CPU reference (sampled).
template <class TA, class TC>
int check_gemm(int rank, dist::Communicator& comm, const GemmSetup& s, Values values, int* compared) {
    const Grid g = s.grid;
    Distribution dc = Distribution::block_2d(s.m, s.n, g);
    int64_t ka = std::max<int64_t>(1, (s.k + g.cols - 1) / g.cols), kb = std::max<int64_t>(1, (s.k + g.rows - 1) / g.rows);
    if (s.kind == 1) {
        dc = Distribution::block_cyclic(32, 48, g);
        ka = 40;
        kb = 24;
    } else if (s.kind == 2) {
        ka = kb = 17; // narrow blocks over k: many panel steps
    }
    const Distribution da{g, dc.block_rows, ka}, db{g, kb, dc.block_cols};
    const bool row = s.layout == Layout::RowMajor;
    auto local = [&](int64_t r, int64_t c, const Distribution& d, int64_t pad) {
        const int64_t lr = dist::local_rows(d, r, rank), lc = dist::local_cols(d, c, rank);
        return std::make_tuple(lr, lc, std::max<int64_t>(1, (row ? lc : lr) + pad));
    };
    auto [ar, ac, lda] = local(s.m, s.k, da, 3);
    auto [br, bc, ldb] = local(s.k, s.n, db, 0);
    auto [cr, cc, ldc] = local(s.m, s.n, dc, 5);
    Dev a(sizeof(TA) * (row ? ar * lda : ac * lda)), b(sizeof(TA) * (row ? br * ldb : bc * ldb)),
        c(sizeof(TC) * (row ? cr * ldc : cc * ldc));
    dist::Matrix<TA> A{s.m, s.k, da, a.as<TA>(), lda}, B{s.k, s.n, db, b.as<TA>(), ldb};
    dist::Matrix<TC> C{s.m, s.n, dc, c.as<TC>(), ldc};
    const uint64_t seed = 11 + s.m + 7 * s.kind;
    CHECK_CUDA(dist::testing::fill_local(A, s.layout, rank, seed, 0, values, nullptr));
    CHECK_CUDA(dist::testing::fill_local(B, s.layout, rank, seed, 1, values, nullptr));
    CHECK_CUDA(dist::testing::fill_local(C, s.layout, rank, seed, 2, values, nullptr));
    using S = dist::scalar_t<TA>;
    const S alpha = values == Values::SmallIntegers ? S(2) : S(1.5), beta = S(-1);
    dist::GemmOptions o;
    o.panel_k = s.panel_k;
    o.panel_n = s.panel_n;
    const dist::Status st = dist::gemm<TA, TC>(comm, s.layout, Op::N, Op::N, alpha,
                                               dist::Matrix<const TA>{A.rows, A.cols, A.dist, A.data, A.ld},
                                               dist::Matrix<const TA>{B.rows, B.cols, B.dist, B.data, B.ld}, beta, C, o);
    if (st != dist::Status::Success) {
        std::printf("rank %d: dist::gemm %s: %s\n", rank, std::string(dist::to_string(st)).c_str(), dist::last_error());
        return 1;
    }
    const std::vector<TC> got = to_host(C.data, size_t(row ? cr * ldc : cc * ldc));

    // The whole product on this GPU with gemmlab::gemm.
    const Grid one{1, 1};
    Dev fa(sizeof(TA) * s.m * s.k), fb(sizeof(TA) * s.k * s.n), fc(sizeof(TC) * s.m * s.n);
    dist::Matrix<TA> FA{s.m, s.k, Distribution::block_2d(s.m, s.k, one), fa.as<TA>(), row ? s.k : s.m};
    dist::Matrix<TA> FB{s.k, s.n, Distribution::block_2d(s.k, s.n, one), fb.as<TA>(), row ? s.n : s.k};
    dist::Matrix<TC> FC{s.m, s.n, Distribution::block_2d(s.m, s.n, one), fc.as<TC>(), row ? s.n : s.m};
    CHECK_CUDA(dist::testing::fill_local(FA, s.layout, 0, seed, 0, values, nullptr));
    CHECK_CUDA(dist::testing::fill_local(FB, s.layout, 0, seed, 1, values, nullptr));
    CHECK_CUDA(dist::testing::fill_local(FC, s.layout, 0, seed, 2, values, nullptr));
    const gemmlab::Status gs = gemmlab::gemm(s.layout, Op::N, Op::N, s.m, s.n, s.k, alpha, FA.data, FA.ld, FB.data, FB.ld,
                                             beta, FC.data, FC.ld);
    if (gs != gemmlab::Status::Success) {
        std::printf("rank %d: single-GPU gemm: %s\n", rank, gemmlab::last_error());
        return 1;
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    const std::vector<TC> full = to_host(FC.data, size_t(s.m * s.n));

    const char* what = values == Values::SmallIntegers ? "bitwise" : "bound";
    if (values == Values::SmallIntegers) {
        int64_t bad = 0;
        for (int64_t li = 0; li < cr; ++li)
            for (int64_t lj = 0; lj < cc; ++lj) {
                const int64_t gi = dist::to_global(li, dc.block_rows, g.row_of(rank), g.rows);
                const int64_t gj = dist::to_global(lj, dc.block_cols, g.col_of(rank), g.cols);
                const TC x = got[row ? li * ldc + lj : lj * ldc + li];
                const TC y = full[row ? gi * s.n + gj : gj * s.m + gi];
                if (std::memcmp(&x, &y, sizeof(TC)) != 0) {
                    if (bad++ < 3)
                        std::printf("rank %d: %s->%s C(%lld, %lld) = %.17g, single GPU %.17g\n", rank, tname<TA>(),
                                    tname<TC>(), (long long)gi, (long long)gj, dist::testing::to_double(x),
                                    dist::testing::to_double(y));
                }
                ++*compared;
            }
        if (bad) {
            std::printf("rank %d: %s->%s m=%lld n=%lld k=%lld grid %dx%d kind %d: %lld entries differ (%s)\n", rank,
                        tname<TA>(), tname<TC>(), (long long)s.m, (long long)s.n, (long long)s.k, g.rows, g.cols, s.kind,
                        (long long)bad, what);
            return 1;
        }
        return 0;
    }
    const auto mine = dist::testing::check_samples<TA, TC>(got.data(), ldc, s.layout, dc, rank, s.m, s.n, s.k,
                                                           double(alpha), double(beta), seed, values, 64);
    // The single-GPU result seen through the same distribution (ld = the global leading dim).
    std::vector<TC> full_as_local(size_t(std::max<int64_t>(1, cr * cc)));
    for (int64_t li = 0; li < cr; ++li)
        for (int64_t lj = 0; lj < cc; ++lj) {
            const int64_t gi = dist::to_global(li, dc.block_rows, g.row_of(rank), g.rows);
            const int64_t gj = dist::to_global(lj, dc.block_cols, g.col_of(rank), g.cols);
            full_as_local[row ? li * cc + lj : lj * cr + li] = full[row ? gi * s.n + gj : gj * s.m + gi];
        }
    const auto single = dist::testing::check_samples<TA, TC>(full_as_local.data(), std::max<int64_t>(1, row ? cc : cr),
                                                             s.layout, dc, rank, s.m, s.n, s.k, double(alpha),
                                                             double(beta), seed, values, 64);
    *compared += int(mine.checked);
    if (mine.failed || single.failed) {
        std::printf("rank %d: %s->%s outside the bound: distributed %lld of %lld (worst %s), single GPU %lld (worst %s)\n",
                    rank, tname<TA>(), tname<TC>(), (long long)mine.failed, (long long)mine.checked, mine.worst.c_str(),
                    (long long)single.failed, single.worst.c_str());
        return 1;
    }
    return 0;
}

std::vector<Grid> grids_for(int P) {
    std::vector<Grid> g = {Grid{1, P}, Grid{P, 1}};
    if (P == 4) g.push_back(Grid{2, 2});
    return g;
}

int all_gemm_cases(int rank, dist::Communicator& comm, Values values) {
    int failures = 0, compared = 0, cases = 0;
    const int P = comm.size();
    for (const Grid& g : grids_for(P))
        for (int kind = 0; kind < 3; ++kind)
            for (Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
                // Block distributions on a one-dimensional grid take the gathered panels:
                // chunks of 96 make three of them, more than the two slots.
                const GemmSetup s{301, 257, 409, g, kind, layout, kind == 0 ? 0 : 64, kind == 0 ? 96 : 0};
                failures += check_gemm<float, float>(rank, comm, s, values, &compared);
                failures += check_gemm<double, double>(rank, comm, s, values, &compared);
                failures += check_gemm<__nv_bfloat16, __nv_bfloat16>(rank, comm, s, values, &compared);
                failures += check_gemm<__nv_bfloat16, float>(rank, comm, s, values, &compared);
                failures += check_gemm<__half, __half>(rank, comm, s, values, &compared);
                failures += check_gemm<__half, float>(rank, comm, s, values, &compared);
                cases += 6;
            }
    std::printf("rank %d: dist::gemm %s: %d cases (6 type pairs x grids x 3 distributions x 2 layouts), %d entries "
                "compared, %d failed\n",
                rank, values == Values::SmallIntegers ? "vs single-GPU gemmlab, bitwise" : "vs CPU, within the bound",
                cases, compared, failures);
    return failures ? 1 : 0;
}

} // namespace

/// On one host, one process per rank, the tensor-parallel Overlapped schedules move data with
/// the copy engines unless told otherwise: 1 (a failure) where a call left them on NCCL.
int expect_copy_engines(int rank, dist::Communicator& comm) {
    std::printf("rank %d: the Overlapped schedules communicated with %s\n", rank,
                comm.uses_copy_engines() ? "the copy engines" : "NCCL");
    return comm.uses_copy_engines() ? 0 : 1;
}

TEST(DistGpu, GemmEqualsSingleGpuBitwiseOnIntegers) {
    SKIP_WITHOUT_TWO_GPUS();
    const RunResult r = run_ranks(ranks_for_test(), 60, 240, [](int rank, dist::Communicator& comm) {
        return all_gemm_cases(rank, comm, Values::SmallIntegers);
    });
    for (int code : r.codes) EXPECT_EQ(code, 0) << codes_text(r);
}

TEST(DistGpu, GemmWithinBoundOnUniformInputs) {
    SKIP_WITHOUT_TWO_GPUS();
    const RunResult r = run_ranks(ranks_for_test(), 60, 240, [](int rank, dist::Communicator& comm) {
        return all_gemm_cases(rank, comm, Values::Uniform);
    });
    for (int code : r.codes) EXPECT_EQ(code, 0) << codes_text(r);
}

namespace {

/// A BF16 8192^3 product on row panels (a P x 1 grid, B's rows one block per rank): the
/// gathered panels' chunks (17 at 4 ranks) each long enough that the next chunk's all-gather,
/// the product and the slots' reuse overlap for real; two calls, then sampled entries against
/// the CPU; the second call is enqueued behind the first before either is waited for.
int row_panels_many_chunks(int rank, dist::Communicator& comm) {
    using T = __nv_bfloat16;
    const int P = comm.size();
    const int64_t n = 8192;
    const Grid g{P, 1};
    const Distribution dc = Distribution::block_2d(n, n, g), da{g, dc.block_rows, n},
                       db{g, (n + P - 1) / P, dc.block_cols};
    const int64_t lr = dist::local_rows(dc, n, rank), br = dist::local_rows(db, n, rank);
    Dev a(sizeof(T) * lr * n), b(sizeof(T) * br * n), c(sizeof(T) * lr * n);
    dist::Matrix<T> A{n, n, da, a.as<T>(), n}, B{n, n, db, b.as<T>(), n}, C{n, n, dc, c.as<T>(), n};
    const uint64_t seed = 777;
    CHECK_CUDA(dist::testing::fill_local(A, Layout::RowMajor, rank, seed, 0, Values::Uniform, nullptr));
    CHECK_CUDA(dist::testing::fill_local(B, Layout::RowMajor, rank, seed, 1, Values::Uniform, nullptr));
    CHECK_CUDA(cudaDeviceSynchronize());
    dist::GemmOptions o;
    o.synchronize = false;
    const auto t0 = std::chrono::steady_clock::now();
    for (int call = 0; call < 2; ++call) {
        const dist::Status st = dist::gemm<T, T>(comm, Layout::RowMajor, Op::N, Op::N, 1.0f,
                                                 dist::Matrix<const T>{A.rows, A.cols, A.dist, A.data, A.ld},
                                                 dist::Matrix<const T>{B.rows, B.cols, B.dist, B.data, B.ld}, 0.0f, C, o);
        if (st != dist::Status::Success) {
            std::printf("rank %d: dist::gemm (call %d): %s\n", rank, call, dist::last_error());
            return 1;
        }
    }
    if (comm.wait(nullptr) != dist::Status::Success) {
        std::printf("rank %d: waiting for the calls: %s\n", rank, dist::last_error());
        return 1;
    }
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::vector<T> got = to_host(C.data, size_t(lr * n));
    const auto chk = dist::testing::check_samples<T, T>(got.data(), n, Layout::RowMajor, dc, rank, n, n, n, 1.0, 0.0, seed,
                                                        Values::Uniform, 24);
    std::printf("rank %d: row panels, 8192^3 BF16 twice in %.3f s; %lld sampled entries against the CPU, %lld outside "
                "the bound\n",
                rank, sec, (long long)chk.checked, (long long)chk.failed);
    return chk.failed ? 1 : 0;
}

} // namespace

TEST(DistGpu, RowPanelsOfManyLongChunks) {
    SKIP_WITHOUT_TWO_GPUS();
    const RunResult r = run_ranks(ranks_for_test(), 30, 90, [](int rank, dist::Communicator& comm) {
        return row_panels_many_chunks(rank, comm);
    });
    for (int code : r.codes) EXPECT_EQ(code, 0) << codes_text(r);
}

TEST(DistGpu, RowPanelsOfManyLongChunksInOneProcess) {
    SKIP_WITHOUT_TWO_GPUS();
    const pid_t pid = fork();
    if (pid == 0) {
        std::setvbuf(stdout, nullptr, _IOLBF, 0);
        std::vector<int> devices;
        for (int d = 0; d < ranks_for_test(); ++d) devices.push_back(d);
        std::vector<dist::Communicator> comms;
        dist::CommOptions o;
        o.timeout_s = 30;
        if (dist::Communicator::create_all_local(comms, devices, o) != dist::Status::Success) {
            std::printf("create_all_local: %s\n", dist::last_error());
            _exit(2);
        }
        std::vector<int> codes(comms.size(), 0);
        std::vector<std::thread> threads;
        for (size_t r = 0; r < comms.size(); ++r)
            threads.emplace_back([&, r] {
                cudaSetDevice(comms[r].device());
                codes[r] = row_panels_many_chunks(int(r), comms[r]);
                comms[r] = dist::Communicator();
            });
        for (auto& t : threads) t.join();
        int sum = 0;
        for (int c : codes) sum += c;
        std::fflush(stdout);
        _exit(sum ? 1 : 0);
    }
    int st = 0;
    const auto start = std::chrono::steady_clock::now();
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() - start > std::chrono::seconds(90)) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            FAIL() << "the one-process ranks did not finish within 90 s";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
}

// ------------------------------------------------------------------------------ tensor parallel

namespace {

/// Both patterns, both schedules, against the single-GPU product of the whole layer (bitwise:
/// small integers make every sum exact).
template <class TA, class TC>
int check_tp(int rank, dist::Communicator& comm, int chunks) {
    const int P = comm.size();
    const int64_t T = 96 * P, K = 80 * P, N = 72 * P; // tokens, inner, outer (all split P ways)
    const int64_t Ts = T / P, Kl = K / P, Nl = N / P;
    const uint64_t seed = 99;
    const Values v = Values::SmallIntegers;
    using S = dist::scalar_t<TA>;
    int failures = 0;
    // The whole layer on this GPU: Yfull = X (T x K) * W^T, W stored N x K.
    const Grid one{1, 1};
    Dev fx(sizeof(TA) * T * K), fw(sizeof(TA) * N * K), fy(sizeof(TC) * T * N);
    dist::Matrix<TA> FX{T, K, Distribution::block_2d(T, K, one), fx.as<TA>(), K};
    dist::Matrix<TA> FW{N, K, Distribution::block_2d(N, K, one), fw.as<TA>(), K};
    CHECK_CUDA(dist::testing::fill_local(FX, Layout::RowMajor, 0, seed, 0, v, nullptr));
    CHECK_CUDA(dist::testing::fill_local(FW, Layout::RowMajor, 0, seed, 1, v, nullptr));
    if (gemmlab::gemm(Layout::RowMajor, Op::N, Op::T, T, N, K, S(1), FX.data, K, FW.data, K, S(0), fy.as<TC>(), N) !=
        gemmlab::Status::Success) {
        std::printf("rank %d: single-GPU gemm: %s\n", rank, gemmlab::last_error());
        return 1;
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    const std::vector<TC> full = to_host(fy.as<TC>(), size_t(T * N));

    for (dist::Schedule sch : {dist::Schedule::Overlapped, dist::Schedule::Sequential}) {
        dist::TpOptions o;
        o.schedule = sch;
        o.chunks = chunks;
        // all-gather + GEMM: X rows sharded, W rows (output columns) sharded; ldx padded.
        {
            const int64_t ldx = K + 8;
            Dev x(sizeof(TA) * Ts * ldx), w(sizeof(TA) * Nl * K), y(sizeof(TC) * T * Nl);
            dist::Matrix<TA> X{T, K, Distribution::row_panels(T, K, P), x.as<TA>(), ldx};
            dist::Matrix<TA> W{N, K, Distribution::row_panels(N, K, P), w.as<TA>(), K};
            CHECK_CUDA(dist::testing::fill_local(X, Layout::RowMajor, rank, seed, 0, v, nullptr));
            CHECK_CUDA(dist::testing::fill_local(W, Layout::RowMajor, rank, seed, 1, v, nullptr));
            const dist::Status st = dist::allgather_gemm<TA, TC>(comm, Op::T, T, Nl, K, S(1), X.data, ldx, W.data, K,
                                                                 y.as<TC>(), Nl, o);
            if (st != dist::Status::Success) {
                std::printf("rank %d: allgather_gemm: %s\n", rank, dist::last_error());
                return 1;
            }
            const std::vector<TC> got = to_host(y.as<TC>(), size_t(T * Nl));
            int64_t bad = 0;
            for (int64_t i = 0; i < T; ++i)
                for (int64_t j = 0; j < Nl; ++j)
                    if (std::memcmp(&got[i * Nl + j], &full[i * N + rank * Nl + j], sizeof(TC)) != 0) ++bad;
            if (bad) {
                std::printf("rank %d: allgather_gemm %s->%s schedule %d: %lld of %lld entries differ from the single GPU\n",
                            rank, tname<TA>(), tname<TC>(), int(sch), (long long)bad, (long long)(T * Nl));
                ++failures;
            }
        }
        // GEMM + reduce-scatter: X columns sharded, W columns (inner dim) sharded; ldo padded.
        {
            const int64_t ldo = N + 4;
            Dev x(sizeof(TA) * T * Kl), w(sizeof(TA) * N * Kl), out(sizeof(TC) * Ts * ldo);
            dist::Matrix<TA> X{T, K, Distribution::col_panels(T, K, P), x.as<TA>(), Kl};
            dist::Matrix<TA> W{N, K, Distribution::col_panels(N, K, P), w.as<TA>(), Kl};
            CHECK_CUDA(dist::testing::fill_local(X, Layout::RowMajor, rank, seed, 0, v, nullptr));
            CHECK_CUDA(dist::testing::fill_local(W, Layout::RowMajor, rank, seed, 1, v, nullptr));
            const dist::Status st = dist::gemm_reducescatter<TA, TC>(comm, Op::T, T, N, Kl, S(1), X.data, Kl, W.data, Kl,
                                                                     out.as<TC>(), ldo, o);
            if (st != dist::Status::Success) {
                std::printf("rank %d: gemm_reducescatter: %s\n", rank, dist::last_error());
                return 1;
            }
            const std::vector<TC> got = to_host(out.as<TC>(), size_t(Ts * ldo));
            int64_t bad = 0;
            for (int64_t i = 0; i < Ts; ++i)
                for (int64_t j = 0; j < N; ++j)
                    if (std::memcmp(&got[i * ldo + j], &full[(rank * Ts + i) * N + j], sizeof(TC)) != 0) ++bad;
            if (bad) {
                std::printf("rank %d: gemm_reducescatter %s->%s schedule %d: %lld of %lld entries differ from the single GPU\n",
                            rank, tname<TA>(), tname<TC>(), int(sch), (long long)bad, (long long)(Ts * N));
                ++failures;
            }
        }
    }
    return failures;
}

} // namespace

TEST(DistGpu, TensorParallelEqualsSingleGpu) {
    SKIP_WITHOUT_TWO_GPUS();
    const RunResult r = run_ranks(ranks_for_test(), 60, 180, [](int rank, dist::Communicator& comm) {
        int f = 0;
        for (int chunks : {0, 7}) { // 4 chunks of 24 rows; 7 of 14 and a last of 12
            f += check_tp<float, float>(rank, comm, chunks);
            f += check_tp<double, double>(rank, comm, chunks);
            f += check_tp<__nv_bfloat16, __nv_bfloat16>(rank, comm, chunks);
            f += check_tp<__nv_bfloat16, float>(rank, comm, chunks);
            f += check_tp<__half, __half>(rank, comm, chunks);
        }
        std::printf("rank %d: tensor parallel: 5 type pairs x 2 chunkings x 2 schedules x 2 patterns: %d failed\n", rank, f);
        return (f ? 1 : 0) + expect_copy_engines(rank, comm);
    });
    for (int code : r.codes) EXPECT_EQ(code, 0) << codes_text(r);
}

TEST(DistGpu, TensorParallelOnNcclEqualsSingleGpu) {
    SKIP_WITHOUT_TWO_GPUS();
    const RunResult r = run_ranks(ranks_for_test(), 60, 180, [](int rank, dist::Communicator& comm) {
        setenv("GEMMLAB_DIST_TRANSPORT", "nccl", 1);
        int f = 0;
        for (int chunks : {0, 7}) { // 4 chunks of 24 rows; 7 of 14 and a last of 12
            f += check_tp<float, float>(rank, comm, chunks);
            f += check_tp<double, double>(rank, comm, chunks);
            f += check_tp<__nv_bfloat16, __nv_bfloat16>(rank, comm, chunks);
            f += check_tp<__nv_bfloat16, float>(rank, comm, chunks);
            f += check_tp<__half, __half>(rank, comm, chunks);
        }
        std::printf("rank %d: tensor parallel: 5 type pairs x 2 chunkings x 2 schedules x 2 patterns: %d failed\n", rank, f);
        return (f ? 1 : 0) + (comm.uses_copy_engines() ? 1 : 0);
    });
    for (int code : r.codes) EXPECT_EQ(code, 0) << codes_text(r);
}

// ------------------------------------------------------------------------------ bad input

namespace {

/// A small float product where `rank_to_differ` changes one thing; returns the status.
dist::Status product_with(int rank, dist::Communicator& comm, int rank_to_differ, int what) {
    const int P = comm.size();
    int64_t m = 128, n = 96, k = 64;
    Grid g{1, P};
    Distribution dc = Distribution::block_2d(m, n, g);
    const bool me = rank == rank_to_differ;
    if (me && what == 0) k = 65;                                     // shape
    if (me && what == 1) dc = Distribution::block_cyclic(16, 8, g);  // distribution
    Distribution da{g, dc.block_rows, 16}, db{g, 16, dc.block_cols};
    const int64_t lr = dist::local_rows(dc, m, rank), lc = dist::local_cols(dc, n, rank);
    Dev a(4 * m * k * 2), b(4 * k * n * 2), c(4 * m * n);
    const float* pa = me && what == 2 ? nullptr : a.as<float>(); // a bad argument
    dist::Matrix<const float> A{m, k, da, pa, std::max<int64_t>(1, dist::local_cols(da, k, rank))};
    dist::Matrix<const float> B{k, n, db, b.as<float>(), std::max<int64_t>(1, lc)};
    dist::Matrix<float> C{m, n, dc, c.as<float>(), std::max<int64_t>(1, lc)};
    (void)lr;
    return dist::gemm<float, float>(comm, Layout::RowMajor, Op::N, Op::N, 1.0f, A, B, 0.0f, C);
}

} // namespace

TEST(DistGpu, MismatchesReturnTheSameStatusOnEveryRankAndMoveNoData) {
    SKIP_WITHOUT_TWO_GPUS();
    const RunResult r = run_ranks(ranks_for_test(), 20, 120, [](int rank, dist::Communicator& comm) {
        const int last = comm.size() - 1;
        struct Want {
            const char* what;
            dist::Status mine, others;
        } wants[] = {{"k differs on the last rank", dist::Status::ShapeMismatch, dist::Status::ShapeMismatch},
                     {"the last rank's distribution differs", dist::Status::DistributionMismatch,
                      dist::Status::DistributionMismatch},
                     {"a null A on the last rank", dist::Status::InvalidArgument, dist::Status::PeerInvalidArgument}};
        int bad = 0;
        for (int what = 0; what < 3; ++what) {
            const auto t0 = std::chrono::steady_clock::now();
            const dist::Status s = product_with(rank, comm, last, what);
            const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const dist::Status want = rank == last ? wants[what].mine : wants[what].others;
            std::printf("rank %d: %s -> %s in %.3f s: %s\n", rank, wants[what].what, std::string(dist::to_string(s)).c_str(),
                        sec, dist::last_error());
            if (s != want) ++bad;
            if (comm.aborted()) ++bad;
        }
        // The communicator is still usable: the same call everywhere succeeds.
        const dist::Status ok = product_with(rank, comm, -1, 0);
        std::printf("rank %d: then the same call everywhere -> %s\n", rank, std::string(dist::to_string(ok)).c_str());
        if (ok != dist::Status::Success) ++bad;
        return bad ? 1 : 0;
    });
    for (int code : r.codes) EXPECT_EQ(code, 0) << codes_text(r);
}

// ------------------------------------------------------------------------------ faults

namespace {

/// A product big enough to be in flight when a peer disappears (float, 4096^3 per call).
struct Busy {
    int64_t m = 4096, n = 4096, k = 4096;
    Dev a, b, c;
    dist::Matrix<const float> A, B;
    dist::Matrix<float> C;
    Busy(int rank, int P)
        : a(4 * 4096 * 4096), b(4 * 4096 * 4096), c(4 * 4096 * 4096) {
        const Grid g{1, P};
        const Distribution dc = Distribution::block_2d(m, n, g), da{g, dc.block_rows, 256}, db{g, 256, dc.block_cols};
        A = {m, k, da, a.as<float>(), std::max<int64_t>(1, dist::local_cols(da, k, rank))};
        B = {k, n, db, b.as<float>(), std::max<int64_t>(1, dist::local_cols(db, n, rank))};
        C = {m, n, dc, c.as<float>(), std::max<int64_t>(1, dist::local_cols(dc, n, rank))};
        cudaMemset(a.p, 0, 4 * 4096 * 4096);
        cudaMemset(b.p, 0, 4 * 4096 * 4096);
    }
    dist::Status run(dist::Communicator& comm, bool synchronize) {
        dist::GemmOptions o;
        o.synchronize = synchronize;
        o.panel_k = 256; // many steps: the broadcasts are still going when a peer dies
        return dist::gemm<float, float>(comm, Layout::RowMajor, Op::N, Op::N, 1.0f, A, B, 0.0f, C, o);
    }
};

/// A tensor-parallel all-gather + GEMM big enough to be in flight when a peer disappears (BF16,
/// 16384 tokens, k 4096, 4096 columns per rank): on one host its Overlapped schedule waits on
/// the peers through the copy engines' flags, not through NCCL.
struct BusyTp {
    int64_t tokens, k = 4096, n = 4096;
    Dev x, w, y;
    explicit BusyTp(int P)
        : tokens(16384), x(2 * size_t(16384 / P) * 4096), w(2 * size_t(4096) * 4096), y(2 * size_t(16384) * 4096) {
        cudaMemset(x.p, 0, 2 * size_t(16384 / P) * 4096);
        cudaMemset(w.p, 0, 2 * size_t(4096) * 4096);
    }
    dist::Status run(dist::Communicator& comm, bool synchronize) {
        dist::TpOptions o;
        o.synchronize = synchronize;
        return dist::allgather_gemm<__nv_bfloat16, __nv_bfloat16>(comm, Op::T, tokens, n, k, 1.0f, x.as<__nv_bfloat16>(),
                                                                  k, w.as<__nv_bfloat16>(), k, y.as<__nv_bfloat16>(), n, o);
    }
};

constexpr double kFaultTimeout = 10; // the communicators' timeout in the fault tests

/// mode 0: the victim dies mid-call; 1: it aborts its communicator; 2: it dies in the middle of
/// a tensor-parallel call on the copy engines.
template <class B>
int survivor_or_victim(int rank, dist::Communicator& comm, int mode, B& busy) {
    const int victim = comm.size() - 1;
    if (busy.run(comm, true) != dist::Status::Success) { // a healthy first call
        std::printf("rank %d: first call failed: %s\n", rank, dist::last_error());
        return 1;
    }
    if (rank == victim) {
        if (mode == 0) {
            // Dies mid-collective: its broadcasts are enqueued, then the process is gone.
            busy.run(comm, false);
            std::printf("rank %d: exiting without finishing the collective\n", rank);
            std::fflush(stdout);
            _exit(42);
        }
        // Aborts its communicator (what a rank does on its own NCCL error) and leaves.
        std::printf("rank %d: ncclCommAbort on its communicator\n", rank);
        comm.abort();
        return 43;
    }
    const auto t0 = std::chrono::steady_clock::now();
    dist::Status s = busy.run(comm, true);
    if (s == dist::Status::Success) s = busy.run(comm, true); // the victim may leave after our first
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("rank %d: %s -> %s after %.2f s (timeout %.0f s): %s\n", rank,
                mode == 0 ? "a peer died" : "a peer aborted", std::string(dist::to_string(s)).c_str(), sec, kFaultTimeout,
                dist::last_error());
    const bool error = s == dist::Status::Timeout || s == dist::Status::NcclError;
    const bool bounded = sec < 2 * kFaultTimeout + 5;
    // Every later call says the communicator is gone, at once.
    const dist::Status later = busy.run(comm, true);
    std::printf("rank %d: a later call -> %s\n", rank, std::string(dist::to_string(later)).c_str());
    return error && bounded && later == dist::Status::Aborted ? 0 : 1;
}

int survivor_or_victim(int rank, dist::Communicator& comm, int mode) {
    if (mode == 2) {
        BusyTp busy(comm.size());
        return survivor_or_victim(rank, comm, 0, busy);
    }
    Busy busy(rank, comm.size());
    return survivor_or_victim(rank, comm, mode, busy);
}

} // namespace

TEST(DistGpu, DeadRankMakesTheOthersFailWithinTheTimeout) {
    SKIP_WITHOUT_TWO_GPUS();
    const RunResult r = run_ranks(ranks_for_test(), kFaultTimeout, 120,
                                  [](int rank, dist::Communicator& comm) { return survivor_or_victim(rank, comm, 0); });
    ASSERT_FALSE(r.timed_out) << codes_text(r);
    for (size_t i = 0; i + 1 < r.codes.size(); ++i) EXPECT_EQ(r.codes[i], 0) << codes_text(r);
    EXPECT_EQ(r.codes.back(), 42) << codes_text(r);
    std::printf("dead rank: %s\n", codes_text(r).c_str());
}

TEST(DistGpu, DeadRankOnTheCopyEnginesMakesTheOthersFailWithinTheTimeout) {
    SKIP_WITHOUT_TWO_GPUS();
    const RunResult r = run_ranks(ranks_for_test(), kFaultTimeout, 120, [](int rank, dist::Communicator& comm) {
        const int code = survivor_or_victim(rank, comm, 2);
        return code == 0 && rank + 1 < comm.size() ? expect_copy_engines(rank, comm) : code;
    });
    ASSERT_FALSE(r.timed_out) << codes_text(r);
    for (size_t i = 0; i + 1 < r.codes.size(); ++i) EXPECT_EQ(r.codes[i], 0) << codes_text(r);
    EXPECT_EQ(r.codes.back(), 42) << codes_text(r);
    std::printf("dead rank on the copy engines: %s\n", codes_text(r).c_str());
}

TEST(DistGpu, AbortedRankMakesTheOthersFailWithinTheTimeout) {
    SKIP_WITHOUT_TWO_GPUS();
    const RunResult r = run_ranks(ranks_for_test(), kFaultTimeout, 120,
                                  [](int rank, dist::Communicator& comm) { return survivor_or_victim(rank, comm, 1); });
    ASSERT_FALSE(r.timed_out) << codes_text(r);
    for (size_t i = 0; i + 1 < r.codes.size(); ++i) EXPECT_EQ(r.codes[i], 0) << codes_text(r);
    EXPECT_EQ(r.codes.back(), 43) << codes_text(r);
    std::printf("aborted rank: %s\n", codes_text(r).c_str());
}

// ------------------------------------------------------------------------------ one process

TEST(DistGpu, SingleProcessAllGpus) {
    SKIP_WITHOUT_TWO_GPUS();
    const pid_t pid = fork(); // CUDA in a child, as everywhere in this file
    if (pid == 0) {
        std::vector<int> devices;
        for (int d = 0; d < ranks_for_test(); ++d) devices.push_back(d);
        std::vector<dist::Communicator> comms;
        dist::CommOptions o;
        o.timeout_s = 60;
        if (dist::Communicator::create_all_local(comms, devices, o) != dist::Status::Success) {
            std::printf("create_all_local: %s\n", dist::last_error());
            _exit(2);
        }
        std::vector<int> codes(comms.size(), 0);
        std::vector<std::thread> threads;
        for (size_t r = 0; r < comms.size(); ++r)
            threads.emplace_back([&, r] {
                cudaSetDevice(comms[r].device());
                int compared = 0, f = 0;
                for (Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
                    const GemmSetup s{301, 257, 409, Grid{1, comms[r].size()}, 1, layout, 64};
                    f += check_gemm<float, float>(int(r), comms[r], s, Values::SmallIntegers, &compared);
                    f += check_gemm<__nv_bfloat16, __nv_bfloat16>(int(r), comms[r], s, Values::SmallIntegers, &compared);
                }
                // The tensor-parallel patterns too, on NCCL: ranks that share a process do not
                // use the copy engines (peer_copy.hpp).
                f += check_tp<float, float>(int(r), comms[r], 0);
                f += comms[r].uses_copy_engines() ? 1 : 0;
                std::printf("thread rank %zu: %d entries compared bitwise, tensor parallel on %s, %d failed\n", r,
                            compared, comms[r].uses_copy_engines() ? "the copy engines" : "NCCL", f);
                codes[r] = f;
                comms[r] = dist::Communicator(); // each rank ends on its own thread
            });
        for (auto& t : threads) t.join();
        int sum = 0;
        for (int c : codes) sum += c;
        std::fflush(stdout);
        _exit(sum ? 1 : 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
}

// ------------------------------------------------------------------------------ out of memory scale

TEST(DistGpu, ProductLargerThanOneGpuSampledAgainstCpu) {
    SKIP_WITHOUT_TWO_GPUS();
    if (!std::getenv("GEMMLAB_DIST_BIG")) GTEST_SKIP() << "set GEMMLAB_DIST_BIG=1 (minutes, tens of GB per GPU)";
    // Inside scripts/dist-check.sh's limit for this step (90 s): a call gets 60 s, the ranks 85 s.
    const RunResult r = run_ranks(ranks_for_test(), 60, 85, [](int rank, dist::Communicator& comm) {
        size_t free_b = 0, total_b = 0;
        CHECK_CUDA(cudaMemGetInfo(&free_b, &total_b));
        // Three n x n doubles that together exceed one whole GPU by 10%, same n on every rank
        // (the agreement would catch a difference).
        int64_t n = int64_t(std::ceil(std::sqrt(1.10 * double(total_b) / 24.0)));
        n = (n + 1023) / 1024 * 1024;
        const int P = comm.size();
        const Grid g = P == 4 ? Grid{2, 2} : Grid{1, P};
        const Distribution dc = Distribution::block_2d(n, n, g);
        const Distribution da{g, dc.block_rows, (n + g.cols - 1) / g.cols}, db{g, (n + g.rows - 1) / g.rows, dc.block_cols};
        const int64_t lr = dist::local_rows(dc, n, rank), lc = dist::local_cols(dc, n, rank);
        const int64_t alc = dist::local_cols(da, n, rank), blr = dist::local_rows(db, n, rank);
        // The panel slots: two per moving operand, panel_k wide (kept small: the operands fill
        // most of the GPU already).
        const int64_t panel_k = 2048;
        const double slots_gb = 8.0 * 2 * panel_k * double((g.cols > 1 ? lr : 0) + (g.rows > 1 ? lc : 0)) / 1e9;
        std::printf("rank %d: n = %lld: A, B, C are %.1f GB together (this GPU has %.1f GB, %.1f GB free); this rank "
                    "holds %.1f GB and %.1f GB of panel slots\n",
                    rank, (long long)n, 24.0 * double(n) * double(n) / 1e9, double(total_b) / 1e9, double(free_b) / 1e9,
                    8.0 * double(lr * alc + blr * lc + lr * lc) / 1e9, slots_gb);
        Dev a(8 * size_t(lr * alc)), b(8 * size_t(blr * lc)), c(8 * size_t(lr * lc));
        const bool allocated = a.p && b.p && c.p;
        if (!allocated) {
            cudaGetLastError();
            std::printf("rank %d: cudaMalloc failed (GPU %d); the call goes ahead with null operands so that every "
                        "rank fails at once\n",
                        rank, comm.device());
        }
        dist::Matrix<double> A{n, n, da, allocated ? a.as<double>() : nullptr, std::max<int64_t>(1, alc)};
        dist::Matrix<double> B{n, n, db, allocated ? b.as<double>() : nullptr, std::max<int64_t>(1, lc)};
        dist::Matrix<double> C{n, n, dc, allocated ? c.as<double>() : nullptr, std::max<int64_t>(1, lc)};
        const uint64_t seed = 4242;
        if (allocated) {
            CHECK_CUDA(dist::testing::fill_local(A, Layout::RowMajor, rank, seed, 0, Values::Uniform, nullptr));
            CHECK_CUDA(dist::testing::fill_local(B, Layout::RowMajor, rank, seed, 1, Values::Uniform, nullptr));
            CHECK_CUDA(dist::testing::fill_local(C, Layout::RowMajor, rank, seed, 2, Values::Uniform, nullptr));
            CHECK_CUDA(cudaDeviceSynchronize());
        }
        dist::GemmOptions o;
        o.panel_k = panel_k;
        const auto t0 = std::chrono::steady_clock::now();
        const dist::Status s = dist::gemm<double, double>(
            comm, Layout::RowMajor, Op::N, Op::N, 1.0, dist::Matrix<const double>{A.rows, A.cols, A.dist, A.data, A.ld},
            dist::Matrix<const double>{B.rows, B.cols, B.dist, B.data, B.ld}, 0.5, C, o);
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s != dist::Status::Success) {
            std::printf("rank %d: %s after %.2f s: %s\n", rank, std::string(dist::to_string(s)).c_str(), sec,
                        dist::last_error());
            return 1;
        }
        const std::vector<double> got = to_host(C.data, size_t(lr * lc));
        const auto chk = dist::testing::check_samples<double, double>(got.data(), C.ld, Layout::RowMajor, dc, rank, n, n,
                                                                      n, 1.0, 0.5, seed, Values::Uniform, 48);
        std::printf("rank %d: %.2f s (%.1f TFLOP/s aggregate); %lld sampled entries against the CPU, %lld outside the "
                    "bound, worst %.3g of the bound at %s\n",
                    rank, sec, 2.0 * double(n) * double(n) * double(n) / sec / 1e12, (long long)chk.checked,
                    (long long)chk.failed, chk.worst_ratio, chk.worst.c_str());
        return chk.failed ? 1 : 0;
    });
    ASSERT_FALSE(r.timed_out) << codes_text(r);
    for (int code : r.codes) EXPECT_EQ(code, 0) << codes_text(r);
}
