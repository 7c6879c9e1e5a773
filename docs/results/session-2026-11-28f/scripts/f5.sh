#!/usr/bin/env bash
# Session 2026-11-28f, call 5: f5 = f4 with the split passes' tile fetch forming one address and
# seven offsets. Rung 31's Ozaki GPU tests on f5; every rung-31 kernel's time under ncu on f4 and
# f5 in turn (float 8192^3, double 4096^3); then scripts/gpu-check.sh's ozaki step on f5.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p build/run/f4 build/run/f5 && tar xzf build/carry.tgz -C build/run/f4 && tar -C build/run/f5 -xJf build/f5.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); f4=$(head -1 build/run/f4/COMMIT); f5=$(head -1 build/run/f5/COMMIT)"
B=$PWD/build/run/f5; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
timeout 240 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for v in f4 f5; do mkdir -p $OUT/ncu-$v; for c in "f32 8192" "f64 4096"; do set -- $c
  LD_LIBRARY_PATH=$PWD/build/run/$v timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|reconstruct|native_kernel' $PWD/build/run/$v/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$v/ncu-$1-$2.csv 2>&1
done; echo "$v split: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu-$v 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"; done
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1500
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
