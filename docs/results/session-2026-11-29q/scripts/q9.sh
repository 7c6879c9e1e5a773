#!/usr/bin/env bash
# Session 2026-11-29q, one H200: the packed build of build/carry.commit plus a 64 x 128 tile of
# rung 24 (one consumer warpgroup, m64n128k16) and rung 24's medium tiles in the tile sweep.
# The sweep on BF16 medium shapes beside cuBLAS, then ncu on 64 x 128 and 128 x 64 one block per
# tile at 1024 x 1024 x 8192 nt.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); $(date -u); build $(cat build/carry.commit)"
SH=1024x1024x8192,1024x1024x4096,1024x1024x1024,1000x1000x1000,2048x1024x4096,768x768x768,1536x1536x1536,2048x2048x2048
for o in persistent cluster_split; do
  timeout 200 $B/gemmlab_tile_sweep --shapes $SH --op nt,nn --reps 20 --only $o > $OUT/sweep-$o.log 2>&1; echo "sweep $o exit $? at $((SECONDS-t0)) s"
done
grep -hE "^bf16|cublas|persistent|cluster_split" $OUT/sweep-persistent.log $OUT/sweep-cluster_split.log | head -90
mkdir -p $OUT/ncu
M=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum,gpu__time_duration.sum,sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__t_bytes.sum,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
for c in "cluster_split 64x128" "cluster_split 128x64"; do
  timeout 60 ncu --clock-control none -k regex:warp_specialized -c 1 --section SpeedOfLight --metrics $M $B/gemmlab_tile_sweep --shapes 1024x1024x8192 --op nt --reps 1 --only "$c" > "$OUT/ncu/${c// /-}.log" 2>&1; echo "ncu $c exit $?"
  grep -E "hmma_cycles|gmma.sum|time_duration|shared_cycles|wavefronts|lts__t_bytes|stalled|Compute \(SM\) Throughput|L2 Cache Throughput" "$OUT/ncu/${c// /-}.log" | head -12
done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
