#!/usr/bin/env bash
# ncu on FP8 (rung 29), INT8 (rung 30) and cuBLASLt's FP8 at 4096^3: what limits rung 29.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/p2; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
if [ ! -x $G ]; then
cmake -S tree -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps \
  -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF -DGEMMLAB_BUILD_TESTS=OFF > $OUT/cfg.log 2>&1
cmake --build $B -j16 --target gemmlab_cli > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
fi
S="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats"
M="--metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_pipe_uniform.sum"
for d in fp8 int8; do
  timeout 120 ncu --clock-control none -k regex:warp_specialized_kernel -c 1 $S $M $G bench --dtype $d --sizes 4096 > $OUT/ncu-$d.log 2>&1; echo "ncu $d exit $?"
done
timeout 120 ncu --clock-control none -k regex:sm90 -c 1 $S $M $G bench --dtype fp8 --sizes 4096 > $OUT/ncu-lt-fp8.log 2>&1; echo "ncu lt exit $?"
for f in $OUT/ncu-*.log; do echo "== $f"; grep -E "^  [a-z_0-9]+.*\(|Duration|Tensor|gmma|Throughput|Shared|Stall|Registers|Block Size|Grid Size|Issue|Eligible|Active Warps|smsp__|l1tex__|sm__pipe|Cluster" $f | sed 's/  */ /g' | cut -c1-140 | head -40; done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf n2.tgz *.log && rm -f *.log
