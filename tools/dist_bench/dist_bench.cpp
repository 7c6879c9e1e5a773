// gemmlab_dist_bench: times gemmlab::dist on several GPUs.
//
//   gemmlab_dist_bench --case gemm --dtype bf16,f64 --size 32768 --gpus 1,2,4
//       strong scaling of one product: single-GPU gemmlab::gemm first, then dist::gemm on 1, 2
//       and 4 GPUs, a process per rank (forked; --ranks threads: a thread per rank in this
//       process, where the copy engines are not used), each with the Overlapped, Sequential,
//       communication-only and compute-only schedules; per-rank and aggregate TFLOP/s, the
//       efficiency against the single-GPU speed of the same run, and a sampled check.
//   gemmlab_dist_bench --case tp --dtype bf16 --tokens 8192 --hidden 8192 --mlp 28672 --gpus 4
//       all-gather + GEMM (X: tokens x hidden sharded by rows, W: mlp / P x hidden per rank) and
//       GEMM + reduce-scatter (X: tokens x mlp / P, W: hidden x mlp / P), overlapped against
//       communicate-then-compute, with communication and compute timed alone.
//   mpirun -np 4 gemmlab_dist_bench_mpi --case gemm ...      one rank per process.
//
// Every rank times its own call with CUDA events after a barrier; a row's time is the slowest
// rank's median. Lines start with "dist-bench" and hold key=value pairs (scripts/dist-check.sh
// reads them). NCCL_NVLS_ENABLE=0 unless set.

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#ifdef GEMMLAB_DIST_BENCH_MPI
#include <mpi.h>
#endif

#include "dist/testing.hpp"
#include "gemmlab/dist.hpp"
#include "gemmlab/gemm.hpp"

namespace dist = gemmlab::dist;
using gemmlab::Layout;
using gemmlab::Op;

namespace {

// ------------------------------------------------------------------------------ arguments

struct Args {
    std::map<std::string, std::string> kv;
    std::string get(const std::string& k, const std::string& def) const {
        auto it = kv.find(k);
        return it == kv.end() ? def : it->second;
    }
    int64_t num(const std::string& k, int64_t def) const { return std::atoll(get(k, std::to_string(def)).c_str()); }
};

std::vector<std::string> split(const std::string& s, char sep = ',') {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, sep);)
        if (!item.empty()) out.push_back(item);
    return out;
}

void usage() {
    std::puts("usage: gemmlab_dist_bench [--case gemm|tp] [--dtype bf16,fp16,f32,f64] [--size N | --m M --n N --k K]\n"
              "       [--gpus 1,2,4 | all] [--ranks procs|threads] [--grid square|rows|cols|RxC] [--dist block|cyclic:MB]\n"
              "       [--panel-k W] [--panel-n W] [--layout row|col] [--kernel auto|NAME]\n"
              "       [--tokens T --hidden H --mlp F --chunks C] [--reps 5] [--warmup 1] [--timeout 300]\n"
              "       [--schedules overlapped,sequential,comm,compute] [--no-single] [--check-samples 16]");
}

[[noreturn]] void die(const std::string& msg) {
    std::fprintf(stderr, "gemmlab_dist_bench: %s\n", msg.c_str());
    std::fflush(stderr);
    std::_Exit(2);
}

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) die(std::string(#call) + ": " + cudaGetErrorString(e_));            \
    } while (0)

const char* schedule_name(dist::Schedule s) {
    switch (s) {
    case dist::Schedule::Overlapped: return "overlapped";
    case dist::Schedule::Sequential: return "sequential";
    case dist::Schedule::CommOnly: return "comm";
    case dist::Schedule::ComputeOnly: return "compute";
    }
    return "?";
}

dist::Schedule parse_schedule(const std::string& s) {
    if (s == "overlapped") return dist::Schedule::Overlapped;
    if (s == "sequential") return dist::Schedule::Sequential;
    if (s == "comm") return dist::Schedule::CommOnly;
    if (s == "compute") return dist::Schedule::ComputeOnly;
    die("unknown schedule " + s);
}

dist::Grid square_grid(int p) {
    int r = 1;
    for (int d = 1; d * d <= p; ++d)
        if (p % d == 0) r = d;
    return {r, p / r};
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// ------------------------------------------------------------------------------ ranks

/// How ranks meet: threads of this process or MPI processes.
struct Team {
    std::function<void()> barrier;
    /// Every rank's value, on every rank.
    std::function<std::vector<double>(double)> all_values;
    bool printer = true; // this rank prints the aggregate lines
};

/// Times `call` (which enqueues on `stream` and returns a Status) after a barrier.
double time_call(Team& team, dist::Communicator& comm, cudaStream_t stream, const std::function<dist::Status()>& call) {
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    team.barrier();
    CUDA_OK(cudaEventRecord(a, stream));
    const dist::Status s = call();
    CUDA_OK(cudaEventRecord(b, stream));
    if (s != dist::Status::Success)
        die("rank " + std::to_string(comm.rank()) + ": " + std::string(dist::to_string(s)) + ": " + dist::last_error());
    const dist::Status w = comm.wait(stream);
    if (w != dist::Status::Success)
        die("rank " + std::to_string(comm.rank()) + ": " + std::string(dist::to_string(w)) + ": " + dist::last_error());
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, a, b));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return ms;
}

