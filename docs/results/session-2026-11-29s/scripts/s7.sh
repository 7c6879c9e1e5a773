#!/usr/bin/env bash
# Session 2026-11-29s, call 7, one H200: the build of call 6 (e9cd94b). The batched set warm
# and cold in one gpu-check run (its double rows may take the changed 128 x 64 candidate).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
scripts/gpu-check.sh $OUT/gc bench-batched bench-batched-cold > $OUT/gc.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "geomean" $OUT/gc.out | head -12
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
