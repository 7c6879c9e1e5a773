#!/usr/bin/env bash
# Session 2026-11-28g, call 4: g4 = g3 with float's magnitude GEMM over 2048 values of k. The
# CPU and GPU Ozaki tests; every rung-31 kernel under ncu on g3 and g4, float 8192^3 and 4096^3;
# cuBLAS DGEMM, auto and rung 31 on ten double shapes (for auto's rung-31 model); then
# scripts/gpu-check.sh's ozaki step (bench beside DGEMM / SGEMM, accuracy table) on g4.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in g3 g4; do mkdir -p build/run/$v && tar -C build/run/$v -xJf build/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); g4=$(cat build/run/g4/COMMIT | tr '\n' ' ')"
B=$PWD/build/run/g4; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
for t in test_ozaki test_ozaki_gpu; do
  timeout 240 $B/tests/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ') at $((SECONDS-t0)) s"
  grep -E "Failure" -A4 $OUT/$t.log | head -12
done
for v in g3 g4; do mkdir -p $OUT/ncu-$v; for c in "f32 8192" "f32 4096"; do set -- $c
  LD_LIBRARY_PATH=$PWD/build/run/$v timeout 100 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $PWD/build/run/$v/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$v/ncu-$1-$2.csv 2>&1
done; echo "$v split: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu-$v 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"; done
timeout 200 $B/gemmlab bench --dtype f64 --kernels cublas,auto,int8_emulation --shapes 4096x4096x8192,8192x8192x4096,6144x6144x4096,4096x4096x16384,4096x8192x8192,3072x3072x8192,2048x8192x8192,4096x4096x4096,2048x2048x8192,3072x3072x4096 > $OUT/bench-f64-model.log 2>&1
echo "bench exit $? at $((SECONDS-t0)) s"
grep -E "row nn|^0 |^- |^31 " $OUT/bench-f64-model.log | awk '/row nn/ {shape = $4} !/row nn/ {printf "%s %s %s ms %s%%\n", shape, $2, $4, $7}'
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1500
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