template <class T>
const char* type_name() {
    if constexpr (std::is_same_v<T, float>) return "f32";
    else if constexpr (std::is_same_v<T, double>) return "f64";
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bf16";
    else return "fp16";
}

template <class T>
T* device_alloc(size_t count) {
    T* p = nullptr;
    CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&p), std::max<size_t>(count, 1) * sizeof(T)));
    return p;
}

std::mutex g_print;
void print_line(const std::string& s) {
    std::lock_guard<std::mutex> lock(g_print);
    std::printf("%s\n", s.c_str());
    std::fflush(stdout);
}

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

// ------------------------------------------------------------------------------ case gemm

struct GemmCase {
    int64_t m, n, k;
    Layout layout;
    std::string dist_kind; // "block" or "cyclic:MB"
    int64_t panel_k, panel_n;
    int reps, warmup, samples;
    std::vector<dist::Schedule> schedules;
    std::string kernel; // the local products' and the single-GPU row's gemmlab kernel
    std::string grid; // square (as near square as P allows), rows (P x 1), cols (1 x P) or RxC
};

/// " kernel=NAME" where the bench names the local products' kernel, "" for auto.
std::string kernel_text(const GemmCase& c) { return c.kernel == "auto" ? "" : " kernel=" + c.kernel; }

dist::Grid grid_for(const std::string& form, int P) {
    if (form == "square") return square_grid(P);
    if (form == "rows") return {P, 1};
    if (form == "cols") return {1, P};
    const auto parts = split(form, 'x');
    if (parts.size() != 2) die("--grid takes square, rows, cols or RxC, not " + form);
    return {std::atoi(parts[0].c_str()), std::atoi(parts[1].c_str())};
}

