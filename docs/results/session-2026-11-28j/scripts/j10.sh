#!/usr/bin/env bash
# Session 2026-11-28j, call 10: j10 = the submitted tree (auto's double model refitted, 4096^3
# on rung 31), the whole build tree (scripts/pack-device-build.sh). Every ctest and `gemmlab
# verify` (scripts/gpu-check.sh tests verify) and its ozaki step; the fourteen double shapes of
# j9 beside auto; double 4096^3 on `--inputs wide`.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); j10=$(cat build/carry.commit)"
CTEST_JOBS=4 timeout 400 scripts/gpu-check.sh $OUT/gc tests verify ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -8 $OUT/gpu-check.out | cut -c1-1500
timeout 60 build/device/gemmlab bench --dtype f64 --kernels cublas,auto,int8_emulation --shapes 4096x4096x4096,3072x3072x6144,2048x2048x8192,3072x3072x4096,4096x4096x8192 > $OUT/bench-f64-line.log 2>&1; echo "bench exit $? at $((SECONDS-t0)) s"
grep -E "^f64 row|^(0|-|31) " $OUT/bench-f64-line.log | cut -c1-100
timeout 30 build/device/gemmlab bench --dtype f64 --sizes 4096 --kernels cublas,auto,int8_emulation --inputs wide --reps 3 --min-time 0 > $OUT/bench-f64-wide.log 2>&1; grep -E "^(0|-|31) " $OUT/bench-f64-wide.log | cut -c1-100
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
