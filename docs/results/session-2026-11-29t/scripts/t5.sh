#!/usr/bin/env bash
# Session 2026-11-29t, call 5, 4 x H200: the packed build of build/carry.commit. The GPU tests
# on 2 ranks (GPUs 0 and 1: every test but the larger-than-one-GPU product) and the products'
# tests on 4; then, one process per rank, copy engines and NCCL alternating: the tensor-parallel
# rows (the reduce-scatter also at 8 chunks), the BF16 32768^3 row-panel scaling, and double's.
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0 NCCL_DEBUG=WARN
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); build $(cat build/carry.commit)"
CUDA_VISIBLE_DEVICES=0,1 GEMMLAB_DIST_TEST_RANKS=2 timeout 150 $B/tests/dist/test_dist_gpu --gtest_filter='-*LargerThanOneGpu*' > $OUT/tests-2gpu.log 2>&1
echo "2-GPU tests exit $? at $((SECONDS-t0)) s"
grep -E '^\[  (PASSED|FAILED|  OK) |^\[  FAILED|rank 0: (dist::gemm|tensor|the Overlapped|row panels)|rank 0: a peer|dead rank|aborted rank|thread rank 0|did not finish' $OUT/tests-2gpu.log | cut -c1-420 | head -40
GEMMLAB_DIST_TEST_RANKS=4 timeout 120 $B/tests/dist/test_dist_gpu --gtest_filter='*TensorParallel*:*RowPanels*:*GemmEquals*' > $OUT/tests-4gpu.log 2>&1
echo "4-GPU product tests exit $? at $((SECONDS-t0)) s"
grep -E '^\[  (PASSED|FAILED|  OK) |^\[  FAILED|rank 0: (dist::gemm|tensor|the Overlapped|row panels)' $OUT/tests-4gpu.log | cut -c1-300 | head -20
BENCH=$B/tools/dist_bench/gemmlab_dist_bench
tp() { local name=$1; shift; timeout 70 env "$@" $BENCH --case tp --dtype bf16 --tokens 8192 --hidden 8192 --mlp 28672 --gpus 4 --reps 7 --warmup 2 --timeout 60 $EXTRA > $OUT/$name.log 2>&1; echo "$name exit $? at $((SECONDS-t0)) s"; grep -E "summary|rank failed" $OUT/$name.log | sed 's/dist-bench case=tp //; s/ target<=1.15//; s/ target>=1.2//'; }
EXTRA="" tp tp-copy-1 GEMMLAB_DIST_TRANSPORT=auto
EXTRA="" tp tp-nccl-1 GEMMLAB_DIST_TRANSPORT=nccl
EXTRA="--chunks 8" tp tp-copy-c8-1 GEMMLAB_DIST_TRANSPORT=auto
EXTRA="" tp tp-copy-2 GEMMLAB_DIST_TRANSPORT=auto
EXTRA="" tp tp-nccl-2 GEMMLAB_DIST_TRANSPORT=nccl
EXTRA="--chunks 8" tp tp-copy-c8-2 GEMMLAB_DIST_TRANSPORT=auto
EXTRA="" tp tp-copy-3 GEMMLAB_DIST_TRANSPORT=auto
sc() { local name=$1; shift; timeout 150 env "$@" $BENCH --case gemm --size 32768 --gpus 4 --grid rows --reps 3 --warmup 1 --check-samples 8 --timeout 100 $EXTRA > $OUT/$name.log 2>&1; echo "$name exit $? at $((SECONDS-t0)) s"; grep -E "single_gpu|rank=all.*overlapped|summary|check_all|rank failed" $OUT/$name.log | sed 's/dist-bench case=gemm //; s/m=32768 n=32768 k=32768 //'; }
EXTRA="--dtype bf16" sc rows-copy-1 GEMMLAB_DIST_TRANSPORT=auto
EXTRA="--dtype bf16 --no-single" sc rows-nccl-1 GEMMLAB_DIST_TRANSPORT=nccl
EXTRA="--dtype bf16 --no-single" sc rows-copy-2 GEMMLAB_DIST_TRANSPORT=auto
EXTRA="--dtype bf16 --no-single" sc rows-nccl-2 GEMMLAB_DIST_TRANSPORT=nccl
EXTRA="--dtype f64 --schedules overlapped,comm,compute" sc rows-f64-copy GEMMLAB_DIST_TRANSPORT=auto
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