/// One rank of the gemm case: returns nothing; prints per-rank rows, rank 0 the aggregates.
template <class T>
void gemm_rank(Team& team, dist::Communicator& comm, const GemmCase& c, double single_tflops) {
    const int P = comm.size(), rank = comm.rank();
    CUDA_OK(cudaSetDevice(comm.device()));
    const dist::Grid g = grid_for(c.grid, P);
    if (g.size() != P) die("the grid " + std::to_string(g.rows) + "x" + std::to_string(g.cols) + " is not " + std::to_string(P) + " ranks");
    dist::Distribution dc = dist::Distribution::block_2d(c.m, c.n, g);
    int64_t kb_a = std::max<int64_t>(1, (c.k + g.cols - 1) / g.cols), kb_b = std::max<int64_t>(1, (c.k + g.rows - 1) / g.rows);
    if (c.dist_kind.rfind("cyclic:", 0) == 0) {
        const int64_t mb = std::atoll(c.dist_kind.c_str() + 7);
        dc = dist::Distribution::block_cyclic(mb, mb, g);
        kb_a = kb_b = mb;
    }
    const dist::Distribution da{g, dc.block_rows, kb_a}, db{g, kb_b, dc.block_cols};
    const bool row = c.layout == Layout::RowMajor;
    auto make = [&](int64_t rows, int64_t cols, const dist::Distribution& d) {
        const int64_t lr = dist::local_rows(d, rows, rank), lc = dist::local_cols(d, cols, rank);
        dist::Matrix<T> mtx{rows, cols, d, device_alloc<T>(size_t(lr * lc)), std::max<int64_t>(1, row ? lc : lr)};
        return mtx;
    };
    dist::Matrix<T> A = make(c.m, c.k, da), B = make(c.k, c.n, db), C = make(c.m, c.n, dc);
    const uint64_t seed = 2026;
    using V = dist::testing::Values;
    CUDA_OK(dist::testing::fill_local(A, c.layout, rank, seed, 0, V::Uniform, nullptr));
    CUDA_OK(dist::testing::fill_local(B, c.layout, rank, seed, 1, V::Uniform, nullptr));
    CUDA_OK(cudaDeviceSynchronize());
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    using S = dist::scalar_t<T>;
    const dist::Matrix<const T> Ac{A.rows, A.cols, A.dist, A.data, A.ld}, Bc{B.rows, B.cols, B.dist, B.data, B.ld};
    const int64_t mloc = dist::local_rows(dc, c.m, rank), nloc = dist::local_cols(dc, c.n, rank);
    const double rank_flops = 2.0 * double(mloc) * double(nloc) * double(c.k);
    const double total_flops = 2.0 * double(c.m) * double(c.n) * double(c.k);

    std::map<dist::Schedule, double> agg_ms;
    for (dist::Schedule sch : c.schedules) {
        dist::GemmOptions o;
        o.local.stream = stream;
        o.local.kernel = c.kernel;
        o.schedule = sch;
        o.panel_k = c.panel_k;
        o.panel_n = c.panel_n;
        o.synchronize = false;
        auto call = [&] { return dist::gemm<T, T>(comm, c.layout, Op::N, Op::N, S(1), Ac, Bc, S(0), C, o); };
        for (int w = 0; w < c.warmup; ++w) time_call(team, comm, stream, call);
        std::vector<double> t;
        for (int r = 0; r < c.reps; ++r) t.push_back(time_call(team, comm, stream, call));
        const double mine = median(t);
        const std::vector<double> all = team.all_values(mine);
        const double slowest = *std::max_element(all.begin(), all.end());
        agg_ms[sch] = slowest;
        std::string base = std::string("dist-bench case=gemm dtype=") + type_name<T>() + " m=" + std::to_string(c.m) +
                           " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) + " gpus=" + std::to_string(P) +
                           " grid=" + std::to_string(g.rows) + "x" + std::to_string(g.cols) + kernel_text(c) +
                           " schedule=" + schedule_name(sch);
        print_line(base + " rank=" + std::to_string(rank) + " device=" + std::to_string(comm.device()) +
                   " ms=" + fmt("%.3f", mine) + " tflops=" + fmt("%.1f", rank_flops / (mine * 1e-3) / 1e12));
        if (team.printer) {
            const double agg = total_flops / (slowest * 1e-3) / 1e12;
            std::string line = base + " rank=all ms=" + fmt("%.3f", slowest) + " tflops=" + fmt("%.1f", agg);
            if (single_tflops > 0 && sch == dist::Schedule::Overlapped)
                line += " single_tflops=" + fmt("%.1f", single_tflops) + " efficiency=" + fmt("%.3f", agg / (P * single_tflops));
            print_line(line);
        }
    }
    const std::string grid_text = " grid=" + std::to_string(g.rows) + "x" + std::to_string(g.cols);
    if (team.printer && agg_ms.count(dist::Schedule::Overlapped) && agg_ms.count(dist::Schedule::CommOnly) &&
        agg_ms.count(dist::Schedule::ComputeOnly)) {
        const double ov = agg_ms[dist::Schedule::Overlapped], co = agg_ms[dist::Schedule::CommOnly],
                     cp = agg_ms[dist::Schedule::ComputeOnly];
        std::string line = std::string("dist-bench case=gemm dtype=") + type_name<T>() + " gpus=" + std::to_string(P) + grid_text +
                           " summary transport=" + (comm.uses_copy_engines() ? "copy" : "nccl") +
                           " comm_ms=" + fmt("%.3f", co) + " compute_ms=" + fmt("%.3f", cp) +
                           " overlapped_ms=" + fmt("%.3f", ov) + " overlapped_over_max=" + fmt("%.3f", ov / std::max(co, cp));
        if (agg_ms.count(dist::Schedule::Sequential))
            line += " sequential_ms=" + fmt("%.3f", agg_ms[dist::Schedule::Sequential]) +
                    " speedup_vs_sequential=" + fmt("%.3f", agg_ms[dist::Schedule::Sequential] / ov);
        print_line(line);
    }

    // A final Overlapped product, checked on sampled entries against the CPU (beta = 0).
    if (c.samples > 0) {
        dist::GemmOptions o;
        o.local.stream = stream;
        o.local.kernel = c.kernel;
        o.panel_k = c.panel_k;
        o.panel_n = c.panel_n;
        const dist::Status s = dist::gemm<T, T>(comm, c.layout, Op::N, Op::N, S(1), Ac, Bc, S(0), C, o);
        if (s != dist::Status::Success) die(std::string(dist::to_string(s)) + ": " + dist::last_error());
        std::vector<T> host(size_t(std::max<int64_t>(1, row ? mloc * C.ld : nloc * C.ld)));
        CUDA_OK(cudaMemcpy(host.data(), C.data, sizeof(T) * host.size(), cudaMemcpyDeviceToHost));
        const auto chk = dist::testing::check_samples<T, T>(host.data(), C.ld, c.layout, dc, rank, c.m, c.n, c.k, 1.0,
                                                            0.0, seed, V::Uniform, c.samples);
        const std::vector<double> fails = team.all_values(double(chk.failed));
        double total_fail = 0;
        for (double f : fails) total_fail += f;
        print_line(std::string("dist-bench case=gemm dtype=") + type_name<T>() + " gpus=" + std::to_string(P) + grid_text +
                   " rank=" + std::to_string(rank) + " check=" + (chk.failed ? "FAIL" : "pass") + " samples=" +
                   std::to_string(chk.checked) + " worst_over_bound=" + fmt("%.3g", chk.worst_ratio) + " worst=" + chk.worst);
        if (team.printer)
            print_line(std::string("dist-bench case=gemm dtype=") + type_name<T>() + " gpus=" + std::to_string(P) + grid_text +
                       " check_all=" + (total_fail == 0 ? "pass" : "FAIL"));
    }
    CUDA_OK(cudaStreamSynchronize(stream));
    cudaStreamDestroy(stream);
    cudaFree(A.data);
    cudaFree(B.data);
    cudaFree(C.data);
}

