#!/usr/bin/env bash
# The build to submit: both GPU test programs whole; racecheck and memcheck on the tests of the
# 64 x 16 tiles and on the cluster split's 64 x 64 tiles; tune --explain on the LLM set's 64-token
# rows; the LLM set warm and cold (gpu-check); the 9-16 token decode rows with the L2 flushed
# (cuBLAS, rung 28 and auto interleaved).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf fin2.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
cd ..
mkdir -p build/device && ln -sf $PWD/.ab/bin/gemmlab build/device/gemmlab
mkdir -p $OUT/logs $OUT/sets
G=.ab/bin/gemmlab
timeout 60 .ab/bin/test_tune_gpu > $OUT/logs/test_tune_gpu.txt 2>&1; echo "test_tune_gpu exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/logs/test_tune_gpu.txt | head
timeout 240 .ab/bin/test_gemm_gpu > $OUT/logs/test_gemm_gpu.txt 2>&1; echo "test_gemm_gpu exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|ClusterSplit.Every|SkinnySide.RandomInputs.*bf16_row" $OUT/logs/test_gemm_gpu.txt | head
F='SkinnySide.RandomInputsWithinTheBound/bf16_row:SkinnySide.RandomInputsWithinTheBound/f16_f32_col'
for tool in racecheck memcheck; do
  timeout 60 compute-sanitizer --tool $tool .ab/bin/test_gemm_gpu --gtest_filter="$F" > $OUT/logs/sanitizer-$tool-skinny.txt 2>&1; echo "$tool skinny exit $? at $((SECONDS-t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)" $OUT/logs/sanitizer-$tool-skinny.txt | head -4
  timeout 90 compute-sanitizer --tool $tool --kernel-regex kns=warp_specialized $G bench --kernels auto --dtype bf16 --layout row --op nt --shapes 64x4096x4096,64x3584x3584,16x17000x1000 --reps 1 --min-time 0 > $OUT/logs/sanitizer-$tool-cluster.txt 2>&1; echo "$tool cluster exit $? at $((SECONDS-t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASS$|FAIL|rror" $OUT/logs/sanitizer-$tool-cluster.txt | head -6
done
W="2048x2048 3072x2048 2048x8192 3584x3584 3584x18944 4096x4096 4096x14336 4608x3584 6144x4096 8192x2048 8192x8192 8192x28672 10240x8192 14336x4096 18944x3584 28672x8192"
S=""; for w in $W; do S="$S,64x$w"; done
timeout 60 $G tune --explain ${S#,} > $OUT/logs/explain-64.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
grep -E "auto \(" $OUT/logs/explain-64.txt | head -16
BUILD_DIR=$PWD/.ab/bin timeout 280 bash scripts/gpu-check.sh $OUT/sets bench-llm bench-llm-cold > $OUT/gpu-check.log 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "geomean" $OUT/gpu-check.log | head -4
rm -f $OUT/sets/gpu.txt $OUT/sets/gpu-check.log
S16=16x2048x2048,16x2048x8192,16x3072x2048,16x3584x3584,16x3584x18944,16x4096x4096,16x4096x14336,16x4608x3584,16x6144x4096,16x8192x2048,16x8192x8192,16x8192x28672,16x10240x8192,16x14336x4096,16x18944x3584,16x28672x8192,12x4096x4096,10x11008x4096,9x4608x3584,16x5120x17408,12x5000x2056
f=decode16-cold
timeout 60 $G bench --dtype bf16 --kernels cublas,decode,auto --layout row --op nt --shapes $S16 --cold --json $OUT/sets/$f.json > $OUT/sets/$f.log 2>&1; echo "$f exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/sets/$f.json auto decode 2>&1 | tr '\n' ' ')"
tar -C $OUT -czf $OUT/all.tgz logs sets && rm -rf $OUT/logs $OUT/sets
echo "total $((SECONDS-t0)) s"
