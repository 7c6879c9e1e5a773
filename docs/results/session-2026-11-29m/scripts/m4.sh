#!/usr/bin/env bash
# Session 2026-11-29m, call 4: the submitted code (4a4ca62), the whole build tree
# (scripts/pack-device-build.sh), as m3. The TF32 mixed set warm and cold (auto against cuBLAS's
# TF32), ncu of rung 25's new tiles and of cuBLAS's TF32 kernel, the SASS of rung 25's wgmma.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); m3=$(cat build/carry.commit)"
G=build/device/gemmlab
S=128x128x128,256x256x256,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,1000x1000x1000,4095x4097x1023,8192x256x4096,256x8192x4096,6144x1536x2048,512x512x16384,1024x1024x8192
timeout 60 $G bench --dtype f32 --precision tf32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --json $OUT/mixed-tf32.json > $OUT/mixed-tf32.log 2>&1; echo "mixed tf32 exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/mixed-tf32.json)"
timeout 60 $G bench --dtype f32 --precision tf32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --cold --json $OUT/mixed-tf32-cold.json > $OUT/mixed-tf32-cold.log 2>&1; echo "mixed tf32 cold exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/mixed-tf32-cold.json)"
NS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section LaunchStats"
for s in "1024x1024x1024 nt" "6144x1536x2048 tn" "8192x256x4096 tt"; do
  set -- $s
  timeout 40 ncu --clock-control none -k regex:warp_specialized_kernel -c 1 $NS $G bench --dtype f32 --precision tf32 --kernels auto --layout row --op $2 --shapes $1 --reps 1 --min-time 0 > $OUT/ncu-auto-$1-$2.log 2>&1
  echo "ncu auto $1 $2 exit $?: $(grep -E 'warp_specialized_kernel<|Duration|Grid Size|highest-utilized|Pipe Utilization' $OUT/ncu-auto-$1-$2.log | sed 's/  */ /g' | cut -c1-140 | tr '\n' ';')"
  timeout 40 ncu --clock-control none -k regex:'sm90_xmma|nvjet|cutlass' -c 1 $NS $G bench --dtype f32 --precision tf32 --kernels cublas --layout row --op $2 --shapes $1 --reps 1 --min-time 0 > $OUT/ncu-cublas-$1-$2.log 2>&1
  echo "ncu cublas $1 $2 exit $?: $(grep -E '^  [a-zA-Z_].*\(|Duration|Grid Size|highest-utilized' $OUT/ncu-cublas-$1-$2.log | sed 's/  */ /g' | cut -c1-140 | tr '\n' ';')"
done
cuobjdump -sass build/device/libgemmlab.so 2>/dev/null | grep -oE "HGMMA\.64x[0-9]+x8\.F32\.TF32[A-Z0-9._]*" | sort | uniq -c > $OUT/sass-tf32-gmma.txt; echo "sass:"; cat $OUT/sass-tf32-gmma.txt
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
