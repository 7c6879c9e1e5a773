// Copy-engine bandwidth between the GPUs of one host, for the dist layer's copy-engine
// transport: reads (the destination's stream copies from the peer) against writes (the
// source's stream copies into the peer), one transfer or several at once, and every GPU
// gathering from every peer at the same time. One process, peer access on, CUDA events.
//   nvcc -O2 -std=c++17 -o ce_probe ce_probe.cu && ./ce_probe [MiB per piece, default 32]
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define OK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(err_)); std::exit(1); } } while (0)

int G = 0;
std::vector<char*> buf;                   // per GPU: G pieces
std::vector<std::vector<cudaStream_t>> st; // per GPU: 8 streams
size_t piece = 0;

// One transfer: piece `slot` of GPU `src` into piece `slot` of GPU `dst`, on a stream of `on`.
struct Xfer { int src, dst, on, stream; };

double run(const std::vector<Xfer>& xs, int reps = 7) {
    std::vector<double> t;
    for (int r = 0; r < reps + 1; ++r) {
        for (int d = 0; d < G; ++d) { OK(cudaSetDevice(d)); OK(cudaDeviceSynchronize()); }
        OK(cudaSetDevice(0));
        cudaEvent_t a, b;
        OK(cudaEventCreate(&a)); OK(cudaEventCreate(&b));
        OK(cudaEventRecord(a, st[0][7]));
        std::vector<cudaEvent_t> fin;
        for (const Xfer& x : xs) {
            OK(cudaSetDevice(x.on));
            cudaStream_t s = st[x.on][x.stream];
            OK(cudaStreamWaitEvent(s, a, 0));
            OK(cudaMemcpyAsync(buf[x.dst] + piece * x.src, buf[x.src] + piece * x.src, piece, cudaMemcpyDefault, s));
            cudaEvent_t e; OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); OK(cudaEventRecord(e, s)); fin.push_back(e);
        }
        OK(cudaSetDevice(0));
        for (cudaEvent_t e : fin) OK(cudaStreamWaitEvent(st[0][7], e, 0));
        OK(cudaEventRecord(b, st[0][7]));
        OK(cudaEventSynchronize(b));
        float ms = 0; OK(cudaEventElapsedTime(&ms, a, b));
        if (r > 0) t.push_back(ms);
        for (cudaEvent_t e : fin) cudaEventDestroy(e);
        cudaEventDestroy(a); cudaEventDestroy(b);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

void row(const char* name, const std::vector<Xfer>& xs) {
    const double ms = run(xs);
    const double gb = double(piece) * xs.size() / 1e9;
    std::printf("ce-probe %-58s transfers=%zu MiB_each=%zu ms=%.3f aggregate_GBps=%.1f\n", name, xs.size(), piece >> 20, ms, gb / (ms * 1e-3));
}

int main(int argc, char** argv) {
    OK(cudaGetDeviceCount(&G));
    piece = size_t(argc > 1 ? std::atoi(argv[1]) : 32) << 20;
    int engines = 0; OK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, 0));
    std::printf("ce-probe gpus=%d async_engines=%d\n", G, engines);
    buf.resize(G); st.resize(G);
    for (int d = 0; d < G; ++d) {
        OK(cudaSetDevice(d));
        for (int p = 0; p < G; ++p) if (p != d) { int can = 0; cudaDeviceCanAccessPeer(&can, d, p); if (can) OK(cudaDeviceEnablePeerAccess(p, 0)); }
        OK(cudaMalloc(&buf[d], piece * G));
        OK(cudaMemset(buf[d], 1, piece * G));
        st[d].resize(8);
        for (auto& s : st[d]) OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    }
    row("1 -> 0, read (stream on 0)", {{1, 0, 0, 0}});
    row("1 -> 0, write (stream on 1)", {{1, 0, 1, 0}});
    std::vector<Xfer> r3, w3, r3one, rall, wall, rall2;
    for (int q = 1; q < G; ++q) { r3.push_back({q, 0, 0, q - 1}); w3.push_back({q, 0, q, 0}); r3one.push_back({q, 0, 0, 0}); }
    row("peers -> 0, reads, one stream each on 0", r3);
    row("peers -> 0, reads, one stream on 0 (in turn)", r3one);
    row("peers -> 0, writes, on each peer", w3);
    for (int d = 0; d < G; ++d)
        for (int i = 1; i < G; ++i) {
            const int q = (d + i) % G;
            rall.push_back({q, d, d, i - 1});
            wall.push_back({d, q, d, i - 1});
        }
    row("all-gather: every GPU reads every peer, a stream per peer", rall);
    row("all-gather: every GPU writes every peer, a stream per peer", wall);
    // Each read split in two halves on two streams (twice the engines asked for).
    piece /= 2;
    for (int d = 0; d < G; ++d)
        for (int i = 1; i < G; ++i) {
            const int q = (d + i) % G;
            rall2.push_back({q, d, d, 2 * (i - 1)});
            rall2.push_back({q, d, d, 2 * (i - 1) + 1});
        }
    row("all-gather: reads split in halves, two streams per peer", rall2);
    piece *= 2;
    return 0;
}
