#!/usr/bin/env bash
# The LLM set warm and cold on one build (PACK: the packed build's name).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf ${PACK:-pr}.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
cd ..
BUILD_DIR=$PWD/.ab/bin timeout 500 bash scripts/gpu-check.sh $OUT/sets bench-llm bench-llm-cold > $OUT/gpu-check.log 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "geomean" $OUT/gpu-check.log | head -4
rm -f $OUT/sets/gpu.txt $OUT/sets/gpu-check.log $OUT/sets/bench-llm.log $OUT/sets/bench-llm-cold.log
