#!/usr/bin/env bash
# Rung 27's C through shared memory (GEMMLAB_X_STAGEDC=1) against direct stores (0): tiny rows
# alternating, warm and cold, and ncu on 32x32x32 x 16384 under each.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/e4; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF -DGEMMLAB_BUILD_TESTS=OFF"
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 --target gemmlab_cli > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
grep -E "error|FAILED|spill" $OUT/build.log | head
S=16x16x16@100000,32x32x32@16384,32x32x128@8192,64x64x64@1024,48x40x64@4096
for round in warm:0,1 cold:0,1 warm:1,0 cold:1,0; do
  mode=${round%%:*}; vs=${round#*:}; c=""; [ $mode = cold ] && c="--cold"
  for v in ${vs//,/ }; do
    f=$mode-s$v-$SECONDS
    GEMMLAB_X_STAGEDC=$v timeout 60 $G bench --dtype bf16 --kernels cublas,small --layout row --op nn,nt --shapes $S $c > $OUT/$f.log 2>&1; echo "$f exit $?: $(grep -E '^-?[0-9]* *small' $OUT/$f.log | awk '{printf "%s/%s ", $4, $7}')"
  done
done
for v in 0 1; do
GEMMLAB_X_STAGEDC=$v timeout 60 ncu --clock-control none -k regex:small_mma --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis $G bench --dtype bf16 --kernels small --layout row --op nn --shapes 32x32x32@16384 --reps 2 --min-time 0 > $OUT/ncu-s$v.txt 2>&1; echo "ncu s$v exit $?"
grep -E "Memory Throughput|DRAM Throughput|Duration|Achieved Occupancy|Compute \(SM\) Throughput|Stall Long Scoreboard|L2 Hit|Warp Cycles Per Issued" $OUT/ncu-s$v.txt | head -12
done
echo "total $((SECONDS-t0)) s"
