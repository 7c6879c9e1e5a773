#!/usr/bin/env bash
# 64-column tiles with C staged for TMA (slim 128x64 and the new 64x64, 13 stages): their tests,
# memcheck, and every option on the batched set's shapes, the LLM set's 16-128 token rows and a
# few squares, warm and cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
timeout 200 bin/test_tune_gpu --gtest_filter='TuneGpu.SixtyFour*:TuneGpu.EveryOption*' > $OUT/tests.txt 2>&1; echo "tests exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests.txt | head
timeout 200 bin/test_gemm_gpu --gtest_filter='*Narrow*:*Batch*:*Repitch*' > $OUT/tests2.txt 2>&1; echo "tests2 exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests2.txt | head
timeout 150 compute-sanitizer --tool memcheck bin/test_tune_gpu --gtest_filter='TuneGpu.SixtyFour*' > $OUT/memcheck.txt 2>&1; echo "memcheck exit $? at $((SECONDS-t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck.txt | head -3
B=64x64x64@1024,64x64x64@4096,128x128x64@1024,128x128x128@512,128x128x128@1024,64x512x64@512,512x64x128@256,256x256x64@256,256x256x128@128,32x32x32@16384,64x64x128@1024
timeout 150 $G tune --explain $B --op nn,nt --dtype bf16 > $OUT/batched.txt 2>&1; echo "batched exit $? at $((SECONDS-t0)) s"
timeout 150 $G tune --explain $B --op nt --dtype bf16 --cold > $OUT/batched-cold.txt 2>&1; echo "batched cold exit $? at $((SECONDS-t0)) s"
L=64x4096x4096,64x4608x3584,32x4096x4096,128x3072x2048,512x512x512,1024x1024x1024
timeout 100 $G tune --explain $L --op nt --dtype bf16 > $OUT/llm.txt 2>&1; echo "llm exit $? at $((SECONDS-t0)) s"
echo "total $((SECONDS-t0)) s"
