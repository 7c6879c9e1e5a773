#!/usr/bin/env bash
# Session 2026-11-28, final 4-GPU call on the submitted tree: full build (dist on); the GEMM,
# quantized and tune GPU tests on GPU 0 beside dist-check's correctness steps; then dist-check's
# tp and scaling rows and rung 29-30 against cuBLASLt, alone.
set -u
export PATH=$PATH:/usr/local/cuda/bin
deps=$PWD/.ab/deps/usr
B=$PWD/build/d
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); tree $(cat .ab/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=ON -DGEMMLAB_BUILD_BLAS=OFF"
cmake -S . -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j60 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED" $OUT/build.log | head
for t in test_auto_model test_validation; do timeout 60 $B/tests/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ')"; done
gt() { CUDA_VISIBLE_DEVICES=$1 timeout $2 $B/tests/$3 > $OUT/$3.log 2>&1; echo "$3 exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$3.log | tr '\n' ' ')"; }
gt 0 200 test_gemm_gpu &
gt 1 100 test_quantized_gpu &
BUILD_DIR=$B DIST_CHECK_BUDGET=540 timeout 220 bash scripts/dist-check.sh $OUT/dist-a cpu tests faults > $OUT/dist-check-a.out 2>&1; echo "dist-check cpu tests faults exit $? at $((SECONDS-t0)) s"
wait
echo "at $((SECONDS-t0)) s"
sed -n '/== summary/,$p' $OUT/dist-check-a.out | grep -vE "^  tests: rank [123]" | head -24
BUILD_DIR=$B DIST_CHECK_BUDGET=540 timeout 170 bash scripts/dist-check.sh $OUT/dist-b tp scaling > $OUT/dist-check-b.out 2>&1; echo "dist-check tp scaling exit $? at $((SECONDS-t0)) s"
sed -n '/== summary/,$p' $OUT/dist-check-b.out | grep -E "summary|single_gpu|efficiency|exit" | head -20
grep -h "rank=all" $OUT/dist-b/scaling.log | grep overlapped | sed 's/.*gpus=/gpus=/'
CUDA_VISIBLE_DEVICES=0 timeout 60 $B/gemmlab bench --dtype fp8,fp8-block,int8 --sizes 4096,8192 > $OUT/fp8.log 2>&1; echo "fp8 bench exit $?"; grep -E "cublaslt|wgmma_fp8|wgmma_int8" $OUT/fp8.log | head -12
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
