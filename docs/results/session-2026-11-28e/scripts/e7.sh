#!/usr/bin/env bash
# Session 2026-11-28e, call 7: e7 = e6 with the fallback FMA pass summing in double (32-long k
# tiles added to the running sum). The Ozaki and graph tests, memcheck of the Ozaki tests that
# fall back, then scripts/gpu-check.sh's ozaki step (bench and accuracy).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p .ab/run/e7 && tar -C .ab/run/e7 -xJf .ab/e7.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); e7=$(cat .ab/run/e7/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/e7/bin; export LD_LIBRARY_PATH=$B
mkdir -p /work/main/build/device && ln -sf $B/gemmlab /work/main/build/device/gemmlab
for t in test_ozaki_gpu test_graph_gpu test_accuracy; do
  timeout 240 $B/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ') at $((SECONDS-t0)) s"
  grep -E "Failure" -A4 $OUT/$t.log | head -12
done
timeout 120 compute-sanitizer --tool memcheck $B/test_ozaki_gpu --gtest_filter='*WideRange*:*Adversarial*:*CallersModulus*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
BUILD_DIR=$B timeout 300 scripts/gpu-check.sh $OUT/gc ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-1500
grep -A4 "wide range inputs: max" $OUT/gc/ozaki-accuracy.log | grep -E "kernel|cublas |int8"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
