#!/usr/bin/env bash
# Build 2c699a7 (packed): ncu of cuBLAS and auto on 64-512-token prefill rows (warm: no cache
# control): kernel, grid, time, L2 sectors read, L2 and DRAM throughput, tensor pipes.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__cluster_size,dram__bytes_read.sum,lts__t_sectors_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed
for s in 128x8192x2048 128x4608x3584 64x18944x3584 512x4608x3584 16x4608x3584; do
for cc in none all; do
timeout 60 ncu --clock-control none --cache-control $cc -k regex:'nvjet|warp_specialized|mma_k|sum_slices|gemm|splitK|reduce' --metrics $M --csv $G bench --kernels cublas,auto --dtype bf16 --layout row --shapes $s --op nt --reps 2 --min-time 0 > $OUT/ncu-$s-$cc.csv 2>/dev/null; echo "ncu $s $cc exit $? at $((SECONDS-t0)) s"
done; done
echo "total $((SECONDS-t0)) s"
