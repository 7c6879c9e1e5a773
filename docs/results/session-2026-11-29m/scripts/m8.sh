#!/usr/bin/env bash
# Session 2026-11-29m, call 8: auto's model with rung 25's register-path factor
# (register_a_time_factor; packed build m8, 2de04f2's kernels): the model's pins
# (test_auto_model), `tune --explain` on 512^3 in TF32 mode (tn, nn), the TF32 mixed set warm.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/m8bin; rm -rf $B && mkdir -p $B && tar xJf build/m8.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat $B/COMMIT | tr '\n' ' ')"
t0=$SECONDS
$B/tests/test_auto_model > $OUT/auto-model.log 2>&1; echo "auto model exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/auto-model.log | tr '\n' ' ')"
timeout 60 $B/gemmlab tune --explain 512x512x512 --op tn,nn --layout row --dtype f32 --precision tf32 > $OUT/explain-tf32.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
grep -E "^f32|auto \(|fastest" $OUT/explain-tf32.txt
S=128x128x128,256x256x256,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,1000x1000x1000,4095x4097x1023,8192x256x4096,256x8192x4096,6144x1536x2048,512x512x16384,1024x1024x8192
timeout 60 $B/gemmlab bench --dtype f32 --precision tf32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --json $OUT/mixed-tf32.json > $OUT/mixed-tf32.log 2>&1; echo "mixed tf32 exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/mixed-tf32.json)"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
