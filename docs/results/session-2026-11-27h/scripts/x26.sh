#!/usr/bin/env bash
# Build afbd4fc (packed): tune --explain on the LLM set's weak prefill rows (warm), and ncu on
# rung 28 against cuBLAS at 8-16 tokens, warm (no cache control) and cold (flushed).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
M=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed
for s in 16x4608x3584 16x8192x28672 8x4608x3584; do
for cc in none all; do
timeout 60 ncu --clock-control none --cache-control $cc -k regex:'nvjet|mma_k_contiguous|sum_slices|gemv|gemm' --metrics $M --csv $G bench --kernels cublas,decode --dtype bf16 --layout row --shapes $s --op nt --reps 3 --min-time 0 > $OUT/ncu-$s-$cc.csv 2> $OUT/ncu-$s-$cc.err; echo "ncu $s $cc exit $? at $((SECONDS-t0)) s"
done; done
S=128x8192x2048,128x4608x3584,128x6144x4096,64x18944x3584,64x4096x4096,512x4608x3584,512x3072x2048,512x3584x18944,512x10240x8192
timeout 300 $G tune --explain $S --op nt --layout row --dtype bf16 > $OUT/explain.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|auto \(|fastest" $OUT/explain.txt
echo "total $((SECONDS-t0)) s"
