#!/usr/bin/env bash
# Session 2026-11-28f, call 8: the whole build of the final tree (f7's code), every ctest and
# `gemmlab verify` (scripts/gpu-check.sh tests verify, CTEST_JOBS=4).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); f8=$(head -1 build/device/COMMIT)"
CTEST_JOBS=4 timeout 330 scripts/gpu-check.sh $OUT/gc tests verify > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -6 $OUT/gpu-check.out | cut -c1-600
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
