#!/usr/bin/env bash
# Session 2026-11-29q, one H200: the packed build of build/carry.commit (rung 24's 64 x 128 tile
# as an auto candidate, whole and cluster-split, rate 500000). tune --explain (every option timed
# beside cuBLAS, the model's pick marked) on the preset rows whose pick the tile changes, then
# the half mixed set, then every ctest.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
timeout 100 $G tune --explain 1024x1024x1024,1000x1000x1000,1024x1024x8192,512x512x16384,512x64x128@256 --op nn,nt --layout row --dtype bf16 > $OUT/explain-mixed.txt 2>&1; echo "explain mixed exit $? at $((SECONDS-t0)) s"
timeout 100 $G tune --explain 128x8192x2048,512x2048x2048,512x2048x8192,128x4608x3584,128x6144x4096,128x4096x4096,128x4096x14336,128x8192x8192 --op nt --layout row --dtype bf16 > $OUT/explain-llm.txt 2>&1; echo "explain llm exit $? at $((SECONDS-t0)) s"
grep -hE "^bf16|auto \(|<- " $OUT/explain-mixed.txt $OUT/explain-llm.txt
timeout 150 $G bench --dtype bf16,f16 --kernels cublas,auto --reps 5 --min-time 50 --shapes 128x128x128,256x256x256,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,1000x1000x1000,4095x4097x1023,8192x256x4096,256x8192x4096,6144x1536x2048,512x512x16384,1024x1024x8192 --op nn,nt,tn,tt --json $OUT/half-mixed.json > $OUT/half-mixed.log 2>&1; echo "half mixed exit $? at $((SECONDS-t0)) s"; python3 scripts/geomean.py $OUT/half-mixed.json 2>&1 | tail -4
left=$((560 - SECONDS + t0))
CTEST_JOBS=4 timeout $left bash scripts/gpu-check.sh $OUT/gc tests > $OUT/gc.out 2>&1; echo "gpu-check tests exit $? at $((SECONDS-t0)) s"; grep -E "tests passed|tests failed|Failed|\*\*\*" $OUT/gc.out $OUT/gc/*.log 2>/dev/null | head -12
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
