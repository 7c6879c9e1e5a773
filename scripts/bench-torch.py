#!/usr/bin/env python3
"""gemmlab.gemm beside torch.matmul on the GPU: square products in several sizes and dtypes,
each timed with CUDA events on PyTorch's current stream (warm-up, then the median of --reps
calls, each between its own pair of events), into preallocated outputs on both sides. Prints a
table and checks each gemmlab result against torch.matmul in float64 (the error bound of
DESIGN.md). PyTorch's float32 matmul runs in true FP32 (allow_tf32 off) unless --tf32, which
compares gemmlab's precision="tf32" with PyTorch's TF32 instead.

    scripts/bench-torch.py [--sizes 1024,2048,4096] [--dtypes float32,float64] [--kernel auto]

Exit status 0 when every gemmlab result is within the bound, 1 otherwise."""

import argparse
import statistics
import sys

import torch

import gemmlab


def time_ms(fn, reps, warmup):
    for _ in range(warmup):
        fn()
    stream = torch.cuda.current_stream()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(stream)
        fn()
        stop.record(stream)
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times), min(times), max(times)


def within_bound(c, a, b, u, tf32):
    """DESIGN.md's bound, plus the float64 reference's own rounding; TF32 adds 2 * 2^-11 per product."""
    a64, b64 = a.double(), b.double()
    ref = a64 @ b64
    mag = a64.abs() @ b64.abs()
    k = a.shape[1]
    gamma = 2 * (k + 3) * (u + 2.0 ** -53) + (2 * 2.0 ** -11 if tf32 else 0.0)
    excess = (c.double() - ref).abs() - gamma * mag
    return float(excess.max()) <= 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1024,2048,4096")
    ap.add_argument("--dtypes", default=",".join(gemmlab.dtypes()))
    ap.add_argument("--kernel", default="auto")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--tf32", action="store_true", help="float32 on TF32 tensor cores on both sides")
    args = ap.parse_args()
    if not torch.cuda.is_available() or gemmlab.device_count() == 0:
        print("bench-torch: needs a CUDA device")
        return 1
    torch.backends.cuda.matmul.allow_tf32 = args.tf32
    precision = "tf32" if args.tf32 else "default"
    print(f"{torch.cuda.get_device_name()}, PyTorch {torch.__version__}, gemmlab kernel '{args.kernel}', "
          f"precision '{precision}' (torch allow_tf32={args.tf32}), median of {args.reps} after {args.warmup} warm-up")
    header = (f"{'dtype':8} {'m=n=k':>6} | {'gemmlab ms':>10} {'TFLOP/s':>8} | {'torch ms':>10} {'TFLOP/s':>8} | "
              f"{'gemmlab/torch':>13} | check")
    print(header)
    print("-" * len(header))
    ok = True
    gen = torch.Generator(device="cuda").manual_seed(0)
    for dtype in args.dtypes.split(","):
        t = getattr(torch, dtype)
        u = {torch.float32: 2.0 ** -24, torch.float64: 2.0 ** -53}[t]
        for n in (int(s) for s in args.sizes.split(",")):
            a = torch.rand(n, n, device="cuda", generator=gen, dtype=t) * 2 - 1
            b = torch.rand(n, n, device="cuda", generator=gen, dtype=t) * 2 - 1
            c_lab = torch.empty(n, n, device="cuda", dtype=t)
            c_torch = torch.empty_like(c_lab)
            lab = time_ms(lambda: gemmlab.gemm(a, b, c_lab, kernel=args.kernel, precision=precision),
                          args.reps, args.warmup)
            ref = time_ms(lambda: torch.matmul(a, b, out=c_torch), args.reps, args.warmup)
            good = within_bound(c_lab, a, b, u, args.tf32 and t == torch.float32)
            ok &= good
            tflops = lambda ms: 2.0 * n ** 3 / (ms * 1e9)
            print(f"{dtype:8} {n:>6} | {lab[0]:10.3f} {tflops(lab[0]):8.1f} | {ref[0]:10.3f} {tflops(ref[0]):8.1f} | "
                  f"{100 * ref[0] / lab[0]:12.0f}% | {'PASS' if good else 'FAIL'}")
            del a, b, c_lab, c_torch
    print(f"bench-torch: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
