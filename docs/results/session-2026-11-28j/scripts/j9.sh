#!/usr/bin/env bash
# Session 2026-11-28j, call 9: j9 = the submitted tree's code. cuBLAS DGEMM, auto and rung 31
# on the ten double shapes of session g's model fit (g4) and four more, to refit auto's model
# of rung 31's double time after sessions h-j made it faster.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=j9
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
timeout 400 $B/gemmlab bench --dtype f64 --kernels cublas,auto,int8_emulation --shapes 4096x4096x8192,8192x8192x4096,6144x6144x4096,4096x4096x16384,4096x8192x8192,3072x3072x8192,2048x8192x8192,4096x4096x4096,2048x2048x8192,3072x3072x4096,5120x5120x5120,2048x2048x16384,8192x8192x8192,4096x4096x6144 > $OUT/bench-f64-model.log 2>&1; echo "bench exit $? at $((SECONDS-t0)) s"
grep -E "^f64 row|^(0|-|31) " $OUT/bench-f64-model.log | cut -c1-100
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
