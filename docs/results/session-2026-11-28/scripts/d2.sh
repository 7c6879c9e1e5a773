#!/usr/bin/env bash
# Session 2026-11-28, second 4-GPU call: the working tree with temporary knobs (GEMMLAB_X_*),
# the tensor-parallel rows and the BF16 scaling under each policy, alternating.
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0
deps=$PWD/.ab/deps/usr
B=$PWD/build/d
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); tree $(cat .ab/COMMIT) + knobs"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=ON -DGEMMLAB_BUILD_BLAS=OFF"
cmake -S . -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j60 --target gemmlab_dist_bench test_dist_gpu > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED" $OUT/build.log | head
BENCH=$B/tools/dist_bench/gemmlab_dist_bench
GEMMLAB_DIST_TEST_RANKS=4 GEMMLAB_X_AG=1 timeout 100 $B/tests/dist/test_dist_gpu --gtest_filter='*TensorParallel*' > $OUT/tp-test-gather.log 2>&1; echo "tp test, gather form: exit $? $(grep -E 'tensor parallel:' $OUT/tp-test-gather.log | head -1)"
tp() { timeout 30 $BENCH --case tp --dtype bf16 --tokens 8192 --hidden 8192 --mlp 28672 --gpus 4 --reps 5 --warmup 2 --timeout 20 > $OUT/tp-$1-$2.log 2>&1; echo "tp $1 round $2 exit $?"; grep summary $OUT/tp-$1-$2.log | sed 's/.*pattern=//'; }
for r in 1 2; do
  tp cap-bcast $r
  GEMMLAB_X_BESIDE=rung22 tp rung22-bcast $r
  GEMMLAB_X_AG=1 tp cap-gather $r
  GEMMLAB_X_AG=1 GEMMLAB_X_BESIDE=rung22 tp rung22-gather $r
done
echo "at $((SECONDS-t0)) s"
sc() { timeout 60 $BENCH --case gemm --dtype bf16 --size 32768 --gpus 4 --reps 3 --warmup 1 --check-samples 8 --timeout 40 > $OUT/sc-$1-$2.log 2>&1; echo "scaling $1 round $2 exit $?"; grep -E "summary|efficiency|check_all" $OUT/sc-$1-$2.log | grep -E "rank=all|summary|check" | sed 's/.*gpus=4 //'; }
for r in 1 2; do
  sc cap-2streams $r
  GEMMLAB_X_BESIDE=rung22 sc rung22-2streams $r
  GEMMLAB_X_ONESTREAM=1 sc cap-1stream $r
  [ $((SECONDS-t0)) -gt 480 ] && break
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls *.log) && (cd $OUT && rm -f *.log)
echo "total $((SECONDS-t0)) s"
