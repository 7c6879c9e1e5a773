#!/usr/bin/env python3
"""NumPy's `a @ b` on its own CPU BLAS, then on the GPU through LD_PRELOAD of libgemmlab_blas.so.

Runs the same large float64 product twice, each in a fresh Python subprocess (the preload has to
be in place before NumPy loads its BLAS): once as is, once with LD_PRELOAD. Prints both times,
the speed-up, where the library says the calls went (its GEMMLAB_BLAS_VERBOSE exit line), and
the largest difference between the two results (the same seed gives both runs the same inputs).

    scripts/bench-numpy-blas.py [--lib build/device/src/blas/libgemmlab_blas.so] [--size 8192]

Exit status: 0 when the preloaded run took the calls to the GPU and agrees with the CPU result;
1 otherwise (2 for a bad command line). A NumPy whose BLAS this library does not intercept
(neither the standard cblas_dgemm nor NumPy's wheel's scipy_cblas_dgemm64_) shows 0 GPU calls.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def numpy_blas_name(np):
    try:  # NumPy >= 1.25
        deps = np.show_config(mode="dicts")["Build Dependencies"]
        blas = deps.get("blas", {})
        return f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:
        try:
            info = np.__config__.get_info("blas_opt_info") or np.__config__.get_info("blas_info")
            return ",".join(info.get("libraries", [])) or "system BLAS"
        except Exception:
            return "unknown BLAS"


def child(args):
    import numpy as np

    rng = np.random.default_rng(args.seed)
    n = args.size
    a = rng.uniform(-1, 1, (n, n)).astype(args.dtype)
    b = rng.uniform(-1, 1, (n, n)).astype(args.dtype)
    c = a @ b  # warm-up: BLAS threads start; under the preload CUDA starts and buffers are made
    times = []
    for _ in range(args.reps):
        t0 = time.perf_counter()
        c = a @ b
        times.append(time.perf_counter() - t0)
    np.save(args.sample, c[:: max(1, n // 64), :: max(1, n // 64)])
    times.sort()
    print(json.dumps({"median_s": times[len(times) // 2], "min_s": times[0], "blas": numpy_blas_name(np),
                      "numpy": np.__version__}))


def run(args, preload):
    env = dict(os.environ)
    env["GEMMLAB_BLAS_VERBOSE"] = "1"
    if preload:
        env["LD_PRELOAD"] = str(Path(args.lib).resolve()) + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    else:
        env.pop("LD_PRELOAD", None)
    sample = Path(tempfile.mkdtemp()) / ("gpu.npy" if preload else "cpu.npy")
    cmd = [sys.executable, __file__, "--child", "--size", str(args.size), "--dtype", args.dtype,
           "--reps", str(args.reps), "--seed", str(args.seed), "--sample", str(sample)]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"{'preloaded' if preload else 'plain'} run failed (exit {p.returncode}):\n{p.stdout}{p.stderr}")
        return None
    result = json.loads(p.stdout.strip().splitlines()[-1])
    result["sample"] = sample
    calls = re.findall(r"gemmlab_blas: (\d+) GEMM calls on the GPU, (\d+) on the CPU.*", p.stderr)
    result["gpu_calls"], result["cpu_calls"] = (int(calls[-1][0]), int(calls[-1][1])) if calls else (0, 0)
    result["report"] = [line for line in p.stderr.splitlines() if line.startswith("gemmlab_blas:")]
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", default=str(ROOT / "build/device/src/blas/libgemmlab_blas.so"),
                    help="libgemmlab_blas.so to preload (default: %(default)s)")
    ap.add_argument("--size", type=int, default=8192, help="n of the n x n x n product (default %(default)s)")
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    ap.add_argument("--reps", type=int, default=3, help="timed products per run, after one warm-up")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--sample", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return 0
    if not Path(args.lib).exists():
        print(f"bench-numpy-blas: {args.lib} not found (build it: cmake --build build/device --target gemmlab_blas)")
        return 2

    import numpy as np

    flops = 2.0 * args.size ** 3
    cpu = run(args, preload=False)
    gpu = run(args, preload=True)
    if not cpu or not gpu:
        return 1
    # The error bound of DESIGN.md on the sampled elements, for each result against the exact
    # product, so twice it between the two: |got - ref| <= 2 * 2 (k + 3) u * (|A| |B|).
    ref, got = np.load(cpu["sample"]), np.load(gpu["sample"])
    rng = np.random.default_rng(args.seed)
    a = rng.uniform(-1, 1, (args.size, args.size)).astype(args.dtype)
    b = rng.uniform(-1, 1, (args.size, args.size)).astype(args.dtype)
    step = max(1, args.size // 64)
    mag = np.abs(a[::step].astype(np.float64)) @ np.abs(b[:, ::step].astype(np.float64))
    del a, b
    u = 2.0 ** -53 if args.dtype == "float64" else 2.0 ** -24
    bound = 2 * 2 * (args.size + 3) * u * mag
    excess = np.abs(got.astype(np.float64) - ref.astype(np.float64)) - bound
    diff_ok = bool(np.all(excess <= 0))
    worst = float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64)) / np.maximum(bound, 1e-300)))

    print(f"NumPy {cpu['numpy']} ({cpu['blas']}), {args.size} x {args.size} x {args.size} {args.dtype} a @ b, "
          f"median of {args.reps} after a warm-up:")
    print(f"  NumPy's CPU BLAS                 {cpu['median_s'] * 1e3:10.1f} ms  {flops / cpu['median_s'] / 1e9:9.1f} GFLOP/s")
    print(f"  LD_PRELOAD=libgemmlab_blas.so    {gpu['median_s'] * 1e3:10.1f} ms  {flops / gpu['median_s'] / 1e9:9.1f} GFLOP/s")
    print(f"  speed-up                         {cpu['median_s'] / gpu['median_s']:10.2f}x")
    for line in gpu["report"]:
        print(f"  {line}")
    print(f"  difference between the two results on a {ref.shape[0]} x {ref.shape[1]} sample of C: at most "
          f"{worst:.2e} of the error bound")
    ok = True
    if gpu["gpu_calls"] == 0:
        print("bench-numpy-blas: no GEMM call reached the GPU (no GPU, or NumPy's BLAS symbols are not "
              "ones libgemmlab_blas.so intercepts)")
        ok = False
    if not diff_ok:
        print("bench-numpy-blas: the preloaded result differs from NumPy's beyond the bound")
        ok = False
    print(f"bench-numpy-blas: {'OK' if ok else 'FAIL'}: speed-up {cpu['median_s'] / gpu['median_s']:.2f}x, "
          f"{gpu['gpu_calls']} GPU call(s), {gpu['cpu_calls']} CPU call(s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
