#!/usr/bin/env bash
# The lone wave cut evenly (tail split with fewer tiles than SMs) and the 192 x 192 tile: the
# split and tile tests, memcheck over the split test's kernels, tune --explain on lone waves
# warm and cold, and 8192^3.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
timeout 150 bin/test_gemm_gpu --gtest_filter='TailSplit*:SixtyFour*:*NarrowTiles*:ClusterSplit*' > $OUT/tests.txt 2>&1; echo "tests exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests.txt | head
timeout 120 bin/test_tune_gpu --gtest_filter='TuneGpu.TallTiles*:TuneGpu.EveryOption*' > $OUT/tests-tune.txt 2>&1; echo "tune tests exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests-tune.txt | head
L=512x4608x3584,512x6144x4096,512x3584x3584,512x3072x2048,512x2048x2048,512x14336x4096
timeout 100 $G tune --explain $L --op nt --dtype bf16 > $OUT/llm.txt 2>&1; echo "llm exit $? at $((SECONDS-t0)) s"
timeout 100 $G tune --explain $L --op nt --dtype bf16 --cold > $OUT/llm-cold.txt 2>&1; echo "llm cold exit $? at $((SECONDS-t0)) s"
timeout 90 $G tune --explain 1536x1536x1536,1000x1000x1000,1024x1024x1024,8192x8192x8192 --op nn --dtype bf16 > $OUT/squares.txt 2>&1; echo "squares exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|auto \(|tail-split  " $OUT/llm.txt $OUT/llm-cold.txt $OUT/squares.txt
timeout 150 compute-sanitizer --tool memcheck --kernel-regex kns=warp_specialized bin/test_gemm_gpu --gtest_filter='TailSplit*' > $OUT/memcheck.txt 2>&1; echo "memcheck exit $? at $((SECONDS-t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck.txt | head -3
echo "total $((SECONDS-t0)) s"
