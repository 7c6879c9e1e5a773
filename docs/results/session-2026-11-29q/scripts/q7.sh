#!/usr/bin/env bash
# Session 2026-11-29q, one H200: the packed build of build/carry.commit (rung 31 in blocks of C
# where one product's workspace passes an eighth of the GPU's memory). The emulation's GPU
# tests (the new blocks test under memcheck too), test_auto_model, and double products past
# that line beside cuBLAS DGEMM.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1); $(date -u); build $(cat build/carry.commit)"
timeout 30 $B/tests/test_auto_model > $OUT/test_auto_model.log 2>&1; echo "test_auto_model exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_auto_model.log | tr '\n' ' ')"
timeout 200 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
grep -E "FAILED|Failure" -A3 $OUT/test_ozaki_gpu.log | head -20
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_ozaki_gpu --gtest_filter='Int8EmulationBlocks.*' > $OUT/memcheck-blocks.log 2>&1; echo "memcheck blocks exit $?: $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED) ' $OUT/memcheck-blocks.log | tr '\n' ' ') at $((SECONDS-t0)) s"
timeout 300 $B/gemmlab bench --dtype f64 --kernels cublas,auto --shapes 24576x24576x24576,32768x32768x32768,20000x30000x20000 --reps 3 --min-time 0 --json $OUT/big-f64.json > $OUT/big-f64.log 2>&1; echo "big f64 exit $? at $((SECONDS-t0)) s"
grep -E "^f64|cublas |auto " $OUT/big-f64.log
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
