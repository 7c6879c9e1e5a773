#!/usr/bin/env bash
# Session 2026-11-29l, call 1: l1 = 7cd8796 (the session's start). Where float's split and
# reconstruction spend their instructions at 8192^3 now: ncu's opcode counts, pipes and warp states
# of one split_kernel<float, narrow> and one reconstruct_kernel<float, 8>, and their SASS.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
N=l1
mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $N=$(head -1 build/run/$N/COMMIT)"
B=$PWD/build/run/$N; export LD_LIBRARY_PATH=$B
M=sass__inst_executed_per_opcode,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,sm__warps_active.avg.pct_of_peak_sustained_active
for k in split_kernel reconstruct_kernel; do
timeout 90 ncu --clock-control none -k "regex:$k" -c 1 --metrics $M $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$k.txt 2>&1
echo "$k exit $? at $((SECONDS-t0)) s"; grep -vE "^==PROF==|^ *$" $OUT/ncu-$k.txt | grep -E "duration|issue_active|inst_executed.sum|pipe_|dram|stalled|warps_active" | sed 's/  */ /g' | cut -c1-150
python3 - $OUT/ncu-$k.txt <<'PY'
import re,sys
t=open(sys.argv[1]).read()
pairs=re.findall(r'\(?([A-Z][A-Z0-9_.]+): ([0-9,]+)[;)]', t)
tot=sum(float(v.replace(',','')) for _,v in pairs)
print('opcodes total', f'{tot:.4g}', ' '.join(f'{k}={float(v.replace(",",""))/tot*100:.1f}%' for k,v in sorted(pairs,key=lambda p:-float(p[1].replace(',','')))[:30]))
PY
done
for f in _ZN7gemmlab6detail5ozaki12split_kernelIfLb1EEEvPKT_lbllliiPalNS1_15MagnitudeSampleEPNS1_8RowRangeEPd _ZN7gemmlab6detail5ozaki18reconstruct_kernelIfLi8EEEvllT_S3_PS3_lNS1_10NativeRuleEbPKhNS1_13ResidueLayoutEPilPKNS1_8RowScaleESC_NS1_10NativeListE; do
  n=$(echo $f | grep -o "split_kernel\|reconstruct_kernel")
  cuobjdump -sass -fun "$f" build/l1.o > $OUT/sass-$n.txt 2>&1; echo "$n: $(wc -l < $OUT/sass-$n.txt) lines"
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
