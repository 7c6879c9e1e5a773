#!/usr/bin/env bash
# Final check, part 1: build HEAD (everything) and the build before it (cli), ctest, the
# sanitizers on the skinny tests.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/y1; B0=$PWD/../build/y1old
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT) tree0: $(cat tree0/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
(cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j12 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s") &
(cmake -S tree0 -B $B0 $CF -DGEMMLAB_BUILD_TESTS=OFF > $OUT/cfg0.log 2>&1; cmake --build $B0 -j5 --target gemmlab_cli > $OUT/build0.log 2>&1; echo "build0 exit $? after $((SECONDS-t0)) s") &
wait
grep -E "error|FAILED|spill" $OUT/build.log | head
(cd $B && timeout 300 ctest -j8 -E find_package_consumer > $OUT/ctest.log 2>&1; echo "ctest exit $? after $((SECONDS-t0)) s"); grep -E "tests passed|tests failed|Failed|\*\*\*" $OUT/ctest.log | head
F='SkinnySide.ExactAtEverySkinnyWidthOpAndAlignment/bf16_row'
for tool in memcheck racecheck; do
timeout 120 compute-sanitizer --tool $tool $B/tests/test_gemm_gpu --gtest_filter=$F > $OUT/$tool-skinny.log 2>&1; echo "$tool exit $? after $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED) |ERROR SUMMARY|RACECHECK SUMMARY" $OUT/$tool-skinny.log | head -3
done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf y1.tgz *.log && rm -f *.log
