#!/usr/bin/env bash
# Session 2026-11-29s, call 3, one H200: the build of call 2. Why rung 15's tiles trail cuBLAS's
# of the same shape at 512^3 (s2: 32 x 64 x 32 in 3 stages, 2 x 2 warps, m16n8k16: 15.1 us
# against 10.3): ncu's warp states, instruction mix, shared-memory bank conflicts and pipe use
# for cuBLAS's kernel, that tile and auto's pick (32 x 32 x 32), and at 1000^3 for cuBLAS's
# 128 x 64 x 32 and the rotating 128 x 64 x 16 of eight warps.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
S="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section SchedulerStats"
for case in "512x512x512:dmma 32x64x32 w16x32 s3 k16" "512x512x512:dmma 32x32x32 w16x16 s5 k16" "1000x1000x1000:dmma 128x64x16 w32x32 s4 k8 rotating" "1000x1000x1000:dmma 64x64x16 w32x16 s4 k8 rotating"; do
  s=${case%%:*}; c=${case#*:}; tag=$(echo "$s-$c" | tr ' ' '_')
  timeout 120 ncu --clock-control none -k regex:"xmma|mma_gemm_kernel" --launch-count 12 $S --metrics sass__inst_executed_per_opcode,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum --print-metric-instances values $B/gemmlab_tile_sweep --shapes $s --op nn --reps 1 --only "$c" > $OUT/ncu-$tag.txt 2>&1; echo "ncu $tag exit $? at $((SECONDS-t0)) s"
  grep -E "^  [a-z_]|sass__inst|bank_conflicts|wavefronts|Duration|Registers Per|Shared Memory Config|Stall [A-Z]|Warp Cycles Per Issued|Issued Warp Per|No Eligible|Active Warps Per|Bank Conflicts|Executed Ipc A|Issue Slots Busy|LDS|DMMA" $OUT/ncu-$tag.txt | head -30 | cut -c1-160
done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
