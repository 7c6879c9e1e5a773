#!/usr/bin/env bash
# Cluster split as committed: auto's picks beside every option (tune --explain), LLM rows and medium squares.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u)"
t0=$SECONDS
L=16x3072x2048,16x4608x3584,64x2048x2048,64x3072x2048,64x3584x3584,64x4608x3584,64x4096x4096,64x6144x4096,128x2048x2048,128x3072x2048,128x3584x3584,128x4608x3584,128x6144x4096,128x4096x4096,128x8192x2048,128x8192x8192,512x2048x2048,512x3072x2048,512x4608x3584,512x2048x8192
for c in "" --cold; do
timeout 150 $G tune --explain $L --op nt $c > $OUT/llm$c.txt 2>&1; echo "llm $c exit $? at $((SECONDS-t0)) s"
timeout 100 $G tune --explain 1000x1000x1000,1024x1024x1024,1536x1536x1536,2047x2047x2047,3000x3000x3000,4096x1024x1000,512x512x16384 --op nn $c > $OUT/medium$c.txt 2>&1; echo "medium $c exit $? at $((SECONDS-t0)) s"
done
timeout 60 bin/test_gemm_gpu --gtest_filter='ClusterSplit.*:TailSplit.*:SplitK.*' > $OUT/tests.txt 2>&1; echo "tests exit $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests.txt | head
