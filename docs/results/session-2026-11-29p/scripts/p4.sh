#!/usr/bin/env bash
# Session 2026-11-29p, call 4: the LLM, mixed and batched sets from one gpu-check run (LLM and
# mixed warm and cold), the TF32 mixed set, and racecheck over rung 15's rotating tile on
# copied operands. The build of 0ccb0d3 (carried; the commits after it change scripts and docs
# only), the scripts of build/carry.commit.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); p4=$(cat build/carry.commit)"
G=build/device/gemmlab
timeout 470 scripts/gpu-check.sh $OUT/gc bench-llm bench-llm-cold bench-mixed bench-mixed-cold bench-batched > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "exit|geomean" $OUT/gpu-check.out | cut -c1-900
S=128x128x128,256x256x256,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,1000x1000x1000,4095x4097x1023,8192x256x4096,256x8192x4096,6144x1536x2048,512x512x16384,1024x1024x8192
timeout 45 $G bench --dtype f32 --precision tf32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --json $OUT/mixed-tf32.json > $OUT/mixed-tf32.log 2>&1; echo "mixed tf32 exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/mixed-tf32.json)"
timeout 40 compute-sanitizer --tool racecheck $G bench --dtype f64 --kernels dmma --layout row --op nn,tt --shapes 517x259x1029 --reps 1 --min-time 0 > $OUT/racecheck.log 2>&1; echo "racecheck exit $? at $((SECONDS-t0)) s: $(grep -E 'RACECHECK SUMMARY|Internal' $OUT/racecheck.log | head -2) rows PASS $(grep -c ' PASS' $OUT/racecheck.log)"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
