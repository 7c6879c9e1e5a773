#!/usr/bin/env bash
# Rung 28 evidence: the bandwidth probe, then ncu (cold caches, clocks as set) on one launch of
# the decode kernel per shape.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/z2; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF -DGEMMLAB_BUILD_TESTS=OFF"
cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j16 --target gemmlab_cli > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
timeout 60 $G probe bandwidth > $OUT/probe-bandwidth.log 2>&1; echo "probe exit $?"; grep -iE "dram|->" $OUT/probe-bandwidth.log | head -8
for s in 1x2048x2048 1x4096x4096 16x4096x4096 1x14336x4096 16x8192x8192 16x14336x4096 1x8192x28672; do
timeout 60 ncu --clock-control none -k regex:'mma_k_contiguous' -c 1 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread \
  $G bench --kernels decode --dtype bf16 --layout row --op nt --shapes $s --reps 1 --min-time 0 > $OUT/ncu-$s.log 2>&1; echo "ncu $s exit $?"; grep -E "gpu__time|dram__|warps_active|launch__" $OUT/ncu-$s.log | awk '{print $1, $(NF-1), $NF}' | tr '\n' ';'; echo
done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf z2.tgz *.log && rm -f *.log
