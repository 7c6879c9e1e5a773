#!/usr/bin/env bash
# Session 2026-11-28j, call 3: j3 = j2 + the native pass keeping Inf sums + auto taking rung 31 for large float products. The Ozaki tests (GPU and
# CPU), the auto model test; gpu-check's ozaki step; float's accuracy beside auto; cuBLAS SGEMM, auto and
# rung 31 on the eighteen float shapes of j2 (which auto now takes).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=j3
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
timeout 240 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 60 $B/tests/test_ozaki > $OUT/test_ozaki.log 2>&1; echo "test_ozaki exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki.log | tr '\n' ' ')"
timeout 60 $B/tests/test_auto_model > $OUT/test_auto_model.log 2>&1; echo "test_auto_model exit $?: $(grep -E "^\[  (PASSED|FAILED) " $OUT/test_auto_model.log | tr "\n" " ")"
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1200
timeout 120 $B/gemmlab accuracy --dtype f32,f64 --kernels cublas,auto,int8_emulation --k 256,1024,4096,16384 > $OUT/accuracy-auto.log 2>&1; echo "accuracy exit $? at $((SECONDS-t0)) s"
grep -E "^f32|^f64|^auto |^int8" $OUT/accuracy-auto.log | head -70
timeout 300 $B/gemmlab bench --dtype f32 --kernels cublas,auto,int8_emulation --shapes 4096x4096x4096,8192x8192x8192,4096x4096x8192,8192x8192x4096,6144x6144x4096,4096x4096x16384,4096x8192x8192,3072x3072x8192,2048x8192x8192,2048x2048x8192,3072x3072x4096,8192x8192x2048,8192x8192x1024,4096x4096x2048,2048x2048x2048,16384x16384x4096,8192x8192x16384,6144x6144x6144 > $OUT/bench-f32-model.log 2>&1; echo "bench exit $? at $((SECONDS-t0)) s"
grep -E "^f32 row|^(0|-|31) " $OUT/bench-f32-model.log | cut -c1-100 | head -80
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
