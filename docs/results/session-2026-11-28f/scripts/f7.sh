#!/usr/bin/env bash
# Session 2026-11-28f, call 7: f7 = the submitted kernels with auto's rung-31 model refitted to
# them (split, reconstruction and GEMM shares from f6's ncu, a fixed term for the call's
# launches). The auto model's CPU test; auto beside cuBLAS DGEMM and rung 31 on double shapes on
# both sides of the model's 0.95 line (`gemmlab bench --dtype f64 --shapes ...`, row-major nn).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p build/run/f7 && tar -C build/run/f7 -xJf build/f7.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); f7=$(head -1 build/run/f7/COMMIT)"
B=$PWD/build/run/f7; export LD_LIBRARY_PATH=$B
timeout 200 $B/gemmlab bench --dtype f64 --kernels cublas,auto,int8_emulation --shapes 4096x4096x8192,8192x8192x4096,6144x6144x4096,4096x4096x16384,4096x8192x8192,3072x3072x8192,2048x8192x8192,4096x4096x4096 > $OUT/bench-f64-model.log 2>&1
echo "bench exit $? at $((SECONDS-t0)) s"
grep -E "row nn|^0 |^- |^31 " $OUT/bench-f64-model.log | awk '/row nn/ {shape = $4} !/row nn/ {printf "%s %s %s ms %s%%\n", shape, $2, $4, $7}'
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
