#!/usr/bin/env bash
# Session 2026-11-28b, call 8: where rung 29's warps wait, for the next step: ncu's warp-state
# breakdown and source counters (stall reasons by instruction) for rung 29 per-tensor and
# cuBLASLt's FP8 kernel at 4096^3, the submitted build (fin2).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p .ab/run/fin2 && tar -C .ab/run/fin2 -xJf .ab/fin2.txz
B=$PWD/.ab/run/fin2/bin; export LD_LIBRARY_PATH=$B
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u)"
S="--section WarpStateStats --section SourceCounters --print-details all"
timeout 90 ncu --clock-control none -k regex:warp_specialized_kernel -c 1 $S $B/gemmlab bench --dtype fp8 --sizes 4096 > $OUT/ncu-stalls-fp8.log 2>&1; echo "ncu fp8 exit $? at $((SECONDS-t0)) s"
timeout 90 ncu --clock-control none -k regex:nvjet -c 1 $S $B/gemmlab bench --dtype fp8 --sizes 4096 > $OUT/ncu-stalls-lt.log 2>&1; echo "ncu lt exit $? at $((SECONDS-t0)) s"
for f in $OUT/ncu-stalls-*.log; do echo "== $(basename $f)"; grep -E "Stall|stall|Warp Cycles Per Issued|Issued Warp" $f | sed 's/  */ /g' | cut -c1-140 | head -30; done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
