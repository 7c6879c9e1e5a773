#!/usr/bin/env bash
# Cluster split: its GPU tests, sanitizers on them, then tune --explain on the few-tile LLM rows.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u)"
t0=$SECONDS
timeout 120 bin/test_gemm_gpu --gtest_filter='ClusterSplit.*:TailSplit.*' > $OUT/tests.txt 2>&1; echo "tests exit $? at $((SECONDS-t0)) s"; grep -E "OK|FAILED|PASSED|Failure" $OUT/tests.txt | head -20
L=16x3072x2048,16x4608x3584,16x6144x4096,64x2048x2048,64x3072x2048,64x3584x3584,64x4608x3584,64x4096x4096,128x2048x2048,128x3584x3584,128x4608x3584,128x6144x4096,128x4096x4096,128x8192x8192,512x2048x2048,512x3072x2048,512x4608x3584,512x6144x4096,512x2048x8192
timeout 150 $G tune --explain $L --op nt > $OUT/llm-warm.txt 2>&1; echo "warm exit $? at $((SECONDS-t0)) s"
timeout 150 $G tune --explain $L --op nt --cold > $OUT/llm-cold.txt 2>&1; echo "cold exit $? at $((SECONDS-t0)) s"
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 bin/test_gemm_gpu --gtest_filter='ClusterSplit.*' > $OUT/memcheck.txt 2>&1; echo "memcheck exit $? at $((SECONDS-t0)) s"; tail -3 $OUT/memcheck.txt
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 bin/test_gemm_gpu --gtest_filter='ClusterSplit.*' > $OUT/racecheck.txt 2>&1; echo "racecheck exit $? at $((SECONDS-t0)) s"; tail -3 $OUT/racecheck.txt
