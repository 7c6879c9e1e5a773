#!/usr/bin/env bash
# Final check: full build, sanitizers on rung 28 (its mma kernels), gpu-check tests, the LLM set warm.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/g7; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
[ -f $B/build.ninja ] || cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|spill" $OUT/build.log | head
S=1x4096x14336,8x3584x18944,4x1000x1000,16x18944x3584,1x4608x3584
for tool in memcheck racecheck; do
timeout 90 compute-sanitizer --tool $tool --kernel-regex kns=mma_k_contiguous $G bench --kernels decode --dtype bf16,f16 --layout row --op nt --shapes $S --reps 1 --min-time 0 > $OUT/$tool.log 2>&1; echo "decode $tool exit $?: $(grep -E 'SUMMARY' $OUT/$tool.log | tr '\n' ' ') checks: $(grep -c PASS $OUT/$tool.log) PASS, $(grep -c FAIL $OUT/$tool.log) FAIL"
done
(cd tree && BUILD_DIR=$B CTEST_JOBS=8 timeout 250 bash scripts/gpu-check.sh $OUT/check tests > $OUT/gpu-check-tests.log 2>&1); echo "gpu-check tests exit $? at $((SECONDS-t0)) s"; grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" $OUT/check/ctest.log | head
SETS="${1:-bench-llm}"
(cd tree && BUILD_DIR=$B timeout $((590-SECONDS+t0)) bash scripts/gpu-check.sh $OUT/sets $SETS > $OUT/gpu-check-sets.log 2>&1); echo "gpu-check sets exit $? at $((SECONDS-t0)) s"
sed -n '/summary/,$p' $OUT/gpu-check-sets.log | head -12
tar -C $OUT -czf $OUT/logs.tgz sets check memcheck.log racecheck.log build.log cfg.log 2>/dev/null && rm -rf $OUT/sets $OUT/check $OUT/memcheck.log $OUT/racecheck.log $OUT/build.log $OUT/cfg.log
echo "total $((SECONDS-t0)) s"
