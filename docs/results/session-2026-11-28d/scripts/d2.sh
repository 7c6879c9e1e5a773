#!/usr/bin/env bash
# Session 2026-11-28d, call 2: where rung 31's time goes (oz1): each kernel's duration under ncu
# (one pass, gpu__time_duration, clocks left alone) for float and double at 4096-16384; then
# double at 16384 timed again, oz1 before fin4 this time.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in fin4 oz1; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u)"
B=$PWD/.ab/run/oz1/bin; export LD_LIBRARY_PATH=$B
for t in f32 f64; do for s in 4096 8192 16384; do
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype $t --sizes $s --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$t-$s.csv 2>&1
  echo "== ncu $t $s exit $? at $((SECONDS-t0)) s"
done; done
for v in oz1 fin4; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 150 $B/gemmlab bench --kernels cublas,int8_emulation --dtype f64 --sizes 16384 > $OUT/f64-$v.log 2>&1; echo "== $v f64 (exit $?) at $((SECONDS-t0)) s"
  grep -hE "int8_emulation|cublas" $OUT/f64-$v.log | cut -c1-120
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
