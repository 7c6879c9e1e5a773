#!/usr/bin/env bash
# The submitted build (d96daf1): the batched and half-precision mixed sets, warm and cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf fin2.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
cd ..
BUILD_DIR=$PWD/.ab/bin timeout 470 bash scripts/gpu-check.sh $OUT/sets bench-batched bench-batched-cold bench-half-mixed bench-half-mixed-cold > $OUT/gpu-check.log 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "geomean|exit" $OUT/gpu-check.log | head -20
rm -f $OUT/sets/gpu.txt $OUT/sets/gpu-check.log
tar -C $OUT -czf $OUT/sets.tgz sets && rm -rf $OUT/sets
echo "total $((SECONDS-t0)) s"
