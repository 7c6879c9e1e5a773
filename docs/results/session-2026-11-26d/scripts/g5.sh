#!/usr/bin/env bash
# Final run, part 5 (HEAD): half-precision accuracy tables, accuracy plots, sanitizers on rungs 26 and 29.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/g2; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
if [ ! -x $B/tests/test_gemm_gpu ]; then
cmake -S tree -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps \
  -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF > $OUT/cfg.log 2>&1
cmake --build $B -j16 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
fi
timeout 200 $G accuracy --dtype bf16,f16,bf16-f32,f16-f32 --kernels auto,18,19,20,21,22,23,24 --json $OUT/acc-half.json > $OUT/acc-half.log 2>&1; echo "accuracy half exit $?"
grep -iE -A1 "^target|outside" $OUT/acc-half.log | head -8; echo "after accuracy $((SECONDS-t0)) s"
F='EveryRung.RandomInputsWithinTheBound/f32_row:EveryRung.OddShapesAroundTheTensorCoreTiles/f32_col:SplitK.AutoIsBitwiseReproducible'
[ -n "${SKIP_MEMCHECK:-}" ] || timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_gemm_gpu --gtest_filter="$F" > $OUT/memcheck-26.log 2>&1; echo "memcheck rung 26 exit $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck-26.log | head -3
for tool in racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $G bench --dtype f32 --kernels wgmma_tf32x3 --shapes 300x260x520,129x129x200 --op nn,tt --reps 1 --min-time 0 > $OUT/$tool-26.log 2>&1; echo "$tool rung 26 exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/$tool-26.log | head -3
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/tests/test_quantized_gpu --gtest_filter='Fp8Gpu.SmallExact:Fp8Gpu.BlockWiseExactWithUnitScales' > $OUT/$tool-29.log 2>&1; echo "$tool rung 29 exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $OUT/$tool-29.log | head -3
done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf g5.tgz *.log $(ls *.json 2>/dev/null) && rm -f *.log *.json
