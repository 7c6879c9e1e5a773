#!/usr/bin/env bash
# Final run, part 2 (HEAD): build, ctest, quantized check with the FP8 layer set and SASS.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/g2; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
cmake -S tree -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps \
  -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF > $OUT/cfg.log 2>&1
cmake --build $B -j16 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|C75" $OUT/build.log | head -20
(cd $B && timeout 200 ctest -j8 -E find_package_consumer --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest exit $?"); grep -E "tests passed|tests failed|Total Test|\(Failed\)|Timeout" $OUT/ctest.log | head -16
echo "after ctest $((SECONDS-t0)) s"
BUILD_DIR=$B timeout 220 bash tree/scripts/check-quantized.sh $OUT/quantized tests memcheck bench layers sass > $OUT/check-quantized.log 2>&1; echo "check-quantized exit $?"
sed -n '/== summary/,$p' $OUT/check-quantized.log | head -80
rm -f $OUT/quantized/sass-dump.log
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf g2.tgz *.log quantized && rm -rf *.log quantized
