#!/usr/bin/env bash
set -u
cd "$(dirname "$0")"
B=$PWD/../build/y1; G0=$PWD/../build/y1old/gemmlab
t0=$SECONDS
timeout 150 $G0 bench --preset llm --dtype bf16 --json $OUT/llm-old.json > $OUT/llm-old.log 2>&1; echo "llm old warm exit $? $((SECONDS-t0)) s: $(python3 tree/scripts/geomean.py $OUT/llm-old.json | tail -1)"
BUILD_DIR=$B timeout 400 tree/scripts/gpu-check.sh $OUT/check bench-llm bench-llm-cold bench-batched bench-batched-cold > $OUT/check.log 2>&1; echo "gpu-check exit $? $((SECONDS-t0)) s"
tail -8 $OUT/check.log
cd $OUT && tar czf y2.tgz *.log *.json check && rm -rf *.log *.json check
