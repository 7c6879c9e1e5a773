#!/usr/bin/env bash
# Build 9e42722 (packed): ncu of cuBLAS, rung 24 (128 x 256) and auto (192-row tiles) at 3000^3
# (192 x 192), 1536^3 (192 x 128) and 2048 x 4608 x 3584 nt (192 x 192): time, grid, tensor
# pipes, L2 and DRAM.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
for s in 3000x3000x3000:nn 1536x1536x1536:nn 2048x4608x3584:nt; do
timeout 90 ncu --clock-control none -k regex:'nvjet|warp_specialized' --metrics $M --csv $G bench --kernels cublas,24,auto --dtype bf16 --layout row --shapes ${s%%:*} --op ${s##*:} --reps 3 --min-time 0 > $OUT/ncu-${s%%:*}.csv 2> $OUT/ncu-${s%%:*}.err; echo "ncu $s exit $? at $((SECONDS-t0)) s"
done
echo "total $((SECONDS-t0)) s"
