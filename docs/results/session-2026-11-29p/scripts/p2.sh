#!/usr/bin/env bash
# Session 2026-11-29p, call 2: the committed code (build/carry.commit), the whole build tree.
# Every ctest (gpu-check tests); memcheck over the new test of the rotating tiles' copies and
# over the small and medium tiles' test (rungs 15-17); tune --explain (every option timed) on
# double shapes one off a power of two and 512^3.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); p2=$(cat build/carry.commit)"
G=build/device/gemmlab; T=build/device/tests
timeout 120 $T/test_tune_gpu --gtest_filter='TuneGpu.RotatingDmma*' > $OUT/rotating.log 2>&1; echo "rotating exit $? at $((SECONDS-t0)) s: $(grep -E '^\[ *(OK|FAILED|PASSED) ' $OUT/rotating.log | tr '\n' ' ')"
CTEST_JOBS=4 timeout 260 scripts/gpu-check.sh $OUT/gc tests > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "tests passed|tests failed" $OUT/gc/ctest.log | tail -2
timeout 100 compute-sanitizer --tool memcheck $T/test_tune_gpu --gtest_filter='TuneGpu.RotatingDmma*' > $OUT/memcheck-rotating.log 2>&1; echo "memcheck rotating exit $? at $((SECONDS-t0)) s: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck-rotating.log | tr '\n' ' ')"
timeout 100 compute-sanitizer --tool memcheck $T/test_tune_gpu --gtest_filter='TuneGpu.SmallAndMedium*' > $OUT/memcheck-small.log 2>&1; echo "memcheck small exit $? at $((SECONDS-t0)) s: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck-small.log | tr '\n' ' ')"
timeout 60 $G tune --explain 1023x1025x1023,511x513x511,2049x2047x1025,512x512x512 --op nn,tn --layout row --dtype f64 > $OUT/explain-f64.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
grep -hE "auto \(" $OUT/explain-f64.txt
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
