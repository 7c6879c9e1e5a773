#!/usr/bin/env bash
# Session 2026-11-28e, call 4: the whole build (scripts/pack-device-build.sh, at 86ed57b)
# carried as build/carry.tgz: scripts/gpu-check.sh's tests (every ctest, GPU tests
# included, four at a time) and verify (`gemmlab verify`, every rung, type and case) steps.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(git log --oneline -1 | cut -c1-60)"
CTEST_JOBS=4 timeout 560 scripts/gpu-check.sh $OUT/gc tests verify > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -6 $OUT/gpu-check.out | cut -c1-600
grep -E "^verify:|FAIL" $OUT/gc/verify.log | head -8
grep -E "tests passed|tests failed|Failed|\*\*\*" $OUT/gc/ctest.log | head -12
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
