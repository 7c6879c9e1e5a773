#!/usr/bin/env bash
# Where the few-tile rows' time goes: ncu kernel durations and an nsys timeline of auto, cuBLAS.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u)"; which nsys ncu
S=64x2048x2048,128x3584x3584
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread --csv $G bench --dtype bf16 --kernels cublas,auto --layout row --op nt --shapes $S --reps 3 --min-time 0 > $OUT/ncu.csv 2> $OUT/ncu.err; echo "ncu exit $?"
python3 - $OUT/ncu.csv <<'PY'
import csv,sys
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index('Kernel Name'); mi=h.index('Metric Name'); vi=h.index('Metric Value'); ii=h.index('ID')
d={}
for r in rows[1:]:
    d.setdefault((r[ii],r[ki][:90]),{})[r[mi]]=r[vi]
for (i,k),m in d.items(): print(i,k,m.get('gpu__time_duration.sum'),m.get('launch__grid_size'),m.get('launch__block_size'),m.get('launch__registers_per_thread'))
PY
timeout 120 nsys profile -o $OUT/tl --force-overwrite true -t cuda $G bench --dtype bf16 --kernels cublas,auto --layout row --op nt --shapes $S --reps 20 --min-time 0 > $OUT/nsys.out 2>&1; echo "nsys exit $?"
nsys stats --report cuda_gpu_trace --format csv -o $OUT/trace $OUT/tl.nsys-rep > /dev/null 2>&1; echo "stats exit $?"; ls $OUT
python3 - $OUT/trace_cuda_gpu_trace.csv <<'PY'
import csv,sys
rows=list(csv.DictReader(open(sys.argv[1])))
print(list(rows[0].keys()))
prev_end=None
for r in rows[-120:]:
    s=int(r['Start (ns)']); d=int(r['Duration (ns)']); n=r['Name'][:70]
    gap = s-prev_end if prev_end else 0
    print('%12d %8d gap %8d  %s'%(s,d,gap,n)); prev_end=s+d
PY
rm -f $OUT/tl.nsys-rep $OUT/tl.sqlite
