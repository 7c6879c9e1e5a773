#!/usr/bin/env bash
# The final build on an H100: float default at 4096/8192 and the mixed set; FP8/INT8 beside cuBLASLt.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/h1; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
cmake -S tree -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps \
  -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF -DGEMMLAB_BUILD_TESTS=OFF > $OUT/cfg.log 2>&1
cmake --build $B -j16 --target gemmlab_cli > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
timeout 60 $G bench --dtype f32 --kernels cublas,auto,wgmma_tf32x3 --layout row --op nn --sizes 4096,8192 --reps 10 --min-time 100 > $OUT/f32-big.log 2>&1; echo "f32 big exit $?"
grep -E "cublas|auto|wgmma_tf32x3" $OUT/f32-big.log | head -8
MIXED=128x128x128,256x256x256,512x512x512,1024x1024x1024,2048x2048x2048,4096x4096x4096,8192x8192x8192,1000x1000x1000,4095x4097x1023,8192x256x4096,256x8192x4096,6144x1536x2048,512x512x16384,1024x1024x8192
timeout 170 $G bench --dtype f32 --kernels cublas,auto --reps 5 --min-time 30 --shapes $MIXED --op all --json $OUT/f32-mixed.json > $OUT/f32-mixed.log 2>&1; echo "f32 mixed exit $?"
python3 tree/scripts/geomean.py $OUT/f32-mixed.json | tail -3
timeout 60 $G bench --dtype fp8,fp8-block,int8 --sizes 4096,8192 > $OUT/quantized.log 2>&1; echo "quantized exit $?"; grep -E "^(fp8|fp8-block|int8) " $OUT/quantized.log
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf h1.tgz *.log *.json && rm -f *.log *.json
