#!/usr/bin/env bash
# The model with a fill on every persistent and rung-19 tile, and 64x64 tiles: the new test and
# its memcheck, and every option where the model's pick changed.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
timeout 200 bin/test_tune_gpu --gtest_filter='TuneGpu.SixtyFour*' > $OUT/tests.txt 2>&1; echo "tests exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests.txt | head
timeout 200 compute-sanitizer --tool memcheck bin/test_tune_gpu --gtest_filter='TuneGpu.SixtyFour*' > $OUT/memcheck.txt 2>&1; echo "memcheck exit $? at $((SECONDS-t0)) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck.txt | head -3
L=64x2048x2048,128x3584x3584,128x4608x3584,128x8192x2048,16x4608x3584,16x6144x4096,8x4096x4096,512x4608x3584,2048x4096x4096
timeout 120 $G tune --explain $L --op nt --dtype bf16 > $OUT/llm.txt 2>&1; echo "llm exit $? at $((SECONDS-t0)) s"
timeout 120 $G tune --explain $L --op nt --dtype bf16 --cold > $OUT/llm-cold.txt 2>&1; echo "llm cold exit $? at $((SECONDS-t0)) s"
S=128x128x128,256x256x256,512x512x512,255x255x255,511x511x511,4096x4096x4096
timeout 120 $G tune --explain $S --op nn,tt --dtype bf16 > $OUT/squares.txt 2>&1; echo "squares exit $? at $((SECONDS-t0)) s"
B=64x512x64@512,64x64x64@1024,64x64x128@512
timeout 120 $G tune --explain $B --op nt --dtype bf16,f16 > $OUT/batched.txt 2>&1; echo "batched exit $? at $((SECONDS-t0)) s"
echo "total $((SECONDS-t0)) s"
