#!/usr/bin/env bash
# Build 2c699a7 (packed): the sets on the session's final library, by scripts/gpu-check.sh, in
# two calls (STEPS differs): their summary lines; the per-row JSON kept.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
cd ..
BUILD_DIR=$PWD/.ab/bin timeout ${LIMIT:-560} bash scripts/gpu-check.sh $OUT/sets $STEPS > $OUT/gpu-check.log 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
sed -n '/gpu-check summary/,$p' $OUT/gpu-check.log
rm -f $OUT/sets/gpu.txt $OUT/sets/gpu-check.log $OUT/sets/*.log
echo "total $((SECONDS-t0)) s"
