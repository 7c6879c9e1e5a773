#!/usr/bin/env bash
# Session 2026-11-29k, call 10: k10 = the submitted tree (k9's code, the wide residue's host form
# through byte_dot, comments). The Ozaki CPU and GPU tests and memcheck over 17 of them.
set -u
export PATH=$PATH:/usr/local/cuda/bin
N=k10
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
$B/tests/test_ozaki > $OUT/test_ozaki.log 2>&1; echo "test_ozaki exit $?: $(tail -1 $OUT/test_ozaki.log)"
timeout 200 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ')"
timeout 60 compute-sanitizer --tool memcheck $B/tests/test_ozaki_gpu --gtest_filter='*EveryOpLayout*:*KOfOne*:*WideRange*:*CallersModulus*:*Adversarial*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ')"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
