#!/usr/bin/env bash
# Session 2026-11-28e, call 3: e3 = e2 with rung 31 as a tunable option of double products.
# The tune, Ozaki and graph GPU tests, then `gemmlab tune --explain` of double products at
# k = 4096 and 16384 (every option auto weighs, rung 31 among them, timed interleaved beside
# cuBLAS), and a short `gemmlab tune --dtype f64`.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p .ab/run/e3 && tar -C .ab/run/e3 -xJf .ab/e3.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); e3=$(cat .ab/run/e3/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/e3/bin; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
for t in test_tune_gpu test_ozaki_gpu test_graph_gpu; do
  timeout 240 $B/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ') at $((SECONDS-t0)) s"
  grep -E "Failure" -A4 $OUT/$t.log | head -12
done
timeout 200 $B/gemmlab tune --explain 2048x2048x4096,4096x4096x4096,1024x1024x16384,2048x2048x16384,4096x4096x16384 --dtype f64 --layout col > $OUT/explain-f64.log 2>&1
echo "explain exit $? at $((SECONDS-t0)) s"
grep -E "^f64|cublas .* us; auto|int8_emulation|<- " $OUT/explain-f64.log | cut -c1-130 | head -40
GEMMLAB_TUNE_CACHE=$OUT/tune.json timeout 200 $B/gemmlab tune --dtype f64 --budget 150 --cache $OUT/tune-f64.json > $OUT/tune-f64.log 2>&1
echo "tune exit $? at $((SECONDS-t0)) s"; tail -5 $OUT/tune-f64.log | cut -c1-200; grep -c int8_emulation $OUT/tune-f64.json
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