/// Single-GPU gemmlab::gemm of the whole product on `device`: TFLOP/s (median of reps).
template <class T>
double single_gpu_tflops(int device, const GemmCase& c) {
    CUDA_OK(cudaSetDevice(device));
    const dist::Grid one{1, 1};
    auto make = [&](int64_t r, int64_t cc) {
        dist::Matrix<T> mtx{r, cc, dist::Distribution::block_2d(r, cc, one), device_alloc<T>(size_t(r * cc)),
                            std::max<int64_t>(1, c.layout == Layout::RowMajor ? cc : r)};
        return mtx;
    };
    auto A = make(c.m, c.k), B = make(c.k, c.n), C = make(c.m, c.n);
    using V = dist::testing::Values;
    CUDA_OK(dist::testing::fill_local(A, c.layout, 0, 2026, 0, V::Uniform, nullptr));
    CUDA_OK(dist::testing::fill_local(B, c.layout, 0, 2026, 1, V::Uniform, nullptr));
    cudaStream_t st;
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    gemmlab::GemmOptions o;
    o.stream = st;
    o.kernel = c.kernel;
    using S = dist::scalar_t<T>;
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    std::vector<double> t;
    for (int r = 0; r < c.warmup + c.reps; ++r) {
        CUDA_OK(cudaEventRecord(a, st));
        const gemmlab::Status s = gemmlab::gemm(c.layout, Op::N, Op::N, c.m, c.n, c.k, S(1), A.data, A.ld, B.data, B.ld,
                                                S(0), C.data, C.ld, o);
        if (s != gemmlab::Status::Success) die(std::string("single-GPU gemm: ") + gemmlab::last_error());
        CUDA_OK(cudaEventRecord(b, st));
        CUDA_OK(cudaEventSynchronize(b));
        float ms = 0;
        CUDA_OK(cudaEventElapsedTime(&ms, a, b));
        if (r >= c.warmup) t.push_back(ms);
    }
    const double ms = median(t);
    const double tf = 2.0 * double(c.m) * double(c.n) * double(c.k) / (ms * 1e-3) / 1e12;
    print_line(std::string("dist-bench case=gemm dtype=") + type_name<T>() + " m=" + std::to_string(c.m) + " n=" +
               std::to_string(c.n) + " k=" + std::to_string(c.k) + " gpus=1 single_gpu_gemmlab" + kernel_text(c) +
               " device=" + std::to_string(device) + " ms=" + fmt("%.3f", ms) + " tflops=" + fmt("%.1f", tf));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaStreamDestroy(st);
    cudaFree(A.data);
    cudaFree(B.data);
    cudaFree(C.data);
    return tf;
}

