#!/usr/bin/env bash
# Session 2026-11-29q, 4 GPUs: a packed build of 26c289d's code + the gathered panels' ring of
# slots, with a temporary knob in this build only (GEMMLAB_X_PANEL_SLOTS, never committed: 2 is
# the two-slot schedule of dc90adc). The dist GPU tests on 4 and 2 ranks, then the BF16
# 32768^3 row-panel product on 4 and 2 GPUs, two slots against the ring, alternating.
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0 NCCL_DEBUG=WARN
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
BENCH=$B/tools/dist_bench/gemmlab_dist_bench
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); build $(cat build/carry.commit)"
GEMMLAB_DIST_TEST_RANKS=4 timeout 100 $B/tests/dist/test_dist_gpu --gtest_filter='-*DeadRank*:*AbortedRank*:*LargerThanOneGpu*' > $OUT/tests-4gpu.log 2>&1
echo "4-rank tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tests-4gpu.log | tr '\n' ' ')"; grep -E "rank 0: dist::gemm|rank 0: tensor" $OUT/tests-4gpu.log
CUDA_VISIBLE_DEVICES=0,1 GEMMLAB_DIST_TEST_RANKS=2 timeout 60 $B/tests/dist/test_dist_gpu --gtest_filter='-*DeadRank*:*AbortedRank*:*LargerThanOneGpu*' > $OUT/tests-2gpu.log 2>&1
echo "2-rank tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tests-2gpu.log | tr '\n' ' ')"; grep -E "rank 0: dist::gemm" $OUT/tests-2gpu.log
timeout 60 $BENCH --case gemm --dtype bf16 --size 32768 --gpus 4 --grid rows --reps 5 --warmup 2 --check-samples 8 --timeout 40 > $OUT/rows-ring-first.log 2>&1; echo "ring with single row exit $?"
grep -E "single_gpu|rank=all.*overlapped|summary|check_all" $OUT/rows-ring-first.log | sed 's/dist-bench case=gemm //; s/m=32768 n=32768 k=32768 //'
sc() { local tag=$1 g=$2 r=$3; shift 3; env "$@" timeout 60 $BENCH --case gemm --dtype bf16 --size 32768 --gpus $g --grid rows --no-single --reps 5 --warmup 2 --check-samples 0 --timeout 40 > $OUT/rows-$tag-$g-$r.log 2>&1; echo "$tag gpus=$g round $r exit $?: $(grep summary $OUT/rows-$tag-$g-$r.log | sed 's/.*summary //')"; }
for r in 1 2 3; do
  sc two 4 $r GEMMLAB_X_PANEL_SLOTS=2
  sc ring 4 $r X=1
done
for r in 1 2; do
  sc two 2 $r GEMMLAB_X_PANEL_SLOTS=2
  sc ring 2 $r X=1
done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
