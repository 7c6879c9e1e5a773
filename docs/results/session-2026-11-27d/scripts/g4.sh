#!/usr/bin/env bash
# Cluster split, second call on the same build: racecheck on a forced cluster-split call, then sets.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/g3; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
[ -f $B/build.ninja ] || cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
T=$(mktemp -d)
timeout 30 $G tune --dtype bf16 --budget 1 --cache $T/c.json > /dev/null 2>&1
python3 - $T/c.json <<'PY'
import json,sys
f=sys.argv[1]; j=json.load(open(f))
e={"type":"bf16","m":1024,"n":64,"k":1024,"candidate":"persistent 128x64x64 ws cluster-split","splits":1,"ns":1.0,"model_candidate":"persistent 128x64x64 ws cluster-split","model_splits":1,"model_ns":1.0}
j["entries"]=[x for x in j["entries"] if not (x["type"]=="bf16" and x["m"]==1024 and x["n"]==64 and x["k"]==1024)]+[e]
json.dump(j,open(f,"w"))
PY
for tool in racecheck memcheck synccheck; do
GEMMLAB_TUNE_CACHE=$T/c.json timeout 120 compute-sanitizer --tool $tool $G bench --kernels auto --dtype bf16 --layout row --op nt,tn --shapes 64x1024x1000,40x1000x1024 --reps 1 --min-time 0 > $OUT/forced-$tool.log 2>&1; echo "forced cluster-split $tool exit $?: $(grep -E 'SUMMARY' $OUT/forced-$tool.log | tr '\n' ' ') checks: $(grep -c PASS $OUT/forced-$tool.log) PASS, $(grep -c FAIL $OUT/forced-$tool.log) FAIL"
done
GEMMLAB_TUNE_CACHE=$T/c.json $G tune --explain 64x1024x1000 --op nt 2>&1 | head -4
SETS="${1:-bench-llm-cold bench-half-mixed bench-half-mixed-cold}"
(cd tree && BUILD_DIR=$B timeout $((590-SECONDS+t0)) bash scripts/gpu-check.sh $OUT/sets $SETS > $OUT/gpu-check-sets.log 2>&1); echo "gpu-check sets exit $? at $((SECONDS-t0)) s"
sed -n '/summary/,$p' $OUT/gpu-check-sets.log | head -12
tar -C $OUT -czf $OUT/logs2.tgz sets forced-racecheck.log forced-memcheck.log forced-synccheck.log 2>/dev/null && rm -rf $OUT/sets $OUT/forced-*.log
echo "total $((SECONDS-t0)) s"
