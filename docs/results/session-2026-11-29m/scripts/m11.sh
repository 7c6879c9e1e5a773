#!/usr/bin/env bash
# Session 2026-11-29m, call 11: after the review's refactor (the register path in
# WgmmaTf32Plan, rung 25's candidates from one helper; packed build m11): the TF32 tests, the
# model's pins, memcheck over every auto option, the TF32 mixed set warm.
set -u
export PATH=$PATH:/usr/local/cuda/bin
B=$PWD/build/m11bin; rm -rf $B && mkdir -p $B && tar xJf build/m11.txz -C $B
export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat $B/COMMIT | tr '\n' ' ')"
t0=$SECONDS
timeout 60 $B/tests/test_tune_gpu --gtest_filter='TuneGpu.EveryOptionMeetsTheBound' > $OUT/tune-test.log 2>&1; echo "tune test exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tune-test.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 90 $B/tests/test_gemm_gpu --gtest_filter='*EveryRung*f32*:Tf32Mode.*:SplitK.*:GemmApi.*' > $OUT/gemm-test.log 2>&1; echo "gemm test exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gemm-test.log | tr '\n' ' ') at $((SECONDS-t0)) s"
$B/tests/test_auto_model > $OUT/auto-model.log 2>&1; echo "auto model exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/auto-model.log | tr '\n' ' ')"
timeout 60 compute-sanitizer --tool memcheck $B/tests/test_tune_gpu --gtest_filter='TuneGpu.EveryOptionMeetsTheBound' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED) ' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
S=128x128x128,256x256x256,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,1000x1000x1000,4095x4097x1023,8192x256x4096,256x8192x4096,6144x1536x2048,512x512x16384,1024x1024x8192
timeout 45 $B/gemmlab bench --dtype f32 --precision tf32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --json $OUT/mixed-tf32.json > $OUT/mixed-tf32.log 2>&1; echo "mixed tf32 exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/mixed-tf32.json)"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
