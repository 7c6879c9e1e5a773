#!/usr/bin/env bash
# Session 2026-11-28: full build (dist on) of the working tree on a 4-GPU host; CPU tests; the
# SM count target's GPU test; scripts/dist-check.sh cpu tests faults tp scaling; the tp rows at
# 2, 4 and 8 chunks; rung 29 (single blocks) against cuBLASLt.
set -u
export PATH=$PATH:/usr/local/cuda/bin
deps=$PWD/.ab/deps/usr
B=$PWD/build/d
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); tree $(cat .ab/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=ON -DGEMMLAB_BUILD_BLAS=OFF"
cmake -S . -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j60 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|NCCL|dist" $OUT/cfg.log | head -5; grep -E "error|FAILED" $OUT/build.log | head
for t in test_auto_model test_validation; do timeout 60 $B/tests/$t > $OUT/$t.log 2>&1; echo "$t exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/$t.log | tr '\n' ' ')"; done
CUDA_VISIBLE_DEVICES=0 timeout 120 $B/tests/test_gemm_gpu --gtest_filter='SmCountTarget.*:SplitK.*:NarrowTiles.*' > $OUT/gemm-gpu.log 2>&1; echo "test_gemm_gpu subset exit $?: $(grep -E '^\[  (PASSED|FAILED) |Failure|on all' $OUT/gemm-gpu.log | head -6 | tr '\n' ' ')"
echo "at $((SECONDS-t0)) s"
BUILD_DIR=$B DIST_CHECK_BUDGET=300 timeout 320 bash scripts/dist-check.sh $OUT/dist cpu tests faults tp scaling > $OUT/dist-check.out 2>&1; echo "dist-check exit $? at $((SECONDS-t0)) s"
sed -n '/== summary/,$p' $OUT/dist-check.out | head -40
export NCCL_NVLS_ENABLE=0
for c in 2 8; do timeout 30 $B/tools/dist_bench/gemmlab_dist_bench --case tp --dtype bf16 --tokens 8192 --hidden 8192 --mlp 28672 --gpus 4 --chunks $c --reps 5 --warmup 2 --timeout 20 > $OUT/tp-chunks$c.log 2>&1; echo "chunks $c exit $?"; grep summary $OUT/tp-chunks$c.log; done
echo "at $((SECONDS-t0)) s"
CUDA_VISIBLE_DEVICES=0 timeout 60 $B/gemmlab bench --dtype fp8,fp8-block,int8 --sizes 4096,8192 > $OUT/fp8.log 2>&1; echo "fp8 bench exit $?"; grep -E "cublaslt|wgmma_fp8|wgmma_int8" $OUT/fp8.log | head -12
tar -C $OUT -czf $OUT/logs.tgz dist cfg.log build.log $(cd $OUT && ls *.log *.out) 2>/dev/null && (cd $OUT && rm -rf dist *.log *.out)
echo "total $((SECONDS-t0)) s"
