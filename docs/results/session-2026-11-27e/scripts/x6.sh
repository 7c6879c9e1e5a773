#!/usr/bin/env bash
# The float and double mixed set and the TF32 set on ef28716's library (carried build).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
(cd .. && BUILD_DIR=$PWD/.ab/bin timeout 330 bash scripts/gpu-check.sh $OUT/sets bench-mixed bench-tf32 > $OUT/gpu-check-sets.log 2>&1); echo "gpu-check sets exit $? at $((SECONDS-t0)) s"
sed -n '/summary/,$p' $OUT/gpu-check-sets.log | head -12
tar -C $OUT -czf $OUT/logs.tgz sets 2>/dev/null && rm -rf $OUT/sets
echo "total $((SECONDS-t0)) s"
