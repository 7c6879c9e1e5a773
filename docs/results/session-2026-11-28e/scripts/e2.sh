#!/usr/bin/env bash
# Session 2026-11-28e, call 2: e2 = e1 with the magnitude GEMM over a sample of k (at most 8
# blocks of 512 spread over k). test_ozaki_gpu (with the printed error ratios of a caller's
# modulus counts), the kernels' times under ncu at 8192^3 double, then gpu-check's ozaki step.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p .ab/run/e2 && tar -C .ab/run/e2 -xJf .ab/e2.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); e2=$(cat .ab/run/e2/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/e2/bin; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
for t in test_ozaki_gpu test_graph_gpu; do
  timeout 240 $B/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ') at $((SECONDS-t0)) s"
  grep -E "Failure" -A4 $OUT/$t.log | head -12
done
grep -E "count's bound|adversarial" $OUT/test_ozaki_gpu.log | head -12
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype f64 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-f64-8192.csv 2>&1
echo "ncu exit $? at $((SECONDS-t0)) s"
python3 docs/results/session-2026-11-28d/scripts/ncu-split.py $OUT 2>&1 | tail -12
BUILD_DIR=$B timeout 420 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1500
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
