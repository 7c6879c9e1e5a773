#!/usr/bin/env bash
# Rung 28 stream-K over k steps (.ab/stream-k.patch applied to tree/, knob GEMMLAB_X_STREAM:
# 0 the landed rule, 2 stream-K wherever eligible): skinny tests under both, then the decode
# rows cold and warm, alternating.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/w1; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 --target gemmlab_cli test_gemm_gpu test_timing_gpu > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|spill" $OUT/build.log | head
timeout 60 $B/tests/test_timing_gpu > $OUT/timing.log 2>&1; echo "timing tests exit $?"; grep -E "^\[  (PASSED|FAILED) |FAILED \]|OK \]" $OUT/timing.log
if [ "${SKIPTEST:-0}" = 0 ]; then
for x in 0 2; do
GEMMLAB_X_STREAM=$x timeout 150 $B/tests/test_gemm_gpu --gtest_filter='SkinnySide.*' > $OUT/tests-stream$x.log 2>&1; echo "tests STREAM=$x exit $?"; grep -E "^\[  (PASSED|FAILED) |FAILED \]" $OUT/tests-stream$x.log | head
done
GEMMLAB_X_STREAM=2 timeout 200 compute-sanitizer --tool racecheck $B/tests/test_gemm_gpu --gtest_filter='SkinnySide.RandomInputsWithinTheBound/bf16_row' > $OUT/racecheck-stream.log 2>&1; echo "racecheck exit $?"; grep -E "RACECHECK SUMMARY|^\[  (PASSED|FAILED)" $OUT/racecheck-stream.log
fi
S=${SHAPES:-1x2048x2048,16x2048x2048,1x3072x2048,16x3072x2048,1x3584x3584,16x3584x3584,1x4608x3584,16x4608x3584,1x4096x4096,16x4096x4096,1x6144x4096,16x6144x4096,1x2048x8192,16x2048x8192,1x8192x2048,16x8192x2048,1x8192x8192,16x8192x8192,1x4096x14336,16x4096x14336,1x14336x4096,16x14336x4096,1x3584x18944,16x3584x18944,1x18944x3584,16x18944x3584,8x18944x3584,1x10240x8192,16x10240x8192,1x8192x28672,16x8192x28672,1x28672x8192,16x28672x8192}
for round in ${ROUNDS:-cold:0,2 warm:0,2 cold:2,0 warm:2,0}; do
  mode=${round%%:*}; vs=${round#*:}; c=""; [ $mode = cold ] && c="--cold"
  for v in ${vs//,/ }; do
    f=$mode-s$v-$((SECONDS))
    GEMMLAB_X_STREAM=$v timeout 100 $G bench --dtype bf16 --kernels cublas,auto --layout row --op nt --shapes $S $c --reps 30 --min-time 60 --json $OUT/$f.json > $OUT/$f.log 2>&1; echo "$f exit $? at $((SECONDS-t0)) s: $(python3 tree/scripts/geomean.py $OUT/$f.json 2>&1 | tail -1)"
  done
done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf w1.tgz *.log *.json && rm -f *.log *.json
