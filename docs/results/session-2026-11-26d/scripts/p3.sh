#!/usr/bin/env bash
# FP8 multicast pairs + overlapping tiles (tree) against HEAD (tree0): builds, quantized tests and
# memcheck, FP8/INT8 bench both trees, f32 default both trees (alternating), rung 26 tests.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/p3; G=$B/gemmlab; B0=$PWD/../build/p3old; G0=$B0/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT) tree0: $(cat tree0/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
(cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j10 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s") &
(cmake -S tree0 -B $B0 $CF > $OUT/cfg0.log 2>&1; cmake --build $B0 -j6 --target gemmlab_cli > $OUT/build0.log 2>&1; echo "build0 exit $? after $((SECONDS-t0)) s") &
wait
grep -E "error|FAILED|C75" $OUT/build.log | head -20
BUILD_DIR=$B timeout 240 bash tree/scripts/check-quantized.sh $OUT/quantized tests memcheck bench layers > $OUT/check-quantized.log 2>&1; echo "check-quantized exit $?"
grep -E "== .*exit|worst|^  (fp8|fp8-block|int8) " $OUT/check-quantized.log | head -60
timeout 60 $G0 bench --dtype fp8,fp8-block,int8 --sizes 4096,8192 > $OUT/bench-old.log 2>&1; echo "old bench exit $?"; grep -E "^(fp8|fp8-block|int8) " $OUT/bench-old.log
echo "after quantized $((SECONDS-t0)) s"
timeout 100 $B/tests/test_gemm_gpu --gtest_filter='EveryRung.*/f32_*:SplitK.*:GemmApi.DefaultPrecision*:NarrowTiles.*' > $OUT/t26.log 2>&1; echo "rung 26 tests exit $?"; grep -E "PASSED|FAILED|tests ran" $OUT/t26.log | head -5
for r in 1 2; do for which in old new; do
  X=$G; [ $which = old ] && X=$G0
  timeout 60 $X bench --dtype f32 --kernels cublas,auto,wgmma_tf32x3 --layout row --op nn --sizes 4096,8192 --reps 10 --min-time 100 > $OUT/f32-$which-$r.log 2>&1; echo "f32 $which round $r exit $?"
  grep -E "auto|wgmma_tf32x3" $OUT/f32-$which-$r.log | head -4
done; done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf p3.tgz *.log quantized && rm -rf *.log quantized
