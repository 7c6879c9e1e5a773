#!/usr/bin/env bash
# Rung 27's half types on mma.sync: full build, SASS, GPU tests, tiny batched rows.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/e2; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF"
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|spill" $OUT/build.log | head
O=$(find $B -name '27_small.cu.o' | head -1)
cuobjdump -sass $O > $OUT/sass27.txt 2>&1; echo "SASS small_mma: $(grep -c HMMA $OUT/sass27.txt) HMMA, $(grep -c LDSM $OUT/sass27.txt) LDSM, $(grep -c 'LDG.E.128' $OUT/sass27.txt) LDG.128"
S=16x16x16@100000,32x32x32@16384,32x32x64@16384,32x32x128@8192,32x32x256@4096,32x32x512@2048,24x40x72@8192,64x64x64@1024,64x64x64@4096,64x64x128@512,128x128x64@1024,128x128x128@512,64x512x64@512,512x64x128@256
for mode in warm cold; do
  c=""; [ $mode = cold ] && c="--cold"
  timeout 120 $G bench --dtype bf16,f16 --kernels cublas,small,mma_sync_f16,auto --layout row --op nn,nt,tn --shapes $S $c --json $OUT/tiny-$mode.json > $OUT/tiny-$mode.log 2>&1; echo "tiny $mode exit $? at $((SECONDS-t0)) s"
done
if [ "${SKIPTEST:-0}" = 0 ]; then
(cd tree && BUILD_DIR=$B CTEST_JOBS=8 timeout 300 bash scripts/gpu-check.sh $OUT/check tests > $OUT/gpu-check-tests.log 2>&1); echo "gpu-check tests exit $? at $((SECONDS-t0)) s"; grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" $OUT/check/ctest.log | head
fi
echo "total $((SECONDS-t0)) s"
