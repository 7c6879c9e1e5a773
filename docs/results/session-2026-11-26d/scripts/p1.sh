#!/usr/bin/env bash
# FP8 and 3xTF32 overlapping tiles: build, the quantized and rung 26 tests, FP8/INT8 bench, f32 big.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/p1; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
cmake -S tree -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps \
  -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF > $OUT/cfg.log 2>&1
cmake --build $B -j16 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|C75" $OUT/build.log | head -20
BUILD_DIR=$B timeout 200 bash tree/scripts/check-quantized.sh $OUT/quantized tests bench > $OUT/check-quantized.log 2>&1; echo "check-quantized exit $?"
grep -E "== .*exit|worst|^  (fp8|int8)" $OUT/check-quantized.log | head -30
echo "after quantized $((SECONDS-t0)) s"
timeout 100 $B/tests/test_gemm_gpu --gtest_filter='EveryRung.*/f32_*:SplitK.*:GemmApi.DefaultPrecision*:NarrowTiles.*' > $OUT/t26.log 2>&1; echo "rung 26 tests exit $?"; grep -E "PASSED|FAILED|tests ran" $OUT/t26.log | head -5
timeout 60 $G bench --dtype f32 --kernels cublas,auto,wgmma_tf32x3 --layout row --op nn --sizes 4096,8192 --reps 10 --min-time 100 > $OUT/f32-big.log 2>&1; echo "f32 big exit $?"
grep -E "cublas|auto|wgmma_tf32x3" $OUT/f32-big.log | head -8
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf p1.tgz *.log quantized && rm -rf *.log quantized
