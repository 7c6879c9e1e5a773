#!/usr/bin/env bash
# Rung 23 (2-block cluster, B multicast, non-persistent) against 22 and 24 on medium squares and
# prefill layers, and how close each is to the L2's bandwidth (ncu).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
S=1000x1000x1000,1024x1024x1024,1536x1536x1536,2048x2048x2048,3000x3000x3000,3072x3072x3072,512x4608x3584,512x6144x4096,2048x4608x3584,6144x1536x2048
timeout 200 $G bench --kernels cublas,22,23,24,auto --dtype bf16 --shapes $S --op nn,nt --min-time 60 > $OUT/bench.txt 2>&1; echo "bench exit $? at $((SECONDS-t0)) s"
for s in 1536x1536x1536 3000x3000x3000; do
timeout 90 ncu --clock-control none -k regex:'nvjet|warp_specialized|cluster|persistent' --metrics gpu__time_duration.sum,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_y,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_bytes.sum.per_second,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed --csv $G bench --kernels cublas,22,23,24 --dtype bf16 --shapes $s --op nn --reps 1 --min-time 0 > $OUT/ncu-$s.csv 2> $OUT/ncu-$s.err; echo "ncu $s exit $? at $((SECONDS-t0)) s"
done
echo "total $((SECONDS-t0)) s"
