#!/usr/bin/env bash
# Session 2026-11-28e, call 10: the whole build of the submitted code (scripts/pack-device-build.sh
# at 8c5fd00) carried as build/carry.tgz: scripts/gpu-check.sh's tests step (every ctest, GPU
# tests included, four at a time), then `gemmlab verify --quick` of rung 31 and auto under both
# precisions (rung 31 changed since e4's full verify).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u)"
CTEST_JOBS=4 timeout 400 scripts/gpu-check.sh $OUT/gc tests > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-600
grep -E "tests passed|tests failed|\*\*\*Failed" $OUT/gc/ctest.log | head -12
LD_LIBRARY_PATH=build/device timeout 150 build/device/gemmlab verify --quick --kernels auto,int8_emulation --precision default,int8_emulation --dtype f32,f64 --seed 8 > $OUT/verify-quick.log 2>&1
echo "verify exit $? at $((SECONDS-t0)) s"; grep -E "^verify:|FAIL" $OUT/verify-quick.log | head -5
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
