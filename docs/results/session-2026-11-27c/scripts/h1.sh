#!/usr/bin/env bash
# Profile 64x64x64 x 1024 bf16 (the batched set's worst row): rung 27, rung 19, cuBLAS; bench warm.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xzf bin.tgz && export LD_LIBRARY_PATH=$PWD/bin:$LD_LIBRARY_PATH
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u)"
S=64x64x64@1024
stdbuf -oL $G bench --dtype bf16 --kernels cublas,small,mma_sync_f16,auto --layout row --op nt --shapes $S,128x128x64@512,64x64x128@1024,32x32x128@4096 > $OUT/bench.txt 2>&1; echo "bench exit $?"
grep -E "x.*@" $OUT/bench.txt | head -30
for k in small_mma mma_sync cutlass; do
timeout 90 ncu --clock-control none -k regex:$k --launch-skip 3 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section SchedulerStats $G bench --dtype bf16 --kernels cublas,small,mma_sync_f16 --layout row --op nt --shapes $S --reps 3 --min-time 0 > $OUT/ncu-$k.txt 2>&1; echo "ncu $k exit $?"
grep -E "^  [a-z_].*\(|Duration|Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|L2 Hit|Grid Size|Shared Memory Config" $OUT/ncu-$k.txt | head -40
done
