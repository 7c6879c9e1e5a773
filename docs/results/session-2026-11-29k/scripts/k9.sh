#!/usr/bin/env bash
# Session 2026-11-29k, call 9: k9 = the submitted tree's code (the split's pointer loads and dp4a
# residues, the reconstruction's classified elements), the whole build tree
# (scripts/pack-device-build.sh). Every ctest and `gemmlab verify` and the ozaki step
# (scripts/gpu-check.sh tests verify ozaki), memcheck over rung 31's GPU tests, cuBLAS, auto
# and rung 31 on `--inputs wide`, and float 8192^3 beside SGEMM three more times.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); k9=$(cat build/carry.commit)"
CTEST_JOBS=4 timeout 400 scripts/gpu-check.sh $OUT/gc tests verify ozaki > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -8 $OUT/gpu-check.out | cut -c1-1500
grep -E "tests? failed|Failed|\*\*\*" $OUT/gc/ctest.log | head -5
timeout 60 compute-sanitizer --tool memcheck build/device/tests/test_ozaki_gpu --gtest_filter='*EveryOpLayout*:*KOfOne*:*WideRange*:*CallersModulus*:*Adversarial*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for dt in f32 f64; do
timeout 45 build/device/gemmlab bench --dtype $dt --sizes 8192 --kernels cublas,auto,int8_emulation --inputs wide --reps 3 --min-time 0 > $OUT/bench-$dt-wide.log 2>&1; echo "bench $dt wide exit $? at $((SECONDS-t0)) s"
grep -E "^(0|-|31) " $OUT/bench-$dt-wide.log | cut -c1-100
done
for r in 1 2 3; do
timeout 40 build/device/gemmlab bench --dtype f32 --sizes 8192 --kernels cublas,int8_emulation > $OUT/bench-f32-8192-$r.log 2>&1; echo "bench f32 8192 $r exit $?: $(grep -E '^(0|31) ' $OUT/bench-f32-8192-$r.log | awk '{print $4}' | tr '\n' ' ')"
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
