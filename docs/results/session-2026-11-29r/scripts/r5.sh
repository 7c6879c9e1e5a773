#!/usr/bin/env bash
# Session 2026-11-29r, call 5, one H200: the packed build of build/carry.commit (04a4e58, the
# session's code). Every ctest (gpu-check's tests step, four at a time), then the half mixed set
# warm and cold and the batched set cold, as gpu-check runs them.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
CTEST_JOBS=4 timeout 300 bash scripts/gpu-check.sh $OUT/tests tests > $OUT/tests.out 2>&1; echo "gpu-check tests exit $? at $((SECONDS-t0)) s"
grep -hE "tests passed|tests failed|\(Failed\)|\*\*\*Timeout|\*\*\*Exception" $OUT/tests.out $OUT/tests/*.log 2>/dev/null | head -12
left=$((580 - SECONDS + t0))
timeout $left bash scripts/gpu-check.sh $OUT/gc bench-half-mixed bench-half-mixed-cold bench-batched-cold > $OUT/gc.out 2>&1; echo "gpu-check sets exit $? at $((SECONDS-t0)) s"
grep -E "exit|geomean" $OUT/gc.out | cut -c1-700
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
