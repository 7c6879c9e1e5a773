#!/usr/bin/env bash
# Session 2026-11-29q, first 4-GPU call: the packed build of the commit in build/carry.commit.
# dist-check's correctness steps on 4 ranks, the GPU tests on 2 ranks, then the 32768^3 scaling
# rows on the row-panel grid (gathered panels) and the square grid (SUMMA), and panel widths.
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); build $(cat build/carry.commit)"
BUILD_DIR=$B DIST_CHECK_BUDGET=540 timeout 150 bash scripts/dist-check.sh $OUT/dist-a cpu tests faults > $OUT/dist-check-a.out 2>&1; echo "dist-check cpu tests faults exit $? at $((SECONDS-t0)) s"
sed -n '/== summary/,$p' $OUT/dist-check-a.out | grep -vE "^  tests: rank [123]|^  faults: rank [123]" | head -20
CUDA_VISIBLE_DEVICES=0,1 GEMMLAB_DIST_TEST_RANKS=2 NCCL_DEBUG=WARN timeout 60 $B/tests/dist/test_dist_gpu --gtest_filter='-*DeadRank*:*AbortedRank*:*LargerThanOneGpu*' > $OUT/tests-2gpu.log 2>&1
echo "2-GPU tests exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tests-2gpu.log | tr '\n' ' ')"
grep -E "rank 0: dist::gemm|rank 0: tensor" $OUT/tests-2gpu.log
BENCH=$B/tools/dist_bench/gemmlab_dist_bench
sc() { local name=$1; shift; timeout 150 $BENCH --case gemm --size 32768 --reps 3 --warmup 1 --check-samples 8 --timeout 60 "$@" > $OUT/$name.log 2>&1; echo "$name exit $? at $((SECONDS-t0)) s"; grep -E "single_gpu|rank=all.*overlapped|summary|check_all" $OUT/$name.log | sed 's/dist-bench case=gemm //; s/m=32768 n=32768 k=32768 //'; }
sc scaling-rows --dtype bf16,f64 --gpus 2,4 --grid rows
sc scaling-square-bf16 --dtype bf16 --gpus 4 --grid square --no-single
sc rows-bf16-pn2048 --dtype bf16 --gpus 4 --grid rows --panel-n 2048 --no-single
sc rows-bf16-pn8192 --dtype bf16 --gpus 4 --grid rows --panel-n 8192 --no-single
sc rows-bf16-again --dtype bf16 --gpus 4 --grid rows --no-single
CUDA_VISIBLE_DEVICES=0 timeout 60 $B/gemmlab bench --dtype bf16 --kernels cublas,auto,warp_specialized --shapes 8192x4096x32768,8192x8192x32768,16384x16384x8192 > $OUT/local-shapes.log 2>&1; echo "local shapes exit $?"; tail -14 $OUT/local-shapes.log
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
