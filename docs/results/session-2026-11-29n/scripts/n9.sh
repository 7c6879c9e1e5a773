#!/usr/bin/env bash
# Session 2026-11-29n, call 9: the committed code (92d3985), the whole build tree: the batched and
# half-precision mixed sets, warm and cold (gpu-check), for the closing note beside n5's LLM set.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); n9=$(cat build/carry.commit)"
timeout 480 scripts/gpu-check.sh $OUT/sets bench-batched bench-batched-cold bench-half-mixed bench-half-mixed-cold > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "geomean|exit" $OUT/gpu-check.out | head -24
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