// ------------------------------------------------------------------------------ case tp

struct TpCase {
    int64_t tokens, hidden, mlp;
    int chunks, reps, warmup;
    std::vector<dist::Schedule> schedules;
};

template <class T>
void tp_rank(Team& team, dist::Communicator& comm, const TpCase& c) {
    const int P = comm.size(), rank = comm.rank();
    CUDA_OK(cudaSetDevice(comm.device()));
    if (c.tokens % P || c.mlp % P) die("tokens and mlp must be multiples of the GPU count");
    const int64_t T_ = c.tokens, H = c.hidden, F = c.mlp / P, Ts = T_ / P;
    using V = dist::testing::Values;
    // all-gather + GEMM: X shard Ts x H, W (op T) F x H, Y T x F.
    T* x_shard = device_alloc<T>(size_t(Ts * H));
    T* w_up = device_alloc<T>(size_t(F * H));
    T* y = device_alloc<T>(size_t(T_ * F));
    // GEMM + reduce-scatter: X T x F, W (op T) H x F, out Ts x H.
    T* x_full = device_alloc<T>(size_t(T_ * F));
    T* w_down = device_alloc<T>(size_t(H * F));
    T* out = device_alloc<T>(size_t(Ts * H));
    auto fill = [&](T* p, int64_t r, int64_t cc, int which) {
        dist::Matrix<T> mtx{r, cc, dist::Distribution::block_2d(r, cc, {1, 1}), p, cc};
        CUDA_OK(dist::testing::fill_local(mtx, Layout::RowMajor, 0, 7 + rank, which, V::Uniform, nullptr));
    };
    fill(x_shard, Ts, H, 0);
    fill(w_up, F, H, 1);
    fill(x_full, T_, F, 2);
    fill(w_down, H, F, 3);
    CUDA_OK(cudaDeviceSynchronize());
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    using S = dist::scalar_t<T>;
    const double flops = 2.0 * double(T_) * double(F) * double(H); // per rank, both patterns

    for (int pattern = 0; pattern < 2; ++pattern) {
        const char* name = pattern == 0 ? "allgather_gemm" : "gemm_reducescatter";
        std::map<dist::Schedule, double> agg;
        for (dist::Schedule sch : c.schedules) {
            dist::TpOptions o;
            o.local.stream = stream;
            o.schedule = sch;
            o.chunks = c.chunks;
            o.synchronize = false;
            auto call = [&] {
                return pattern == 0
                           ? dist::allgather_gemm<T, T>(comm, Op::T, T_, F, H, S(1), x_shard, H, w_up, H, y, F, o)
                           : dist::gemm_reducescatter<T, T>(comm, Op::T, T_, H, F, S(1), x_full, F, w_down, F, out, H, o);
            };
            for (int w = 0; w < c.warmup; ++w) time_call(team, comm, stream, call);
            std::vector<double> t;
            for (int r = 0; r < c.reps; ++r) t.push_back(time_call(team, comm, stream, call));
            const double mine = median(t);
            const auto all = team.all_values(mine);
            const double slowest = *std::max_element(all.begin(), all.end());
            agg[sch] = slowest;
            const std::string base = std::string("dist-bench case=tp pattern=") + name + " dtype=" + type_name<T>() +
                                     " tokens=" + std::to_string(T_) + " hidden=" + std::to_string(H) + " mlp=" +
                                     std::to_string(c.mlp) + " tp=" + std::to_string(P) + " schedule=" + schedule_name(sch);
            print_line(base + " rank=" + std::to_string(rank) + " ms=" + fmt("%.3f", mine) +
                       " tflops=" + fmt("%.1f", flops / (mine * 1e-3) / 1e12));
            if (team.printer)
                print_line(base + " rank=all ms=" + fmt("%.3f", slowest) +
                           " tflops=" + fmt("%.1f", P * flops / (slowest * 1e-3) / 1e12));
        }
        if (team.printer && agg.count(dist::Schedule::Overlapped) && agg.count(dist::Schedule::CommOnly) &&
            agg.count(dist::Schedule::ComputeOnly) && agg.count(dist::Schedule::Sequential)) {
            const double ov = agg[dist::Schedule::Overlapped], co = agg[dist::Schedule::CommOnly],
                         cp = agg[dist::Schedule::ComputeOnly], sq = agg[dist::Schedule::Sequential];
            print_line(std::string("dist-bench case=tp pattern=") + name + " dtype=" + type_name<T>() + " tp=" +
                       std::to_string(P) + " summary transport=" + (comm.uses_copy_engines() ? "copy" : "nccl") +
                       " comm_ms=" + fmt("%.3f", co) + " compute_ms=" + fmt("%.3f", cp) +
                       " overlapped_ms=" + fmt("%.3f", ov) + " sequential_ms=" + fmt("%.3f", sq) +
                       " overlapped_over_max=" + fmt("%.3f", ov / std::max(co, cp)) + " target<=1.15" +
                       " speedup_vs_sequential=" + fmt("%.3f", sq / ov) + " target>=1.2" +
                       " speedup_bound=" + fmt("%.3f", (co + cp) / std::max(co, cp)));
        }
    }
    CUDA_OK(cudaStreamSynchronize(stream));
    cudaStreamDestroy(stream);
    for (T* p : {x_shard, w_up, y, x_full, w_down, out}) cudaFree(p);
}

