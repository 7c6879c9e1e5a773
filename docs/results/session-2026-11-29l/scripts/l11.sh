#!/usr/bin/env bash
# Session 2026-11-29l, call 11: l11 = the submitted kernels after the narrow-residue loop was
# shared, the whole build tree (scripts/pack-device-build.sh). Every ctest, `gemmlab verify` and
# the ozaki step (scripts/gpu-check.sh tests verify ozaki), memcheck over 17 Ozaki GPU tests.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); l11=$(cat build/carry.commit)"
CTEST_JOBS=4 timeout 400 scripts/gpu-check.sh $OUT/gc tests verify ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -8 $OUT/gpu-check.out | cut -c1-1500
grep -E "tests? failed|Failed|\*\*\*" $OUT/gc/ctest.log | head -5
timeout 60 compute-sanitizer --tool memcheck build/device/tests/test_ozaki_gpu --gtest_filter='*EveryOpLayout*:*KOfOne*:*WideRange*:*CallersModulus*:*Adversarial*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
