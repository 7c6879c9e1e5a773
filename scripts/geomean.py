#!/usr/bin/env python3
"""Geometric mean of each kernel's share of cuBLAS over the rows of a `gemmlab bench --json`
file, per dtype and precision, with the worst shape: how the mixed-shape targets of
docs/ladder.md are read.  Usage: scripts/geomean.py BENCH.json [KERNEL ...] (default: auto)."""
import json
import math
import sys


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
            batch = worst.get("batch", 1)  # strided batched rows (files before it have none)
            shape = f"{worst['m']}x{worst['n']}x{worst['k']}" + (f"@{batch}" if batch != 1 else "")
            print(f"geomean {kernel} {dtype} {precision}: {geo:.3f}x cuBLAS over {len(rs)} shapes; "
                  f"worst {shape} {worst['pct_cublas'] / 100:.3f}x")
    if failed:
        print(f"{len(failed)} rows FAILED their check")
        sys.exit(1)


if __name__ == "__main__":
    main()
