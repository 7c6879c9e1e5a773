#!/usr/bin/env python3
"""Markdown tables of a `gemmlab bench --json` run, for docs/ladder.md and the README.

usage: scripts/ladder_table.py BENCH.json [--readme]
Default: per rung, GFLOP/s and % of cuBLAS at every size, one table per dtype.
--readme: one compact table (rung, technique, seed, f32 GFLOP/s at the largest size, % cuBLAS).
Only rows that passed the correctness check are shown; a failing row prints as FAIL.
"""
import json
import subprocess
import sys
from collections import defaultdict


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0]) as f:
        run = json.load(f)
    cells = defaultdict(dict)  # (dtype, number, kernel) -> size -> row
    sizes = set()
    for r in run["rows"]:
        size = r["m"] if r["m"] == r["n"] == r["k"] else f'{r["m"]}x{r["n"]}x{r["k"]}'
        sizes.add(size)
        cells[(r["dtype"], r["number"], r["kernel"])][size] = r
    sizes = sorted(sizes, key=lambda s: (isinstance(s, str), s))
    dev = run.get("device") or {}
    print(f'Measured on {dev.get("name", "CPU")} ({dev.get("sm_count", "?")} SMs), {run["date"]}, '
          f'with `{run["command"]}` (seed {run["seed"]}).\n')

    def fmt(r):
        if r is None:
            return "-"
        if not r["pass"]:
            return "FAIL"
        pct = f' ({r["pct_cublas"]:.0f}%)' if r.get("pct_cublas") is not None else ""
        return f'{r["gflops"]:,.0f}{pct}'

    if "--readme" in sys.argv:
        info = {}
        try:
            listing = subprocess.run(["build/release/gemmlab", "list"], capture_output=True, text=True).stdout
        except OSError:
            listing = ""
        for line in listing.splitlines():
            parts = line.split(None, 4)
            if len(parts) == 5 and parts[0].isdigit():
                info.setdefault(int(parts[0]), (parts[3], parts[4]))
        big = sizes[-1]
        print(f"| # | rung | seed | f32 GFLOP/s at {big} (% of cuBLAS) |")
        print("|---|---|---|---|")
        for (dtype, number, kernel), by_size in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1] if kv[0][1] >= 0 else 1 << 30)):
            if dtype == "f32":
                print(f"| {number if number >= 0 else '-'} | {kernel} | {info.get(number, ('', ''))[0]} | {fmt(by_size.get(big))} |")
        return 0

    for dtype in sorted({k[0] for k in cells}):
        print(f"**{dtype}**, GFLOP/s (% of cuBLAS in the same run)\n")
        print("| # | rung | " + " | ".join(str(s) for s in sizes) + " |")
        print("|---|---|" + "---|" * len(sizes))
        for (dt, number, kernel), by_size in sorted(cells.items(), key=lambda kv: kv[0][1] if kv[0][1] >= 0 else 1 << 30):
            if dt == dtype:
                print(f"| {number if number >= 0 else '-'} | {kernel} | " + " | ".join(fmt(by_size.get(s)) for s in sizes) + " |")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
