#!/usr/bin/env bash
# Build 6f45326 (packed): the LLM set warm, its per-row JSON kept.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
cd ..
BUILD_DIR=$PWD/.ab/bin timeout 240 bash scripts/gpu-check.sh $OUT/sets bench-llm > $OUT/gpu-check-llm.log 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "geomean" $OUT/gpu-check-llm.log | head -4
rm -f $OUT/sets/gpu.txt $OUT/sets/gpu-check.log $OUT/sets/bench-llm.log
echo "total $((SECONDS-t0)) s"
