#!/usr/bin/env bash
# Session 2026-11-29t, call 10, 2 x H200: the packed build of build/carry.commit. The rotating
# DMMA tiles on k shorter than a k tile (TuneGpu.RotatingDmmaTilesTakeShortK, added in session s
# and never run on a GPU before), and the forked bench's efficiency on its second GPU count
# (--gpus 1,2: the single-GPU row must reach the 2-GPU row).
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0 NCCL_DEBUG=WARN
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); build $(cat build/carry.commit)"
T=$(find $B -name test_tune_gpu -type f | head -1)
CUDA_VISIBLE_DEVICES=0 timeout 150 $T --gtest_filter='*RotatingDmmaTilesTakeShortK*' > $OUT/tune-shortk.log 2>&1
echo "test_tune_gpu exit $? at $((SECONDS-t0)) s"; grep -E '^\[  (PASSED|FAILED|  OK) |^\[  FAILED|Failure' $OUT/tune-shortk.log | head
timeout 100 $B/tools/dist_bench/gemmlab_dist_bench --case gemm --dtype bf16 --size 8192 --gpus 1,2 --grid rows --reps 3 --warmup 1 --check-samples 8 --timeout 30 > $OUT/bench-procs.log 2>&1
echo "bench exit $? at $((SECONDS-t0)) s"; grep -E "single_gpu|rank=all.*overlapped|check_all" $OUT/bench-procs.log | sed 's/dist-bench case=gemm //' | cut -c1-200
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
