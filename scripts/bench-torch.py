#!/usr/bin/env python3
"""gemmlab from Python beside PyTorch on the GPU, in one run: the host cost of a call, then the
speed of the products, every gemmlab result checked against a float64 reference.

1. Host cost: a loop of --calls enqueues of a 64^2 (and 512^2) product, wall time per call
   after a synchronize, for torch.matmul(out=), gemmlab.matmul(out=), gemmlab.gemm(c=), the
   allocating forms torch.matmul / gemmlab.matmul, the autograd operator
   torch.ops.gemmlab.matmul, gemmlab.torch.matmul (which skips the operator where no gradient
   is recorded and nothing is compiled), and the bare C++ entry on raw pointers (the library's own cost
   plus pybind11's, the floor of any Python path). The variants take turns, --rounds times; the
   median round is printed. Where the GPU's time per product exceeds the host's, every loop
   measures the GPU instead (then the ratios say so by being near 1).
2. Speed: CUDA events around each call, gemmlab and torch taking turns sample by sample (same
   clocks), median of --reps after --warmup: BF16/FP16 squares (gemmlab.matmul vs
   torch.matmul), float32 default vs torch.matmul with TF32 off ("highest"), float32 "tf32" vs
   torch with TF32 on, float64, and batched attention shapes (gemmlab.matmul vs torch.bmm on the
   same views: Q K^T with K transposed in place, and P V).

    scripts/bench-torch.py [--kernel auto] [--reps 20] [--warmup 3] [--calls 2000] [--quick]

Exit status 0 when every gemmlab result is within its error bound, 1 otherwise."""

import argparse
import statistics
import sys
import time

import torch

import gemmlab
import gemmlab.torch  # noqa: F401  (registers torch.ops.gemmlab.matmul)

DEV = "cuda"


# ---------------------------------------------------------------- 1. host cost

def host_cost(args):
    core = gemmlab._gemmlab
    rows = []
    for n, dtype in ((64, torch.float32), (64, torch.bfloat16), (512, torch.float32)):
        a = torch.rand(n, n, device=DEV, dtype=dtype)
        b = torch.rand(n, n, device=DEV, dtype=dtype)
        c_t, c_l = torch.empty_like(a), torch.empty_like(a)
        name = str(dtype).replace("torch.", "")
        stream = torch.cuda.current_stream().cuda_stream
        pa, pb, pc = a.data_ptr(), b.data_ptr(), c_l.data_ptr()
        op = torch.ops.gemmlab.matmul.default
        variants = {
            "torch.matmul(a, b, out=c)": lambda: torch.matmul(a, b, out=c_t),
            "gemmlab.matmul(a, b, out=c)": lambda: gemmlab.matmul(a, b, out=c_l),
            "gemmlab.gemm(a, b, c)": lambda: gemmlab.gemm(a, b, c_l),
            "torch.matmul(a, b)": lambda: torch.matmul(a, b),
            "gemmlab.matmul(a, b)": lambda: gemmlab.matmul(a, b),
            "torch.ops.gemmlab.matmul(a, b)": lambda: op(a, b),
            "gemmlab.torch.matmul(a, b)": lambda: gemmlab.torch.matmul(a, b),
            "C++ entry, raw pointers": lambda: core.gemm(name, "row", False, False, n, n, n, 1.0, pa, n, pb, n, 0.0,
                                                         pc, n, "auto", "default", stream, -1, False, ""),
        }
        for fn in variants.values():  # first calls: library set-up, allocator warm-up
            for _ in range(50):
                fn()
        torch.cuda.synchronize()
        samples = {k: [] for k in variants}
        for _ in range(args.rounds):
            for label, fn in variants.items():
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for _ in range(args.calls):
                    fn()
                torch.cuda.synchronize()
                samples[label].append((time.perf_counter() - t0) / args.calls * 1e6)
        us = {k: statistics.median(v) for k, v in samples.items()}
        rows.append((n, name, us))
    print(f"\n1. Host cost per call: loops of {args.calls} calls, median of {args.rounds} rounds taking turns "
          f"(microseconds per call; ratio to the torch form it replaces)")
    print(f"{'n':>5} {'dtype':9} | {'variant':32} | {'us/call':>8} | vs torch")
    print("-" * 70)
    results = {}
    for n, name, us in rows:
        for label, t in us.items():
            ref = us["torch.matmul(a, b, out=c)"] if "out=c" in label or "gemm(" in label or "C++" in label \
                else us["torch.matmul(a, b)"]
            ratio = "" if label.startswith("torch.matmul") else f"{t / ref:7.2f}x"
            print(f"{n:>5} {name:9} | {label:32} | {t:8.2f} | {ratio}")
            results[(n, name, label)] = t
        print("-" * 70)
    for name in ("float32", "bfloat16"):
        out = results[(64, name, "gemmlab.matmul(a, b, out=c)")] / results[(64, name, "torch.matmul(a, b, out=c)")]
        alloc = results[(64, name, "gemmlab.matmul(a, b)")] / results[(64, name, "torch.matmul(a, b)")]
        print(f"target host cost at 64^2 {name}: gemmlab.matmul(out=) {out:.2f}x torch.matmul(out=) "
              f"({'met' if out <= 1.0 else 'MISSED'}); allocating {alloc:.2f}x torch.matmul "
              f"({'met' if alloc <= 1.0 else 'MISSED'})")


