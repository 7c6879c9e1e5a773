#!/usr/bin/env bash
# Session 2026-11-28d, call 5: oz4 = oz3 with 21-bit pieces for the wide residues and a
# workspace pool that keeps what its largest call asked for (up to 1/8 of the memory): its
# Ozaki, graph and GEMM tests, oz3 / oz4 timed one after the other, each kernel under ncu.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in oz3 oz4; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); oz4=$(cat .ab/run/oz4/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/oz4/bin
for t in test_ozaki_gpu test_graph_gpu test_gemm_gpu; do
  LD_LIBRARY_PATH=$B timeout 240 $B/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ') at $((SECONDS-t0)) s"
  grep -E "Failure" -A4 $OUT/$t.log | head -12
done
for v in oz3 oz4; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 150 $B/gemmlab bench --kernels cublas,int8_emulation --dtype f64 --sizes 4096,8192,16384 > $OUT/f64-$v.log 2>&1; echo "== $v f64 (exit $?) at $((SECONDS-t0)) s"
  LD_LIBRARY_PATH=$B timeout 150 $B/gemmlab bench --kernels cublas,int8_emulation --dtype f32 --sizes 4096,8192,16384 > $OUT/f32-$v.log 2>&1; echo "== $v f32 (exit $?) at $((SECONDS-t0)) s"
  grep -hE "^f|int8_emulation|cublas" $OUT/f64-$v.log $OUT/f32-$v.log | cut -c1-120
done
B=$PWD/.ab/run/oz4/bin; export LD_LIBRARY_PATH=$B
K='regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel'
for t in f64; do for s in 4096 8192; do
  timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k "$K" $B/gemmlab bench --kernels int8_emulation --dtype $t --sizes $s --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$t-$s.csv 2>&1
  echo "== ncu $t $s exit $? at $((SECONDS-t0)) s"
done; done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
