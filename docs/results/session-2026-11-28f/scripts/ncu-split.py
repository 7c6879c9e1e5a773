#!/usr/bin/env python3
"""Rung 31's time split from the ncu CSVs of a call (ncu-<type>-<size>.csv): the kernels of the
last `gemmlab bench` call in each file, summed by pass, in microseconds.
Usage: ncu-split.py DIR"""
import csv
import glob
import sys

UNITS = {'ns': 1e-3, 'nsecond': 1e-3, 'us': 1.0, 'usecond': 1.0, 'ms': 1e3, 'msecond': 1e3}


def pass_of(name):
    for key, label in (('row_range', 'row_range'), ('row_scale', 'row_scale'),
                       ('split_kernel', 'split'), ('reconstruct', 'reconstruct'),
                       ('native', 'native'), ('ResidueGemm', 'residue_gemms'),
                       ('warp_specialized', 'magnitude_gemm')):
        if key in name:
            return label
    return name[:30]


for path in sorted(glob.glob(sys.argv[1] + '/ncu-*.csv')):
    lines = [l for l in open(path) if l.startswith('"ID"') or '"gpu__time_duration.sum"' in l]
    rows = list(csv.reader(lines))
    head, data = rows[0], rows[1:]
    name, value, unit = head.index('Kernel Name'), head.index('Metric Value'), head.index('Metric Unit')
    seq = [(pass_of(d[name]), float(d[value].replace(',', '')) * UNITS[d[unit]]) for d in data]
    per_call = 10 if any(p == 'row_range' for p, _ in seq) else 6
    total, by_pass = 0.0, {}
    for p, us in seq[-per_call:]:
        by_pass[p] = by_pass.get(p, 0.0) + us
        total += us
    print(path.split('/')[-1], ' '.join(f'{p}={us:.0f}' for p, us in by_pass.items()), f'total={total:.0f}')