# ---------------------------------------------------------------- 2. speed

def rand(shape, dtype, gen):
    return (torch.rand(shape, device=DEV, generator=gen, dtype=torch.float32) * 2 - 1).to(dtype)


def within_bound(c, a, b, tf32):
    """docs/precision.md's bound for c = a @ b (batched too), plus the float64 reference's rounding."""
    a64, b64 = a.double(), b.double()
    ref = torch.matmul(a64, b64)
    mag = torch.matmul(a64.abs(), b64.abs())
    k = a.shape[-1]
    if a.dtype in (torch.bfloat16, torch.float16):
        u_out = {torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11, torch.float32: 2.0 ** -24}[c.dtype]
        acc = 2 * (k + 3) * 2.0 ** -24 * (mag + 2.0 ** -126)
        bound = acc + u_out * (ref.abs() + acc) + 2.0 ** -24 + 2 * (k + 3) * 2.0 ** -53 * mag
    else:
        u = {torch.float32: 2.0 ** -24, torch.float64: 2.0 ** -53}[a.dtype]
        bound = (2 * (k + 3) * (u + 2.0 ** -53) + (2 * 2.0 ** -11 if tf32 else 0.0)) * mag
    ok = bool(((c.double() - ref).abs() <= bound).all())
    del a64, b64, ref, mag, bound
    return ok


def time_pair(fn_lab, fn_torch, reps, warmup):
    """Median ms of each, the two taking turns sample by sample, each sample between its own events."""
    for _ in range(warmup):
        fn_lab()
        fn_torch()
    stream = torch.cuda.current_stream()
    lab, ref = [], []
    for _ in range(reps):
        for fn, out in ((fn_lab, lab), (fn_torch, ref)):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record(stream)
            fn()
            stop.record(stream)
            stop.synchronize()
            out.append(start.elapsed_time(stop))
    return statistics.median(lab), statistics.median(ref)


