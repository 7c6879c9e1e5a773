#!/usr/bin/env bash
# racecheck and synccheck on the cluster-split kernels only (the ClusterSplit GPU test).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz && export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u)"
t0=$SECONDS
for tool in racecheck synccheck; do
timeout 270 compute-sanitizer --tool $tool --kernel-regex kns=ClusterSplitSchedule --error-exitcode 9 bin/test_gemm_gpu --gtest_filter='ClusterSplit.*' > $OUT/cs-$tool.log 2>&1; echo "ClusterSplit test under $tool (cluster-split kernels only) exit $? at $((SECONDS-t0)) s: $(grep -E 'SUMMARY|PASSED|FAILED' $OUT/cs-$tool.log | tr '\n' ' ')"
done
