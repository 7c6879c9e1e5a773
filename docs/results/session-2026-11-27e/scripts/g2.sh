#!/usr/bin/env bash
# On g1's build: the LLM and batched sets, warm and cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/g
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree $(cat .ab/COMMIT)"
t0=$SECONDS
[ -x $B/gemmlab ] || { echo "no build at $B"; exit 1; }
BUILD_DIR=$B timeout 590 bash scripts/gpu-check.sh $OUT/sets ${SETS:-bench-llm bench-llm-cold bench-batched bench-batched-cold} > $OUT/gpu-check-sets.log 2>&1; echo "gpu-check sets exit $? at $((SECONDS-t0)) s"
sed -n '/summary/,$p' $OUT/gpu-check-sets.log | head -14
tar -C $OUT -czf $OUT/logs.tgz sets 2>/dev/null && rm -rf $OUT/sets
echo "total $((SECONDS-t0)) s"
