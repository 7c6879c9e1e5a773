#!/usr/bin/env bash
# Session 2026-11-29l, call 3: l3 = l2 + the split's tiles copied by cp.async into a ring of four (float's narrow
# split at three blocks per SM), double's reconstruction asking needs_native per element again.
# l1 = 7cd8796 beside it, as in l2.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for N in l1 l3; do mkdir -p build/run/$N && tar -C build/run/$N -xJf build/$N.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); l1=$(head -1 build/run/l1/COMMIT) l3=$(head -1 build/run/l3/COMMIT)"
B=$PWD/build/run/l3
LD_LIBRARY_PATH=$B $B/tests/test_ozaki > $OUT/test_ozaki.log 2>&1; echo "test_ozaki exit $?: $(tail -1 $OUT/test_ozaki.log)"
LD_LIBRARY_PATH=$B timeout 200 $B/tests/test_ozaki_gpu > $OUT/test_ozaki_gpu.log 2>&1; echo "test_ozaki_gpu exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_ozaki_gpu.log | tr '\n' ' ') at $((SECONDS-t0)) s"
grep -E "FAILED|Failure" $OUT/test_ozaki_gpu.log | head -8
LD_LIBRARY_PATH=$B timeout 90 compute-sanitizer --tool memcheck $B/tests/test_ozaki_gpu --gtest_filter='*EveryOpLayout*:*KOfOne*:*WideRange*:*CallersModulus*:*Adversarial*' > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $OUT/memcheck.log | tr '\n' ' ') at $((SECONDS-t0)) s"
for r in 1 2 3; do for N in l1 l3; do B=$PWD/build/run/$N
LD_LIBRARY_PATH=$B timeout 40 $B/gemmlab bench --dtype f32 --sizes 8192 --kernels cublas,int8_emulation > $OUT/bench-f32-8192-$N-$r.log 2>&1; echo "$N f32 8192 #$r exit $?: $(grep -E '^(0|31) ' $OUT/bench-f32-8192-$N-$r.log | awk '{print $4, $7}' | tr '\n' ' ')"
done; done
for N in l1 l3; do B=$PWD/build/run/$N
LD_LIBRARY_PATH=$B timeout 90 $B/gemmlab bench --dtype f64,f32 --sizes 4096,8192 --kernels cublas,int8_emulation > $OUT/bench-4096-$N.log 2>&1; echo "$N 4096 exit $?: $(grep -E '^f|^(0|31) ' $OUT/bench-4096-$N.log | awk '{print $1, $4, $7}' | tr '\n' ' ')"
done
for N in l1 l3; do B=$PWD/build/run/$N; mkdir -p $OUT/ncu-$N
for c in "f32 8192" "f64 4096"; do set -- $c
  LD_LIBRARY_PATH=$B timeout 40 ncu --clock-control none --metrics gpu__time_duration.sum --csv -k 'regex:split_kernel|row_range|row_scale|warp_specialized|pingpong|reconstruct|native_kernel' $B/gemmlab bench --kernels int8_emulation --dtype $1 --sizes $2 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-$N/ncu-$1-$2.csv 2>&1
done; echo "ncu $N: $(python3 docs/results/session-2026-11-28f/scripts/ncu-split.py $OUT/ncu-$N 2>&1 | tr '\n' ' ') at $((SECONDS-t0)) s"; done
B=$PWD/build/run/l3
M=sass__inst_executed_per_opcode,gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,sm__warps_active.avg.pct_of_peak_sustained_active
for k in split_kernel reconstruct_kernel; do
LD_LIBRARY_PATH=$B timeout 60 ncu --clock-control none -k "regex:$k" -c 1 --metrics $M --print-metric-instances details $B/gemmlab bench --kernels int8_emulation --dtype f32 --sizes 8192 --reps 1 --min-time 0 --seed 5 > $OUT/ncu-l3-$k.txt 2>&1
echo "$k exit $?: $(grep -E 'duration|issue_active|inst_executed.sum|warps_active|dram' $OUT/ncu-l3-$k.txt | awk '{print $1, $NF}' | tr '\n' ' ')"
grep -A12 "per_opcode" $OUT/ncu-l3-$k.txt | tr -s ' ' | tr '\n' ' ' | cut -c1-900; echo
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
