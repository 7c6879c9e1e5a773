#!/usr/bin/env bash
# Where the tail split's time goes: one build with an experiment knob (tree only), ncu per variant.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/k4; G=$B/gemmlab
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF -DGEMMLAB_BUILD_TESTS=OFF"
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 --target gemmlab_cli > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error" $OUT/build.log | head
for s in 512x2048x2048 64x4096x4096 512x10240x8192; do
  for x in 0 1 2 3; do
    r=$(GEMMLAB_TS_EXPERIMENT=$x timeout 60 ncu --clock-control none -k regex:TailSplit -c 3 --metrics gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max $G bench --kernels auto --dtype bf16 --layout row --op nt --shapes $s --reps 3 2>&1 | grep -E "gpu__time|cycles_active" | awk '{print $NF}' | tr '\n' ' ')
    w=$(GEMMLAB_TS_EXPERIMENT=$x timeout 30 $G bench --kernels cublas,auto --dtype bf16 --layout row --op nt --shapes $s 2>&1 | grep -E "^-   auto" | awk '{print $4, $NF}')
    echo "$s exp $x: ncu(us, active avg, max; x3) $r | bench auto ms, check: $w"
  done
done
echo "total $((SECONDS-t0)) s"
