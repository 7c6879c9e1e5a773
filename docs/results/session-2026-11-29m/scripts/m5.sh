#!/usr/bin/env bash
# Session 2026-11-29m, call 5: rung 25's MN-major A loaded a whole k tile ahead (two register
# sets by tile parity, one wgmma group per tile left in flight; packed build m5) against m2 (a
# group per k step), timed alternately on the shapes that take the register path (row-major nn,
# tt, tn in TF32 mode); the TF32 tests and memcheck over every auto option on m5.
set -u
export PATH=$PATH:/usr/local/cuda/bin
for b in m2 m5; do rm -rf build/${b}bin && mkdir -p build/${b}bin && tar xJf build/$b.txz -C build/${b}bin; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat build/m5bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
S=256x256x256,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x256x4096,256x8192x4096,6144x1536x2048,1024x1024x8192
for r in 1 2; do for b in m2 m5; do
  LD_LIBRARY_PATH=build/${b}bin timeout 60 build/${b}bin/gemmlab bench --dtype f32 --precision tf32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op nn,tt,tn --json $OUT/ab-$b-$r.json > $OUT/ab-$b-$r.log 2>&1; echo "$b round $r exit $? at $((SECONDS-t0)) s"
done; done
B=$PWD/build/m5bin; export LD_LIBRARY_PATH=$B
timeout 100 $B/tests/test_tune_gpu --gtest_filter='TuneGpu.EveryOptionMeetsTheBound' > $OUT/tune-test.log 2>&1; echo "tune test exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tune-test.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 150 $B/tests/test_gemm_gpu --gtest_filter='*EveryRung*f32*:Tf32Mode.*:SplitK.*:GemmApi.*' > $OUT/gemm-test.log 2>&1; echo "gemm test exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gemm-test.log | tr '\n' ' ') at $((SECONDS-t0)) s"
grep -E "Failure|FAILED" $OUT/gemm-test.log $OUT/tune-test.log | head -10
timeout 150 compute-sanitizer --tool memcheck $B/tests/test_tune_gpu --gtest_filter='TuneGpu.EveryOptionMeetsTheBound' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED) ' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
