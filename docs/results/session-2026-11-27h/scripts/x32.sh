#!/usr/bin/env bash
# Build 2c699a7 (packed): every kernel one `gemmlab bench --kernels auto` sample launches at 128 x
# 8192 x 2048 nt (ncu, no kernel filter: names and durations of the last launches).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
for s in 128x8192x2048; do
timeout 120 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size --csv $G bench --kernels auto --dtype bf16 --layout row --shapes $s --op nt --reps 3 --min-time 0 > $OUT/ncu-all-$s.csv 2>/dev/null; echo "ncu $s exit $?"
python3 - "$OUT/ncu-all-$s.csv" <<'PY'
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
hdr=rows[0]; mi=hdr.index('Metric Name'); vi=hdr.index('Metric Value'); ii=hdr.index('ID'); ki=hdr.index('Kernel Name')
d=collections.OrderedDict()
for r in rows[1:]: d.setdefault((int(r[ii]),r[ki]),{})[r[mi]]=r[vi]
print(len(d),'launches')
for (i,k),m in list(d.items())[-16:]:
    print(i, m.get('gpu__time_duration.sum'), m.get('launch__grid_size'), m.get('launch__block_size'), k[:100])
PY
done
