#!/usr/bin/env bash
# Final run, part 1: builds (HEAD full, HEAD~1 cli), ctest, quantized check, FP8 A/B (multicast pairs or not).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/g1; G=$B/gemmlab; B0=$PWD/../build/g1old; G0=$B0/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT) tree0: $(cat tree0/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
(cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j10 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s") &
(cmake -S tree0 -B $B0 $CF > $OUT/cfg0.log 2>&1; cmake --build $B0 -j6 --target gemmlab_cli > $OUT/build0.log 2>&1; echo "build0 exit $? after $((SECONDS-t0)) s") &
wait
grep -E "error|FAILED|C75" $OUT/build.log | head -20
(cd $B && timeout 200 ctest -j8 -E find_package_consumer --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest exit $?"); grep -E "tests passed|tests failed|Total Test|\(Failed\)|Timeout" $OUT/ctest.log | head -16
echo "after ctest $((SECONDS-t0)) s"
BUILD_DIR=$B timeout 200 bash tree/scripts/check-quantized.sh $OUT/quantized tests memcheck bench sass > $OUT/check-quantized.log 2>&1; echo "check-quantized exit $?"
sed -n '/== summary/,$p' $OUT/check-quantized.log | head -40
for r in 1 2; do
  timeout 40 $G0 bench --dtype fp8,fp8-block --sizes 4096,8192 > $OUT/ab-old-$r.log 2>&1; echo "no pairs ($(cat tree0/COMMIT)) round $r:"; grep -E "wgmma_fp8" $OUT/ab-old-$r.log
  timeout 40 $G bench --dtype fp8,fp8-block --sizes 4096,8192 > $OUT/ab-new-$r.log 2>&1; echo "pairs ($(cat tree/COMMIT)) round $r:"; grep -E "wgmma_fp8" $OUT/ab-new-$r.log
done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf g1.tgz *.log quantized && rm -rf *.log quantized
