#!/usr/bin/env python3
"""Rung 31's calls in an nsys cuda_gpu_trace CSV: for each call (the first memset before a
row_range_kernel to the end of its native_kernel) the wall time on the GPU, the sum of its
operations' durations, the time between them, and the time per pass. Prints every call and the
median call. Usage: nsys-gaps.py TRACE.csv"""
import csv
import statistics
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
key = lambda part: next(k for k in rows[0] if part in k)
start_k, dur_k, name_k = key('Start'), key('Duration'), key('Name')
ops = [(int(float(r[start_k])), int(float(r[dur_k])), r[name_k]) for r in rows]
ops.sort()


def label(name):
    for part, lab in (('row_range', 'row_range'), ('row_scale', 'row_scale'), ('split_kernel', 'split'),
                      ('ResidueGemm', 'residue_gemms'), ('warp_specialized', 'magnitude_gemm'),
                      ('reconstruct', 'reconstruct'), ('native_kernel', 'native'), ('memset', 'memset')):
        if part in name.lower() or part in name:
            return lab
    return 'other:' + name[:40]


calls, current = [], None
for i, (s, d, n) in enumerate(ops):
    lab = label(n)
    if lab == 'memset' and i + 1 < len(ops) and label(ops[i + 1][2]) == 'row_range' and current is None:
        current = []
    if current is not None:
        current.append((s, d, lab))
        if lab == 'native':
            calls.append(current)
            current = None
summaries = []
for c in calls:
    wall = (c[-1][0] + c[-1][1] - c[0][0]) / 1e3
    busy = sum(d for _, d, _ in c) / 1e3
    by = {}
    for _, d, lab in c:
        by[lab] = by.get(lab, 0) + d / 1e3
    summaries.append((wall, busy, by, len(c)))
    print(f"call: wall {wall:.1f} us, operations {busy:.1f} us, between them {wall - busy:.1f} us, "
          f"{len(c)} operations; " + ' '.join(f"{k}={v:.0f}" for k, v in by.items()))
if summaries:
    med = sorted(summaries)[len(summaries) // 2]
    print(f"median call: wall {med[0]:.1f} us, operations {med[1]:.1f} us, between {med[0] - med[1]:.1f} us")
