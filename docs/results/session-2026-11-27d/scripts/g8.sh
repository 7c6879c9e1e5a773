#!/usr/bin/env bash
# Second call on dc59a90: racecheck over rung 28 without a kernel filter, then the cold LLM set.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/g7; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
[ -f $B/build.ninja ] || cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 --target gemmlab > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
for S in 1x4096x14336,8x3584x18944,4x1000x1000 16x14336x4096,12x18944x512,16x4608x3584; do
timeout 100 compute-sanitizer --tool racecheck $G bench --kernels decode --dtype bf16 --layout row --op nt --shapes $S --reps 1 --min-time 0 > $OUT/racecheck-$S.log 2>&1; echo "decode racecheck $S exit $?: $(grep -E 'SUMMARY' $OUT/racecheck-$S.log | tr '\n' ' ') checks: $(grep -c PASS $OUT/racecheck-$S.log) PASS, $(grep -c FAIL $OUT/racecheck-$S.log) FAIL; hazards in: $(grep -o 'in void [a-zA-Z_:]*\|in nvjet[a-zA-Z0-9_]*' $OUT/racecheck-$S.log | sort | uniq -c | tr '\n' ' ')"
done
(cd tree && BUILD_DIR=$B timeout $((590-SECONDS+t0)) bash scripts/gpu-check.sh $OUT/sets bench-llm-cold > $OUT/gpu-check-sets.log 2>&1); echo "gpu-check sets exit $? at $((SECONDS-t0)) s"
sed -n '/summary/,$p' $OUT/gpu-check-sets.log | head -6
tar -C $OUT -czf $OUT/logs.tgz sets racecheck-*.log 2>/dev/null && rm -rf $OUT/sets $OUT/racecheck-*.log
