#!/usr/bin/env bash
# Final run, part 4 (HEAD): TF32 and double accuracy beside cuBLAS; float default at a C that auto does not split.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/g2; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
if [ ! -x $G ]; then
cmake -S tree -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps \
  -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF -DGEMMLAB_BUILD_TESTS=OFF > $OUT/cfg.log 2>&1
cmake --build $B -j16 --target gemmlab_cli > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
fi
timeout 150 $G accuracy --dtype f32 --precision tf32 --kernels cublas,auto,wgmma_tf32 --json $OUT/acc-tf32.json > $OUT/acc-tf32.log 2>&1; echo "accuracy tf32 exit $?"
grep -iE -A1 "^target" $OUT/acc-tf32.log | head -4
timeout 150 $G accuracy --dtype f64 --precision default --kernels cublas,auto,dmma --json $OUT/acc-f64.json > $OUT/acc-f64.log 2>&1; echo "accuracy f64 exit $?"
grep -iE -A1 "^target" $OUT/acc-f64.log | head -4
timeout 200 $G accuracy --dtype f32 --precision default --kernels cublas,auto --m 2048 --n 2048 --k 1024,4096,16384 --json $OUT/acc-f32-2048.json > $OUT/acc-f32-2048.log 2>&1; echo "accuracy f32 2048 exit $?"
grep -iE -A1 "^target" $OUT/acc-f32-2048.log | head -4; grep -E "^ *\|? *(1024|4096|16384) " $OUT/acc-f32-2048.log | head -8
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf g4.tgz *.log *.json && rm -f *.log *.json
