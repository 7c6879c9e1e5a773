#!/usr/bin/env bash
# Session 2026-11-28g, call 1: where rung 31's double 4096^3 time goes beyond its kernels, and
# why its split and reconstruction kernels issue below one instruction per cycle. On g0 (the
# build of bac308e, the f8 tree): the SM clock and power sampled by nvidia-smi while rung 31
# and cuBLAS DGEMM run alone in turn; the stall reasons and pipe use of split_kernel and
# reconstruct_kernel under ncu.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p build/run/g0 && tar -C build/run/g0 -xJf build/g0.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); g0=$(cat build/run/g0/COMMIT | tr '\n' ' ')"
B=$PWD/build/run/g0; export LD_LIBRARY_PATH=$B
for k in cublas int8_emulation cublas int8_emulation; do
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 20 > $OUT/smi-$k.csv 2>&1 &
  P=$!; sleep 0.5
  $B/gemmlab bench --kernels $k --dtype f64 --sizes 4096 --reps 200 --min-time 3000 --seed 5 > $OUT/bench-$k.log 2>&1
  kill $P; wait $P 2>/dev/null
  echo "$k: $(grep -E '^ *[0-9]+ +[a-z]' $OUT/bench-$k.log | head -1 | cut -c1-80)"
  python3 - $OUT/smi-$k.csv <<'PY'
import sys, statistics as st
rows = [l.split(', ') for l in open(sys.argv[1]) if l.count(',') >= 5]
clk = [float(r[1].split()[0]) for r in rows if 'MHz' in r[1]]
pw = [float(r[3].split()[0]) for r in rows if 'W' in r[3]]
hot = [c for c, p in zip(clk, pw) if p > 200]
print(f"  samples {len(clk)}; busy (>200 W) {len(hot)}: SM clock median {st.median(hot) if hot else 0:.0f} MHz "
      f"(min {min(hot) if hot else 0:.0f}), power median {st.median([p for p in pw if p > 200]) if hot else 0:.0f} W; "
      f"reasons {sorted(set(r[5].strip() for r in rows))[:4]}")
PY
done
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,launch__registers_per_thread'
timeout 200 ncu --clock-control none --metrics "$M" -k 'regex:split_kernel|reconstruct' -c 3 $B/gemmlab bench --kernels int8_emulation --dtype f64 --sizes 4096 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-stalls-f64-4096.log 2>&1
echo "ncu exit $? at $((SECONDS-t0)) s"
python3 - $OUT/ncu-stalls-f64-4096.log <<'PY'
import sys, re
name = None
for l in open(sys.argv[1]):
    if re.match(r'^  [a-z_ ].*\(', l): name = l.split('(')[0].strip()[:40]; print(name); continue
    m = re.match(r'^\s+(\S+)\s+(\S*)\s+([\d.,]+)$', l)
    if m and name:
        v = float(m.group(3).replace(',', ''))
        if ('stalled' in m.group(1) and v >= 0.1) or ('pipe' in m.group(1) and v >= 3) or 'stalled' not in m.group(1) and 'pipe' not in m.group(1):
            print(f"   {m.group(1).replace('smsp__average_warps_issue_stalled_','stall:').replace('_per_issue_active.ratio','').replace('sm__inst_executed_pipe_','pipe:').replace('.avg.pct_of_peak_sustained_active','%')} {v}")
PY
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
