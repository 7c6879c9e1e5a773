#!/usr/bin/env bash
# Session 2026-11-29o, call 11: the committed code (build/carry.commit), the whole build tree.
# Every ctest, the mixed and batched sets (gpu-check), the mixed set in TF32 mode and with a
# cold L2, and `tune --explain` on the small float squares.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); o11=$(cat build/carry.commit)"
G=build/device/gemmlab
CTEST_JOBS=4 timeout 400 scripts/gpu-check.sh $OUT/gc tests bench-mixed bench-batched > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -6 $OUT/gpu-check.out | cut -c1-700
grep -E "tests passed|tests failed" $OUT/gc/ctest.log | tail -2
S=128x128x128,256x256x256,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,1000x1000x1000,4095x4097x1023,8192x256x4096,256x8192x4096,6144x1536x2048,512x512x16384,1024x1024x8192
timeout 60 $G bench --dtype f32 --precision tf32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --json $OUT/mixed-tf32.json > $OUT/mixed-tf32.log 2>&1; echo "mixed tf32 exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/mixed-tf32.json)"
timeout 90 $G bench --dtype f64,f32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --cold --json $OUT/mixed-cold.json > $OUT/mixed-cold.log 2>&1; echo "mixed cold exit $? at $((SECONDS-t0)) s:"; python3 scripts/geomean.py $OUT/mixed-cold.json | grep geomean
timeout 30 $G tune --explain 128x128x128,256x256x256,384x384x384,512x512x512 --op nt,tn --layout row --dtype f32 --precision tf32 > $OUT/explain-tf32.txt 2>&1; echo "explain tf32 exit $? at $((SECONDS-t0)) s"
timeout 30 $G tune --explain 128x128x128,256x256x256,384x384x384,512x512x512 --op nt,tn --layout row --dtype f32 > $OUT/explain-f32.txt 2>&1; echo "explain f32 exit $? at $((SECONDS-t0)) s"
grep -hE "auto \(" $OUT/explain-tf32.txt $OUT/explain-f32.txt
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
