#!/usr/bin/env bash
# Session 2026-11-29t, call 4, 4 x H200: the packed build of build/carry.commit (the copy engines
# writing into the peers' buffers, one process per rank). The GPU tests on 4 ranks (all but the
# larger-than-one-GPU product), then the tensor-parallel rows and the BF16 32768^3 row-panel
# scaling, copy engines and NCCL alternating, one process per rank.
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0 NCCL_DEBUG=WARN
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); build $(cat build/carry.commit)"
GEMMLAB_DIST_TEST_RANKS=4 timeout 250 $B/tests/dist/test_dist_gpu --gtest_filter='-*LargerThanOneGpu*' > $OUT/tests-4gpu.log 2>&1
echo "4-GPU tests exit $? at $((SECONDS-t0)) s"
grep -E '^\[  (PASSED|FAILED|  OK) |^\[  FAILED|rank 0: (dist::gemm|tensor|the Overlapped|row panels)|rank [0-3]: a peer|dead rank|aborted rank|thread rank 0|did not finish' $OUT/tests-4gpu.log | cut -c1-400 | head -44
BENCH=$B/tools/dist_bench/gemmlab_dist_bench
tp() { local name=$1; shift; timeout 70 env "$@" $BENCH --case tp --dtype bf16 --tokens 8192 --hidden 8192 --mlp 28672 --gpus 4 --reps 5 --warmup 1 --timeout 60 > $OUT/$name.log 2>&1; echo "$name exit $? at $((SECONDS-t0)) s"; grep -E "summary|rank failed" $OUT/$name.log | sed 's/dist-bench case=tp //'; }
tp tp-copy-inturn-1 GEMMLAB_DIST_TRANSPORT=auto
tp tp-nccl-1 GEMMLAB_DIST_TRANSPORT=nccl
tp tp-copy-together-1 GEMMLAB_DIST_TRANSPORT=auto GEMMLAB_DIST_STEPS=together
tp tp-copy-inturn-2 GEMMLAB_DIST_TRANSPORT=auto
tp tp-nccl-2 GEMMLAB_DIST_TRANSPORT=nccl
sc() { local name=$1; shift; timeout 100 env "$@" $BENCH --case gemm --size 32768 --dtype bf16 --gpus 4 --grid rows --reps 3 --warmup 1 --check-samples 8 --timeout 60 $EXTRA > $OUT/$name.log 2>&1; echo "$name exit $? at $((SECONDS-t0)) s"; grep -E "single_gpu|rank=all.*overlapped|summary|check_all|rank failed" $OUT/$name.log | sed 's/dist-bench case=gemm //; s/m=32768 n=32768 k=32768 //'; }
EXTRA="" sc rows-copy-1 GEMMLAB_DIST_TRANSPORT=auto
EXTRA="--no-single" sc rows-nccl-1 GEMMLAB_DIST_TRANSPORT=nccl
EXTRA="--no-single" sc rows-copy-2 GEMMLAB_DIST_TRANSPORT=auto
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
