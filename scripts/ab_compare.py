#!/usr/bin/env python3
"""Compares two builds' bench results row by row: each row's speed as a fraction of cuBLAS
(pct_cublas, cuBLAS timed in the same process), new against old.

    scripts/ab_compare.py OLD.json[,OLD2.json...] NEW.json[,NEW2.json...] [--kernels a,b] [--tolerance 0.02]

Several files per side (repeated runs, alternated old/new) are combined per row by the median.
Prints one line per row and a summary; exits 1 when a row of the new build is slower than the
old by more than the tolerance (a fraction: 0.02 = 2%)."""
import argparse
import json
import statistics
import sys


def key(r):
    return (r["dtype"], r.get("precision", "default"), r["layout"], r["op"], r["m"], r["n"], r["k"],
            r.get("batch", 1), r["kernel"])


def load(paths):
    rows = {}
    for path in paths.split(","):
        with open(path) as f:
            for r in json.load(f)["rows"]:
                if r["kernel"] == "cublas" or not r.get("pass", False):
                    continue
                rows.setdefault(key(r), []).append(r["pct_cublas"] / 100.0)
    return {k: statistics.median(v) for k, v in rows.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--kernels", default="", help="only these kernels (comma-separated names)")
    ap.add_argument("--tolerance", type=float, default=0.02)
    a = ap.parse_args()
    old, new = load(a.old), load(a.new)
    only = set(filter(None, a.kernels.split(",")))
    ratios = []
    worst = None
    for k in sorted(set(old) & set(new)):
        if only and k[-1] not in only:
            continue
        ratio = new[k] / old[k]
        ratios.append(ratio)
        dtype, prec, layout, op, m, n, kk, batch, kernel = k
        shape = f"{m}x{n}x{kk}" + (f"@{batch}" if batch != 1 else "")
        flag = "  SLOWER" if ratio < 1 - a.tolerance else ""
        print(f"{dtype:8} {prec:7} {op} {shape:18} {kernel:18} old {old[k]:.3f}x  new {new[k]:.3f}x"
              f"  new/old {ratio:.3f}{flag}")
        if worst is None or ratio < worst[0]:
            worst = (ratio, k)
    if not ratios:
        print("ab_compare: no rows in common")
        return 2
    geo = statistics.geometric_mean(ratios)
    slower = sum(r < 1 - a.tolerance for r in ratios)
    print(f"ab_compare: {len(ratios)} rows, new/old geomean {geo:.3f}, worst {worst[0]:.3f} "
          f"({worst[1][-1]} {worst[1][0]} {worst[1][4]}x{worst[1][5]}x{worst[1][6]} {worst[1][3]}), "
          f"{slower} rows slower than {1 - a.tolerance:.2f}")
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
