#!/usr/bin/env bash
# Session 2026-11-28d, call 8: oz7 = oz6 with the pool's first threshold kept where
# cudaMemGetInfo fails: the tests that cover the workspace pool, rung 31, the 8-bit rungs and
# graph capture, and rung 31 beside DGEMM at 8192^3 (the pool's large workspace kept).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p .ab/run/oz7 && tar -C .ab/run/oz7 -xJf .ab/oz7.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); oz7=$(cat .ab/run/oz7/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/oz7/bin; export LD_LIBRARY_PATH=$B
for t in test_ozaki_gpu test_graph_gpu test_quantized_gpu; do
  timeout 150 $B/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ') at $((SECONDS-t0)) s"
  grep -E "Failure" -A4 $OUT/$t.log | head -12
done
timeout 60 $B/gemmlab bench --kernels cublas,auto,int8_emulation --dtype f64 --sizes 8192 > $OUT/f64-8192.log 2>&1; echo "bench exit $?"; grep -E "cublas|auto|int8" $OUT/f64-8192.log | cut -c1-110
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
