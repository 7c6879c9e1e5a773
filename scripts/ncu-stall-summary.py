#!/usr/bin/env python3
"""Sums an ncu source page's warp-stall samples over a kernel's SASS, and counts the executed
instructions of its hot loop by opcode.

Make the input from one profiled launch:
    ncu --clock-control none -k regex:KERNEL -c 1 --set full -o rep gemmlab bench ...
    ncu -i rep.ncu-rep --page source --csv --print-source sass > sass.csv
Then:
    scripts/ncu-stall-summary.py sass.csv [MIN_EXECUTIONS] [--lines]
prints each stall reason's share of all samples, and the opcodes of the instructions executed at
least MIN_EXECUTIONS times (default 1e6: the main loop of a large GEMM) with their execution
counts; --lines also lists those instructions one by one with their stall samples.
"""

import collections
import csv
import sys

REASONS = ["stall_wait", "stall_math", "stall_short_sb", "stall_long_sb", "stall_barrier",
           "stall_mio", "stall_dispatch", "stall_selected", "stall_not_selected", "stall_lg",
           "stall_branch_resolving", "stall_no_inst"]


def main():
    args = [a for a in sys.argv[1:] if a != "--lines"]
    if not args:
        sys.exit(__doc__)
    with open(args[0]) as f:
        next(f)  # the "Kernel Name" line above the header
        rows = list(csv.DictReader(f))
    threshold = float(args[1]) if len(args) > 1 else 1e6

    total = sum(int(r["Warp Stall Sampling (All Samples)"] or 0) for r in rows)
    share = {reason: 0 for reason in REASONS}
    for r in rows:
        for reason in REASONS:
            share[reason] += int(r[reason] or 0)
    print("total samples", total,
          {reason: round(100 * n / total, 1) for reason, n in share.items()} if total else {})

    opcodes = collections.Counter()
    for r in rows:
        executed = int(r["Instructions Executed"] or 0)
        if executed < threshold:
            continue
        words = r["Source"].split()
        opcode = words[1] if words[0].startswith("@") else words[0]
        opcodes[opcode.split(".")[0]] += executed
        if "--lines" in sys.argv:
            stalls = {reason[6:]: r[reason] for reason in REASONS if int(r[reason] or 0) > 0}
            print(r["Address"][-5:], executed, r["Source"].strip()[:70],
                  r["Warp Stall Sampling (All Samples)"], stalls)
    print(sorted(opcodes.items(), key=lambda item: -item[1]))


if __name__ == "__main__":
    main()
