#!/usr/bin/env bash
# Rung 28 contiguous k map: full build, ctest (GPU tests), sanitizers on the decode tests, and the
# decode rows cold and warm.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/v2; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|spill" $OUT/build.log | head
if [ "${SKIPTEST:-0}" = 0 ]; then
(cd tree && BUILD_DIR=$B CTEST_JOBS=8 timeout 330 bash scripts/gpu-check.sh $OUT/check tests > $OUT/gpu-check-tests.log 2>&1); echo "gpu-check tests exit $? at $((SECONDS-t0)) s"; grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" $OUT/check/ctest.log | head
for tool in memcheck racecheck; do
timeout 100 compute-sanitizer --tool $tool $B/tests/test_gemm_gpu --gtest_filter='SkinnySide.RandomInputsWithinTheBound/bf16_row:SkinnySide.RandomInputsWithinTheBound/f16_col' > $OUT/$tool.log 2>&1; echo "$tool exit $?: $(grep -E 'SUMMARY|^\[  (PASSED|FAILED)' $OUT/$tool.log | tr '\n' ' ')"
done
fi
S=1x2048x2048,16x2048x2048,1x3072x2048,16x3072x2048,1x3584x3584,16x3584x3584,1x4608x3584,16x4608x3584,1x4096x4096,16x4096x4096,1x6144x4096,16x6144x4096,1x2048x8192,16x2048x8192,1x8192x2048,16x8192x2048,1x8192x8192,16x8192x8192,1x4096x14336,16x4096x14336,1x14336x4096,16x14336x4096,1x3584x18944,16x3584x18944,1x18944x3584,16x18944x3584,8x18944x3584,1x10240x8192,16x10240x8192,1x8192x28672,16x8192x28672,1x28672x8192,16x28672x8192
for mode in cold warm; do
  c=""; [ $mode = cold ] && c="--cold"
  f=decode-$mode
  timeout 100 $G bench --dtype bf16 --kernels cublas,auto --layout row --op nt --shapes $S $c --reps 30 --min-time 60 --json $OUT/$f.json > $OUT/$f.log 2>&1; echo "$f exit $? at $((SECONDS-t0)) s: $(python3 tree/scripts/geomean.py $OUT/$f.json 2>&1 | tail -1)"
done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf v2a.tgz *.log *.json check && rm -rf *.log *.json check
