#!/usr/bin/env bash
# Session 2026-11-29m, call 3: the submitted code (4a4ca62), the whole build tree
# (scripts/pack-device-build.sh). Every ctest and the TF32 and float/double sets of gpu-check
# (bench-tf32, bench-mixed). m4 runs the rest on the same build.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); m3=$(cat build/carry.commit)"
G=build/device/gemmlab
CTEST_JOBS=4 timeout 540 scripts/gpu-check.sh $OUT/gc tests bench-tf32 bench-mixed > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -8 $OUT/gpu-check.out | cut -c1-900
grep -E "tests? failed|Failed|\*\*\*" $OUT/gc/ctest.log | head -5
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
