"""fill_k of rung 16/17 tiles from o10/batched.txt, as docs/auto.md measures it: each strided
batch's time against the model without a fill (auto_select.cu's model_time: the busiest SM's
tiles at the tile's rate, linear utilisation below the saturating warps), read as
k * (measured / modelled - 1), the median over the shapes."""
import re, statistics, sys
SMS, GHZ = 132, 1.98
# name: (bm, bn, warps, blocks per SM, rate GFLOP/s at 4096^3/8192^3, saturating warps)
TILES = {
    "tf32x3 64x32x32": (64, 32, 4, 3, 31400, 8),
    "tf32x3 32x32x32": (32, 32, 4, 4, 22700, 8),
    "tf32 32x32x32": (32, 32, 4, 4, 46400, 5),
    "tf32 64x32x32": (64, 32, 4, 3, 61200, 5),
    "tf32 64x64x32": (64, 64, 4, 2, 82500, 8),
}
fills = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+ \d+x\d+x\d+)\S*.*f32\s+nn\s+(\d+)\s+(\d+)\s+(\d+)\s+x(\d+)\s+([\d.]+) ms", line)
    if not m or m.group(1) not in TILES: continue
    bm, bn, warps, bps, rate, sat = TILES[m.group(1)]
    M, N, K, B = (int(m.group(i)) for i in range(2, 6))
    tiles = -(-M // bm) * -(-N // bn) * B
    per_sm = -(-tiles // SMS)
    util = min(1.0, min(per_sm, bps) * warps / sat)
    model_us = 2 * per_sm * bm * bn * K / (rate / (SMS * GHZ) * GHZ * util) / 1000
    meas_us = float(m.group(6)) * 1000
    fills.setdefault(m.group(1), []).append(K * (meas_us / model_us - 1))
for name, f in fills.items():
    print(f"{name}: fill_k median {statistics.median(f):.0f} over {len(f)} shapes (range {min(f):.0f}-{max(f):.0f})")
