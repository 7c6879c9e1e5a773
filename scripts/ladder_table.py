#!/usr/bin/env python3
"""Markdown tables of a `gemmlab bench --json` run, for docs/ladder.md and the README.

usage: scripts/ladder_table.py BENCH.json [--readme [MORE.json ...] [--size N] [--dtypes A,B]]
Default: per rung, GFLOP/s and % of cuBLAS at every size, one table per dtype.
--readme: one compact table over one or more runs (e.g. the f32/f64 bench and the half one):
a row per rung, a column per dtype (--dtypes: these, in this order) at size N (default: the
largest square size of the first run), each cell GFLOP/s and x cuBLAS of the same run; rows in
TF32 math are marked.
Only rows that passed the correctness check are shown; a failing row prints as FAIL.
"""
import json
import sys
from collections import defaultdict


def format_cell(r, as_ratio: bool) -> str:
    """GFLOP/s and the same run's cuBLAS as x (README; TF32 math marked) or % (ladder.md)."""
    if r is None:
        return "-"
    if not r["pass"]:
        return "FAIL"
    vs = ""
    if r.get("pct_cublas") is not None:
        vs = f' ({r["pct_cublas"] / 100:.2f}x)' if as_ratio else f' ({r["pct_cublas"]:.0f}%)'
    tf32 = " TF32" if as_ratio and r.get("precision") == "tf32" else ""
    return f'{r["gflops"]:,.0f}{vs}{tf32}'


def readme_table(paths, size, wanted) -> int:
    """The --readme table: rungs x dtypes at one square size, over the runs in `paths`."""
    runs = []
    for path in paths:
        with open(path) as f:
            runs.append(json.load(f))
    squares = [r for run in runs for r in run["rows"] if r["m"] == r["n"] == r["k"] and r["batch"] == 1]
    if size is None:
        size = max(r["m"] for r in runs[0]["rows"] if r["m"] == r["n"] == r["k"])
    dtypes, cells, names = [], {}, {}
    for r in squares:
        if r["m"] != size or (wanted and r["dtype"] not in wanted):
            continue
        if r["dtype"] not in dtypes:
            dtypes.append(r["dtype"])
        cells[(r["number"], r["dtype"])] = r
        names[r["number"]] = r["kernel"]
    if wanted:
        dtypes = [d for d in wanted if d in dtypes]
    for run in runs:
        dev = run.get("device") or {}
        print(f'- {dev.get("name", "CPU")} ({dev.get("sm_count", "?")} SMs), {run["date"]}: '
              f'`{run["command"]}` (seed {run["seed"]})')
    print()

    print("| # | rung | " + " | ".join(f"{d} {size}^3 GFLOP/s" for d in dtypes) + " |")
    print("|---|---|" + "---|" * len(dtypes))
    for number in sorted(names, key=lambda n: n if n >= 0 else 1 << 30):
        row = " | ".join(format_cell(cells.get((number, d)), as_ratio=True) for d in dtypes)
        print(f"| {number if number >= 0 else '-'} | {names[number]} | {row} |")
    return 0


def main() -> int:
    argv = sys.argv[1:]
    size, wanted = None, []
    if "--size" in argv:
        i = argv.index("--size")
        size = int(argv[i + 1])
        del argv[i:i + 2]
    if "--dtypes" in argv:
        i = argv.index("--dtypes")
        wanted = argv[i + 1].split(",")
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    if "--readme" in argv and args:
        return readme_table(args, size, wanted)
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

    for dtype in sorted({k[0] for k in cells}):
        print(f"**{dtype}**, GFLOP/s (% of cuBLAS in the same run)\n")
        print("| # | rung | " + " | ".join(str(s) for s in sizes) + " |")
        print("|---|---|" + "---|" * len(sizes))
        for (dt, number, kernel), by_size in sorted(cells.items(), key=lambda kv: kv[0][1] if kv[0][1] >= 0 else 1 << 30):
            if dt == dtype:
                print(f"| {number if number >= 0 else '-'} | {kernel} | " + " | ".join(format_cell(by_size.get(s), as_ratio=False) for s in sizes) + " |")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
