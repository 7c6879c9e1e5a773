#!/usr/bin/env bash
# Session 2026-11-29q, second 4-GPU call: the packed build of build/carry.commit. The whole of
# scripts/dist-check.sh on 4 GPUs, the GPU tests on 2 ranks, then the 32768^3 rows again
# (BF16 row panels at two widths, alternating) and double on the DMMA rung (dmma) for the
# single GPU and the local products alike.
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); build $(cat build/carry.commit)"
BUILD_DIR=$B DIST_CHECK_BUDGET=400 timeout 410 bash scripts/dist-check.sh $OUT/dist > $OUT/dist-check.out 2>&1; echo "dist-check exit $? at $((SECONDS-t0)) s"
grep -E "^== |exit|TIMED" $OUT/dist-check.out | head -30
sed -n '/== summary/,$p' $OUT/dist-check.out | grep -vE "^  tests: rank [123]|^  faults: rank [123]" | sed 's/dist-bench case=gemm //; s/m=32768 n=32768 k=32768 //' | head -60
CUDA_VISIBLE_DEVICES=0,1 GEMMLAB_DIST_TEST_RANKS=2 NCCL_DEBUG=WARN timeout 60 $B/tests/dist/test_dist_gpu --gtest_filter='-*DeadRank*:*AbortedRank*:*LargerThanOneGpu*' > $OUT/tests-2gpu.log 2>&1
echo "2-GPU tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tests-2gpu.log | tr '\n' ' ')"
grep -E "rank 0: dist::gemm|rank 0: tensor" $OUT/tests-2gpu.log
BENCH=$B/tools/dist_bench/gemmlab_dist_bench
sc() { local name=$1; shift; timeout 100 $BENCH --case gemm --size 32768 --reps 3 --warmup 1 --check-samples 8 --timeout 60 "$@" > $OUT/$name.log 2>&1; echo "$name exit $? at $((SECONDS-t0)) s"; grep -E "single_gpu|rank=all.*overlapped|summary|check_all" $OUT/$name.log | sed 's/dist-bench case=gemm //; s/m=32768 n=32768 k=32768 //'; }
for r in 1 2; do
  sc rows-bf16-default-$r --dtype bf16 --gpus 4 --grid rows --no-single
  sc rows-bf16-pn4096-$r --dtype bf16 --gpus 4 --grid rows --panel-n 4096 --no-single
done
[ $((SECONDS-t0)) -lt 480 ] && sc rows-f64-dmma --dtype f64 --gpus 2,4 --grid rows --kernel dmma --reps 2
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
