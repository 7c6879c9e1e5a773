#!/usr/bin/env bash
# Full build of the working tree, scripts/gpu-check.sh tests, and the half mixed set warm and cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
deps=$PWD/.ab/deps/usr
B=$PWD/build/g
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree $(cat .ab/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
[ -f $B/build.ninja ] || cmake -S . -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|spill" $OUT/build.log | head
BUILD_DIR=$B CTEST_JOBS=8 timeout 300 bash scripts/gpu-check.sh $OUT/check tests > $OUT/gpu-check-tests.log 2>&1; echo "gpu-check tests exit $? at $((SECONDS-t0)) s"; grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" $OUT/check/ctest.log | head
BUILD_DIR=$B timeout $((590-SECONDS+t0)) bash scripts/gpu-check.sh $OUT/sets ${SETS:-bench-half-mixed bench-half-mixed-cold} > $OUT/gpu-check-sets.log 2>&1; echo "gpu-check sets exit $? at $((SECONDS-t0)) s"
sed -n '/summary/,$p' $OUT/gpu-check-sets.log | head -12
tar -C $OUT -czf $OUT/logs.tgz sets check build.log cfg.log 2>/dev/null && rm -rf $OUT/sets $OUT/check $OUT/build.log $OUT/cfg.log
echo "total $((SECONDS-t0)) s"
