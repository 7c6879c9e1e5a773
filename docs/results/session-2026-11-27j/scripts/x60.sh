#!/usr/bin/env bash
# The submitted build: racecheck and memcheck on the tests of auto's 64 x 16 tile (no cuBLAS in
# them), then tune --explain on the LLM set's 512- and 128-token rows.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf sk2.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
cd ..
mkdir -p build/device && ln -sf $PWD/.ab/bin/gemmlab build/device/gemmlab
mkdir -p $OUT/logs
F='SkinnySide.RandomInputsWithinTheBound/bf16_row:SkinnySide.RandomInputsWithinTheBound/f16_f32_col'
for tool in racecheck memcheck; do
  timeout 150 compute-sanitizer --tool $tool .ab/bin/test_gemm_gpu --gtest_filter="$F" > $OUT/logs/sanitizer-$tool-tests.txt 2>&1; echo "$tool exit $? at $((SECONDS-t0)) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|^\[  (PASSED|FAILED)" $OUT/logs/sanitizer-$tool-tests.txt | head -6
done
W="2048x2048 3072x2048 2048x8192 3584x3584 3584x18944 4096x4096 4096x14336 4608x3584 6144x4096 8192x2048 8192x8192 8192x28672 10240x8192 14336x4096 18944x3584 28672x8192"
S=""; for t in 512 128; do for w in $W; do S="$S,${t}x$w"; done; done
timeout 330 .ab/bin/gemmlab tune --explain ${S#,} > $OUT/logs/explain.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|auto \(" $OUT/logs/explain.txt | paste - - | awk '{print $4, $0}' | cut -c1-200 | head -40
tar -C $OUT -czf $OUT/logs.tgz logs && rm -rf $OUT/logs
echo "total $((SECONDS-t0)) s"
