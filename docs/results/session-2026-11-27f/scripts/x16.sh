#!/usr/bin/env bash
# ncu of the 64x64 tile against cuBLAS at 64^3 x 1024 and 64 x 4608 x 3584 (nt, row-major).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
for s in 64x64x64@1024 64x4608x3584; do
timeout 60 ncu --clock-control none -k regex:'nvjet|warp_specialized' --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed --csv $G bench --kernels cublas,auto --dtype bf16 --shapes $s --op nt --reps 1 --min-time 0 > $OUT/ncu-${s/@/-b}.csv 2>&1; echo "ncu $s exit $?"
done