// ------------------------------------------------------------------------------ drivers

/// Visible GPUs, counted in a child process: the forked form's parent never starts CUDA (its
/// children could not use it after a fork).
int gpu_count_in_child() {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
        std::_Exit(std::min(n, 100));
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 0;
}

/// What the forked ranks share: a process-shared barrier and one value per rank.
struct SharedTeam {
    pthread_barrier_t barrier;
    double values[256];
    double single_tflops; // the single-GPU row, for the parent to hand to later GPU counts
};

/// One process per rank (--ranks procs, the default): how ranks run under mpirun or torchrun,
/// and the form the copy-engine transport needs (peer_copy.hpp). Rank r runs on GPU r; rank 0
/// makes the NCCL id and hands it over a pipe; the ranks meet at a process-shared barrier.
template <class T>
void run_forked(const Args& args, const std::string& which, const GemmCase& gc, const TpCase& tc, bool single) {
    const int count = gpu_count_in_child();
    std::vector<int> plist;
    const std::string gpus = args.get("gpus", "all");
    if (gpus == "all") plist = {count};
    else
        for (const std::string& s : split(gpus)) plist.push_back(std::atoi(s.c_str()));
    bool single_done = false;
    double single_tf_known = 0;
    for (int P : plist) {
        if (P < 1 || P > count || P > 256) {
            print_line("dist-bench skip gpus=" + std::to_string(P) + " (only " + std::to_string(count) + " visible)");
            continue;
        }
        auto* shared = static_cast<SharedTeam*>(
            mmap(nullptr, sizeof(SharedTeam), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
        if (shared == MAP_FAILED) die("mmap failed");
        pthread_barrierattr_t attr;
        pthread_barrierattr_init(&attr);
        pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
        pthread_barrier_init(&shared->barrier, &attr, unsigned(P));
        std::vector<int> fds(2 * size_t(P));
        for (int r = 0; r < P; ++r)
            if (pipe(&fds[2 * size_t(r)]) != 0) die("pipe failed");
        const bool with_single = which == "gemm" && single && !single_done;
        single_done = single_done || with_single;
        std::fflush(stdout);
        std::vector<pid_t> pids;
        for (int r = 0; r < P; ++r) {
            const pid_t pid = fork();
            if (pid == 0) {
                std::setvbuf(stdout, nullptr, _IOLBF, 0);
                CUDA_OK(cudaSetDevice(r));
                Team team;
                team.printer = r == 0;
                team.barrier = [shared] { pthread_barrier_wait(&shared->barrier); };
                team.all_values = [shared, r, P](double v) {
                    pthread_barrier_wait(&shared->barrier);
                    shared->values[r] = v;
                    pthread_barrier_wait(&shared->barrier);
                    std::vector<double> out(shared->values, shared->values + P);
                    pthread_barrier_wait(&shared->barrier);
                    return out;
                };
                // The single-GPU row first, on GPU 0, while the others wait.
                double single_tf = single_tf_known;
                if (with_single && r == 0) single_tf = single_gpu_tflops<T>(0, gc);
                single_tf = team.all_values(single_tf)[0];
                if (r == 0) shared->single_tflops = single_tf;
                dist::UniqueId id{};
                if (r == 0) {
                    if (dist::get_unique_id(id) != dist::Status::Success) die(dist::last_error());
                    for (int q = 1; q < P; ++q)
                        if (write(fds[2 * size_t(q) + 1], &id, sizeof id) != ssize_t(sizeof id)) die("pipe write failed");
                } else if (read(fds[2 * size_t(r)], &id, sizeof id) != ssize_t(sizeof id)) {
                    die("pipe read failed");
                }
                dist::CommOptions co;
                co.timeout_s = double(args.num("timeout", 300));
                dist::Communicator comm;
                if (dist::Communicator::create(comm, id, P, r, r, co) != dist::Status::Success)
                    die(std::string("create: ") + dist::last_error());
                if (which == "gemm") gemm_rank<T>(team, comm, gc, single_tf);
                else tp_rank<T>(team, comm, tc);
                comm = dist::Communicator();
                std::fflush(stdout);
                std::_Exit(0);
            }
            pids.push_back(pid);
        }
        for (int fd : fds) close(fd);
        // A rank that fails ends them all (the others would wait at the barrier for it).
        int left = P, failed = 0;
        while (left > 0) {
            int st = 0;
            const pid_t p = waitpid(-1, &st, 0);
            if (p <= 0) break;
            --left;
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                ++failed;
                for (pid_t other : pids) kill(other, SIGKILL);
            }
        }
        if (with_single) single_tf_known = shared->single_tflops;
        pthread_barrier_destroy(&shared->barrier);
        munmap(shared, sizeof(SharedTeam));
        if (failed) die("a rank failed (gpus=" + std::to_string(P) + ")");
    }
}

template <class T>
void run_type(const Args& args, Team* mpi_team, dist::Communicator* mpi_comm) {
    const std::string which = args.get("case", "gemm");
    std::vector<dist::Schedule> schedules;
    for (const std::string& s : split(args.get("schedules", "overlapped,sequential,comm,compute")))
        schedules.push_back(parse_schedule(s));
    GemmCase gc;
    const int64_t size = args.num("size", 8192);
    gc.m = args.num("m", size);
    gc.n = args.num("n", size);
    gc.k = args.num("k", size);
    gc.layout = args.get("layout", "row") == "col" ? Layout::ColMajor : Layout::RowMajor;
    gc.dist_kind = args.get("dist", "block");
    gc.panel_k = args.num("panel-k", 0);
    gc.panel_n = args.num("panel-n", 0);
    gc.reps = int(args.num("reps", 5));
    gc.warmup = int(args.num("warmup", 1));
    gc.samples = int(args.num("check-samples", 16));
    gc.schedules = schedules;
    gc.kernel = args.get("kernel", "auto");
    gc.grid = args.get("grid", "square");
    grid_for(gc.grid, 1); // a malformed --grid stops here, before any GPU work
    TpCase tc;
    tc.tokens = args.num("tokens", 8192);
    tc.hidden = args.num("hidden", 8192);
    tc.mlp = args.num("mlp", 28672);
    tc.chunks = int(args.num("chunks", 0));
    tc.reps = gc.reps;
    tc.warmup = gc.warmup;
    tc.schedules = schedules;
    const bool single = !args.kv.count("no-single");

    if (mpi_team) { // one rank per process
        double single_tf = 0;
        if (which == "gemm" && single) {
            if (mpi_comm->rank() == 0) single_tf = single_gpu_tflops<T>(mpi_comm->device(), gc);
            single_tf = mpi_team->all_values(single_tf)[0];
        }
        if (which == "gemm") gemm_rank<T>(*mpi_team, *mpi_comm, gc, single_tf);
        else tp_rank<T>(*mpi_team, *mpi_comm, tc);
        return;
    }

    if (args.get("ranks", "procs") == "procs") {
        run_forked<T>(args, which, gc, tc, single);
        return;
    }
    int count = 0;
    CUDA_OK(cudaGetDeviceCount(&count));
    std::vector<int> plist;
    const std::string gpus = args.get("gpus", "all");
    if (gpus == "all") plist = {count};
    else
        for (const std::string& s : split(gpus)) plist.push_back(std::atoi(s.c_str()));
    double single_tf = 0;
    if (which == "gemm" && single) single_tf = single_gpu_tflops<T>(0, gc);
    for (int P : plist) {
        if (P < 1 || P > count) {
            print_line("dist-bench skip gpus=" + std::to_string(P) + " (only " + std::to_string(count) + " visible)");
            continue;
        }
        std::vector<int> devices;
        for (int d = 0; d < P; ++d) devices.push_back(d);
        std::vector<dist::Communicator> comms;
        dist::CommOptions co;
        co.timeout_s = double(args.num("timeout", 300));
        const dist::Status s = dist::Communicator::create_all_local(comms, devices, co);
        if (s != dist::Status::Success) die(std::string("create_all_local: ") + dist::last_error());
        std::barrier sync(P);
        std::vector<double> values(P);
        std::vector<std::thread> threads;
        for (int r = 0; r < P; ++r)
            threads.emplace_back([&, r] {
                Team team;
                team.printer = r == 0;
                team.barrier = [&] { sync.arrive_and_wait(); };
                team.all_values = [&, r](double v) {
                    sync.arrive_and_wait();
                    values[r] = v;
                    sync.arrive_and_wait();
                    std::vector<double> out = values;
                    sync.arrive_and_wait();
                    return out;
                };
                if (which == "gemm") gemm_rank<T>(team, comms[r], gc, single_tf);
                else tp_rank<T>(team, comms[r], tc);
                // Each rank's communicator ends on its own thread: NCCL finalizes them together.
                comms[r] = dist::Communicator();
            });
        for (auto& t : threads) t.join();
    }
}

} // namespace

