#!/usr/bin/env python3
"""Geometric mean of each kernel's share of cuBLAS over the rows of a `gemmlab bench --json`
file, per dtype and precision, with the worst shape: how the mixed-shape targets of
docs/ladder.md are read.  Usage: scripts/geomean.py BENCH.json [KERNEL ...] (default: auto)."""
import json
import math
import sys


def label(r):
    """MxNxK[@batch] [op]: the row's shape, its batch when strided batched, its op flags."""
    batch = r.get("batch", 1)  # strided batched rows (files before it have none)
    shape = f"{r['m']}x{r['n']}x{r['k']}" + (f"@{batch}" if batch != 1 else "")
    return shape + (f" {r['op']}" if r.get("op") else "")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = json.load(open(sys.argv[1]))["rows"]
    kernels = sys.argv[2:] or ["auto"]
    failed = [r for r in rows if not r["pass"]]
    for kernel in kernels:
        groups = {}
        for r in rows:
            if r["kernel"] == kernel and r["pct_cublas"]:
                groups.setdefault((r["dtype"], r["precision"]), []).append(r)
        for (dtype, precision), rs in sorted(groups.items()):
            ratios = [r["pct_cublas"] / 100 for r in rs]
            geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            worst = min(rs, key=lambda r: r["pct_cublas"])
            line = (f"geomean {kernel} {dtype} {precision}: {geo:.3f}x cuBLAS over {len(rs)} shapes; "
                    f"worst {label(worst)} {worst['pct_cublas'] / 100:.3f}x")
            # Issue 10's large-k rule: m n <= 1024^2 and k >= 8192, one batch.
            large_k = [r for r in rs if r["m"] * r["n"] <= 1024 * 1024 and r["k"] >= 8192
                       and r.get("batch", 1) == 1]
            if large_k:
                lk = min(large_k, key=lambda r: r["pct_cublas"])
                line += f"; large k: {len(large_k)} rows, worst {label(lk)} {lk['pct_cublas'] / 100:.3f}x"
            print(line)
    if failed:
        print(f"{len(failed)} rows FAILED their check")
        sys.exit(1)


if __name__ == "__main__":
    main()
