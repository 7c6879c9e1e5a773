#!/usr/bin/env bash
# Session 2026-11-29q, one H200: the packed build of build/carry.commit. The BF16 medium squares
# (1024 x 1024 x 1024-8192, 2048^3) beside cuBLAS, and ncu on both libraries' kernels at
# 1024 x 1024 x 8192 nt: grid, cluster, tensor-pipe use and stalls.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(date -u); build $(cat build/carry.commit)"
timeout 120 $B/gemmlab bench --dtype bf16 --kernels cublas,auto --layout row --op nt,nn --shapes 1024x1024x8192,1024x1024x4096,1024x1024x1024,2048x2048x2048 > $OUT/medium.log 2>&1; echo "medium exit $?"
awk '/^bf16 row/{op=$3; sh=$4} /^0   cublas/{c=$4} /^-   auto/{printf "%s %s cublas %s ms auto %s ms %s%%\n", op, sh, c, $4, $7}' $OUT/medium.log
mkdir -p $OUT/ncu
M=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum,gpu__time_duration.sum,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_y,launch__block_size,launch__shared_mem_per_block_dynamic,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,dram__bytes_read.sum,sm__cycles_active.avg,smsp__cycles_active.avg.pct_of_peak_sustained_elapsed
for sh in 1024x1024x8192 1024x1024x1024; do
timeout 120 ncu --clock-control none -k 'regex:nvjet|sm90|xmma|cutlass|warp_specialized|gemm' -c 2 --section SpeedOfLight --metrics $M $B/gemmlab bench --kernels cublas,auto --dtype bf16 --shapes $sh --op nt --reps 1 --min-time 0 > $OUT/ncu/$sh.log 2>&1; echo "ncu $sh exit $?"
grep -E "^  [a-zA-Z_].*\(|launch__|hmma_cycles|gmma.sum|time_duration|stalled|warps_active|cycles_active|Compute \(SM\) Throughput|DRAM Throughput|dram__bytes" $OUT/ncu/$sh.log | cut -c1-170 | head -44
done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