int main(int argc, char** argv) {
    Args args;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            usage();
            return 0;
        }
        if (a.rfind("--", 0) != 0) {
            usage();
            return 2;
        }
        a = a.substr(2);
        if (a == "no-single") args.kv[a] = "1";
        else if (i + 1 < argc) args.kv[a] = argv[++i];
        else die("--" + a + " needs a value");
    }
    const char* ctas = std::getenv("GEMMLAB_DIST_OVERLAP_CTAS");
    std::printf("dist-bench NCCL_NVLS_ENABLE=%s nccl_version=%d overlap_max_ctas=%s\n", dist::disable_nvls_unless_set(),
                dist::nccl_version(), ctas ? ctas : "16 (default)");
    std::fflush(stdout);

    Team* mpi_team = nullptr;
    dist::Communicator* mpi_comm = nullptr;
#ifdef GEMMLAB_DIST_BENCH_MPI
    MPI_Init(&argc, &argv);
    static dist::Communicator comm;
    dist::CommOptions co;
    co.timeout_s = double(args.num("timeout", 300));
    if (dist::Communicator::create_from_mpi(comm, nullptr, -1, co) != dist::Status::Success)
        die(std::string("create_from_mpi: ") + dist::last_error());
    static Team team;
    team.printer = comm.rank() == 0;
    team.barrier = [] { MPI_Barrier(MPI_COMM_WORLD); };
    team.all_values = [](double v) {
        int n = 0;
        MPI_Comm_size(MPI_COMM_WORLD, &n);
        std::vector<double> out(n);
        MPI_Allgather(&v, 1, MPI_DOUBLE, out.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
        return out;
    };
    mpi_team = &team;
    mpi_comm = &comm;
#endif
    for (const std::string& t : split(args.get("dtype", "bf16"))) {
        if (t == "bf16") run_type<__nv_bfloat16>(args, mpi_team, mpi_comm);
        else if (t == "fp16") run_type<__half>(args, mpi_team, mpi_comm);
        else if (t == "f32") run_type<float>(args, mpi_team, mpi_comm);
        else if (t == "f64") run_type<double>(args, mpi_team, mpi_comm);
        else die("unknown dtype " + t);
    }
#ifdef GEMMLAB_DIST_BENCH_MPI
    MPI_Finalize();
#endif
    return 0;
}
