#!/usr/bin/env bash
# Final check, part 1: full build of HEAD (and HEAD before the tail split's cli for part 2), every
# test, compute-sanitizer memcheck and synccheck on the tail split's test.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/f1; G=$B/gemmlab; B0=$PWD/../build/f1old
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT) tree0: $(cat tree0/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
(cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j12 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s") &
(cmake -S tree0 -B $B0 $CF -DGEMMLAB_BUILD_TESTS=OFF > $OUT/cfg0.log 2>&1; cmake --build $B0 -j4 --target gemmlab_cli > $OUT/build0.log 2>&1; echo "build0 exit $? after $((SECONDS-t0)) s") &
wait
grep -E "error|FAILED|C75|spill" $OUT/build.log | head -20
(cd $B && timeout 200 ctest -j8 -E find_package_consumer --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest exit $?"); grep -E "tests passed|tests failed|\(Failed\)|Timeout" $OUT/ctest.log | head -16
echo "after ctest $((SECONDS-t0)) s"
timeout 140 compute-sanitizer --tool memcheck $B/tests/test_gemm_gpu --gtest_filter='TailSplit.*' > $OUT/memcheck-tail-split.log 2>&1; echo "memcheck exit $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/memcheck-tail-split.log | head -5
timeout 80 compute-sanitizer --tool synccheck $B/tests/test_gemm_gpu --gtest_filter='TailSplit.*' > $OUT/synccheck-tail-split.log 2>&1; echo "synccheck exit $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/synccheck-tail-split.log | head -5
echo "total $((SECONDS-t0)) s"
