#!/usr/bin/env bash
# Session 2026-11-29m, call 9: the submitted tree (HEAD below), the whole build tree
# (scripts/pack-device-build.sh). Every ctest, then the TF32 mixed set with the L2 flushed.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); m9=$(cat build/carry.commit)"
G=build/device/gemmlab
CTEST_JOBS=4 timeout 400 scripts/gpu-check.sh $OUT/gc tests > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -5 $OUT/gpu-check.out | cut -c1-400
grep -E "tests? failed|Failed|\*\*\*Failed" $OUT/gc/ctest.log | head -5
S=128x128x128,256x256x256,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,1000x1000x1000,4095x4097x1023,8192x256x4096,256x8192x4096,6144x1536x2048,512x512x16384,1024x1024x8192
timeout 60 $G bench --dtype f32 --precision tf32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --cold --json $OUT/mixed-tf32-cold.json > $OUT/mixed-tf32-cold.log 2>&1; echo "mixed tf32 cold exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/mixed-tf32-cold.json)"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
