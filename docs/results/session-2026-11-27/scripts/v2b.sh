#!/usr/bin/env bash
# The LLM set warm and cold, and the batched set warm, on v2a's build (same machine, still warm).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
B=$PWD/../build/v2
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
[ -x $B/gemmlab ] || { echo "no build at $B"; exit 3; }
(cd tree && BUILD_DIR=$B timeout 560 bash scripts/gpu-check.sh $OUT/check ${STEPS:-bench-llm bench-llm-cold bench-batched} > $OUT/gpu-check.log 2>&1); echo "gpu-check exit $? at $((SECONDS-t0)) s"
sed -n '/summary/,$p' $OUT/gpu-check.log | head -20
cd $OUT && tar czf v2b.tgz *.log check && rm -rf *.log check
