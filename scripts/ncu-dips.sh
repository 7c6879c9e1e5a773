#!/usr/bin/env bash
# The counters behind the places where a rung is slower than the one before it (docs/ladder.md):
# one profiled launch (the bench's check run) of each named rung, f32 row-major nn, at SIZE.
# usage: scripts/ncu-dips.sh GEMMLAB SIZE RUNG...
set -euo pipefail
gemmlab=$1 size=$2
shift 2
metrics=launch__registers_per_thread,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
for k in "$@"; do
  echo "== ncu: rung $k, first launch (the check run), ${size}^3 f32 row-major nn"
  ncu --clock-control none -k regex:"${k}_kernel" -c 1 --metrics "$metrics" \
    "$gemmlab" bench --kernels "$k" --sizes "$size" --reps 1 --min-time 0 2>&1 | grep -vE '^==(PROF|WARNING)' | grep -E '^==|^ +[a-z]' || true
done
