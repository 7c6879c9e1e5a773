#!/usr/bin/env bash
# Session 2026-11-29t, call 8, 4 x H200: the packed build of build/carry.commit (the copy-engine
# reduce-scatter's half-size last piece and its sum straight into the output). The
# tensor-parallel tests on 4 and on 2 ranks, then the tensor-parallel rows, copy engines three
# times and NCCL twice, alternating.
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0 NCCL_DEBUG=WARN
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); build $(cat build/carry.commit)"
GEMMLAB_DIST_TEST_RANKS=4 timeout 100 $B/tests/dist/test_dist_gpu --gtest_filter='*TensorParallel*:*SingleProcess*:*OnTheCopyEngines*' > $OUT/tests-4gpu.log 2>&1
echo "4-rank tests exit $? at $((SECONDS-t0)) s"; grep -E '^\[  (PASSED|FAILED|  OK) |^\[  FAILED|rank 0: (tensor|the Overlapped|a peer)|thread rank 0|dead rank' $OUT/tests-4gpu.log | cut -c1-300
CUDA_VISIBLE_DEVICES=0,1 GEMMLAB_DIST_TEST_RANKS=2 timeout 60 $B/tests/dist/test_dist_gpu --gtest_filter='*TensorParallel*' > $OUT/tests-2gpu.log 2>&1
echo "2-rank tests exit $? at $((SECONDS-t0)) s"; grep -E '^\[  (PASSED|FAILED) |rank 0: tensor' $OUT/tests-2gpu.log
tp() { local name=$1; shift; timeout 40 env "$@" $B/tools/dist_bench/gemmlab_dist_bench --case tp --dtype bf16 --tokens 8192 --hidden 8192 --mlp 28672 --gpus 4 --reps 7 --warmup 2 --timeout 30 > $OUT/$name.log 2>&1; echo "$name exit $? at $((SECONDS-t0)) s"; grep summary $OUT/$name.log | sed 's/dist-bench case=tp //; s/ target<=1.15//; s/ target>=1.2//; s/ dtype=bf16 tp=4 summary//'; }
tp tp-copy-1 GEMMLAB_DIST_TRANSPORT=auto
tp tp-nccl-1 GEMMLAB_DIST_TRANSPORT=nccl
tp tp-copy-2 GEMMLAB_DIST_TRANSPORT=auto
tp tp-nccl-2 GEMMLAB_DIST_TRANSPORT=nccl
tp tp-copy-3 GEMMLAB_DIST_TRANSPORT=auto
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
