#!/usr/bin/env bash
# Session 2026-11-29r, call 7, one H200: the packed build of build/carry.commit (rung 24's 64 x 64
# tiles on ping-pong consumers, hopper/pingpong.cuh, as an auto candidate). PingPongTiles.* (the
# tiles by name, every op, beta 0 and not, BF16 and float C), memcheck and racecheck over auto
# on small batches that take them, the SASS, and tune --explain over the batched set (every
# option timed beside cuBLAS), warm and cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
timeout 120 $B/tests/test_gemm_gpu --gtest_filter='PingPongTiles.*' > $OUT/pingpong-tests.log 2>&1; echo "PingPongTiles.* exit $? at $((SECONDS-t0)) s: $(grep -E '^\[  (PASSED|FAILED) |^\[  FAILED' $OUT/pingpong-tests.log | tr '\n' ' ')"
grep -m3 -E "Failure|error|expected" $OUT/pingpong-tests.log
S=64x64x64@1024,128x128x64@1024,256x256x64@256,512x512x64@64,512x512x128@32,128x128x128@512,256x256x128@128,512x64x128@256,64x512x64@512,64x64x64@4096,128x128x128@1024,256x256x256@256
timeout 100 $G tune --explain $S --op nn,nt --layout row --dtype bf16 > $OUT/explain-batched.txt 2>&1; echo "explain batched exit $? at $((SECONDS-t0)) s"
timeout 100 $G tune --explain $S --op nn,nt --layout row --dtype bf16 --cold > $OUT/explain-batched-cold.txt 2>&1; echo "explain batched cold exit $? at $((SECONDS-t0)) s"
grep -hE "^bf16|pingpong|<- " $OUT/explain-batched.txt | head -60
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool $G bench --dtype bf16,f16 --kernels auto --op nn,nt --shapes 64x64x64@64,192x128x64@7 --reps 1 --min-time 0 > $OUT/$tool.log 2>&1; echo "$tool exit $? at $((SECONDS-t0)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/$tool.log | head -1) rows PASS $(grep -c ' PASS' $OUT/$tool.log)"
done
cuobjdump --dump-sass --function-filter pingpong $B/libgemmlab.so 2>/dev/null | grep -oE "HGMMA\.[0-9x]+\.F32\.BF16|UTMALDG[.0-9A-Z]*|UTMASTG[.0-9A-Z]*|STSM[.0-9A-Z]*|SYNCS[.A-Z0-9]*" | sort | uniq -c > $OUT/sass-pingpong.txt; head -20 $OUT/sass-pingpong.txt
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