def speed(args):
    gen = torch.Generator(device=DEV).manual_seed(0)
    bf16, f16, f32, f64 = torch.bfloat16, torch.float16, torch.float32, torch.float64
    squares = (4096,) if args.quick else (4096, 8192)
    cases = []  # (label, dtype, precision, torch tf32, batch, m, n, k, kind)
    for dt in (bf16, f16):
        cases += [(f"{dt}"[6:], dt, "default", False, 0, n, n, n, "square") for n in squares]
    cases += [("float32 default vs highest", f32, "default", False, 0, n, n, n, "square")
              for n in ((4096,) if args.quick else (1024, 2048, 4096, 8192))]
    cases += [("float32 tf32 vs tf32", f32, "tf32", True, 0, n, n, n, "square") for n in (4096,)]
    cases += [("float64", f64, "default", False, 0, 4096, 4096, 4096, "square")]
    # Attention: batch*heads, sequence, head dimension; Q K^T (K transposed in place) and P V.
    for bh, t, d in ((64, 1024, 64), (32, 2048, 128)) if not args.quick else ((32, 2048, 128),):
        cases += [(f"bf16 attention Q K^T", bf16, "default", False, bh, t, t, d, "qk"),
                  (f"bf16 attention P V", bf16, "default", False, bh, t, d, t, "pv")]
    # The same batches through gemmlab's Python path on rung 0 (cuBLAS, as torch.bmm): what the
    # path costs apart from the kernel that `auto` picks.
    cases += [(label.replace("attention", "attn rung 0"), *rest) for label, *rest in cases if rest[-1] in ("qk", "pv")]
    print(f"\n2. Speed: median of {args.reps} CUDA-event samples after {args.warmup} warm-ups, gemmlab and torch "
          f"taking turns; gemmlab kernel '{args.kernel}'")
    header = (f"{'case':28} {'shape':>22} | {'gemmlab ms':>10} {'TFLOP/s':>8} | {'torch ms':>9} {'TFLOP/s':>8} | "
              f"{'speed vs torch':>14} | check")
    print(header)
    print("-" * len(header))
    ok = True
    for label, dt, precision, tf32, bh, m, n, k, kind in cases:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        if kind == "square":
            a, b = rand((m, k), dt, gen), rand((k, n), dt, gen)
            c_lab, c_ref = torch.empty(m, n, device=DEV, dtype=dt), torch.empty(m, n, device=DEV, dtype=dt)
            fn_torch = lambda: torch.matmul(a, b, out=c_ref)
            shape = f"{m}x{n}x{k}"
        else:
            if kind == "qk":  # scores = Q K^T: (bh, t, d) @ (bh, d, t), K^T a view
                a, b = rand((bh, m, k), dt, gen), rand((bh, n, k), dt, gen).mT
            else:  # out = P V: (bh, t, t) @ (bh, t, d)
                a, b = rand((bh, m, k), dt, gen), rand((bh, k, n), dt, gen)
            c_lab, c_ref = torch.empty(bh, m, n, device=DEV, dtype=dt), torch.empty(bh, m, n, device=DEV, dtype=dt)
            fn_torch = lambda: torch.bmm(a, b, out=c_ref)
            shape = f"{bh}x({m}x{n}x{k})"
        kernel = "0" if "rung 0" in label else args.kernel
        fn_lab = lambda: gemmlab.matmul(a, b, out=c_lab, precision=precision, kernel=kernel)
        lab_ms, ref_ms = time_pair(fn_lab, fn_torch, args.reps, args.warmup)
        torch.cuda.synchronize()
        good = within_bound(c_lab, a, b, tf32)
        ok &= good
        flops = 2.0 * max(bh, 1) * m * n * k
        print(f"{label:28} {shape:>22} | {lab_ms:10.3f} {flops / lab_ms / 1e9:8.1f} | {ref_ms:9.3f} "
              f"{flops / ref_ms / 1e9:8.1f} | {ref_ms / lab_ms:13.2f}x | {'PASS' if good else 'FAIL'}")
        del a, b, c_lab, c_ref
        torch.cuda.empty_cache()
    torch.backends.cuda.matmul.allow_tf32 = False
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", default="auto")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--calls", type=int, default=2000, help="calls per host-cost loop")
    ap.add_argument("--rounds", type=int, default=5, help="host-cost rounds (the median is printed)")
    ap.add_argument("--quick", action="store_true", help="fewer sizes")
    ap.add_argument("--no-host-cost", action="store_true")
    args = ap.parse_args()
    if not torch.cuda.is_available() or gemmlab.device_count() == 0:
        print("bench-torch: needs a CUDA device")
        return 1
    print(f"{torch.cuda.get_device_name()}, PyTorch {torch.__version__}, gemmlab {gemmlab.__version__}, "
          f"Python {sys.version.split()[0]}")
    if not args.no_host_cost:
        host_cost(args)
    ok = speed(args)
    print(f"bench-torch: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
