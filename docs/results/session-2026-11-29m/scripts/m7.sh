#!/usr/bin/env bash
# Session 2026-11-29m, call 7: the submitted code (HEAD below: the fragments a tile ahead on top of m3), the whole build tree
# (scripts/pack-device-build.sh). Every ctest and the TF32 and float/double sets of gpu-check
# (bench-tf32, bench-mixed). Then the TF32 mixed set warm and cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); m7=$(cat build/carry.commit)"
G=build/device/gemmlab
CTEST_JOBS=4 timeout 540 scripts/gpu-check.sh $OUT/gc tests bench-tf32 bench-mixed > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -8 $OUT/gpu-check.out | cut -c1-900
grep -E "tests? failed|Failed|\*\*\*" $OUT/gc/ctest.log | head -5
S=128x128x128,256x256x256,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,1000x1000x1000,4095x4097x1023,8192x256x4096,256x8192x4096,6144x1536x2048,512x512x16384,1024x1024x8192
timeout 60 $G bench --dtype f32 --precision tf32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --json $OUT/mixed-tf32.json > $OUT/mixed-tf32.log 2>&1; echo "mixed tf32 exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/mixed-tf32.json)"
timeout 60 $G bench --dtype f32 --precision tf32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --cold --json $OUT/mixed-tf32-cold.json > $OUT/mixed-tf32-cold.log 2>&1; echo "mixed tf32 cold exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/mixed-tf32-cold.json)"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
