#!/usr/bin/env bash
# Session 2026-11-29r, call 6, one H200: the packed build of build/carry.commit (04a4e58, the
# session's code). The LLM set warm and cold, the mixed set warm and cold and the batched set
# warm, in one gpu-check run.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
timeout 585 bash scripts/gpu-check.sh $OUT/gc bench-llm bench-llm-cold bench-batched bench-mixed bench-mixed-cold > $OUT/gc.out 2>&1; echo "gpu-check sets exit $? at $((SECONDS-t0)) s"
grep -E "exit|geomean" $OUT/gc.out | grep -v "^== " | cut -c1-700
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
