#!/usr/bin/env bash
# The sets behind the final build: scripts/gpu-check.sh STEPS on a gemmlab_cli build (no tests).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/f2
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF -DGEMMLAB_BUILD_TESTS=OFF"
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 --target gemmlab_cli > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
(cd tree && BUILD_DIR=$B timeout $((580-SECONDS+t0)) bash scripts/gpu-check.sh $OUT/check $STEPS > $OUT/gpu-check.log 2>&1); echo "gpu-check exit $? at $((SECONDS-t0)) s"
sed -n '/summary/,$p' $OUT/gpu-check.log | head -20
