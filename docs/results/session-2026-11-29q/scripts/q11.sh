#!/usr/bin/env bash
# Session 2026-11-29q, one H200: the packed build of build/carry.commit (auto with the 64 x 128
# tile, limited to C of whole tiles with n of two tiles or more). test_tune_gpu (the new
# FlatTilesMeetTheBound among them) and test_auto_model, then the half mixed set warm and cold,
# and the BF16 LLM set, as gpu-check runs them.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
timeout 30 $B/tests/test_auto_model > $OUT/test_auto_model.log 2>&1; echo "test_auto_model exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_auto_model.log | tr '\n' ' ')"
timeout 150 $B/tests/test_tune_gpu > $OUT/test_tune_gpu.log 2>&1; echo "test_tune_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_tune_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"; grep -E "FlatTiles" $OUT/test_tune_gpu.log | tail -1
LLM_DTYPES=bf16 timeout 260 bash scripts/gpu-check.sh $OUT/gc bench-half-mixed bench-half-mixed-cold bench-llm > $OUT/gc.out 2>&1; echo "gpu-check sets exit $? at $((SECONDS-t0)) s"
grep -hE "^geomean" $OUT/gc/*.log | head -12
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
