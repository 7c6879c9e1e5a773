#!/usr/bin/env bash
# Session 2026-11-29o, call 1: where double and TF32 mode trail at medium squares.
# `tune --explain` (f64, f32 in TF32 mode) at 256^3-2048^3, then cuBLAS's kernels there by ncu.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/o1bin; rm -rf $B && mkdir -p $B && tar xJf build/o1.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(head -1 $B/COMMIT)"
t0=$SECONDS
S=256x256x256,512x512x512,1000x1000x1000,1024x1024x1024,2048x2048x2048
timeout 200 $B/gemmlab tune --explain $S --op nt,tn --layout row --dtype f64 > $OUT/explain-f64.txt 2>&1; echo "explain f64 exit $? at $((SECONDS-t0)) s"
timeout 150 $B/gemmlab tune --explain $S --op nt,tn --layout row --dtype f32 --precision tf32 > $OUT/explain-tf32.txt 2>&1; echo "explain tf32 exit $? at $((SECONDS-t0)) s"
grep -E "^f|auto \(" $OUT/explain-*.txt
for d in f64 f32; do
  P=default; [ $d = f32 ] && P=tf32
  timeout 100 ncu --clock-control none --cache-control all --kernel-name-base demangled -k 'regex:^(?!.*fill)' \
    --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active \
    $B/gemmlab bench --dtype $d --precision $P --kernels cublas,auto --shapes 256x256x256,512x512x512,1024x1024x1024 --op nt --reps 1 --min-time 0 > $OUT/ncu-$d.txt 2>&1
  echo "ncu $d exit $? at $((SECONDS-t0)) s"
done
python3 - $OUT/ncu-f64.txt $OUT/ncu-f32.txt <<'PY'
import sys,re
for f in sys.argv[1:]:
    print('==',f)
    name=None; seen={}
    for line in open(f):
        m=re.match(r'\s\s(\S.*?)\s\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)',line)
        if m: name=m.group(1)[:90]; cur=[]; continue
        m=re.match(r'\s+(gpu__time_duration.sum|launch__grid_size|launch__block_size|launch__registers_per_thread|sm__pipe_\w+)\s+\S+\s+([\d.,]+)',line)
        if m and name: cur.append(m.group(2));
        if m and name and len(cur)==6:
            key=(name,tuple(cur[1:4]))
            seen.setdefault(key,[]).append(cur[0]); 
    for (n,g),t in seen.items(): print(n,'grid/block/regs',g,'us',t[:6])
PY
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
