#!/usr/bin/env bash
# Sanitizers on a call that the tune cache sends to the cluster split (the pick shown first).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
B=$PWD/../build/g3; G=$B/gemmlab
[ -x $G ] || { rm -rf bin && tar xJf bin.txz && G=$PWD/bin/gemmlab && export LD_LIBRARY_PATH=$PWD/bin; }
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u); gemmlab: $G"
T=$(mktemp -d)
timeout 60 $G tune --dtype bf16 --budget 3 --cache $T/c.json > $T/tune.log 2>&1; echo "tune exit $?"; tail -2 $T/tune.log; ls -la $T
python3 - $T/c.json <<'PY'
import json,sys
f=sys.argv[1]; j=json.load(open(f))
e={"type":"bf16","m":1024,"n":64,"k":1024,"candidate":"persistent 128x64x64 ws cluster-split","splits":1,"ns":1.0,"model_candidate":"persistent 128x64x64 ws cluster-split","model_splits":1,"model_ns":1.0}
j["entries"]=[x for x in j["entries"] if not (x["type"]=="bf16" and x["m"]==1024 and x["n"]==64 and x["k"]==1024)]+[e]
json.dump(j,open(f,"w")); print("entries", len(j["entries"]), j["key"])
PY
GEMMLAB_TUNE_CACHE=$T/c.json $G tune --explain 64x1024x1000,40x1000x1024 --op nt,tn 2>&1 | grep -E "auto|warn|tune" | head -8
for tool in racecheck memcheck synccheck; do
GEMMLAB_TUNE_CACHE=$T/c.json timeout 120 compute-sanitizer --tool $tool $G bench --kernels auto --dtype bf16 --layout row --op nt,tn --shapes 64x1024x1000,40x1000x1024 --reps 1 --min-time 0 > $OUT/forced-$tool.log 2>&1; echo "forced cluster-split $tool exit $?: $(grep -E 'SUMMARY' $OUT/forced-$tool.log | tr '\n' ' ') checks: $(grep -c PASS $OUT/forced-$tool.log) PASS, $(grep -c FAIL $OUT/forced-$tool.log) FAIL"
done
