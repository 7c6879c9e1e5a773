#!/usr/bin/env bash
# Session 2026-11-29r, call 9, one H200: the packed build of build/carry.commit (the session's
# final code). The GPU tests through which auto reaches strided batches and rung 24's tiles
# (test_gemm_gpu's batched, many-batch, narrow, 64-column, flat and ping-pong tests) and every
# test_tune_gpu test.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
timeout 30 $B/tests/test_auto_model > $OUT/test_auto_model.log 2>&1; echo "test_auto_model exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_auto_model.log | tr '\n' ' ')"
timeout 100 $B/tests/test_gemm_gpu --gtest_filter='SixtyFourColumnTiles.*:Batched*:ManyBatches*:NarrowTiles*:PingPongTiles.*:FlatTiles.*:Repitch.*' > $OUT/test_gemm_gpu.log 2>&1; echo "test_gemm_gpu exit $? at $((SECONDS-t0)) s: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_gemm_gpu.log | tr '\n' ' ')"
grep -m5 -E "^\[  FAILED|Failure" $OUT/test_gemm_gpu.log
timeout 70 $B/tests/test_tune_gpu > $OUT/test_tune_gpu.log 2>&1; echo "test_tune_gpu exit $? at $((SECONDS-t0)) s: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_tune_gpu.log | tr '\n' ' ')"
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
