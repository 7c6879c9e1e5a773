"""fill_k of a tile from one block per SM at two k, the way rung 25's 250 was read
(docs/auto.md): time = c (k + fill) for two squares whose tiles number at most one per SM,
solved for fill, per op pair, from a gemmlab_tile_sweep log (o8)."""
import re, sys, collections
PAIRS = {"tf32 64x32x32 w32x16 s4": (384, 512), "tf32 32x32x32 w16x16 s5": (128, 256),
         "tf32 64x64x32 w32x32 s4": (128, 256), "tf32x3 32x32x32 w16x16 s5": (128, 256)}
t = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    m = re.match(r"(\S+ \d+x\d+x\d+ w\d+x\d+ s\d)\s+f32\s+(\w\w)\s+(\d+)\s+\d+\s+\d+\s+x1\s+([\d.]+) ms", line.replace("X ", " "))
    if m: t[(m.group(1), m.group(2))][int(m.group(3))] = float(m.group(4)) * 1000
for (name, op), times in sorted(t.items()):
    if name not in PAIRS: continue
    a, b = PAIRS[name]
    if a in times and b in times:
        c = (times[b] - times[a]) / (b - a)
        print(f"{name} {op}: {times[a]:.1f} us at {a}^3, {times[b]:.1f} at {b}^3 -> fill {times[a] / c - a:.0f}")
