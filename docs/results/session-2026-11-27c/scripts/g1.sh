#!/usr/bin/env bash
# Final check of rung 27's staged C: full build, SASS, gpu-check tests, sanitizers on rung 27's half
# types, then the batched set warm and cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/g1; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|spill" $OUT/build.log | head
SS=32x32x32@64,67x45x71@3,16x16x16@100,5x7x130@4,33x31x200@2
for tool in memcheck racecheck; do
timeout 100 compute-sanitizer --tool $tool $G bench --kernels small --dtype bf16,f16 --layout col --op all --shapes $SS --reps 1 --min-time 0 > $OUT/$tool.log 2>&1; echo "$tool exit $?: $(grep -E 'SUMMARY' $OUT/$tool.log | tr '\n' ' ') checks: $(grep -c PASS $OUT/$tool.log) PASS, $(grep -c FAIL $OUT/$tool.log) FAIL"
done
(cd tree && BUILD_DIR=$B CTEST_JOBS=8 timeout 240 bash scripts/gpu-check.sh $OUT/check tests > $OUT/gpu-check-tests.log 2>&1); echo "gpu-check tests exit $? at $((SECONDS-t0)) s"; grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" $OUT/check/ctest.log | head
(cd tree && BUILD_DIR=$B timeout $((590-SECONDS+t0)) bash scripts/gpu-check.sh $OUT/sets bench-batched bench-batched-cold > $OUT/gpu-check-sets.log 2>&1); echo "gpu-check sets exit $? at $((SECONDS-t0)) s"
sed -n '/summary/,$p' $OUT/gpu-check-sets.log | head -8
echo "total $((SECONDS-t0)) s"
