#!/usr/bin/env bash
# Session 2026-11-29r, call 8, one H200: the packed build of build/carry.commit (438c83e: auto
# runs rung 24's 64 x 64 ping-pong tiles on strided batches of short-k products). The model's
# pins, the GPU tests of the batched paths and rung 24's tiles by name, then the batched set
# warm and cold as gpu-check runs them.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
timeout 30 $B/tests/test_auto_model > $OUT/test_auto_model.log 2>&1; echo "test_auto_model exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_auto_model.log | tr '\n' ' ')"
timeout 150 $B/tests/test_gemm_gpu --gtest_filter='PingPongTiles.*:SixtyFourColumnTiles.*:BatchedApi.*:FlatTiles.*:ClusterSplit.*' > $OUT/test_gemm_gpu.log 2>&1; echo "test_gemm_gpu exit $? at $((SECONDS-t0)) s: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_gemm_gpu.log | tr '\n' ' ')"
timeout 300 bash scripts/gpu-check.sh $OUT/gc bench-batched bench-batched-cold > $OUT/gc.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "exit|geomean" $OUT/gc.out | grep -v "^== " | cut -c1-700
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
